/* view.h: drawing the console (view.c, curses). */
#ifndef CT_TUI_VIEW_H
#define CT_TUI_VIEW_H

struct tui;

/* Draw the whole screen from t (header, panels, message, key bar), or
 * "needs 80x24, have WxH" when the terminal is smaller. Reads the model;
 * updates only t's layout fields (rows_visible, scroll, next_limit,
 * cols, lines). */
void view_draw(struct tui *t, double now);

#endif
