/* attnscope-export-dialog.c — the export dialog (see attnscope-export-dialog.h). Its choices live
 * in the controls; a preview figure is built for the dialog's view whenever a choice that changes
 * what is drawn changes, and drawn with ar_figure_draw_export (what the file will hold). */
#include "attnscope-export-dialog.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "gui-export.h"

/* The dialog's remembered choices: in GSettings (keys export-*), or here when the schema is
 * missing. */
typedef struct
{
  char *folder;
  ArExportFormat format;
  AttnscopeExportSize size;
  double width, font_size, dpi;
  ArWidthUnit unit;
  int colors, labels;
  gboolean marks, outline, titles, svg_text, sidecar;
} Choices;

static Choices memory = {
  .size = ATTNSCOPE_EXPORT_SIZE_SCREEN,
  .width = 85,
  .font_size = 12,
  .dpi = 144,
  .unit = AR_WIDTH_MM,
  .marks = TRUE,
  .outline = TRUE,
  .titles = TRUE,
  .sidecar = TRUE,
};

static const char *const format_names[] = { "png", "svg", "pdf", NULL };
static const char *const size_names[] = { "screen", "one-column", "two-columns", "custom", NULL };
static const char *const color_names[] = { "view", "fixed", "shared", "each", NULL };
static const char *const label_names[] = { "thinned", "all", "words", NULL };

struct _AttnscopeExportDialog
{
  AdwWindow parent_instance;

  AdwEntryRow *name_row;
  AdwActionRow *folder_row;
  AdwComboRow *format_row;
  AdwComboRow *size_row;
  AdwActionRow *width_row;
  GtkSpinButton *width_spin;
  GtkDropDown *unit_dropdown;
  GtkSpinButton *font_spin;
  AdwActionRow *dpi_row;
  GtkSpinButton *dpi_spin;
  AdwComboRow *colors_row;
  AdwComboRow *labels_row;
  GtkSwitch *marks_switch;
  GtkSwitch *outline_switch;
  GtkSwitch *titles_switch;
  AdwActionRow *svg_text_row;
  GtkSwitch *svg_text_switch;
  AdwEntryRow *title_row;
  AdwEntryRow *subtitle_row;
  GtkSwitch *sidecar_switch;
  GtkDrawingArea *preview;
  GtkLabel *summary_label;

  AttnscopeWindow *window; /* owned */
  AttnscopePage *page;     /* owned */
  GSettings *settings;     /* may be NULL */
  char *folder;
  ArBuiltFigure *figure; /* the preview's, for FIGURE_VIEW; NULL while computed */
  ArViewSelection figure_view;
  char *own_title, *own_subtitle; /* the figure's own, shown in the rows */
  gboolean syncing;               /* controls set from code, not by the user */
  gulong busy_handler;
};

G_DEFINE_FINAL_TYPE (AttnscopeExportDialog, attnscope_export_dialog, ADW_TYPE_WINDOW)

/* ---- choices ---- */

static int
name_index (const char *const *names, const char *name)
{
  for (int i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (names[i], name) == 0)
      return i;
  return 0;
}

static void
choices_load (Choices *c, GSettings *settings)
{
  *c = memory;
  if (settings == NULL)
    {
      c->folder = g_strdup (memory.folder);
      return;
    }
  c->folder = g_settings_get_string (settings, "export-folder");
  g_autofree char *format = g_settings_get_string (settings, "export-format");
  g_autofree char *size = g_settings_get_string (settings, "export-size");
  g_autofree char *unit = g_settings_get_string (settings, "export-width-unit");
  g_autofree char *colors = g_settings_get_string (settings, "export-colors");
  g_autofree char *labels = g_settings_get_string (settings, "export-labels");
  c->format = name_index (format_names, format);
  c->size = name_index (size_names, size);
  c->unit = g_strcmp0 (unit, "px") == 0 ? AR_WIDTH_PX : AR_WIDTH_MM;
  c->colors = name_index (color_names, colors);
  c->labels = name_index (label_names, labels);
  c->width = g_settings_get_double (settings, "export-width");
  c->font_size = g_settings_get_double (settings, "export-font-size");
  c->dpi = g_settings_get_double (settings, "export-dpi");
  c->marks = g_settings_get_boolean (settings, "export-space-marks");
  c->outline = g_settings_get_boolean (settings, "export-outline");
  c->titles = g_settings_get_boolean (settings, "export-titles");
  c->svg_text = g_settings_get_boolean (settings, "export-svg-text");
  c->sidecar = g_settings_get_boolean (settings, "export-sidecar");
}

