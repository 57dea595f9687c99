/* test-heatmap-keys.c — the keyboard on the real window with the tiny GPT-2 fixture (2 layers,
 * 2 heads, byte-level BPE), under Xvfb:
 * - arrow keys move the heatmap's cursor cell and the status line names its query, key and
 *   value ("masked" above the diagonal); Return selects the cursor's query token;
 * - Alt+arrows step layer and head the way the heads grid lays them out (layers down, heads
 *   across);
 * - on the heads grid, arrows move the outlined head and Return opens it on the Attention page.
 * The heatmap widget's zoom, pan and colours are tests/ui/test-heatmap-view.c's. */
#include <adwaita.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-head-grid-view.h"
#include "attnscope-heads-page.h"
#include "gui-test-util.h"
#include "render-text.h"
#include "token-label.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"

static AttnscopeWindow *window;

static AsTrace *
trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

static AttnscopePage *
page (const char *name)
{
  return gui_test_show_page (window, name, TIMEOUT_MS);
}

static AttnscopeHeatmapView *
attention_heatmap (void)
{
  return attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page ("attention")));
}

static const ArHeatmapFigure *
shown_heatmap (void)
{
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (attention_heatmap ());
  g_assert_nonnull (built);
  return &ar_built_figure_get_parts (built)->heatmap;
}

static void
reset_view (void)
{
  gui_test_reset_view (window);
}

/* The first label under W whose text starts with "Query " or "Arrow keys" (the status line). */
static const char *
find_status (GtkWidget *w)
{
  if (GTK_IS_LABEL (w))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (w));
      if (g_str_has_prefix (text, "Query ") || g_str_has_prefix (text, "Arrow keys"))
        return text;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      const char *text = find_status (c);
      if (text != NULL)
        return text;
    }
  return NULL;
}

static const char *
status_text (void)
{
  const char *text = find_status (GTK_WIDGET (page ("attention")));
  g_assert_nonnull (text);
  return text;
}

static void
test_cursor_status (void)
{
  reset_view ();
  AttnscopeHeatmapView *hv = attention_heatmap ();
  GtkWidget *w = GTK_WIDGET (hv);
  attnscope_heatmap_view_set_cursor (hv, -1, -1);
  g_assert_true (g_str_has_prefix (status_text (), "Arrow keys"));
  AsTrace *t = trace ();
  int n = t->n_tokens;
  const float *a = as_trace_attn_matrices (t, 1, 0);
  g_auto (GStrv) labels = ar_token_labels_from_trace (t, AR_TOKEN_LABEL_DEFAULT);
  /* The first arrow puts the cursor on the first cell; then it moves. */
  g_assert_true (gui_test_press_key (w, GDK_KEY_Down, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (hv), ==, 0);
  g_assert_true (gui_test_press_key (w, GDK_KEY_Down, 0));
  g_assert_true (gui_test_press_key (w, GDK_KEY_Down, 0));
  g_assert_true (gui_test_press_key (w, GDK_KEY_Right, 0));
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (hv), ==, 2);
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_col (hv), ==, 1);
  g_autofree char *value = ar_format_number (a[2 * n + 1], 4);
  g_autofree char *want
      = g_strdup_printf ("Query “%s” (2) → key “%s” (1): %s", labels[2], labels[1], value);
  g_assert_cmpstr (status_text (), ==, want);
  /* Above the diagonal: masked, not 0. */
  g_assert_true (gui_test_press_key (w, GDK_KEY_Right, 0));
  g_assert_true (gui_test_press_key (w, GDK_KEY_Right, 0));
  g_autofree char *masked
      = g_strdup_printf ("Query “%s” (2) → key “%s” (3): masked", labels[2], labels[3]);
  g_assert_cmpstr (status_text (), ==, masked);
  /* Never beyond the matrix. */
  for (int k = 0; k < n + 3; k++)
    gui_test_press_key (w, GDK_KEY_Down, 0);
  g_assert_cmpint (attnscope_heatmap_view_get_cursor_row (hv), ==, n - 1);
  /* Return selects the cursor's query token. */
  g_assert_true (gui_test_press_key (w, GDK_KEY_Return, 0));
  g_assert_cmpint (attnscope_view_state_get_selected_token (gui_test_view_state (window)), ==,
                   n - 1);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), -1);
}

/* The window's Alt+KEY shortcut: its action name and integer argument. */
static gboolean
window_shortcut (guint keyval, const char **action, int *argument)
{
  GListModel *list = gtk_widget_observe_controllers (GTK_WIDGET (window));
  gboolean found = FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (list) && !found; i++)
    {
      g_autoptr (GObject) c = g_list_model_get_item (list, i);
      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      GListModel *shortcuts = G_LIST_MODEL (c);
      for (guint k = 0; k < g_list_model_get_n_items (shortcuts) && !found; k++)
        {
          g_autoptr (GtkShortcut) s = g_list_model_get_item (shortcuts, k);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (s);
          GtkShortcutAction *act = gtk_shortcut_get_action (s);
          if (!GTK_IS_KEYVAL_TRIGGER (trigger) || !GTK_IS_NAMED_ACTION (act)
              || gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) != keyval
              || gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) != GDK_ALT_MASK)
            continue;
          *action = gtk_named_action_get_action_name (GTK_NAMED_ACTION (act));
          GVariant *args = gtk_shortcut_get_arguments (s);
          *argument = args != NULL ? g_variant_get_int32 (args) : 0;
          found = TRUE;
        }
    }
  g_object_unref (list);
  return found;
}

