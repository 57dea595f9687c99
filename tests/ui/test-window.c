/* test-window.c — the real application window under Xvfb: it opens on the default model (or
 * the first shipped one that loads), typing runs the model and updates the token strip and the
 * heatmap, stale runs are dropped, text beyond the context is refused inline and can be
 * truncated, a failed model load keeps the current model, every page shows the trace's numbers,
 * and the figure export writes what ui/render draws.
 *
 * Most cases use the tiny GPT-2 fixture (tests/fixtures/tiny-gpt2: 2 layers, 2 heads, byte-level
 * BPE, context 32) and compare what the widgets hold with the core's own results. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "as-forward.h"
#include "as-pca.h"
#include "as-predict.h"
#include "as-similarity.h"
#include "attnscope-attention-page.h"
#include "attnscope-compare-page.h"
#include "attnscope-embeddings-page.h"
#include "attnscope-figure-widget.h"
#include "attnscope-heads-page.h"
#include "attnscope-predictions-page.h"
#include "attnscope-similarity-page.h"
#include "attnscope-similarity-row.h"
#include "figure-export.h"
#include "gui-export.h"
#include "gui-model-menu.h"
#include "gui-test-util.h"
#include "token-label.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;

static char *
fixture_path (void)
{
  const char *src = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_assert_nonnull (src);
  return g_build_filename (src, "tests", "fixtures", "tiny-gpt2", NULL);
}

static AsModel *
fixture_model (void)
{
  g_autofree char *path = fixture_path ();
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (path, &error);
  g_assert_no_error (error);
  return model;
}

/* Sets TEXT in the entry and waits for its run. */
static void
type_text (const char *text)
{
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static void
open_model (const char *spec)
{
  gui_test_open (window, spec, NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static AttnscopePage *
page (const char *name)
{
  AttnscopePage *p = attnscope_window_get_page (window, name);
  g_assert_nonnull (p);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return p;
}

/* ---- startup ---- */

static void
test_startup_model (void)
{
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  /* The default model, or the first shipped model (by name) that loads. */
  g_autofree char *expected = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (as_model_default_name (), &error);
  if (model != NULL)
    expected = g_strdup (as_model_default_name ());
  g_auto (GStrv) shipped = gui_model_menu_dup_shipped_names ();
  for (guint i = 0; expected == NULL && shipped[i] != NULL; i++)
    {
      g_autoptr (AsModel) candidate = as_model_load (shipped[i], NULL);
      if (candidate != NULL)
        expected = g_strdup (shipped[i]);
    }
  g_assert_nonnull (expected);
  g_assert_cmpstr (attnscope_session_get_model_name (attnscope_window_get_session (window)), ==,
                   expected);
  g_assert_cmpstr (attnscope_window_get_model_label (window), ==, expected);
  /* The startup text ran (the settings' default text). */
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_nonnull (attnscope_run_get_trace (gui_test_main_run (window)));
}

/* ---- typing ---- */

static void
check_strip_and_heatmap (const char *text)
{
  g_autoptr (AsModel) model = fixture_model ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) expected = as_forward_text (model, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (strip), ==, expected->n_tokens);
  for (int i = 0; i < expected->n_tokens; i++)
    {
      g_autofree char *label
          = ar_token_label (expected->tokens[i], expected->token_texts[i], FALSE);
      g_assert_cmpstr (attnscope_token_strip_get_chip_label (strip, i), ==, label);
    }
  AttnscopeAttentionPage *attention = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (attention);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, expected->n_tokens);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, expected->n_tokens);
  int layer = attnscope_view_state_get_layer (gui_test_view_state (window)),
      head = attnscope_view_state_get_head (gui_test_view_state (window));
  /* an independent pass of the same input: the window's bits (tests/README.md, "Same bits for
   * every thread count") */
  const float *attn = as_trace_attn_matrices (expected, layer, head);
  for (int r = 0; r < expected->n_tokens; r++)
    for (int c = 0; c < expected->n_tokens; c++)
      g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, r, c), ==,
                         attn[r * expected->n_tokens + c]);
}

