/* test-keyboard.c — the keyboard reaches each page's figure.
 *
 * The real window under Xvfb on the tiny GPT-2 fixture; keys are pressed through the X server
 * (gui_test_send_key: XTest), so they take GTK's whole path — the focus widget, its controllers,
 * the window's shortcuts:
 * - a page shown gives its main widget the focus: the heatmap (Attention, Similarity), the heads
 *   grid, the projection, the comparison, the predictions' list;
 * - on the Heads page the arrow keys move the selected head and Return opens it in the Attention
 *   view (it used to toggle "Scale each head", which had the focus), whose heatmap then has the
 *   focus;
 * - Tab goes from the text entry through the token strip (one stop, whatever the text's length;
 *   the arrow keys move in it) to the page: the heads grid is one Tab from the page's last
 *   control, and the whole way from the entry takes a few presses, not one per token. */
#include <adwaita.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;

static GtkWidget *
focus (void)
{
  return gtk_root_get_focus (GTK_ROOT (window));
}

static void
press (guint keyval, GdkModifierType mods)
{
  if (!gui_test_send_key (GTK_WINDOW (window), keyval, mods))
    g_error ("no XTest on this display");
}

static AttnscopePage *
show (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (page), TIMEOUT_MS));
  return page;
}

static void
test_page_focus (void)
{
  /* each a switch from the page before (the window opens on Attention) */
  const char *pages[]
      = { "heads", "similarity", "embeddings", "compare", "predictions", "attention" };
  for (gsize i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      AttnscopePage *page = show (pages[i]);
      GtkWidget *main = attnscope_page_get_focus_widget (page);
      g_assert_nonnull (main);
      g_test_message ("%s: the focus is on %s", pages[i], G_OBJECT_TYPE_NAME (focus ()));
      g_assert_true (focus () == main || gtk_widget_is_ancestor (focus (), main));
    }
}

static void
test_heads_keys (void)
{
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 0);
  attnscope_view_state_set_head (view, 0);
  show ("attention");
  AttnscopePage *heads = show ("heads");
  g_assert_true (focus () == attnscope_page_get_focus_widget (heads));
  gboolean autoscale_each = attnscope_view_state_get_flag (view, ATTNSCOPE_VIEW_AUTOSCALE_EACH);
  press (GDK_KEY_Right, 0);
  press (GDK_KEY_Down, 0);
  g_assert_cmpint (attnscope_view_state_get_layer (view), ==, 1);
  g_assert_cmpint (attnscope_view_state_get_head (view), ==, 1);
  press (GDK_KEY_Return, 0);
  g_assert_cmpint (attnscope_view_state_get_flag (view, ATTNSCOPE_VIEW_AUTOSCALE_EACH), ==,
                   autoscale_each);
  AttnscopePage *attention = attnscope_window_get_page (window, "attention");
  g_assert_true (gui_test_wait_page (attention, TIMEOUT_MS));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (attention)));
  g_assert_true (
      focus ()
      == GTK_WIDGET (attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (attention))));
}

/* The entry holding the main text. */
static GtkWidget *
find_entry (GtkWidget *w)
{
  if (GTK_IS_ENTRY (w) && gtk_widget_get_visible (w)
      && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (w)),
                    attnscope_run_get_text (gui_test_main_run (window)))
             == 0)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_entry (c);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_tab_order (void)
{
  AttnscopePage *heads = show ("heads");
  GtkWidget *grid = attnscope_page_get_focus_widget (heads);
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  guint chips = attnscope_token_strip_get_n_chips (strip);
  GtkWidget *entry = find_entry (GTK_WIDGET (window));
  g_assert_nonnull (entry);
  gtk_widget_grab_focus (entry);
  g_assert_true (gui_test_wait_drawn (entry, TIMEOUT_MS));
  int presses = 0, in_strip = 0;
  GtkWidget *before_grid = NULL;
  while (focus () != grid && presses < 40)
    {
      before_grid = focus ();
      press (GDK_KEY_Tab, 0);
      presses++;
      in_strip += gtk_widget_is_ancestor (focus (), GTK_WIDGET (strip));
      g_test_message ("Tab %d: %s", presses, G_OBJECT_TYPE_NAME (focus ()));
    }
  g_test_message ("%u chips; the grid after %d Tabs from the entry", chips, presses);
  g_assert_true (focus () == grid);
  g_assert_cmpuint (chips, >, 8);
  g_assert_cmpint (in_strip, ==, 1);
  g_assert_cmpint (presses, <=, 6);
  /* one Tab from the control before it */
  gtk_widget_grab_focus (before_grid);
  press (GDK_KEY_Tab, 0);
  g_assert_true (focus () == grid);
  /* the arrow keys walk the strip */
  GtkWidget *first = GTK_WIDGET (attnscope_token_strip_get_chip (strip, 0));
  gtk_widget_grab_focus (first);
  press (GDK_KEY_Right, 0);
  press (GDK_KEY_Right, 0);
  g_assert_true (focus () == GTK_WIDGET (attnscope_token_strip_get_chip (strip, 2)));
  press (GDK_KEY_End, 0);
  g_assert_true (focus () == GTK_WIDGET (attnscope_token_strip_get_chip (strip, chips - 1)));
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
  g_test_add_func ("/ui/keyboard/page-focus", test_page_focus);
  g_test_add_func ("/ui/keyboard/heads-keys", test_heads_keys);
  g_test_add_func ("/ui/keyboard/tab-order", test_tab_order);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