static void
choices_save (const Choices *c, GSettings *settings)
{
  if (settings == NULL)
    {
      g_free (memory.folder);
      memory = *c;
      memory.folder = g_strdup (c->folder);
      return;
    }
  g_settings_delay (settings);
  g_settings_set_string (settings, "export-folder", c->folder != NULL ? c->folder : "");
  g_settings_set_string (settings, "export-format", format_names[c->format]);
  g_settings_set_string (settings, "export-size", size_names[c->size]);
  g_settings_set_string (settings, "export-width-unit", c->unit == AR_WIDTH_PX ? "px" : "mm");
  g_settings_set_string (settings, "export-colors", color_names[c->colors]);
  g_settings_set_string (settings, "export-labels", label_names[c->labels]);
  g_settings_set_double (settings, "export-width", c->width);
  g_settings_set_double (settings, "export-font-size", c->font_size);
  g_settings_set_double (settings, "export-dpi", c->dpi);
  g_settings_set_boolean (settings, "export-space-marks", c->marks);
  g_settings_set_boolean (settings, "export-outline", c->outline);
  g_settings_set_boolean (settings, "export-titles", c->titles);
  g_settings_set_boolean (settings, "export-svg-text", c->svg_text);
  g_settings_set_boolean (settings, "export-sidecar", c->sidecar);
  g_settings_apply (settings);
}

static void
current_choices (AttnscopeExportDialog *self, Choices *c)
{
  *c = (Choices){
    .folder = self->folder,
    .format = adw_combo_row_get_selected (self->format_row),
    .size = adw_combo_row_get_selected (self->size_row),
    .width = gtk_spin_button_get_value (self->width_spin),
    .unit = gtk_drop_down_get_selected (self->unit_dropdown) == 1 ? AR_WIDTH_PX : AR_WIDTH_MM,
    .font_size = gtk_spin_button_get_value (self->font_spin),
    .dpi = gtk_spin_button_get_value (self->dpi_spin),
    .colors = adw_combo_row_get_selected (self->colors_row),
    .labels = adw_combo_row_get_selected (self->labels_row),
    .marks = gtk_switch_get_active (self->marks_switch),
    .outline = gtk_switch_get_active (self->outline_switch),
    .titles = gtk_switch_get_active (self->titles_switch),
    .svg_text = gtk_switch_get_active (self->svg_text_switch),
    .sidecar = gtk_switch_get_active (self->sidecar_switch),
  };
}

/* ---- what the export would be ---- */

static ArExportFormat
current_format (AttnscopeExportDialog *self)
{
  return (ArExportFormat) adw_combo_row_get_selected (self->format_row);
}

void
attnscope_export_dialog_get_view (AttnscopeExportDialog *self, ArViewSelection *view)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  attnscope_page_get_selection (self->page, view);
  switch (adw_combo_row_get_selected (self->colors_row))
    {
    case 1:
      view->autoscale = view->autoscale_each = FALSE;
      break;
    case 2:
      view->autoscale = TRUE, view->autoscale_each = FALSE;
      break;
    case 3:
      view->autoscale = view->autoscale_each = TRUE;
      break;
    default:
      break;
    }
  view->labels = (ArLabelMode) adw_combo_row_get_selected (self->labels_row);
  view->no_space_marks = !gtk_switch_get_active (self->marks_switch);
  if (!gtk_switch_get_active (self->outline_switch))
    view->selected_token = -1;
}

