/* test-polish.c — the window's finish, on the tiny GPT-2 fixture under Xvfb:
 * - a saved figure's notification has an Open Folder button whose action (win.show-folder)
 *   targets the URI of the file's folder. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;

/* The first descendant of ROOT (ROOT included) for which MATCH holds, or NULL. */
static GtkWidget *
find_widget (GtkWidget *root, gboolean (*match) (GtkWidget *, gconstpointer), gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_button_labelled (GtkWidget *w, gconstpointer label)
{
  return GTK_IS_BUTTON (w) && gtk_widget_get_mapped (w)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0;
}

static void
test_open_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-saved-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "attention.png", NULL);
  g_autoptr (GError) error = NULL;
  AttnscopePage *attention = attnscope_window_get_page (window, "attention");
  g_assert_true (gui_export_write (window, attention, png, 1, &error));
  g_assert_no_error (error);
  gui_test_spin (400);
  GtkWidget *button = find_widget (GTK_WIDGET (window), is_button_labelled, "Open Folder");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==,
                   "win.show-folder");
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  g_assert_nonnull (target);
  g_autofree char *want = g_filename_to_uri (dir, NULL, NULL);
  g_test_message ("Open Folder targets %s", g_variant_get_string (target, NULL));
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, want);
  g_unlink (png);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_park_pointer ();
  g_autofree char *tiny = gui_test_fixture_path ("tiny-gpt2");
  gui_test_open (window, tiny, "The man hit the car because he was angry", TIMEOUT_MS);
  g_test_add_func ("/ui/polish/open-folder", test_open_folder);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