static void
test_typing (void)
{
  g_autofree char *path = fixture_path ();
  open_model (path);
  g_assert_cmpstr (attnscope_session_get_model_name (attnscope_window_get_session (window)), ==,
                   "tiny-gpt2");
  type_text ("The man hit the car");
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  check_strip_and_heatmap ("The man hit the car");
  /* GPT-2's 'Ġ' is shown as a visible space mark, and raw on request. */
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  g_assert_cmpstr (attnscope_token_strip_get_chip_label (strip, 2), ==, "␣man");
  attnscope_view_state_set_raw_tokens (gui_test_view_state (window), TRUE);
  g_assert_cmpstr (attnscope_token_strip_get_chip_label (strip, 2), ==, "Ġman");
  attnscope_view_state_set_raw_tokens (gui_test_view_state (window), FALSE);

  type_text ("the force");
  check_strip_and_heatmap ("the force");
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(int *) user_data)++;
}

static void
test_stale_runs (void)
{
  int landed = 0;
  gulong id = g_signal_connect (gui_test_main_run (window), "notify::trace",
                                G_CALLBACK (count_notify), &landed);
  /* Two edits before the main loop runs: the first run is cancelled and never lands. */
  attnscope_window_set_text (window, "The car");
  g_assert_true (attnscope_run_get_running (gui_test_main_run (window)));
  attnscope_window_set_text (window, "The man hit the car again");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_signal_handler_disconnect (gui_test_main_run (window), id);
  g_assert_cmpint (landed, ==, 1);
  check_strip_and_heatmap ("The man hit the car again");
}

static void
test_too_long (void)
{
  type_text ("The man hit the car");
  AsTrace *before = attnscope_run_get_trace (gui_test_main_run (window));
  int n_before = before->n_tokens;
  /* 41 tokens > the context of 32. */
  GString *text = g_string_new ("a");
  for (int i = 0; i < 40; i++)
    g_string_append (text, " the");
  type_text (text->str);
  const char *message = attnscope_run_get_error_message (gui_test_main_run (window));
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "41 tokens"));
  g_assert_nonnull (strstr (message, "context length is 32"));
  g_assert_true (attnscope_run_get_too_long (gui_test_main_run (window)));
  /* The previous result stays. */
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == before);
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (attnscope_window_get_token_strip (window)),
                    ==, n_before);

  /* "Use the first tokens" keeps the first 32. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.truncate-text", NULL));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_run_get_truncate (gui_test_main_run (window)));
  g_assert_true (attnscope_run_get_truncated (gui_test_main_run (window)));
  g_assert_cmpint (attnscope_run_get_n_text_tokens (gui_test_main_run (window)), ==, 41);
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  g_assert_cmpint (attnscope_run_get_trace (gui_test_main_run (window))->n_tokens, ==, 32);
  /* The choice belongs to that text: a text that fits turns it off, and the long text asks
   * again instead of being cut silently. */
  type_text ("The man hit the car");
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  g_assert_false (attnscope_run_get_truncate (gui_test_main_run (window)));
  g_assert_false (attnscope_run_get_truncated (gui_test_main_run (window)));
  type_text (text->str);
  g_assert_nonnull (attnscope_run_get_error_message (gui_test_main_run (window)));
  type_text ("The man hit the car");
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  g_string_free (text, TRUE);
}

/* The chips wrap like words: a narrower strip needs more lines. */
static void
test_strip_wraps (void)
{
  /* 23 tokens of the tiny model (context 32). */
  type_text ("The man hit the car and the car hit the man");
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  GtkWidget *strip = GTK_WIDGET (attnscope_window_get_token_strip (window));
  int wide, narrow, min;
  gtk_widget_measure (strip, GTK_ORIENTATION_VERTICAL, 4000, &min, &wide, NULL, NULL);
  gtk_widget_measure (strip, GTK_ORIENTATION_VERTICAL, 300, &min, &narrow, NULL, NULL);
  GtkWidget *chip = GTK_WIDGET (attnscope_token_strip_get_chip (ATTNSCOPE_TOKEN_STRIP (strip), 0));
  int chip_height;
  gtk_widget_measure (chip, GTK_ORIENTATION_VERTICAL, -1, &min, &chip_height, NULL, NULL);
  g_assert_cmpint (wide, ==, chip_height);
  g_assert_cmpint (narrow, >=, 3 * chip_height);
  type_text ("The man hit the car");
}