/* TEXT when it differs from the figure's own OWN, else NULL. */
static const char *
edited (const char *text, const char *own)
{
  return g_strcmp0 (text, own != NULL ? own : "") != 0 ? text : NULL;
}

void
attnscope_export_dialog_get_options (AttnscopeExportDialog *self, ArExportOptions *o)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  ar_export_options_init (o);
  switch (adw_combo_row_get_selected (self->size_row))
    {
    case ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN:
    case ATTNSCOPE_EXPORT_SIZE_TWO_COLUMNS:
    case ATTNSCOPE_EXPORT_SIZE_CUSTOM:
      o->width_unit
          = gtk_drop_down_get_selected (self->unit_dropdown) == 1 ? AR_WIDTH_PX : AR_WIDTH_MM;
      o->width = gtk_spin_button_get_value (self->width_spin);
      /* a preset's figure fits on a page */
      if (adw_combo_row_get_selected (self->size_row) != ATTNSCOPE_EXPORT_SIZE_CUSTOM)
        o->max_height = AR_EXPORT_PAGE_HEIGHT_MM;
      break;
    default:
      break;
    }
  double font = gtk_spin_button_get_value (self->font_spin);
  o->font_size = font == 12 ? 0 : font;
  o->dpi = gtk_spin_button_get_value (self->dpi_spin);
  o->titles = gtk_switch_get_active (self->titles_switch);
  o->svg_text
      = current_format (self) == AR_EXPORT_SVG && gtk_switch_get_active (self->svg_text_switch);
  o->title = edited (gtk_editable_get_text (GTK_EDITABLE (self->title_row)), self->own_title);
  o->subtitle
      = edited (gtk_editable_get_text (GTK_EDITABLE (self->subtitle_row)), self->own_subtitle);
}

/* NAME with the extension of FORMAT: a figure extension it has (any case) is replaced, any other
 * dot is part of the name ("fig.v2" becomes "fig.v2.pdf"). */
static char *
name_for_format (const char *name, ArExportFormat format)
{
  const char *dot = strrchr (name, '.');
  ArExportFormat had;
  gsize stem = dot != NULL && dot != name && ar_export_format_from_path (name, &had, NULL)
                   ? (gsize) (dot - name)
                   : strlen (name);
  g_autofree char *base = g_strndup (name, stem);
  return g_strconcat (base, ar_export_format_extension (format), NULL);
}

char *
attnscope_export_dialog_dup_path (AttnscopeExportDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self), NULL);
  g_autofree char *name = name_for_format (gtk_editable_get_text (GTK_EDITABLE (self->name_row)),
                                           current_format (self));
  return g_build_filename (self->folder, name, NULL);
}

/* ---- preview and summary ---- */

/* The figure's own title and subtitle into the rows, unless the user edited them. */
static void
show_own_titles (AttnscopeExportDialog *self)
{
  const ArFigure *fig = ar_built_figure_get (self->figure);
  const char *title = NULL, *subtitle = NULL;
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      title = fig->heatmap->title, subtitle = fig->heatmap->subtitle;
      break;
    case AR_FIGURE_GRID:
      title = fig->grid->title, subtitle = fig->grid->subtitle;
      break;
    case AR_FIGURE_SCATTER:
      title = fig->scatter->title, subtitle = fig->scatter->subtitle;
      break;
    case AR_FIGURE_LINES:
      title = fig->lines->title, subtitle = fig->lines->subtitle;
      break;
    case AR_FIGURE_COMPARE:
      title = fig->compare->title, subtitle = fig->compare->subtitle;
      break;
    case AR_FIGURE_ALIGNMENT:
      title = fig->alignment->title, subtitle = fig->alignment->subtitle;
      break;
    }
  AdwEntryRow *rows[2] = { self->title_row, self->subtitle_row };
  char **owns[2] = { &self->own_title, &self->own_subtitle };
  const char *texts[2] = { title, subtitle };
  self->syncing = TRUE;
  for (int k = 0; k < 2; k++)
    {
      const char *now = gtk_editable_get_text (GTK_EDITABLE (rows[k]));
      if (g_strcmp0 (now, *owns[k] != NULL ? *owns[k] : "") == 0)
        gtk_editable_set_text (GTK_EDITABLE (rows[k]), texts[k] != NULL ? texts[k] : "");
      g_free (*owns[k]);
      *owns[k] = g_strdup (texts[k]);
    }
  self->syncing = FALSE;
}