/* Alt+Down/Up step the layer down/up and Alt+Right/Left the head right/left — the way the
 * heads grid draws them (layer rows growing downwards, head columns to the right). */
static void
test_alt_arrows (void)
{
  reset_view ();
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  ArBuiltFigure *built
      = attnscope_head_grid_view_get_figure (attnscope_heads_page_get_grid (heads));
  const ArGridFigure *grid = &ar_built_figure_get_parts (built)->grid;
  double gw, gh;
  ArFigure figure = ar_figure_from_grid (grid);
  ar_figure_get_size (&figure, &gw, &gh);
  struct
  {
    guint key;
    const char *action;
    int d_layer, d_head;
  } keys[] = {
    { GDK_KEY_Up, "win.step-layer", -1, 0 },
    { GDK_KEY_Down, "win.step-layer", 1, 0 },
    { GDK_KEY_Left, "win.step-head", 0, -1 },
    { GDK_KEY_Right, "win.step-head", 0, 1 },
  };
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      attnscope_view_state_set_layer (v, keys[k].d_layer < 0 ? 1 : 0);
      attnscope_view_state_set_head (v, keys[k].d_head < 0 ? 1 : 0);
      int l0 = attnscope_view_state_get_layer (v), h0 = attnscope_view_state_get_head (v);
      const char *action = NULL;
      int argument = 0;
      g_assert_true (window_shortcut (keys[k].key, &action, &argument));
      g_assert_cmpstr (action, ==, keys[k].action);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, "i", argument));
      int l1 = attnscope_view_state_get_layer (v), h1 = attnscope_view_state_get_head (v);
      g_assert_cmpint (l1 - l0, ==, keys[k].d_layer);
      g_assert_cmpint (h1 - h0, ==, keys[k].d_head);
      /* The grid draws the new head where the arrow points. */
      double x0, y0, x1, y1, size;
      ar_grid_get_thumb_rect (grid, gw, gh, l0, h0, &x0, &y0, &size);
      ar_grid_get_thumb_rect (grid, gw, gh, l1, h1, &x1, &y1, &size);
      if (keys[k].d_layer != 0)
        g_assert_cmpfloat ((y1 - y0) * keys[k].d_layer, >, 0);
      if (keys[k].d_head != 0)
        g_assert_cmpfloat ((x1 - x0) * keys[k].d_head, >, 0);
      /* At the edge nothing wraps. */
      gtk_widget_activate_action (GTK_WIDGET (window), action, "i", argument);
      g_assert_cmpint (attnscope_view_state_get_layer (v), ==, l1);
      g_assert_cmpint (attnscope_view_state_get_head (v), ==, h1);
    }
  reset_view ();
}

typedef struct
{
  AttnscopeHeadsPage *heads;
  AttnscopePage *attention;
} HeadsAndAttention;

/* The attention page is on screen in place of the heads page (the stack's switch is done). */
static gboolean
attention_shown (gpointer user_data)
{
  const HeadsAndAttention *p = user_data;
  return gtk_widget_get_mapped (GTK_WIDGET (p->attention))
         && !gtk_widget_get_mapped (GTK_WIDGET (p->heads));
}

/* The keyboard on the heads grid: arrows move the outlined head as the grid lays heads out,
 * Return opens it in the attention view. */
static void
test_grid_keys (void)
{
  reset_view ();
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_layer (v, 0);
  attnscope_view_state_set_head (v, 0);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  GtkWidget *grid = GTK_WIDGET (attnscope_heads_page_get_grid (heads));
  g_assert_true (gtk_widget_get_focusable (grid));
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Down, 0));
  g_assert_cmpint (attnscope_view_state_get_aggregate (v), ==, ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_cmpint (attnscope_view_state_get_layer (v), ==, 1);
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Right, 0));
  g_assert_cmpint (attnscope_view_state_get_head (v), ==, 1);
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Up, 0));
  g_assert_cmpint (attnscope_view_state_get_layer (v), ==, 0);
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Left, 0));
  g_assert_cmpint (attnscope_view_state_get_head (v), ==, 0);
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Down, 0));
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Right, 0));
  /* the grid outlines the head the keys chose */
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (heads), TIMEOUT_MS));
  ArBuiltFigure *built
      = attnscope_head_grid_view_get_figure (attnscope_heads_page_get_grid (heads));
  const ArGridFigure *fig = &ar_built_figure_get_parts (built)->grid;
  g_assert_cmpint (fig->highlight_layer, ==, 1);
  g_assert_cmpint (fig->highlight_head, ==, 1);
  /* Alt+arrows are the window's, not the grid's */
  g_assert_false (gui_test_press_key (grid, GDK_KEY_Down, GDK_ALT_MASK));
  /* Return opens it */
  g_assert_true (gui_test_press_key (grid, GDK_KEY_Return, 0));
  AttnscopePage *attention = attnscope_window_get_page (window, "attention");
  g_assert_true (gui_test_wait_page (attention, TIMEOUT_MS));
  HeadsAndAttention pages = { heads, attention };
  g_assert_true (gui_test_wait_until (attention_shown, &pages, TIMEOUT_MS));
  g_assert_cmpstr (shown_heatmap ()->title, ==, "Layer 1 · head 1");
  reset_view ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  g_autofree char *fixture = gui_test_fixture_path ("tiny-gpt2");
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);
  gui_test_park_pointer ();

  g_test_add_func ("/ui/heatmap-keys/cursor-status", test_cursor_status);
  g_test_add_func ("/ui/heatmap-keys/alt-arrows", test_alt_arrows);
  g_test_add_func ("/ui/heatmap-keys/grid-keys", test_grid_keys);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