static void
test_load_failure (void)
{
  AsModel *before = attnscope_session_get_model (attnscope_window_get_session (window));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_nonnull (before);
  attnscope_window_open_model (window, "/nonexistent/attnscope-model");
  g_assert_true (attnscope_window_get_loading (window));
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  const char *error = attnscope_window_get_last_error (window);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, "/nonexistent/attnscope-model"));
  /* The model, its name in the header and the result stay. */
  g_assert_true (attnscope_session_get_model (attnscope_window_get_session (window)) == before);
  g_assert_cmpstr (attnscope_session_get_model_name (attnscope_window_get_session (window)), ==,
                   "tiny-gpt2");
  g_assert_cmpstr (attnscope_window_get_model_label (window), ==, "tiny-gpt2");
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == trace);
}

static void
test_selection (void)
{
  type_text ("The man hit the car");
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  gtk_toggle_button_set_active (attnscope_token_strip_get_chip (strip, 2), TRUE);
  g_assert_cmpint (attnscope_view_state_get_selected_token (gui_test_view_state (window)), ==, 2);
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page ("attention")));
  int row, col;
  g_object_get (heatmap, "highlight-row", &row, "highlight-col", &col, NULL);
  g_assert_cmpint (row, ==, 2);
  g_assert_cmpint (col, ==, 2);
  /* Clicking the chip again clears the selection. */
  gtk_toggle_button_set_active (attnscope_token_strip_get_chip (strip, 2), FALSE);
  g_assert_cmpint (attnscope_view_state_get_selected_token (gui_test_view_state (window)), ==, -1);
  attnscope_page_ensure_updated (ATTNSCOPE_PAGE (page ("attention")));
  g_object_get (heatmap, "highlight-row", &row, NULL);
  g_assert_cmpint (row, ==, -1);
}

static void
test_layer_head_actions (void)
{
  attnscope_view_state_set_layer (gui_test_view_state (window), 0);
  attnscope_view_state_set_head (gui_test_view_state (window), 0);
  GtkWidget *w = GTK_WIDGET (window);
  g_assert_true (gtk_widget_activate_action (w, "win.step-layer", "i", 1));
  g_assert_cmpint (attnscope_view_state_get_layer (gui_test_view_state (window)), ==, 1);
  /* Clamped to the model's 2 layers and 2 heads. */
  g_assert_true (gtk_widget_activate_action (w, "win.step-layer", "i", 1));
  g_assert_cmpint (attnscope_view_state_get_layer (gui_test_view_state (window)), ==, 1);
  g_assert_true (gtk_widget_activate_action (w, "win.step-head", "i", 1));
  g_assert_cmpint (attnscope_view_state_get_head (gui_test_view_state (window)), ==, 1);
  g_assert_true (gtk_widget_activate_action (w, "win.step-head", "i", -1));
  g_assert_true (gtk_widget_activate_action (w, "win.step-head", "i", -1));
  g_assert_cmpint (attnscope_view_state_get_head (gui_test_view_state (window)), ==, 0);
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page ("attention")));
  g_autofree char *title = NULL;
  g_object_get (heatmap, "title", &title, NULL);
  g_assert_cmpstr (title, ==, "Layer 1 · head 0");
  check_strip_and_heatmap ("The man hit the car");
}

/* ---- the pages ---- */

static void
test_heads_page (void)
{
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (heads);
  g_assert_cmpint (attnscope_head_grid_view_get_n_layers (grid), ==, 2);
  g_assert_cmpint (attnscope_head_grid_view_get_n_heads (grid), ==, 2);
  ArFigure figure;
  g_assert_true (attnscope_page_get_figure (ATTNSCOPE_PAGE (heads), &figure));
  g_assert_cmpint (figure.kind, ==, AR_FIGURE_GRID);
  g_assert_true (figure.grid->attn == attnscope_run_get_trace (gui_test_main_run (window))->attn);
  g_assert_nonnull (figure.grid->patterns);
}