static void
update_summary (AttnscopeExportDialog *self)
{
  gboolean png = current_format (self) == AR_EXPORT_PNG;
  AttnscopeExportSize size = adw_combo_row_get_selected (self->size_row);
  gtk_widget_set_sensitive (GTK_WIDGET (self->width_row), size == ATTNSCOPE_EXPORT_SIZE_CUSTOM);
  gtk_widget_set_sensitive (GTK_WIDGET (self->dpi_row), png);
  g_autofree char *scale = g_strdup_printf (
      _ ("Scale %.2f×"), gtk_spin_button_get_value (self->dpi_spin) / AR_EXPORT_NATURAL_DPI);
  adw_action_row_set_subtitle (self->dpi_row, png ? scale : _ ("PNG only"));
  gboolean svg = current_format (self) == AR_EXPORT_SVG;
  gtk_widget_set_sensitive (GTK_WIDGET (self->svg_text_row), svg);
  adw_action_row_set_subtitle (
      self->svg_text_row,
      !svg ? _ ("SVG only")
      : gtk_switch_get_active (self->svg_text_switch)
          ? _ ("Words an editor can change, in the figure's font where the reader has it")
          : _ ("Outlines: looks the same everywhere, words cannot be edited"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->title_row),
                            gtk_switch_get_active (self->titles_switch));
  gtk_widget_set_sensitive (GTK_WIDGET (self->subtitle_row),
                            gtk_switch_get_active (self->titles_switch));
  if (self->figure == NULL)
    {
      gtk_label_set_text (self->summary_label, _ ("The figure is being computed…"));
      return;
    }
  ArExportOptions o;
  attnscope_export_dialog_get_options (self, &o);
  ArExportGeometry g;
  g_autoptr (GError) error = NULL;
  if (!ar_export_geometry (ar_built_figure_get (self->figure), &o, &g, &error))
    {
      gtk_label_set_text (self->summary_label, error->message);
      return;
    }
  double mm_w = g.page_w / AR_PT_PER_INCH * AR_MM_PER_INCH;
  double mm_h = g.page_h / AR_PT_PER_INCH * AR_MM_PER_INCH;
  g_autofree char *text
      = png ? g_strdup_printf (_ ("%.0f × %.0f mm · %d × %d pixels · text %.1f pt"), mm_w, mm_h,
                               g.pixel_w, g.pixel_h, g.unit_pt * 12)
            : g_strdup_printf (_ ("%.0f × %.0f mm (%.0f × %.0f pt) · text %.1f pt"), mm_w, mm_h,
                               g.page_w, g.page_h, g.unit_pt * 12);
  gtk_label_set_text (self->summary_label, text);
}

static void
draw_preview (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  AttnscopeExportDialog *self = user_data;
  if (self->figure == NULL)
    return;
  ArExportOptions o;
  attnscope_export_dialog_get_options (self, &o);
  ArExportGeometry g;
  if (!ar_export_geometry (ar_built_figure_get (self->figure), &o, &g, NULL))
    return;
  double pad = 12, k = MIN ((width - 2 * pad) / g.page_w, (height - 2 * pad) / g.page_h);
  if (!(k > 0))
    return;
  cairo_translate (cr, floor ((width - g.page_w * k) / 2), floor ((height - g.page_h * k) / 2));
  cairo_scale (cr, k, k);
  ar_figure_draw_export (cr, ar_built_figure_get (self->figure), &o, &g);
}

