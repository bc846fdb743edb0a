/* file.c: snapshot files in the explorer (open one, save the pause). */
#ifndef HEAPSCOPE_TUI_FILE_H
#define HEAPSCOPE_TUI_FILE_H



typedef struct tui_app tui_app;

/* Opens the snapshot at path into its pause (read-only); name is what
 * messages call it. On failure a message, and the screen stays. */
void tui_explorer_open_file(tui_app *app, const char *path, const char *name);
/* The same once the session has the file open (a TARGET): on failure, the
 * picker with a message. */
void tui_explorer_show_file(tui_app *app, const char *name);
/* The Ctrl-X prompt was accepted; the answer to "replace it?". */
void tui_save_submit(tui_app *app);
void tui_save_answer(tui_app *app, int key);

void tui_cmd_save(tui_app *app, int arg);

#endif