static void
test_similarity_page (void)
{
  AttnscopeSimilarityPage *sim = ATTNSCOPE_SIMILARITY_PAGE (page ("similarity"));
  attnscope_similarity_page_set_source (sim, AS_VECTORS_CONTEXTS);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), 1);
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (sim), TIMEOUT_MS));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  int t = trace->n_tokens, layer = attnscope_view_state_get_layer (gui_test_view_state (window));
  int head = attnscope_view_state_get_head (gui_test_view_state (window));
  g_autoptr (GError) error = NULL;
  g_autofree float *expected
      = as_trace_similarity (trace, AS_VECTORS_CONTEXTS, layer, head, &error);
  g_assert_no_error (error);
  GListModel *rows = attnscope_similarity_page_get_rows (sim);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, t - 1);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (AttnscopeSimilarityRow) row = g_list_model_get_item (rows, i);
      int j = attnscope_similarity_row_get_index (row);
      g_assert_cmpint (j, ==, i < 1 ? (int) i : (int) i + 1);
      g_assert_cmpfloat_with_epsilon (attnscope_similarity_row_get_similarity (row),
                                      expected[1 * t + j], 1e-6);
      g_assert_cmpfloat_with_epsilon (attnscope_similarity_row_get_attention (row),
                                      as_trace_attn_matrices (trace, layer, head)[1 * t + j], 1e-6);
    }
  AttnscopeHeatmapView *heatmap = attnscope_similarity_page_get_heatmap (sim);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, t);
  g_assert_cmpfloat_with_epsilon (attnscope_heatmap_view_get_value (heatmap, 2, 3),
                                  expected[2 * t + 3], 1e-6);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), -1);
}

static gboolean
embeddings_idle (gpointer user_data)
{
  return !attnscope_embeddings_page_get_busy (user_data);
}

static void
test_embeddings_page (void)
{
  AttnscopeEmbeddingsPage *emb = ATTNSCOPE_EMBEDDINGS_PAGE (page ("embeddings"));
  attnscope_embeddings_page_set_source (emb, AS_VECTORS_EMBEDDINGS);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_PCA);
  g_assert_true (gui_test_wait_until (embeddings_idle, emb, TIMEOUT_MS));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  AttnscopeScatterView *scatter = attnscope_embeddings_page_get_scatter (emb);
  g_assert_cmpint (attnscope_scatter_view_get_n_points (scatter), ==, trace->n_tokens);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca
      = as_pca_fit (as_trace_hidden (trace, 0), trace->n_tokens, trace->d_model, 2, &error);
  g_assert_no_error (error);
  for (int i = 0; i < trace->n_tokens; i++)
    {
      float x, y;
      g_assert_true (attnscope_scatter_view_get_point (scatter, i, &x, &y));
      g_assert_cmpfloat_with_epsilon (x, pca->coords[2 * i], 1e-4);
      g_assert_cmpfloat_with_epsilon (y, pca->coords[2 * i + 1], 1e-4);
    }

  /* t-SNE runs in the background and can be cancelled; then it runs to the end. */
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_TSNE);
  g_assert_true (attnscope_embeddings_page_get_busy (emb));
  attnscope_embeddings_page_cancel (emb);
  g_assert_false (attnscope_embeddings_page_get_busy (emb));
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_PCA);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_TSNE);
  g_assert_true (attnscope_embeddings_page_get_busy (emb));
  g_assert_true (gui_test_wait_until (embeddings_idle, emb, TIMEOUT_MS));
  g_assert_cmpint (attnscope_scatter_view_get_n_points (scatter), ==, trace->n_tokens);
  float x, y;
  g_assert_true (attnscope_scatter_view_get_point (scatter, 0, &x, &y));
  g_assert_true (isfinite (x) && isfinite (y));
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_PCA);
  g_assert_true (gui_test_wait_until (embeddings_idle, emb, TIMEOUT_MS));
}

