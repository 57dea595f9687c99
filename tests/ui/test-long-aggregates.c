/* test-long-aggregates.c — the mean over heads and the rollout of a long text in the window,
 * computed one layer at a time from tiles (ui/README.md, "Attention at long lengths").
 *
 * The real window under Xvfb (1280 × 800) on a random Llama-shaped model (2 layers, 4 query / 2
 * key/value heads, D 64; tests/reference/decoder_reference.py, the model of test-long-views.c)
 * with a text of more than 1,024 tokens, $ATTNSCOPE_ATTENTION_HELD_MAX at 1 MB so that the size
 * rule picks the on-demand trace:
 * - the Attention page's mean over the heads of layer 1 equals as_trace_mean_heads_tile's rows
 *   read here, bit for bit, and the analysis holds that layer alone ([T][T]);
 * - its rollout through layer 1 equals as_trace_rollout_layer's, bit for bit;
 * - with a limit of a millisecond ($ATTNSCOPE_ROLLOUT_MAX_SECONDS) the rollout is refused: the
 *   page says why, naming the tokens and the time, is not busy, and one head still draws;
 * - a new text while the rollout of about 4,000 tokens runs: the old text's computation is
 *   cancelled (its analysis goes idle without a rollout landing) and the new text's figure
 *   comes (a short text: the whole arrays as before).
 * The times measured are printed (g_test_message). */
#include <adwaita.h>
#include <string.h>

#include "as-rollout-long.h"
#include "attnscope-analysis.h"
#include "attnscope-attention-page.h"
#include "decoder-models.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 240000

static AttnscopeWindow *window;
static char *model;

static const char *const llama_long[]
    = { "--family",   "llama", "--layers",    "2",    "--heads",        "4",
        "--kv-heads", "2",     "--hidden",    "64",   "--intermediate", "112",
        "--vocab",    "320",   "--positions", "4096", "--dtype",        "f32",
        NULL };

/* A text of N_SENTENCES sentences of the fixture's small vocabulary. */
static char *
long_text (int n_sentences, const char *first)
{
  GString *s = g_string_new (first);
  static const char *const sentences[]
      = { " The man hit the car.", " Then the car hit the man.", " He went home in the dark.",
          " The dog ran in the park." };
  for (int i = 0; i < n_sentences; i++)
    g_string_append (s, sentences[i % G_N_ELEMENTS (sentences)]);
  return g_string_free (s, FALSE);
}

static AsTrace *
main_trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

static AttnscopePage *
attention_page (void)
{
  return attnscope_window_get_page (window, "attention");
}

/* The window on the model and a text of about 1,100 tokens, made by the first test that needs
 * it; FALSE with the test skipped when the reference's Python cannot make the model. */
static gboolean
ready (void)
{
  static gboolean tried;
  if (!tried)
    {
      tried = TRUE;
      model = decoder_model ("llama-long-4096", llama_long, TRUE);
      if (model != NULL)
        {
          g_autofree char *text = long_text (80, "Once");
          gui_test_open (window, model, text, TIMEOUT_MS);
          g_assert_nonnull (main_trace ());
          attnscope_window_show_page (window, "attention");
        }
    }
  if (model == NULL)
    g_test_skip ("the random model could not be made (tests/reference/decoder_reference.py)");
  return model != NULL;
}

/* The Attention page shows a figure of the current trace at the shown aggregate. */
static gboolean
figure_settled (gpointer data)
{
  AttnscopePage *page = attention_page ();
  ArFigure figure;
  return !attnscope_page_get_busy (page) && attnscope_page_get_figure (page, &figure);
}

/* The figure's values ([T][T]) after choosing AGGREGATE at LAYER; the time it took. */
static const ArHeatmapFigure *
show_aggregate (AttnscopeAggregate aggregate, int layer)
{
  AttnscopeViewState *state = gui_test_view_state (window);
  attnscope_view_state_set_layer (state, layer);
  gint64 start = g_get_monotonic_time ();
  attnscope_view_state_set_aggregate (state, aggregate);
  g_assert_true (gui_test_wait_until (figure_settled, NULL, TIMEOUT_MS));
  g_test_message ("aggregate %d of layer %d drawn in %.0f ms", aggregate, layer,
                  (g_get_monotonic_time () - start) / 1e3);
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (attention_page ()));
  return &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
}

static void
test_mean (void)
{
  if (!ready ())
    return;
  AsTrace *t = main_trace ();
  int T = t->n_tokens;
  g_assert_cmpint (T, >, 1024);
  g_assert_false (as_trace_attention_held (t));
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (attention_page ());
  g_assert_true (attnscope_analysis_layer_aggregates (analysis));
  const ArHeatmapFigure *fig = show_aggregate (ATTNSCOPE_AGGREGATE_MEAN, 1);
  g_assert_cmpint (fig->n_rows, ==, T);
  g_assert_cmpint (fig->n_cols, ==, T);
  g_autofree float *rows = g_new (float, (gsize) 3 * T); /* [3][T] */
  const int probe[] = { 0, T / 2, T - 3 };
  for (guint p = 0; p < G_N_ELEMENTS (probe); p++)
    {
      as_trace_mean_heads_tile (t, 1, probe[p], 3, 0, T, rows, T);
      g_assert_cmpmem (fig->values + (gsize) probe[p] * T, 3 * T * sizeof (float), rows,
                       3 * T * sizeof (float));
    }
  /* the layer alone: one_layer set, the layer's [T][T] */
  ArViewSelection view;
  attnscope_page_get_selection (attention_page (), &view);
  ArAttention attention;
  attnscope_analysis_want_layer_attention (analysis, &view, &attention, NULL);
  g_assert_true (attention.one_layer);
  g_assert_nonnull (attention.mean_heads);
  g_assert_cmpfloat (attention.mean_heads[(gsize) (T - 1) * T], ==,
                     fig->values[(gsize) (T - 1) * T]);
}

