#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapscope/cli.h"
#include "heapscope/interrupt.h"
#include "heapscope/plural.h"
#include "heapscope/query.h"
#include "text_safe.h"

/* Control characters (C0, DEL, C1) as \u00XX escapes, so that the JSON
 * shown on a terminal drives nothing and reads back as the same string; a
 * byte that is not UTF-8 as U+FFFD (JSON text is UTF-8). */
void cli_json_string(FILE *out, const char *s) {
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        int len = cli_utf8_decode(p + i, n - i, &cp);
        if (len <= 0) {
            fputs("\\ufffd", out);
            i++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
                fprintf(out, "\\u%04x", (unsigned)cp);
            else
                fwrite(p + i, 1, (size_t)len, out); /* UTF-8 passes through */
        }
        i += (size_t)len;
    }
    fputc('"', out);
}

void cli_ghc_version_text(const wire_version *v, char *buf, size_t cap) {
    snprintf(buf, cap, "%u.%u.%u", v->major / 100, v->major % 100, v->patch);
}

const char *cli_prof_mode_name(uint8_t mode) {
    static const char *const names[] = {"none", "profiled", "retainer", "ldv", "era", "other"};
    return mode < sizeof names / sizeof names[0] ? names[mode] : "invalid";
}

void cli_note_unreadable(const query_unreadable *u) {
    if (u->count)
        fprintf(stderr, "heapscope: %" PRIu64 " %s could not be read and %s left out (the "
                        "first: %s)\n",
                u->count, hs_plural(u->count, "closure", "closures"),
                hs_plural(u->count, "was", "were"), u->problem);
}

void cli_json_unreadable(FILE *out, const query_unreadable *u) {
    fprintf(out, "{\"count\": %" PRIu64 ", \"first\": ", u->count);
    if (u->count) {
        fprintf(out, "\"0x%" PRIx64 "\", \"problem\": ", u->first);
        cli_json_string(out, u->problem);
        fputc('}', out);
    } else {
        fputs("null, \"problem\": null}", out);
    }
}

int cli_report(const hs_error *err) {
    if (err->status == HS_ERR_CANCELLED && (hs_interrupt_signal() || cli_output_failed()))
        return 1; /* the exit line says it */
    fprintf(stderr, "heapscope: %s\n", err->message[0] ? err->message : hs_status_name(err->status));
    return 1;
}

/* Why standard output first failed. glibc drops what a failed write could
 * not write, so a flush at the end may have nothing left to fail on: the
 * errno is taken where the failure is first seen. */
static int output_errno;

void cli_flush_output(void) {
    errno = 0;
    if (fflush(stdout) != 0 && !output_errno)
        output_errno = errno;
}

/* Writes all of buf to fd, noting why standard output failed; false once
 * it failed or a quit signal came. */
static bool write_all(int fd, const char *buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        if (fd == STDOUT_FILENO && hs_interrupt_signal()) {
            /* the command ends: its output too, at once (its messages,
             * such as the line that says so, still go out) */
            if (!output_errno)
                output_errno = EINTR;
            return false;
        }
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0 && errno == EINTR && (fd != STDOUT_FILENO || !hs_interrupt_signal()))
            continue; /* a signal that does not end heapscope, or a message */
        if (w <= 0) {
            if (fd == STDOUT_FILENO && !output_errno)
                output_errno = w < 0 ? errno : EIO;
            return false;
        }
        done += (size_t)w;
    }
    return true;
}

/* Every byte of a command's output and messages passes here: text from
 * outside (a label, a source location, a socket's name) cannot reach the
 * terminal as escape sequences whichever printer wrote it (text_safe.h). */
static cli_safe_stream safe_out, safe_err;

/* Writes of a filtered stream (cookie: its fd), noting why standard output
 * first failed at once: errno read later may be a socket's EAGAIN. A cookie
 * stream's write returns 0, never -1, on an error. */
static ssize_t write_safe(void *cookie, const char *buf, size_t n) {
    int fd = (int)(intptr_t)cookie;
    cli_safe_stream *s = fd == STDOUT_FILENO ? &safe_out : &safe_err;
    /* one piece per buffer flush: a write(2) per BUFSIZ of output, as
     * before the filter, not one per KiB */
    enum { PIECE = BUFSIZ };
    char safe[CLI_SAFE_OUT_MAX(PIECE)];
    size_t done = 0;
    while (done < n) {
        size_t k = n - done < PIECE ? n - done : PIECE;
        if (!write_all(fd, safe, cli_safe_piece(s, buf + done, k, safe)))
            break;
        done += k;
    }
    return (ssize_t)done;
}

/* A sequence cut at the very end of the output: its bytes, escaped. */
static void write_held(int fd) {
    char safe[CLI_SAFE_OUT_MAX(4)];
    size_t n = cli_safe_end(fd == STDOUT_FILENO ? &safe_out : &safe_err, safe);
    if (n)
        write_all(fd, safe, n);
}

static FILE *raw_stderr;

FILE *cli_status_line(void) { return raw_stderr ? raw_stderr : stderr; }

void cli_messages_safe(void) {
    if (raw_stderr)
        return;
    FILE *f = fopencookie((void *)(intptr_t)STDERR_FILENO, "w",
                          (cookie_io_functions_t){.write = write_safe});
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    raw_stderr = stderr;
    stderr = f;
}

/* The first quit signal: standard output goes to /dev/null, so that a
 * write about to start cannot block on a reader that reads nothing (a
 * write already blocked returns EINTR: the handlers are installed without
 * SA_RESTART). Async-signal-safe: open, dup2, close. */
static void silence_output(void) {
    int saved = errno;
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        close(fd);
    }
    errno = saved;
}

void cli_output_note_errors(void) {
    hs_interrupt_set_first_words(silence_output);
    FILE *f = fopencookie((void *)(intptr_t)STDOUT_FILENO, "w",
                          (cookie_io_functions_t){.write = write_safe});
    if (!f)
        return; /* stdout as it is: errno read late may then be stale */
    setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = f;
}

bool cli_output_failed(void) {
    if (!ferror(stdout))
        return false;
    if (!output_errno)
        output_errno = errno;
    return true;
}

int cli_output_status(int rc) {
    cli_flush_output();
    if (!ferror(stdout))
        write_held(STDOUT_FILENO);
    write_held(STDERR_FILENO);
    if (!ferror(stdout))
        return rc;
    int e = output_errno;
    struct stat sb;
    if (fstat(STDOUT_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)))
        e = EPIPE; /* the one way a pipe fails */
    if (e == EPIPE)
        return 128 + SIGPIPE;
    if (e)
        fprintf(stderr, "heapscope: cannot write the output: %s\n", strerror(e));
    else
        fputs("heapscope: cannot write the output\n", stderr);
    return rc ? rc : 1;
}
