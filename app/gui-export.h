/* gui-export.h — "Export Figure…": asks for a file (PNG at 1×, 2× or 4×, SVG or PDF) and writes
 * the page's figure there through ui/render's figure export, the drawing the page shows. */
#pragma once

#include "attnscope-window.h"

G_BEGIN_DECLS

/* Exports PAGE's figure from WINDOW; a toast reports the path or the error. */
void gui_export_run (AttnscopeWindow *window, AttnscopePage *page);

/* Writes PAGE's current figure to PATH at SCALE (the format from the extension). Shows the
 * toast; returns FALSE with ERROR on failure. */
gboolean gui_export_write (AttnscopeWindow *window, AttnscopePage *page, const char *path,
                           double scale, GError **error);

G_END_DECLS
