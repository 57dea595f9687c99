/* attnscope-download-dialog.c — "Download a Model…" (see attnscope-download-dialog.h). The
 * download is an AsHubDownload run in a worker thread; a timer reads its progress ten times a
 * second into the bar and the status line, so the dialog (and the window under it) stays live. */
#include "attnscope-download-dialog.h"

#include <glib/gi18n.h>

#include "as-error.h"
#include "as-hub.h"

#define REFRESH_MS 100

struct _AttnscopeDownloadDialog
{
  AdwWindow parent_instance;

  GtkLabel *intro_label;
  AdwEntryRow *id_row;
  AdwEntryRow *revision_row;
  GtkBox *progress_box;
  GtkLabel *file_label;
  GtkProgressBar *progress_bar;
  GtkLabel *status_label;
  GtkButton *download_button;
  GtkButton *cancel_button;

  AttnscopeWindow *window; /* owned */
  AsHubDownload *download; /* the one running, or NULL */
  GCancellable *cancellable;
  guint timer;
  gboolean closed; /* the dialog was closed while a download ran */
};

G_DEFINE_FINAL_TYPE (AttnscopeDownloadDialog, attnscope_download_dialog, ADW_TYPE_WINDOW)

static void
set_status (AttnscopeDownloadDialog *self, const char *text)
{
  gtk_label_set_text (self->status_label, text != NULL ? text : "");
}

static void
update_sensitivity (AttnscopeDownloadDialog *self)
{
  gboolean running = self->download != NULL;
  const char *id = gtk_editable_get_text (GTK_EDITABLE (self->id_row));
  gtk_widget_set_sensitive (GTK_WIDGET (self->id_row), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->revision_row), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->download_button), !running && *id != '\0');
}

static void
on_id_changed (AttnscopeDownloadDialog *self)
{
  update_sensitivity (self);
}

/* The status line of progress P: bytes of the total, speed, time left. */
static char *
progress_text (const AsHubProgress *p)
{
  switch (p->stage)
    {
    case AS_HUB_STAGE_STARTING:
    case AS_HUB_STAGE_LISTING:
      return g_strdup (_ ("Asking the hub for the model’s files…"));
    case AS_HUB_STAGE_CHECKING:
      return g_strdup (_ ("Checking the files…"));
    case AS_HUB_STAGE_LINKING:
    case AS_HUB_STAGE_DONE:
      return g_strdup (_ ("Finishing…"));
    case AS_HUB_STAGE_DOWNLOADING:
      break;
    }
  g_autofree char *done = g_format_size (p->done_bytes);
  g_autofree char *total = g_format_size (p->total_bytes);
  GString *text = g_string_new (NULL);
  /* Translators: bytes in place of the download's total, e.g. "2.9 MB of 6.4 MB" */
  g_string_printf (text, _ ("%s of %s"), done, total);
  if (p->bytes_per_second >= 0)
    {
      g_autofree char *size = g_format_size ((guint64) p->bytes_per_second);
      /* Translators: a download's speed, e.g. "3.4 MB/s" */
      g_autofree char *speed = g_strdup_printf (_ ("%s/s"), size);
      g_string_append_printf (text, " — %s", speed);
    }
  if (p->seconds_left >= 0)
    {
      g_autofree char *left = as_hub_format_duration (p->seconds_left);
      g_string_append (text, " — ");
      /* Translators: the time a download still needs, e.g. "0:07 left" */
      g_string_append_printf (text, _ ("%s left"), left);
    }
  return g_string_free (text, FALSE);
}

static gboolean
refresh (gpointer user_data)
{
  AttnscopeDownloadDialog *self = user_data;
  if (self->download == NULL)
    return G_SOURCE_CONTINUE;
  AsHubProgress p = { 0 };
  as_hub_download_get_progress (self->download, &p);
  if (p.total_bytes > 0)
    gtk_progress_bar_set_fraction (self->progress_bar,
                                   (double) p.done_bytes / (double) p.total_bytes);
  else
    gtk_progress_bar_pulse (self->progress_bar);
  g_autofree char *file = p.file != NULL ? g_strdup_printf (_ ("Receiving %s"), p.file) : NULL;
  gtk_label_set_text (self->file_label, file != NULL ? file : "");
  g_autofree char *text = progress_text (&p);
  set_status (self, text);
  as_hub_progress_clear (&p);
  return G_SOURCE_CONTINUE;
}

static void
stop_refreshing (AttnscopeDownloadDialog *self)
{
  g_clear_handle_id (&self->timer, g_source_remove);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->download, as_hub_download_unref);
}

static void
finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (AttnscopeDownloadDialog) self = user_data;
  g_autoptr (AsHubDownload) download = as_hub_download_ref (self->download);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = as_hub_download_run_finish (download, result, &error);
  stop_refreshing (self);
  if (self->closed)
    return;
  update_sensitivity (self);
  gtk_label_set_text (self->file_label, "");
  if (path == NULL)
    {
      g_autofree char *text
          = g_error_matches (error, AS_ERROR, AS_ERROR_CANCELLED)
                ? g_strdup (_ ("Cancelled. What was received is kept: Download resumes it."))
                : g_strdup_printf (_ ("Could not download: %s"), error->message);
      set_status (self, text);
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      return;
    }
  /* The hub id for the revision main, as the model chooser lists it; the snapshot's folder for
   * any other revision. */
  const char *revision = as_hub_download_get_revision (download);
  const char *spec = g_str_equal (revision, "main") ? as_hub_download_get_repo_id (download) : path;
  g_autofree char *toast
      = g_strdup_printf (_ ("Downloaded %s"), as_hub_download_get_repo_id (download));
  attnscope_window_show_toast (self->window, toast);
  attnscope_window_open_model (self->window, spec);
  gtk_window_destroy (GTK_WINDOW (self));
}

