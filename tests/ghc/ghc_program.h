/* A real GHC test program (Shapes.hs with the stub) started as a child
 * process on a private socket, for the ghc test suite. */
#ifndef HEAPSCOPE_TESTS_GHC_PROGRAM_H
#define HEAPSCOPE_TESTS_GHC_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct ghc_program {
    pid_t pid;
    int stdin_fd;     /* closing it makes the program end */
    char dir[256];    /* private directory: socket and stderr log */
    char socket[320];
    char log[320];
} ghc_program;

/* Starts exe with GHC_DEBUG_SOCKET in a fresh directory and extra
 * arguments (NULL-terminated, may be NULL), and waits until the socket
 * accepts connections (the program opens it once its heap is built). */
bool ghc_program_start(const char *exe, const char *const *args, ghc_program *p, char *why,
                       size_t cap);
/* Closes its stdin and waits for it to exit (killing it after a while).
 * True when it exited by itself with status 0 and removed its socket. */
bool ghc_program_stop(ghc_program *p, char *why, size_t cap);
/* Copies the program's stderr to our stderr (for failed tests). */
void ghc_program_dump_log(const ghc_program *p);

#endif
