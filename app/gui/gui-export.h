/* gui-export.h — the window's figure export: the write behind the export dialog
 * (attnscope-export-dialog.h) and the command that reproduces it. A page builds its figure for
 * the view the dialog asks for (the page's own view with the dialog's colour scale, labels and
 * outline) through the same ui/render builder it draws with, and ui/render's figure export
 * writes it at the chosen size, text size and resolution; beside it, on request, a sidecar
 * (export-sidecar.h) with the `attnscope export` command that writes the same file. */
#pragma once

#include "attnscope-window.h"
#include "figure-export.h"

G_BEGIN_DECLS

/* Writes PAGE's figure for VIEW with OPTIONS to PATH (the format from the extension); with
 * SIDECAR also the sidecar, whose weight-file hash is computed in a task (the file follows
 * shortly; a failure there shows an error). Shows a toast; returns FALSE with ERROR on failure
 * (among them: the figure is still being computed). */
gboolean gui_export_write_full (AttnscopeWindow *window, AttnscopePage *page, const char *path,
                                const ArViewSelection *view, const ArExportOptions *options,
                                gboolean sidecar, GError **error);

/* Writes PAGE's figure as it is shown, at its natural size, the PNG at SCALE; no sidecar. */
gboolean gui_export_write (AttnscopeWindow *window, AttnscopePage *page, const char *path,
                           double scale, GError **error);

/* The `attnscope export` command (argv[0] = "attnscope") that writes PAGE's figure for VIEW and
 * OPTIONS to FILE. NULL-terminated; free with g_strfreev. */
char **gui_export_dup_command (AttnscopeWindow *window, AttnscopePage *page,
                               const ArViewSelection *view, const ArExportOptions *options,
                               const char *file);

G_END_DECLS