static void
test_rollout (void)
{
  if (!ready ())
    return;
  AsTrace *t = main_trace ();
  int T = t->n_tokens;
  g_setenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS", "100000", TRUE);
  const ArHeatmapFigure *fig = show_aggregate (ATTNSCOPE_AGGREGATE_ROLLOUT, 1);
  g_assert_cmpint (fig->n_rows, ==, T);
  g_autofree float *expected = g_new (float, (gsize) T *T); /* [T][T] */
  g_autoptr (GError) error = NULL;
  g_assert_true (as_trace_rollout_layer (t, 1, NULL, expected, &error));
  g_assert_cmpmem (fig->values, (gsize) T * T * sizeof (float), expected,
                   (gsize) T * T * sizeof (float));
  attnscope_view_state_set_aggregate (gui_test_view_state (window), ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_true (gui_test_wait_until (figure_settled, NULL, TIMEOUT_MS));
}

/* The first label under WIDGET whose text contains NEEDLE, or NULL. */
static GtkWidget *
find_label (GtkWidget *widget, const char *needle)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), needle) != NULL)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_label (c, needle);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_refused (void)
{
  if (!ready ())
    return;
  int T = main_trace ()->n_tokens;
  AttnscopePage *page = attention_page ();
  AttnscopeViewState *state = gui_test_view_state (window);
  g_setenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS", "0.000001", TRUE);
  /* another text: the rollout of the one before is kept with its analysis */
  g_autofree char *other = long_text (79, "Later");
  attnscope_window_set_text (window, other);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  T = main_trace ()->n_tokens;
  g_assert_cmpint (T, >, 1024);
  attnscope_view_state_set_layer (state, 0);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_true (gui_test_wait_until (figure_settled, NULL, TIMEOUT_MS));
  /* layer 0's rollout is its own matrix, no product: layer 1's multiplies one */
  attnscope_view_state_set_layer (state, 1);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_ROLLOUT);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  ArFigure figure;
  g_assert_false (attnscope_page_get_figure (page, &figure));
  GtkWidget *label = find_label (GTK_WIDGET (page), "No rollout");
  g_assert_nonnull (label);
  const char *text = gtk_label_get_text (GTK_LABEL (label));
  g_test_message ("refused: %s", text);
  g_autofree char *tokens = g_strdup_printf ("over %d tokens", T);
  g_assert_nonnull (strstr (text, tokens));
  g_assert_nonnull (strstr (text, "second"));
  /* the page keeps working: one head draws */
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_true (gui_test_wait_until (figure_settled, NULL, TIMEOUT_MS));
  g_unsetenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS");
}

static gboolean
analysis_idle (gpointer data)
{
  return !attnscope_analysis_get_busy (ATTNSCOPE_ANALYSIS (data));
}

static void
count_rollouts (AttnscopeAnalysis *analysis, int kind, int *landed)
{
  if (kind == ATTNSCOPE_RESULT_ROLLOUT)
    (*landed)++;
}

static void
test_text_change (void)
{
  if (!ready ())
    return;
  AttnscopeViewState *state = gui_test_view_state (window);
  g_setenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS", "100000", TRUE);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  /* a text of about 4,000 tokens whose rollout through layer 1 takes seconds */
  g_autofree char *first = long_text (280, "Before");
  attnscope_window_set_text (window, first);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopePage *page = attention_page ();
  g_autoptr (AttnscopeAnalysis) old = g_object_ref (attnscope_page_get_analysis (page));
  int T = attnscope_analysis_get_trace (old)->n_tokens, landed = 0;
  g_signal_connect (old, "ready", G_CALLBACK (count_rollouts), &landed);
  attnscope_view_state_set_layer (state, 1);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_ROLLOUT);
  /* what the page asks for, asked here too: the rollout runs (or waits) now */
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  ArAttention attention;
  attnscope_analysis_want_layer_attention (old, &view, &attention, NULL);
  g_assert_null (attention.rollout);
  g_assert_true (attnscope_analysis_get_busy (old));
  gint64 start = g_get_monotonic_time ();
  attnscope_window_set_text (window, "Now the man hit the car.");
  g_assert_true (gui_test_wait_until (analysis_idle, old, 60000));
  g_test_message ("the rollout of %d tokens stopped %.0f ms after the text changed", T,
                  (g_get_monotonic_time () - start) / 1e3);
  g_assert_cmpint (landed, ==, 0);
  g_assert_cmpfloat (attnscope_analysis_get_layer_progress (old, AR_AGGREGATE_ROLLOUT), <, 0);
  g_signal_handlers_disconnect_by_data (old, &landed);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_page_get_analysis (page) != old);
  /* the short text: the whole arrays, as before */
  g_assert_false (attnscope_analysis_layer_aggregates (attnscope_page_get_analysis (page)));
  g_assert_true (gui_test_wait_until (figure_settled, NULL, TIMEOUT_MS));
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  g_unsetenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the size rule, with a small budget, keeps this text's attention on demand */
  g_setenv ("ATTNSCOPE_ATTENTION_HELD_MAX", "1000000", TRUE);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/long-aggregates/mean", test_mean);
  g_test_add_func ("/ui/long-aggregates/rollout", test_rollout);
  g_test_add_func ("/ui/long-aggregates/refused", test_refused);
  g_test_add_func ("/ui/long-aggregates/text-change", test_text_change);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_free (model);
  return status;
}