static void
test_compare_page (void)
{
  type_text ("The man hit the car");
  attnscope_run_set_text (gui_test_compare_run (window), "The car hit the man");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeComparePage *cmp = ATTNSCOPE_COMPARE_PAGE (page ("compare"));
  AttnscopeCompareView *view = attnscope_compare_page_get_view (cmp);
  g_assert_true (attnscope_compare_view_has_panels (view));
  AsTrace *a = attnscope_run_get_trace (gui_test_main_run (window));
  AsTrace *b = attnscope_run_get_trace (gui_test_compare_run (window));
  g_assert_nonnull (b);
  int layer = attnscope_view_state_get_layer (gui_test_view_state (window)),
      head = attnscope_view_state_get_head (gui_test_view_state (window));
  const float *pa = as_trace_attn_matrices (a, layer, head),
              *pb = as_trace_attn_matrices (b, layer, head);
  /* By token (the default): the k-th occurrence of a token in A is paired with the k-th in B —
   * for this permutation every token has a partner, and panel B is B's weights permuted into
   * A's order. The pairing is computed here from the token texts, independently of core. */
  g_assert_false (
      attnscope_view_state_get_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS));
  g_assert_cmpint (a->n_tokens, ==, b->n_tokens);
  int n = a->n_tokens;
  g_autofree int *partner = g_new (int, n);
  for (int i = 0; i < n; i++)
    {
      int k = 0;
      for (int i2 = 0; i2 < i; i2++)
        k += g_str_equal (a->tokens[i2], a->tokens[i]);
      partner[i] = -1;
      for (int j = 0; j < n && partner[i] < 0; j++)
        if (g_str_equal (b->tokens[j], a->tokens[i]) && k-- == 0)
          partner[i] = j;
      g_assert_cmpint (partner[i], >=, 0);
    }
  /* The tiny model splits the words into pieces; " man" is still a piece of A that B has
   * elsewhere: a real permutation, not the identity. */
  int moved = 0;
  for (int i = 0; i < n; i++)
    moved += partner[i] != i;
  g_assert_cmpint (moved, >, 0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        float want_b = pb[partner[i] * n + partner[j]];
        g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 1, i, j), want_b,
                                        1e-6);
        g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 0, i, j),
                                        pa[i * n + j], 1e-6);
        g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 2, i, j),
                                        want_b - pa[i * n + j], 1e-6);
      }
  g_assert_true (attnscope_compare_view_has_difference (view));

  /* By position: B as it is, the difference position by position. */
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 TRUE);
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (cmp), TIMEOUT_MS));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 1, i, j),
                                        pb[i * n + j], 1e-6);
        g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 2, i, j),
                                        pb[i * n + j] - pa[i * n + j], 1e-6);
      }

  /* A compared with itself reordered is exactly no change by token. */
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 FALSE);
  attnscope_run_set_text (gui_test_compare_run (window),
                          attnscope_run_get_text (gui_test_main_run (window)));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (cmp), TIMEOUT_MS));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      g_assert_cmpfloat (attnscope_compare_view_get_value (view, 2, i, j), ==, 0);

  /* A second text of another length: by token the shared tokens still differ cell by cell
   * ("The" and " car" of A have partners, the others none); by position there is no difference. */
  attnscope_run_set_text (gui_test_compare_run (window), "The car");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (cmp), TIMEOUT_MS));
  g_assert_true (attnscope_compare_view_has_panels (view));
  g_assert_true (attnscope_compare_view_has_difference (view));
  b = attnscope_run_get_trace (gui_test_compare_run (window));
  g_assert_cmpint (b->n_tokens, <, n);
  pb = as_trace_attn_matrices (b, layer, head);
  /* A's first pieces are B's ("The car" is a prefix of A's text's pieces up to " "); a piece of A
   * that B lacks ("man") has no partner: its row is empty. */
  g_assert_true (g_str_equal (a->tokens[0], b->tokens[0])
                 && g_str_equal (a->tokens[1], b->tokens[1]));
  g_assert_cmpfloat_with_epsilon (attnscope_compare_view_get_value (view, 1, 1, 0),
                                  pb[1 * b->n_tokens + 0], 1e-6);
  int unpaired = -1;
  for (int i = 0; i < n && unpaired < 0; i++)
    {
      gboolean found = FALSE;
      for (int j = 0; j < b->n_tokens; j++)
        found |= g_str_equal (a->tokens[i], b->tokens[j]);
      if (!found)
        unpaired = i;
    }
  g_assert_cmpint (unpaired, >=, 0);
  g_assert_true (isnan (attnscope_compare_view_get_value (view, 1, unpaired, 0)));
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 TRUE);
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (cmp), TIMEOUT_MS));
  g_assert_true (attnscope_compare_view_has_panels (view));
  g_assert_false (attnscope_compare_view_has_difference (view));
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 FALSE);
}

