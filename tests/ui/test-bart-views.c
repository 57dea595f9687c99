/* test-bart-views.c — the window on a BART model (tests/reference/bart_reference.py: post-norm,
 * learned positions with offset 2, byte-level BPE tokenizer.json), under Xvfb.
 *
 * A 5-token source (<s> a b c </s>) and a ~1000-token one (on a model with 1,100 positions):
 * the Translate button fills the target with exactly as_translate_text's text (computed here
 * independently) and the trace is the pass over source and target; the attention page's three
 * kinds (encoder S × S, decoder T × T, cross T × S) each draw a figure of that shape whose every
 * row sums to 1 (the decoder's future exactly 0), the heads grid draws every head, and every
 * other page the window shows (statistics, lens, similarity, projections, alignment, …) draws
 * its figure, the Attribution page the decoder's direct logit attribution. With ATTNSCOPE_SHOT_DIR
 * set, a screenshot of each kind at both lengths. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-translate.h"
#include "attnscope-attention-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-scan-page.h"
#include "bart-models.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 300000

static AttnscopeWindow *window;

static const char *const bart_long[]
    = { "--seed", "1", "--positions", "1100", "--min-length", "6", NULL };

static gboolean
idle (gpointer user_data)
{
  AttnscopeRun *run = gui_test_main_run (window);
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && !attnscope_session_get_busy (attnscope_window_get_session (window));
}

/* With ATTNSCOPE_SHOT_DIR set: the screen as NAME.png there, to be looked at. */
static void
maybe_shot (const char *name)
{
  const char *dir = g_getenv ("ATTNSCOPE_SHOT_DIR");
  if (dir == NULL)
    return;
  gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS);
  g_autofree char *file = g_strdup_printf ("%s/%s.png", dir, name);
  const char *argv[] = { "/usr/bin/import", "-window", "root", file, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_test_message ("screenshot %s (status %d)", file, status);
}

static AttnscopePage *
show_page (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  g_assert_nonnull (page);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  return page;
}

/* Types SOURCE, presses Translate; the target is as_translate_text's text and the trace the pass
 * over both. Returns the independent pass. */
static AsTrace *
translate (const char *dir, const char *source)
{
  gui_test_open (window, dir, NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_window_get_target_visible (window));
  attnscope_window_set_text (window, source);
  attnscope_window_set_target (window, "");
  g_assert_true (gui_test_wait_until (idle, NULL, TIMEOUT_MS));
  g_signal_emit_by_name (attnscope_window_get_translate_button (window), "clicked");
  g_assert_true (gui_test_wait_until (idle, NULL, TIMEOUT_MS));

  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autoptr (AsTranslation) expected = as_translate_text (model, source, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%u source ids → %u target ids: “%s”", expected->source_ids->len,
                  expected->ids->len, expected->text);
  g_assert_cmpstr (attnscope_window_get_target (window), ==, expected->text);
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  AsTrace *pass = as_forward_translation_text (model, source, expected->text, NULL, &error);
  g_assert_no_error (error);
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_nonnull (trace);
  g_assert_nonnull (trace->source);
  g_assert_cmpint (trace->n_tokens, ==, pass->n_tokens);
  g_assert_cmpint (trace->source->n_tokens, ==, pass->source->n_tokens);
  g_assert_cmpmem (trace->ids, pass->n_tokens * sizeof (int32_t), pass->ids,
                   pass->n_tokens * sizeof (int32_t));
  return pass;
}

/* The attention page with KIND, the mean over heads: a ROWS × COLS figure, rows summing to 1,
 * above the diagonal exactly 0 when CAUSAL. */
static void
check_kind (ArAttentionKind kind, int rows, int cols, gboolean causal, const char *shot)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_attention_kind (v, kind);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  AttnscopePage *page = show_page ("attention");
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (heatmap);
  g_assert_nonnull (built);
  const ArHeatmapFigure *fig = &ar_built_figure_get_parts (built)->heatmap;
  g_test_message ("%s: %s, %d × %d", shot, fig->title, fig->n_rows, fig->n_cols);
  g_assert_cmpint (fig->n_rows, ==, rows);
  g_assert_cmpint (fig->n_cols, ==, cols);
  for (int i = 0; i < rows; i++)
    {
      double sum = 0;
      for (int j = 0; j < cols; j++)
        {
          float x = attnscope_heatmap_view_get_value (heatmap, i, j);
          g_assert_true (isfinite (x));
          if (causal && j > i)
            g_assert_cmpfloat (x, ==, 0.0f);
          sum += x;
        }
      g_assert_cmpfloat_with_epsilon (sum, 1.0, 1e-4);
    }
  maybe_shot (shot);
}

