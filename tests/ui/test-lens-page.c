/* test-lens-page.c — the Lens page of the real window (tiny GPT-2 fixture under Xvfb), against
 * the core's lens (as_lens_compute) computed here on the window's own trace:
 * - the table has L + 1 rows and T columns; every cell's colour value is its top token's
 *   probability and its text that token's label; the last row's top tokens are the model's own
 *   prediction (the argmax of the pass's logits at the last position);
 * - hovering a cell lists its top five tokens with their probabilities;
 * - clicking a cell follows its top token at its position: the chart's values are that token's
 *   probabilities through the hidden states, the status line names it, the export arguments are
 *   --lens --follow-id N --position I;
 * - a new text: while its lens is computed the page is busy and keeps the previous table; then
 *   the table has the new text's columns and the followed token is followed there;
 * - a model without an output head (the seed model computes attention only): the page says why
 *   in its status line and shows no figure. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "as-lens.h"
#include "attnscope-lens-page.h"
#include "gui-test-util.h"
#include "token-label.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"

static AttnscopeWindow *window;
static char *fixture;

static AttnscopeLensPage *
lens_page (void)
{
  AttnscopePage *p = attnscope_window_get_page (window, "lens");
  attnscope_window_show_page (window, "lens");
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return ATTNSCOPE_LENS_PAGE (p);
}

static AsTrace *
main_trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

static AsModel *
model (void)
{
  return attnscope_session_get_model (attnscope_window_get_session (window));
}

/* The core's lens of the window's trace at every position, K best. */
static AsLens *
expected_lens (int k, int32_t target, int position)
{
  AsTrace *trace = main_trace ();
  int T = trace->n_tokens, n = position >= 0 ? 1 : T;
  g_autofree int *positions = g_new (int, n);
  for (int t = 0; t < n; t++)
    positions[t] = position >= 0 ? position : t;
  g_autoptr (GError) error = NULL;
  AsLens *lens = as_lens_compute (model (), trace, positions, n, k, target, NULL, &error);
  g_assert_no_error (error);
  return lens;
}

static void
test_table (void)
{
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);
  AttnscopeLensPage *page = lens_page ();
  AttnscopeHeatmapView *heatmap = attnscope_lens_page_get_heatmap (page);
  AsTrace *trace = main_trace ();
  int L = trace->n_layer, T = trace->n_tokens, V = trace->vocab_size;
  g_autoptr (AsLens) want = expected_lens (5, -1, -1);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, L + 1);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, T);
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  for (int i = 0; i <= L; i++)
    for (int p = 0; p < T; p++)
      {
        const AsLensCell *cell = as_lens_cell (want, i, p);
        g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, i, p), ==,
                           cell->top[0].probability);
        g_autofree char *label = ar_token_label (cell->top[0].token, cell->top[0].token, FALSE);
        g_assert_cmpstr (fig->cell_labels[i * T + p], ==, label);
      }
  /* hidden[L]: the model's own prediction at the last position */
  const float *logits = trace->logits + (gsize) (trace->logits_rows - 1) * V;
  int best = 0;
  for (int v = 1; v < V; v++)
    best = logits[v] > logits[best] ? v : best;
  g_assert_cmpint (as_lens_cell (want, L, T - 1)->top[0].id, ==, best);

  /* the tooltip of cell (1, 2): its five tokens, best first */
  double x, y, w, h;
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (heatmap), TIMEOUT_MS));
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, 1, 2, &x, &y, &w, &h));
  g_autofree char *tip = attnscope_heatmap_view_dup_tooltip_at (heatmap, x + w / 2, y + h / 2);
  g_assert_nonnull (tip);
  g_test_message ("tooltip: %s", tip);
  const AsLensCell *cell = as_lens_cell (want, 1, 2);
  g_assert_cmpint (cell->n_top, ==, 5);
  for (int k = 0; k < 5; k++)
    {
      g_autofree char *label = ar_token_label (cell->top[k].token, cell->top[k].token, FALSE);
      g_autofree char *line = g_markup_printf_escaped ("%d. “%s”", k + 1, label);
      g_assert_nonnull (strstr (tip, line));
    }
}

