/* attnscope-export-dialog.h — "Export Figure": the file (name, folder, format — the name's
 * extension follows the format), the size for an article (as on screen, one column of 85 mm,
 * two columns of 175 mm, or a width in mm or px), the text size in points, the PNG's resolution,
 * the colour scale, the token labels (thinned, all, one per word; with or without space marks),
 * the selected token's outline, the title and subtitle (on or off, editable) and the
 * reproduction sidecar, with a preview drawn by the very function that writes the file and a
 * line giving the physical and pixel size.
 *
 * The dialog remembers its folder and choices between exports (GSettings keys export-*, or in
 * memory when the schema is missing). Exporting writes through gui_export_write_full() and
 * closes the dialog. The setters below do what the controls do (for tests). */
#pragma once

#include "attnscope-window.h"
#include "figure-export.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_EXPORT_DIALOG (attnscope_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeExportDialog, attnscope_export_dialog, ATTNSCOPE, EXPORT_DIALOG,
                      AdwWindow)

/* The size choices, in the order of the dialog's list. */
typedef enum
{
  ATTNSCOPE_EXPORT_SIZE_SCREEN,
  ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN,
  ATTNSCOPE_EXPORT_SIZE_TWO_COLUMNS,
  ATTNSCOPE_EXPORT_SIZE_CUSTOM,
} AttnscopeExportSize;

AttnscopeExportDialog *attnscope_export_dialog_new (AttnscopeWindow *window, AttnscopePage *page);

void attnscope_export_dialog_set_format (AttnscopeExportDialog *self, ArExportFormat format);
void attnscope_export_dialog_set_folder (AttnscopeExportDialog *self, const char *folder);
void attnscope_export_dialog_set_name (AttnscopeExportDialog *self, const char *name);
const char *attnscope_export_dialog_get_name (AttnscopeExportDialog *self);
void attnscope_export_dialog_set_size (AttnscopeExportDialog *self, AttnscopeExportSize size);
/* A custom width (sets the size to custom). */
void attnscope_export_dialog_set_width (AttnscopeExportDialog *self, double width,
                                        ArWidthUnit unit);
void attnscope_export_dialog_set_font_size (AttnscopeExportDialog *self, double points);
void attnscope_export_dialog_set_dpi (AttnscopeExportDialog *self, double dpi);
void attnscope_export_dialog_set_sidecar (AttnscopeExportDialog *self, gboolean sidecar);

/* The colour scale choices, in the order of the dialog's list. */
typedef enum
{
  ATTNSCOPE_EXPORT_COLORS_VIEW,   /* as the view shows them */
  ATTNSCOPE_EXPORT_COLORS_FIXED,  /* 0 to 1 */
  ATTNSCOPE_EXPORT_COLORS_SHARED, /* the data's range, one for all panels */
  ATTNSCOPE_EXPORT_COLORS_EACH,   /* each panel or head its own range */
} AttnscopeExportColors;

void attnscope_export_dialog_set_colors (AttnscopeExportDialog *self, AttnscopeExportColors colors);
void attnscope_export_dialog_set_labels (AttnscopeExportDialog *self, ArLabelMode labels);
void attnscope_export_dialog_set_space_marks (AttnscopeExportDialog *self, gboolean marks);
void attnscope_export_dialog_set_titles (AttnscopeExportDialog *self, gboolean titles);
/* SVG only: the words as text an editor can change, not outlines. */
void attnscope_export_dialog_set_svg_text (AttnscopeExportDialog *self, gboolean svg_text);

/* The options and the view the export would use now. */
void attnscope_export_dialog_get_options (AttnscopeExportDialog *self, ArExportOptions *options);
void attnscope_export_dialog_get_view (AttnscopeExportDialog *self, ArViewSelection *view);

/* The path the export writes (folder and name). Newly allocated. */
char *attnscope_export_dialog_dup_path (AttnscopeExportDialog *self);

/* What the Export button does: writes the file (and sidecar), remembers the choices, closes the
 * dialog. FALSE with ERROR when nothing was written (the dialog stays open). */
gboolean attnscope_export_dialog_export (AttnscopeExportDialog *self, GError **error);

G_END_DECLS