/* Builds the preview figure for the dialog's view when it changed (or was being computed). */
static void
refresh_figure (AttnscopeExportDialog *self)
{
  ArViewSelection view;
  attnscope_export_dialog_get_view (self, &view);
  if (self->figure == NULL || !ar_view_selection_equal (&view, &self->figure_view))
    {
      g_clear_pointer (&self->figure, ar_built_figure_unref);
      self->figure = attnscope_page_build_figure (self->page, &view);
      self->figure_view = view;
      if (self->figure != NULL)
        show_own_titles (self);
    }
  update_summary (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

/* ---- controls ---- */

/* The name with the extension of the chosen format. */
static void
on_format_changed (AttnscopeExportDialog *self)
{
  g_autofree char *renamed = name_for_format (gtk_editable_get_text (GTK_EDITABLE (self->name_row)),
                                              current_format (self));
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), renamed);
  update_summary (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

/* A preset sets the width and text size. */
static void
on_size_changed (AttnscopeExportDialog *self)
{
  AttnscopeExportSize size = adw_combo_row_get_selected (self->size_row);
  if (!self->syncing
      && (size == ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN || size == ATTNSCOPE_EXPORT_SIZE_TWO_COLUMNS))
    {
      ArExportOptions o;
      ar_export_options_init (&o);
      ar_export_options_set_preset (&o, size == ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN
                                            ? AR_EXPORT_PRESET_ONE_COLUMN
                                            : AR_EXPORT_PRESET_TWO_COLUMNS);
      self->syncing = TRUE;
      gtk_drop_down_set_selected (self->unit_dropdown, 0);
      gtk_spin_button_set_value (self->width_spin, o.width);
      gtk_spin_button_set_value (self->font_spin, o.font_size);
      gtk_spin_button_set_value (self->dpi_spin, o.dpi);
      self->syncing = FALSE;
    }
  update_summary (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

/* Width, text size, resolution, titles: the same figure, drawn anew. */
static void
on_geometry_changed (AttnscopeExportDialog *self)
{
  update_summary (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->preview));
}

static void
on_folder_chosen (GtkNativeDialog *chooser, int response, AttnscopeExportDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        attnscope_export_dialog_set_folder (self, path);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

static void
on_choose_folder (AttnscopeExportDialog *self)
{
  GtkFileChooserNative *chooser
      = gtk_file_chooser_native_new (_ ("Export to Folder"), GTK_WINDOW (self),
                                     GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _ ("_Select"), NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (self->folder);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  g_signal_connect (chooser, "response", G_CALLBACK (on_folder_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

gboolean
attnscope_export_dialog_export (AttnscopeExportDialog *self, GError **error)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self), FALSE);
  g_autofree char *path = attnscope_export_dialog_dup_path (self);
  ArViewSelection view;
  ArExportOptions options;
  attnscope_export_dialog_get_view (self, &view);
  attnscope_export_dialog_get_options (self, &options);
  if (!gui_export_write_full (self->window, self->page, path, &view, &options,
                              gtk_switch_get_active (self->sidecar_switch), error))
    return FALSE;
  Choices c;
  current_choices (self, &c);
  choices_save (&c, self->settings);
  gtk_window_close (GTK_WINDOW (self));
  return TRUE;
}

static void
on_export_clicked (AttnscopeExportDialog *self)
{
  g_autoptr (GError) error = NULL;
  attnscope_export_dialog_export (self, &error);
}

/* ---- setters ---- */

void
attnscope_export_dialog_set_format (AttnscopeExportDialog *self, ArExportFormat format)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->format_row, format);
}

void
attnscope_export_dialog_set_folder (AttnscopeExportDialog *self, const char *folder)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  g_free (self->folder);
  self->folder = g_strdup (folder);
  adw_action_row_set_subtitle (self->folder_row, folder);
}

void
attnscope_export_dialog_set_name (AttnscopeExportDialog *self, const char *name)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), name);
}

const char *
attnscope_export_dialog_get_name (AttnscopeExportDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->name_row));
}

void
attnscope_export_dialog_set_size (AttnscopeExportDialog *self, AttnscopeExportSize size)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->size_row, size);
}