static void
test_predictions_page (void)
{
  AttnscopePredictionsPage *pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  AsModel *model = attnscope_session_get_model (attnscope_window_get_session (window));
  int n = 0;
  AsPrediction *expected = as_predict_top_k (trace, as_model_get_tokenizer (model), 10, &n);
  g_assert_cmpint (attnscope_predictions_page_get_n_predictions (pred), ==, 10);
  g_assert_cmpint (n, ==, 10);
  for (int i = 0; i < n; i++)
    {
      g_assert_cmpstr (attnscope_predictions_page_get_token (pred, i), ==, expected[i].token);
      g_assert_cmpfloat_with_epsilon (attnscope_predictions_page_get_probability (pred, i),
                                      expected[i].probability, 1e-7);
    }
  /* Append: one greedy step; the entry follows and the model runs again. */
  g_autofree char *before = g_strdup (attnscope_run_get_text (gui_test_main_run (window)));
  g_autofree char *wanted = g_strconcat (before, expected[0].token, NULL);
  attnscope_predictions_page_append (pred, 0);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (attnscope_run_get_text (gui_test_main_run (window)), ==, wanted);
  as_predictions_free (expected, n);
  type_text ("The man hit the car");
}

/* ---- export ---- */

static void
test_export (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-export-XXXXXX", NULL);
  AttnscopePage *attention = page ("attention");
  g_autofree char *png = g_build_filename (dir, "attention.png", NULL);
  g_autoptr (GError) error = NULL;
  const char *last_error = attnscope_window_get_last_error (window);
  g_assert_true (gui_export_write (window, attention, png, 2, &error));
  g_assert_no_error (error);
  /* Success shows a toast with the path, not an error. */
  g_assert_true (attnscope_window_get_last_error (window) == last_error);

  /* The PNG is exactly what ui/render draws for the page's figure. */
  ArFigure figure;
  g_assert_true (attnscope_page_get_figure (attention, &figure));
  int width, height;
  ar_figure_get_pixel_size (&figure, 2, &width, &height);
  cairo_surface_t *file = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (file), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (file), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (file), ==, height);
  cairo_surface_t *direct = ar_figure_render_image (&figure, 2, &error);
  g_assert_no_error (error);
  cairo_surface_flush (file);
  cairo_surface_flush (direct);
  int stride = cairo_image_surface_get_stride (direct);
  g_assert_cmpint (cairo_image_surface_get_stride (file), ==, stride);
  g_assert_cmpint (memcmp (cairo_image_surface_get_data (file),
                           cairo_image_surface_get_data (direct), (gsize) stride * height),
                   ==, 0);
  cairo_surface_destroy (file);
  cairo_surface_destroy (direct);

  /* SVG and PDF of the same figure, and the all-heads grid. */
  g_autofree char *svg = g_build_filename (dir, "attention.svg", NULL);
  g_autofree char *pdf = g_build_filename (dir, "attention.pdf", NULL);
  g_autofree char *grid = g_build_filename (dir, "all-heads.png", NULL);
  g_assert_true (gui_export_write (window, attention, svg, 1, &error));
  g_assert_true (gui_export_write (window, attention, pdf, 1, &error));
  AttnscopePage *heads = attnscope_window_get_page (window, "heads");
  g_assert_true (gui_test_wait_page (heads, TIMEOUT_MS));
  g_assert_true (gui_export_write (window, heads, grid, 1, &error));
  g_autofree char *svg_text = NULL, *pdf_text = NULL;
  g_assert_true (g_file_get_contents (svg, &svg_text, NULL, NULL));
  g_assert_nonnull (strstr (svg_text, "<svg"));
  gsize pdf_len = 0;
  g_assert_true (g_file_get_contents (pdf, &pdf_text, &pdf_len, NULL));
  g_assert_true (g_str_has_prefix (pdf_text, "%PDF-"));
  g_assert_true (g_file_test (grid, G_FILE_TEST_IS_REGULAR));

  /* A folder that does not exist: an error naming the path, no file. */
  g_autofree char *bad = g_build_filename (dir, "missing", "figure.png", NULL);
  g_assert_false (gui_export_write (window, attention, bad, 1, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (attnscope_window_get_last_error (window), "missing"));
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));

  for (const char *const *f = (const char *const[]){ png, svg, pdf, grid, NULL }; *f; f++)
    g_unlink (*f);
  g_rmdir (dir);
}

