/* attnscope-window-toasts.c — the window's toasts (attnscope-window.h): a message, a saved
 * file with "Open Folder", and the one-line toast every error and notice uses, cut in the
 * middle so that a long path keeps its start and its file name. */
#include "attnscope-window-private.h"

#include <glib/gi18n.h>

#include "attnscope-tooltips.h"

/* A toast saying TEXT (plain text) in a label cut in the middle, so that a long path keeps its
 * start and its file name, with the whole text as its tooltip. */
AdwToast *
attnscope_window_toast_new (const char *text)
{
  AdwToast *toast = adw_toast_new ("");
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  attnscope_label_tooltip_full_text (GTK_LABEL (label));
  adw_toast_set_custom_title (toast, label);
  return toast;
}

void
attnscope_window_show_toast (AttnscopeWindow *self, const char *message)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  AdwToast *toast = attnscope_window_toast_new (message);
  adw_toast_set_timeout (toast, 5);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

void
attnscope_window_show_saved (AttnscopeWindow *self, const char *path)
{
  g_return_if_fail (ATTNSCOPE_IS_WINDOW (self));
  g_autofree char *message = g_strdup_printf (_ ("Saved %s"), path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *absolute = g_canonicalize_filename (dir, NULL);
  g_autofree char *uri = g_filename_to_uri (absolute, NULL, NULL);
  AdwToast *toast = attnscope_window_toast_new (message);
  adw_toast_set_timeout (toast, 5);
  if (uri != NULL)
    {
      adw_toast_set_button_label (toast, _ ("Open Folder"));
      adw_toast_set_action_name (toast, "win.show-folder");
      adw_toast_set_action_target_value (toast, g_variant_new_string (uri));
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}