static void
test_follow (void)
{
  AttnscopeLensPage *page = lens_page ();
  AttnscopeHeatmapView *heatmap = attnscope_lens_page_get_heatmap (page);
  AsTrace *trace = main_trace ();
  g_autoptr (AsLens) table = expected_lens (1, -1, -1);
  int32_t id = as_lens_cell (table, 1, 3)->top[0].id;
  g_signal_emit_by_name (heatmap, "cell-activated", 1, 3);
  page = lens_page ();
  ArBuiltFigure *chart = attnscope_lines_view_get_figure (attnscope_lens_page_get_chart (page));
  g_assert_nonnull (chart);
  const ArLineFigure *lines = &ar_built_figure_get_parts (chart)->lines;
  g_autoptr (AsLens) want = expected_lens (1, id, 3);
  g_assert_cmpint (lines->n_x, ==, trace->n_layer + 1);
  for (int i = 0; i <= trace->n_layer; i++)
    {
      const AsLensCell *c = as_lens_cell (want, i, 0);
      g_assert_cmpfloat (lines->values[i], ==, c->target_probability);
      g_autofree char *x_label = g_strdup_printf ("%d:#%d", i, c->target_rank + 1);
      g_assert_cmpstr (lines->x_labels[i], ==, x_label);
    }
  /* at hidden state 1 the followed token is the top one */
  g_assert_cmpint (as_lens_cell (want, 1, 0)->target_rank, ==, 0);
  g_assert_nonnull (strstr (attnscope_lens_page_get_status (page), "position 3"));
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (page), &view);
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  attnscope_page_append_export_args (ATTNSCOPE_PAGE (page), &view, args);
  g_autofree char *want_args = g_strdup_printf ("--lens --follow-id %d --position 3", id);
  g_ptr_array_add (args, NULL);
  g_autofree char *joined = g_strjoinv (" ", (char **) args->pdata);
  g_assert_cmpstr (joined, ==, want_args);
}

static void
test_new_text (void)
{
  AttnscopeLensPage *page = lens_page ();
  AttnscopeHeatmapView *heatmap = attnscope_lens_page_get_heatmap (page);
  attnscope_lens_page_show_chart (page, FALSE);
  int old_cols = attnscope_heatmap_view_get_n_cols (heatmap);
  attnscope_window_set_text (window, "A much longer text than the one before it");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  attnscope_page_ensure_updated (ATTNSCOPE_PAGE (page));
  /* the lens of the new trace runs: the old table stays */
  if (attnscope_page_get_busy (ATTNSCOPE_PAGE (page)))
    g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, old_cols);
  page = lens_page ();
  int T = main_trace ()->n_tokens;
  g_assert_cmpint (T, !=, old_cols);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, T);
  g_autoptr (AsLens) want = expected_lens (1, -1, -1);
  g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, 2, T - 1), ==,
                     as_lens_cell (want, 2, T - 1)->top[0].probability);
  /* still followed, at the same position of the new text */
  g_assert_nonnull (attnscope_lines_view_get_figure (attnscope_lens_page_get_chart (page)));
}

static void
test_no_head (void)
{
  gui_test_open (window, "seed-two-heads", "May the force be with you", TIMEOUT_MS);
  AttnscopeLensPage *page = lens_page ();
  g_test_message ("status: %s", attnscope_lens_page_get_status (page));
  g_assert_nonnull (strstr (attnscope_lens_page_get_status (page), "no output head"));
  g_assert_null (attnscope_heatmap_view_get_figure (attnscope_lens_page_get_heatmap (page)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  fixture = gui_test_fixture_path ("tiny-gpt2");
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/lens-page/table", test_table);
  g_test_add_func ("/ui/lens-page/follow", test_follow);
  g_test_add_func ("/ui/lens-page/new-text", test_new_text);
  g_test_add_func ("/ui/lens-page/no-head", test_no_head);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_free (fixture);
  return status;
}
