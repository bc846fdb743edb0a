/* The overlays over the screen: the ? help (overlay_help.c) and the
 * Ctrl-P palette (overlay_palette.c). */
#ifndef HEAPSCOPE_TUI_OVERLAY_H
#define HEAPSCOPE_TUI_OVERLAY_H



typedef struct tui_app tui_app;

void tui_help_draw(tui_app *app);
void tui_help_key(tui_app *app, int key);
void tui_palette_open(tui_app *app);
void tui_palette_draw(tui_app *app);
void tui_palette_key(tui_app *app, int key);


void tui_cmd_help(tui_app *app, int arg);
void tui_cmd_palette(tui_app *app, int arg);

#endif