void
attnscope_export_dialog_set_width (AttnscopeExportDialog *self, double width, ArWidthUnit unit)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->size_row, ATTNSCOPE_EXPORT_SIZE_CUSTOM);
  gtk_drop_down_set_selected (self->unit_dropdown, unit == AR_WIDTH_PX ? 1 : 0);
  gtk_spin_button_set_value (self->width_spin, width);
}

void
attnscope_export_dialog_set_font_size (AttnscopeExportDialog *self, double points)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_spin_button_set_value (self->font_spin, points);
}

void
attnscope_export_dialog_set_dpi (AttnscopeExportDialog *self, double dpi)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_spin_button_set_value (self->dpi_spin, dpi);
}

void
attnscope_export_dialog_set_sidecar (AttnscopeExportDialog *self, gboolean sidecar)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_switch_set_active (self->sidecar_switch, sidecar);
}

void
attnscope_export_dialog_set_colors (AttnscopeExportDialog *self, AttnscopeExportColors colors)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->colors_row, colors);
}

void
attnscope_export_dialog_set_labels (AttnscopeExportDialog *self, ArLabelMode labels)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  adw_combo_row_set_selected (self->labels_row, labels);
}

void
attnscope_export_dialog_set_space_marks (AttnscopeExportDialog *self, gboolean marks)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_switch_set_active (self->marks_switch, marks);
}

void
attnscope_export_dialog_set_titles (AttnscopeExportDialog *self, gboolean titles)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_switch_set_active (self->titles_switch, titles);
}

void
attnscope_export_dialog_set_svg_text (AttnscopeExportDialog *self, gboolean svg_text)
{
  g_return_if_fail (ATTNSCOPE_IS_EXPORT_DIALOG (self));
  gtk_switch_set_active (self->svg_text_switch, svg_text);
}

/* ---- GObject ---- */

static void
apply_choices (AttnscopeExportDialog *self, const Choices *c)
{
  self->syncing = TRUE;
  const char *folder = c->folder != NULL && *c->folder != '\0'
                           ? c->folder
                           : g_get_user_special_dir (G_USER_DIRECTORY_PICTURES);
  attnscope_export_dialog_set_folder (self, folder != NULL ? folder : g_get_home_dir ());
  g_autofree char *stem = attnscope_page_dup_figure_name (self->page);
  g_autofree char *name = g_strconcat (stem, ar_export_format_extension (c->format), NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), name);
  adw_combo_row_set_selected (self->format_row, c->format);
  adw_combo_row_set_selected (self->size_row, c->size);
  gtk_drop_down_set_selected (self->unit_dropdown, c->unit == AR_WIDTH_PX ? 1 : 0);
  gtk_spin_button_set_value (self->width_spin, c->width);
  gtk_spin_button_set_value (self->font_spin, c->font_size);
  gtk_spin_button_set_value (self->dpi_spin, c->dpi);
  adw_combo_row_set_selected (self->colors_row, c->colors);
  adw_combo_row_set_selected (self->labels_row, c->labels);
  gtk_switch_set_active (self->marks_switch, c->marks);
  gtk_switch_set_active (self->outline_switch, c->outline);
  gtk_switch_set_active (self->titles_switch, c->titles);
  gtk_switch_set_active (self->svg_text_switch, c->svg_text);
  gtk_switch_set_active (self->sidecar_switch, c->sidecar);
  self->syncing = FALSE;
}

static void
attnscope_export_dialog_dispose (GObject *object)
{
  AttnscopeExportDialog *self = ATTNSCOPE_EXPORT_DIALOG (object);
  if (self->busy_handler != 0)
    g_clear_signal_handler (&self->busy_handler, attnscope_window_get_session (self->window));
  g_clear_object (&self->window);
  g_clear_object (&self->page);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  G_OBJECT_CLASS (attnscope_export_dialog_parent_class)->dispose (object);
}

static void
attnscope_export_dialog_finalize (GObject *object)
{
  AttnscopeExportDialog *self = ATTNSCOPE_EXPORT_DIALOG (object);
  g_free (self->folder);
  g_free (self->own_title);
  g_free (self->own_subtitle);
  G_OBJECT_CLASS (attnscope_export_dialog_parent_class)->finalize (object);
}

