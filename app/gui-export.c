/* gui-export.c — the export dialog and the write behind it (see gui-export.h). The figure is
 * taken from the page when the user accepts, not when the dialog opens, so a run that lands
 * while the dialog is up is what gets written. */
#include "gui-export.h"

#include <glib/gi18n.h>

#include "as-error.h"
#include "figure-export.h"

typedef struct
{
  AttnscopeWindow *window; /* owned */
  AttnscopePage *page;     /* owned */
} ExportData;

static const struct
{
  const char *name;
  const char *pattern;
  const char *extension;
} formats[] = {
  { N_ ("PNG image"), "*.png", ".png" },
  { N_ ("SVG drawing"), "*.svg", ".svg" },
  { N_ ("PDF document"), "*.pdf", ".pdf" },
};

/* Why PAGE has no figure to export. */
static const char *
no_figure_message (AttnscopePage *page)
{
  return attnscope_page_get_busy (page)
             ? _ ("The figure is still being computed; export it once it is shown.")
             : _ ("There is no figure to export yet.");
}

gboolean
gui_export_write (AttnscopeWindow *window, AttnscopePage *page, const char *path, double scale,
                  GError **error)
{
  ArFigure figure;
  if (!attnscope_page_get_figure (page, &figure))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s", no_figure_message (page));
      attnscope_window_show_error (window, _ ("Export failed"), (*error)->message);
      return FALSE;
    }
  if (!ar_figure_export (&figure, path, scale, error))
    {
      attnscope_window_show_error (window, _ ("Export failed"), (*error)->message);
      return FALSE;
    }
  g_autofree char *message = g_strdup_printf (_ ("Saved %s"), path);
  attnscope_window_show_toast (window, message);
  return TRUE;
}

/* PATH with the extension of the selected filter appended when it has none we know. */
static char *
path_with_extension (GtkFileChooser *chooser, const char *path)
{
  ArExportFormat format;
  if (ar_export_format_from_path (path, &format, NULL))
    return g_strdup (path);
  GtkFileFilter *filter = gtk_file_chooser_get_filter (chooser);
  const char *name = filter != NULL ? gtk_file_filter_get_name (filter) : NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (formats); i++)
    if (g_strcmp0 (name, _ (formats[i].name)) == 0)
      return g_strconcat (path, formats[i].extension, NULL);
  return g_strconcat (path, ".png", NULL);
}

static void
on_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  ExportData *data = user_data;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
      g_autoptr (GFile) file = gtk_file_chooser_get_file (chooser);
      g_autofree char *chosen = file != NULL ? g_file_get_path (file) : NULL;
      if (chosen == NULL)
        attnscope_window_show_error (data->window, _ ("Export failed"),
                                     _ ("The file chosen is not on the local file system."));
      else
        {
          g_autofree char *path = path_with_extension (chooser, chosen);
          const char *choice = gtk_file_chooser_get_choice (chooser, "scale");
          double scale = choice != NULL ? g_ascii_strtod (choice, NULL) : 1.0;
          g_autoptr (GError) error = NULL;
          gui_export_write (data->window, data->page, path, scale, &error);
        }
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (data->window);
  g_object_unref (data->page);
  g_free (data);
}

void
gui_export_run (AttnscopeWindow *window, AttnscopePage *page)
{
  ArFigure figure;
  if (!attnscope_page_get_figure (page, &figure))
    {
      attnscope_window_show_toast (window, no_figure_message (page));
      return;
    }
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      _ ("Export Figure"), GTK_WINDOW (window), GTK_FILE_CHOOSER_ACTION_SAVE, _ ("_Export"), NULL);
  GtkFileChooser *chooser = GTK_FILE_CHOOSER (dialog);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
      gtk_file_filter_set_name (filter, _ (formats[i].name));
      gtk_file_filter_add_pattern (filter, formats[i].pattern);
      gtk_file_chooser_add_filter (chooser, filter);
    }
  const char *scale_ids[] = { "1", "2", "4", NULL };
  const char *scale_labels[] = { _ ("1× (screen)"), _ ("2× (print)"), _ ("4× (poster)"), NULL };
  gtk_file_chooser_add_choice (chooser, "scale", _ ("PNG scale"), scale_ids, scale_labels);
  gtk_file_chooser_set_choice (chooser, "scale", "2");
  g_autofree char *stem = attnscope_page_dup_figure_name (page);
  g_autofree char *name = g_strconcat (stem, ".png", NULL);
  gtk_file_chooser_set_current_name (chooser, name);

  ExportData *data = g_new0 (ExportData, 1);
  data->window = g_object_ref (window);
  data->page = g_object_ref (page);
  g_signal_connect (dialog, "response", G_CALLBACK (on_response), data);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