/* ---- the toy model of the seed ---- */

static void
test_seed_model (void)
{
  open_model ("seed-two-heads");
  type_text ("May the force be with you");
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  const char *words[] = { "May", "the", "force", "be", "with", "you" };
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (strip), ==, 6);
  for (int i = 0; i < 6; i++)
    g_assert_cmpstr (attnscope_token_strip_get_chip_label (strip, i), ==, words[i]);
  /* Head 0's first row as the seed prints it (tests/README.md, "Published values"). */
  attnscope_view_state_set_aggregate (gui_test_view_state (window), ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (gui_test_view_state (window), 0);
  attnscope_view_state_set_head (gui_test_view_state (window), 0);
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page ("attention")));
  const float row0[] = { 0.068118, 0.181340, 0.071635, 0.027055, 0.456570, 0.195282 };
  for (int c = 0; c < 6; c++)
    g_assert_cmpfloat_with_epsilon (attnscope_heatmap_view_get_value (heatmap, 0, c), row0[c],
                                    1e-6);
  /* A word outside the toy vocabulary: said inline, the result stays. */
  type_text ("May the dog");
  g_assert_nonnull (strstr (attnscope_run_get_error_message (gui_test_main_run (window)), "dog"));
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (strip), ==, 6);
  /* No language-model head: no predictions. */
  g_assert_cmpint (attnscope_predictions_page_get_n_predictions (
                       ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"))),
                   ==, 0);
}

/* The menu lists the shipped models and the Hugging Face cache's (a fake cache here), sharded
 * checkpoints included. */
static gboolean
menu_has (GMenuModel *menu, const char *spec)
{
  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);
      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autoptr (GVariant) target
              = g_menu_model_get_item_attribute_value (section, i, G_MENU_ATTRIBUTE_TARGET, NULL);
          if (target != NULL && g_str_equal (g_variant_get_string (target, NULL), spec))
            return TRUE;
        }
    }
  return FALSE;
}