static gboolean
scan_shown (gpointer page)
{
  ArFigure figure;
  return attnscope_page_get_figure (ATTNSCOPE_PAGE (page), &figure);
}

/* Every page the window shows gets up to date and draws its figure; returns how many figures. */
static int
check_every_page (const char *label)
{
  int shown = 0;
  GtkWidget *stack
      = gtk_widget_get_parent (GTK_WIDGET (attnscope_window_get_page (window, "attention")));
  g_assert_true (ADW_IS_VIEW_STACK (stack));
  for (GtkWidget *child = gtk_widget_get_first_child (stack); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      AdwViewStackPage *stack_page = adw_view_stack_get_page (ADW_VIEW_STACK (stack), child);
      if (!ATTNSCOPE_IS_PAGE (child) || !adw_view_stack_page_get_visible (stack_page))
        continue;
      const char *name = adw_view_stack_page_get_name (stack_page);
      AttnscopePage *page = show_page (name);
      ArFigure figure;
      if (ATTNSCOPE_PAGE_GET_CLASS (page)->get_figure == NULL)
        continue;
      if (ATTNSCOPE_IS_SCAN_PAGE (page) && !attnscope_page_get_figure (page, &figure))
        {
          g_assert_true (
              attnscope_scan_page_scan (ATTNSCOPE_SCAN_PAGE (page), AS_METRIC_LOSS, NULL, NULL));
          g_assert_true (gui_test_wait_until (scan_shown, page, TIMEOUT_MS));
        }
      if (!attnscope_page_get_figure (page, &figure))
        g_error ("the %s page shows no figure", name);
      g_test_message ("%s page: a figure of kind %d", name, figure.kind);
      g_autofree char *shot = g_strdup_printf ("bart-%s-%s", label, name);
      maybe_shot (shot);
      shown++;
    }
  return shown;
}

static void
check_model (const char *dir, const char *source, const char *label)
{
  g_autoptr (AsTrace) pass = translate (dir, source);
  int S = pass->source->n_tokens, T = pass->n_tokens;
  g_autofree char *e = g_strdup_printf ("bart-%s-encoder", label);
  g_autofree char *d = g_strdup_printf ("bart-%s-decoder", label);
  g_autofree char *c = g_strdup_printf ("bart-%s-cross", label);
  check_kind (AR_ATTENTION_ENCODER, S, S, FALSE, e);
  check_kind (AR_ATTENTION_SELF, T, T, TRUE, d);
  check_kind (AR_ATTENTION_CROSS, T, S, FALSE, c);

  AttnscopePage *heads = show_page ("heads");
  ArFigure grid;
  g_assert_true (attnscope_page_get_figure (heads, &grid));
  g_assert_cmpint (grid.kind, ==, AR_FIGURE_GRID);
  g_assert_cmpint (grid.grid->n_layers, ==, pass->n_layer);
  g_assert_cmpint (grid.grid->n_heads, ==, pass->n_head);
  g_test_message ("heads grid: %s", grid.grid->title);
  int shown = check_every_page (label);
  g_test_message ("%s: %d pages with a figure", label, shown);
  g_assert_cmpint (shown, >=, 5);
}

static void
test_short (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir == NULL)
    return;
  check_model (dir, "abc", "5");
  g_assert_cmpint (attnscope_run_get_trace (gui_test_main_run (window))->source->n_tokens, ==, 5);
}

static void
test_long (void)
{
  g_autofree char *dir = bart_model ("bart-long", bart_long);
  if (dir == NULL)
    return;
  GString *text = g_string_new (NULL);
  while (text->len < 1490)
    g_string_append (text, "the man hit the car and ");
  g_string_truncate (text, 1490);
  check_model (dir, text->str, "1000");
  int S = attnscope_run_get_trace (gui_test_main_run (window))->source->n_tokens;
  g_test_message ("long source: %d tokens", S);
  g_assert_cmpint (S, >=, 950);
  g_string_free (text, TRUE);
}

int
main (int argc, char **argv)
{
  g_autoptr (AttnscopeApplication) app = gui_test_start (&argc, &argv, &window, TIMEOUT_MS);
  g_test_add_func ("/ui/bart-views/short", test_short);
  g_test_add_func ("/ui/bart-views/long", test_long);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