gboolean
attnscope_download_dialog_start (AttnscopeDownloadDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self), FALSE);
  if (self->download != NULL)
    return FALSE;
  g_autofree char *id = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->id_row))));
  g_autofree char *revision
      = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->revision_row))));
  g_autoptr (GError) error = NULL;
  self->download = as_hub_download_new (id, revision, AS_HUB_DOWNLOAD_DEFAULT, &error);
  if (self->download == NULL)
    {
      set_status (self, error->message);
      return FALSE;
    }
  self->cancellable = g_cancellable_new ();
  gtk_widget_set_visible (GTK_WIDGET (self->progress_box), TRUE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  update_sensitivity (self);
  self->timer = g_timeout_add (REFRESH_MS, refresh, self);
  refresh (self);
  as_hub_download_run_async (self->download, self->cancellable, finished, g_object_ref (self));
  return TRUE;
}

void
attnscope_download_dialog_cancel (AttnscopeDownloadDialog *self)
{
  g_return_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self));
  if (self->cancellable != NULL)
    {
      g_cancellable_cancel (self->cancellable);
      set_status (self, _ ("Cancelling…"));
    }
}

static void
on_download_clicked (AttnscopeDownloadDialog *self)
{
  attnscope_download_dialog_start (self);
}

static void
on_cancel_clicked (AttnscopeDownloadDialog *self)
{
  if (self->download != NULL)
    attnscope_download_dialog_cancel (self);
  else
    gtk_window_close (GTK_WINDOW (self));
}

/* Closing the dialog stops its download (what was received is kept). */
static gboolean
attnscope_download_dialog_close_request (GtkWindow *window)
{
  AttnscopeDownloadDialog *self = ATTNSCOPE_DOWNLOAD_DIALOG (window);
  if (self->cancellable != NULL)
    {
      self->closed = TRUE;
      g_cancellable_cancel (self->cancellable);
    }
  return GTK_WINDOW_CLASS (attnscope_download_dialog_parent_class)->close_request (window);
}

void
attnscope_download_dialog_set_model_id (AttnscopeDownloadDialog *self, const char *id)
{
  g_return_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->id_row), id != NULL ? id : "");
}

void
attnscope_download_dialog_set_revision (AttnscopeDownloadDialog *self, const char *revision)
{
  g_return_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self));
  gtk_editable_set_text (GTK_EDITABLE (self->revision_row), revision != NULL ? revision : "");
}

gboolean
attnscope_download_dialog_get_running (AttnscopeDownloadDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self), FALSE);
  return self->download != NULL;
}

double
attnscope_download_dialog_get_fraction (AttnscopeDownloadDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self), 0);
  return gtk_progress_bar_get_fraction (self->progress_bar);
}

const char *
attnscope_download_dialog_get_status (AttnscopeDownloadDialog *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_DOWNLOAD_DIALOG (self), NULL);
  return gtk_label_get_text (self->status_label);
}

static void
attnscope_download_dialog_dispose (GObject *object)
{
  AttnscopeDownloadDialog *self = ATTNSCOPE_DOWNLOAD_DIALOG (object);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  stop_refreshing (self);
  g_clear_object (&self->window);
  G_OBJECT_CLASS (attnscope_download_dialog_parent_class)->dispose (object);
}

static void
attnscope_download_dialog_class_init (AttnscopeDownloadDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);
  object_class->dispose = attnscope_download_dialog_dispose;
  window_class->close_request = attnscope_download_dialog_close_request;
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-download-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, intro_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, id_row);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, revision_row);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, progress_box);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, file_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, status_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, download_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeDownloadDialog, cancel_button);
  gtk_widget_class_bind_template_callback (widget_class, on_download_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_id_changed);
}

static void
attnscope_download_dialog_init (AttnscopeDownloadDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_autofree char *types = as_hub_dup_supported_types ();
  g_autofree char *intro
      = g_strdup_printf (_ ("A model from the Hugging Face hub, by its id, into the Hugging Face "
                            "cache that Python’s transformers uses too. attnscope opens models "
                            "of the types %s."),
                         types);
  gtk_label_set_text (self->intro_label, intro);
  gtk_window_set_default_widget (GTK_WINDOW (self), GTK_WIDGET (self->download_button));
  update_sensitivity (self);
}

AttnscopeDownloadDialog *
attnscope_download_dialog_new (AttnscopeWindow *window)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WINDOW (window), NULL);
  AttnscopeDownloadDialog *self
      = g_object_new (ATTNSCOPE_TYPE_DOWNLOAD_DIALOG, "transient-for", window, "application",
                      gtk_window_get_application (GTK_WINDOW (window)), NULL);
  self->window = g_object_ref (window);
  return self;
}