static void
test_model_menu (void)
{
  g_autofree char *cache = g_dir_make_tmp ("attnscope-hf-XXXXXX", NULL);
  g_autofree char *snapshot
      = g_build_filename (cache, "models--testorg--tiny", "snapshots", "0123abcd", NULL);
  g_assert_cmpint (g_mkdir_with_parents (snapshot, 0755), ==, 0);
  /* a sharded checkpoint as the hub's cache stores it: snapshot files are links into blobs/ */
  g_autofree char *repo2 = g_build_filename (cache, "models--HuggingFaceTB--SmolLM2-135M", NULL);
  g_autofree char *blobs = g_build_filename (repo2, "blobs", NULL);
  g_autofree char *snapshot2 = g_build_filename (repo2, "snapshots", "4567cdef", NULL);
  g_assert_cmpint (g_mkdir_with_parents (blobs, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (snapshot2, 0755), ==, 0);
  const char *files[] = { "config.json", "model.safetensors.index.json",
                          "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors" };
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *blob = g_strdup_printf ("%s/blob%zu", blobs, i);
      g_assert_true (g_file_set_contents (blob, "{}", -1, NULL));
      g_autofree char *link = g_build_filename (snapshot2, files[i], NULL);
      g_autofree char *target = g_strdup_printf ("../../blobs/blob%zu", i);
      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  g_setenv ("HF_HUB_CACHE", cache, TRUE);
  g_autoptr (GMenu) menu = g_menu_new ();
  gui_model_menu_fill (menu);
  g_unsetenv ("HF_HUB_CACHE");
  g_assert_true (menu_has (G_MENU_MODEL (menu), "seed-two-heads"));
  g_assert_true (menu_has (G_MENU_MODEL (menu), "testorg/tiny"));
  g_assert_false (menu_has (G_MENU_MODEL (menu), "testorg--tiny"));
  g_assert_true (menu_has (G_MENU_MODEL (menu), "HuggingFaceTB/SmolLM2-135M"));
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *blob = g_strdup_printf ("%s/blob%zu", blobs, i);
      g_autofree char *link = g_build_filename (snapshot2, files[i], NULL);
      g_unlink (link);
      g_unlink (blob);
    }
  g_autofree char *snapshots2 = g_path_get_dirname (snapshot2);
  g_rmdir (snapshot2);
  g_rmdir (snapshots2);
  g_rmdir (blobs);
  g_rmdir (repo2);
  g_rmdir (snapshot);
  g_autofree char *snapshots = g_path_get_dirname (snapshot);
  g_autofree char *repo = g_path_get_dirname (snapshots);
  g_rmdir (snapshots);
  g_rmdir (repo);
  g_rmdir (cache);
  /* Choosing an entry loads it: win.load-model's state is the open model. */
  g_autoptr (GVariant) state
      = g_action_group_get_action_state (G_ACTION_GROUP (window), "load-model");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "seed-two-heads");
}

static void
test_about_and_shortcuts (void)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (window));
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  GtkWindow *about = NULL;
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    if (ADW_IS_ABOUT_WINDOW (l->data))
      about = l->data;
  g_assert_nonnull (about);
  g_assert_cmpstr (adw_about_window_get_application_name (ADW_ABOUT_WINDOW (about)), ==,
                   "attnscope");
  gtk_window_destroy (about);
  /* GtkApplication found the shortcuts window in the resources. */
  g_assert_nonnull (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "show-help-overlay"));
}

static void
test_dark_style (void)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (attnscope_figure_style_get () == ar_render_style_dark ());
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_true (attnscope_figure_style_get () == ar_render_style_light ());
  adw_style_manager_set_color_scheme (manager, ADW_COLOR_SCHEME_DEFAULT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);

  g_test_add_func ("/ui/window/startup-model", test_startup_model);
  g_test_add_func ("/ui/window/typing", test_typing);
  g_test_add_func ("/ui/window/stale-runs", test_stale_runs);
  g_test_add_func ("/ui/window/too-long", test_too_long);
  g_test_add_func ("/ui/window/strip-wraps", test_strip_wraps);
  g_test_add_func ("/ui/window/load-failure", test_load_failure);
  g_test_add_func ("/ui/window/selection", test_selection);
  g_test_add_func ("/ui/window/layer-head-actions", test_layer_head_actions);
  g_test_add_func ("/ui/window/heads-page", test_heads_page);
  g_test_add_func ("/ui/window/similarity-page", test_similarity_page);
  g_test_add_func ("/ui/window/embeddings-page", test_embeddings_page);
  g_test_add_func ("/ui/window/compare-page", test_compare_page);
  g_test_add_func ("/ui/window/predictions-page", test_predictions_page);
  g_test_add_func ("/ui/window/export", test_export);
  g_test_add_func ("/ui/window/seed-model", test_seed_model);
  g_test_add_func ("/ui/window/model-menu", test_model_menu);
  g_test_add_func ("/ui/window/about-and-shortcuts", test_about_and_shortcuts);
  g_test_add_func ("/ui/window/dark-style", test_dark_style);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