static void
attnscope_export_dialog_class_init (AttnscopeExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->dispose = attnscope_export_dialog_dispose;
  object_class->finalize = attnscope_export_dialog_finalize;

  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-export-dialog.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, AttnscopeExportDialog, name)
  BIND (name_row);
  BIND (folder_row);
  BIND (format_row);
  BIND (size_row);
  BIND (width_row);
  BIND (width_spin);
  BIND (unit_dropdown);
  BIND (font_spin);
  BIND (dpi_row);
  BIND (dpi_spin);
  BIND (colors_row);
  BIND (labels_row);
  BIND (marks_switch);
  BIND (outline_switch);
  BIND (titles_switch);
  BIND (svg_text_row);
  BIND (svg_text_switch);
  BIND (title_row);
  BIND (subtitle_row);
  BIND (sidecar_switch);
  BIND (preview);
  BIND (summary_label);
#undef BIND
  gtk_widget_class_bind_template_callback (widget_class, on_export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_folder);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
attnscope_export_dialog_init (AttnscopeExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (self->preview, draw_preview, self, NULL);
}

/* Connects CALLBACK (swapped) to SIGNAL of every object of OBJECTS. */
static void
connect_all (GObject *const *objects, gsize n, const char *signal, GCallback callback,
             AttnscopeExportDialog *self)
{
  for (gsize i = 0; i < n; i++)
    g_signal_connect_swapped (objects[i], signal, callback, self);
}

AttnscopeExportDialog *
attnscope_export_dialog_new (AttnscopeWindow *window, AttnscopePage *page)
{
  AttnscopeExportDialog *self
      = g_object_new (ATTNSCOPE_TYPE_EXPORT_DIALOG, "transient-for", window, NULL);
  self->window = g_object_ref (window);
  self->page = g_object_ref (page);
  GSettings *settings = attnscope_window_get_settings (window);
  self->settings = settings != NULL ? g_object_ref (settings) : NULL;
  Choices c;
  choices_load (&c, self->settings);
  apply_choices (self, &c);
  g_free (c.folder);

  g_signal_connect_swapped (self->format_row, "notify::selected", G_CALLBACK (on_format_changed),
                            self);
  g_signal_connect_swapped (self->size_row, "notify::selected", G_CALLBACK (on_size_changed), self);
  GObject *geometry[]
      = { G_OBJECT (self->width_spin), G_OBJECT (self->font_spin), G_OBJECT (self->dpi_spin) };
  connect_all (geometry, G_N_ELEMENTS (geometry), "value-changed", G_CALLBACK (on_geometry_changed),
               self);
  GObject *texts[] = { G_OBJECT (self->title_row), G_OBJECT (self->subtitle_row) };
  connect_all (texts, G_N_ELEMENTS (texts), "changed", G_CALLBACK (on_geometry_changed), self);
  g_signal_connect_swapped (self->unit_dropdown, "notify::selected",
                            G_CALLBACK (on_geometry_changed), self);
  g_signal_connect_swapped (self->svg_text_switch, "notify::active", G_CALLBACK (update_summary),
                            self);
  g_signal_connect_swapped (self->titles_switch, "notify::active", G_CALLBACK (on_geometry_changed),
                            self);
  GObject *content[] = { G_OBJECT (self->colors_row), G_OBJECT (self->labels_row) };
  connect_all (content, G_N_ELEMENTS (content), "notify::selected", G_CALLBACK (refresh_figure),
               self);
  GObject *switches[] = { G_OBJECT (self->marks_switch), G_OBJECT (self->outline_switch) };
  connect_all (switches, G_N_ELEMENTS (switches), "notify::active", G_CALLBACK (refresh_figure),
               self);
  /* A figure being computed arrives when the session is no longer busy. */
  self->busy_handler = g_signal_connect_swapped (attnscope_window_get_session (window),
                                                 "notify::busy", G_CALLBACK (refresh_figure), self);
  refresh_figure (self);
  return self;
}
