/* test-encoder-window.c — the window on encoders (BERT) under Xvfb: the predictions page lists
 * the top 10 at every [MASK] exactly as as_predict_masked gives them (ids, probabilities, which
 * the test also recomputes as a softmax of the trace's logits), Fill replaces the mask with the
 * chosen token, a text without a mask says "Type [MASK] …", a model without a masked-LM head says
 * so; pair mode runs as_forward_pair's ids and token types and tints the token strip by
 * sentence; the sentence filter shows exactly the block of the attention matrix; an encoder's
 * heatmap is a full square; the heads page labels and tooltips carry the core's head statistics;
 * the compare page compares two pairs; a pair longer than the context gets a banner naming both
 * texts' lengths and keeps the previous trace, and truncation cuts the longer text first;
 * Sentence B is saved in the settings and restored by a new window.
 *
 * Models: the shipped attnscope-mini-bert, and random BERTs of tests/reference (encoder-models.h):
 * one with bert-base-uncased's 30,522-token vocabulary (the bert-bge tokenizer.json) and a
 * context of 12, one without a masked-LM head. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-head-stats.h"
#include "as-predict.h"
#include "attnscope-attention-page.h"
#include "attnscope-compare-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-predictions-page.h"
#include "encoder-models.h"
#include "gui-test-util.h"
#include "render-text.h"
#include "as-word-spans.h"
#include "word-labels.h"
#include "check-close.h"
#include "cli-support.h"

#define TIMEOUT_MS 120000
#define MINI_BERT "attnscope-mini-bert"
#define TEXT_A "the cat sat on the [MASK] ."
#define TEXT_B "a small dog ran in the park ."

static AttnscopeWindow *window;

static void
open_model (const char *spec)
{
  gui_test_open (window, spec, NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (
      attnscope_window_get_model_label (window), ==,
      as_model_get_name (attnscope_session_get_model (attnscope_window_get_session (window))));
}

static void
set_texts (const char *text, const char *pair)
{
  attnscope_window_set_pair (window, pair);
  attnscope_window_set_text (window, text);
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

/* The core's own trace of (TEXT, PAIR) on the session's model, with every position's logits. */
static AsTrace *
core_trace (const char *text, const char *pair, gboolean truncate)
{
  AsForwardOptions options = { .all_logits = TRUE };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward_pair (attnscope_session_get_model (attnscope_window_get_session (window)),
                                text, pair, truncate, &options, &error);
  g_assert_no_error (error);
  return t;
}

/* A BERT with bert-base-uncased's vocabulary and a context of 12 (as tests/cli/test-cli-encoder.c
 * makes it), or NULL when the reference cannot run. */
static char *
uncased_bert (void)
{
  const char *args[]
      = { "--family",       "bert", "--head",   "mlm", "--format", "h5",    "--layers",    "1",
          "--heads",        "2",    "--hidden", "8",   "--vocab",  "30522", "--positions", "12",
          "--intermediate", "8",    "--seed",   "7",   NULL };
  char *dir = encoder_model ("bert-uncased-vocab", args);
  if (dir == NULL)
    return NULL;
  g_autofree char *src = test_source_path ("tests/fixtures/tokenizers/bert-bge/tokenizer.json");
  g_autofree char *dst = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *contents = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (src, &contents, &n, NULL));
  g_assert_true (g_file_set_contents (dst, contents, (gssize) n, NULL));
  return dir;
}

/* The predictions page lists what as_predict_masked gives for the window's trace of TEXT (and
 * PAIR), and each probability is the softmax of the mask position's logits, recomputed here in
 * double. That trace is the core's own pass over the same input, to the bit: one code path
 * (as_forward_pair with every position's logits), whatever thread ran it and however many threads
 * it had (tests/README.md, "Same bits for every thread count"). */
static void
check_masked_page (const char *text, const char *pair, int n_masks_expected)
{
  set_texts (text, pair);
  AttnscopePredictionsPage *pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  const AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  g_autoptr (AsTrace) core = core_trace (text, pair, FALSE);
  g_assert_cmpint (t->logits_rows, ==, core->logits_rows);
  g_assert_cmpmem (t->logits, (gsize) t->logits_rows * t->vocab_size * sizeof (float), core->logits,
                   (gsize) core->logits_rows * core->vocab_size * sizeof (float));
  AsModel *model = attnscope_session_get_model (attnscope_window_get_session (window));
  int n = 0;
  g_autoptr (GError) error = NULL;
  AsMaskedPrediction *want = as_predict_masked (t, as_model_get_tokenizer (model), 10, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, n_masks_expected);
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, n);
  g_assert_null (attnscope_predictions_page_get_message (pred));
  for (int m = 0; m < n; m++)
    {
      const AsMaskedPrediction *got = attnscope_predictions_page_get_mask (pred, m);
      g_assert_cmpint (got->position, ==, want[m].position);
      g_assert_cmpint (t->ids[got->position], ==, as_model_get_special_id (model, AS_SPECIAL_MASK));
      g_assert_cmpint (got->n_top, ==, 10);
      const float *row = t->logits + (gsize) got->position * t->vocab_size;
      double top = -INFINITY, sum = 0;
      for (int v = 0; v < t->vocab_size; v++)
        top = MAX (top, row[v]);
      for (int v = 0; v < t->vocab_size; v++)
        sum += exp ((double) row[v] - top);
      for (int i = 0; i < got->n_top; i++)
        {
          g_assert_cmpint (got->top[i].id, ==, want[m].top[i].id);
          g_assert_cmpfloat (got->top[i].probability, ==, want[m].top[i].probability);
          g_assert_cmpstr (got->top[i].token, ==, want[m].top[i].token);
          double softmax = exp ((double) row[got->top[i].id] - top) / sum;
          g_assert_cmpfloat_with_epsilon (got->top[i].probability, softmax, 1e-6);
          /* sorted, and nothing outside the list is more likely */
          if (i > 0)
            g_assert_cmpfloat (got->top[i].probability, <=, got->top[i - 1].probability);
        }
      int higher = 0;
      for (int v = 0; v < t->vocab_size; v++)
        higher += row[v] > got->top[got->n_top - 1].logit;
      g_assert_cmpint (higher, <=, got->n_top - 1);
    }
  as_masked_predictions_free (want, n);
}

/* ---- predictions ---- */

static void
test_predictions_mini_bert (void)
{
  open_model (MINI_BERT);
  check_masked_page (TEXT_A, NULL, 1);
  /* two masks, one in each sentence of a pair */
  check_masked_page ("the [MASK] sat on the mat .", "a dog ran in the [MASK] .", 2);
}

static void
test_fill (void)
{
  open_model (MINI_BERT);
  set_texts (TEXT_A, NULL);
  AttnscopePredictionsPage *pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, 1);
  const AsMaskedPrediction *mask = attnscope_predictions_page_get_mask (pred, 0);
  g_autofree char *chosen = g_strdup (mask->top[2].token);
  int32_t chosen_id = mask->top[2].id;
  int position = mask->position;
  attnscope_predictions_page_fill (pred, 0, 2);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_autofree char *want = g_strdup_printf ("the cat sat on the %s .", chosen);
  g_assert_cmpstr (attnscope_run_get_text (gui_test_main_run (window)), ==, want);
  /* the trace was recomputed: the chosen token stands where the mask was */
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_cmpstr (attnscope_run_get_trace_text (gui_test_main_run (window)), ==, want);
  g_assert_cmpint (trace->ids[position], ==, chosen_id);

  /* no mask left: the page says how to ask, with the model's mask token */
  pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, 0);
  const char *message = attnscope_predictions_page_get_message (pred);
  g_assert_nonnull (message);
  g_assert_true (g_str_has_prefix (message, "Type [MASK] where a word should be predicted"));

  /* a mask in sentence B is filled in sentence B */
  set_texts ("the cat sat on the mat .", "a dog ran in the [MASK] .");
  pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, 1);
  g_autofree char *top = g_strdup (attnscope_predictions_page_get_mask (pred, 0)->top[0].token);
  attnscope_predictions_page_fill (pred, 0, 0);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_autofree char *want_b = g_strdup_printf ("a dog ran in the %s .", top);
  g_assert_cmpstr (attnscope_run_get_text (gui_test_main_run (window)), ==,
                   "the cat sat on the mat .");
  g_assert_cmpstr (attnscope_run_get_pair (gui_test_main_run (window)), ==, want_b);
  set_texts (TEXT_A, NULL);
}

static void
test_predictions_fixture (void)
{
  g_autofree char *dir = uncased_bert ();
  if (dir == NULL)
    return;
  open_model (dir);
  check_masked_page ("my [MASK] is cute", NULL, 1);
  check_masked_page ("[MASK] dog", "is [MASK]", 2);
}

static void
test_predictions_no_head (void)
{
  const char *args[] = { "--family",       "bert", "--head",      "none", "--layers",        "1",
                         "--heads",        "2",    "--hidden",    "8",    "--vocab",         "300",
                         "--intermediate", "16",   "--positions", "12",   "--bpe-tokenizer", NULL };
  g_autofree char *none = encoder_model ("bert-none", args);
  if (none == NULL)
    return;
  open_model (none);
  set_texts ("ab [MASK] c", NULL);
  AttnscopePredictionsPage *pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, 0);
  g_assert_cmpint (attnscope_predictions_page_get_n_predictions (pred), ==, 0);
  g_assert_cmpstr (attnscope_predictions_page_get_message (pred), ==,
                   "This encoder comes without the part that guesses hidden words (its masked-LM "
                   "head): it shows attention only and predicts no tokens.");
}

/* ---- pairs ---- */

static void
test_pair_mode (void)
{
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", TEXT_B);
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_autoptr (AsTrace) want = core_trace ("the cat sat on the mat .", TEXT_B, FALSE);
  g_assert_cmpint (trace->n_tokens, ==, want->n_tokens);
  g_assert_cmpint (trace->segment_b_start, ==, want->segment_b_start);
  g_assert_cmpint (trace->segment_b_start, ==, 9); /* [CLS] + 7 tokens + [SEP] */
  for (int i = 0; i < trace->n_tokens; i++)
    {
      g_assert_cmpint (trace->ids[i], ==, want->ids[i]);
      g_assert_cmpint (trace->type_ids[i], ==, want->type_ids[i]);
      g_assert_cmpint (trace->type_ids[i], ==, i >= 9);
    }
  g_assert_cmpstr (attnscope_run_get_trace_pair (gui_test_main_run (window)), ==, TEXT_B);
  /* [CLS] A [SEP] B [SEP] */
  AsModel *model = attnscope_session_get_model (attnscope_window_get_session (window));
  g_assert_cmpint (trace->ids[0], ==, as_model_get_special_id (model, AS_SPECIAL_CLS));
  g_assert_cmpint (trace->ids[8], ==, as_model_get_special_id (model, AS_SPECIAL_SEP));
  g_assert_cmpint (trace->ids[trace->n_tokens - 1], ==,
                   as_model_get_special_id (model, AS_SPECIAL_SEP));

  /* the token strip tints the two sentences */
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (strip), ==, (guint) trace->n_tokens);
  for (int i = 0; i < trace->n_tokens; i++)
    {
      GtkWidget *chip = GTK_WIDGET (attnscope_token_strip_get_chip (strip, i));
      g_assert_true (gtk_widget_has_css_class (chip, i < 9 ? "segment-a" : "segment-b"));
      g_assert_false (gtk_widget_has_css_class (chip, i < 9 ? "segment-b" : "segment-a"));
    }
  /* Sentence B and the sentence filter show for an encoder's pair */
  g_assert_true (attnscope_window_get_pair_visible (window));
  g_assert_true (attnscope_attention_page_get_segments_visible (
      ATTNSCOPE_ATTENTION_PAGE (page ("attention"))));
  /* a single text has no segments */
  set_texts ("the cat sat on the mat .", NULL);
  g_assert_false (attnscope_attention_page_get_segments_visible (
      ATTNSCOPE_ATTENTION_PAGE (page ("attention"))));
  g_assert_cmpint (attnscope_run_get_trace (gui_test_main_run (window))->segment_b_start, ==, -1);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (attnscope_token_strip_get_chip (strip, 0)),
                                            "segment-a"));
}

/* The heatmap on screen is the block ROWS × COLS from (ROW0, COL0) of head (1, 2)'s matrix. */
static void
check_block (const AsTrace *t, int row0, int n_rows, int col0, int n_cols)
{
  AttnscopeAttentionPage *att = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (att);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, n_rows);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, n_cols);
  /* a new block shows all of it, not a zoomed corner */
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (heatmap), ==, 0);
  const float *p = as_trace_attn_matrices (t, 1, 2);
  for (int i = 0; i < n_rows; i++)
    for (int j = 0; j < n_cols; j++)
      g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, i, j), ==,
                         p[(gsize) (row0 + i) * t->n_tokens + col0 + j]);
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_assert_false (fig->mask_upper);
  g_assert_cmpstr (fig->row_labels[0], ==,
                   ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))
                       ->heatmap.row_labels[0]);
}

static void
test_sentence_filter (void)
{
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", TEXT_B);
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  int b = t->segment_b_start, n = t->n_tokens;
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 2);
  attnscope_view_state_set_selected_token (v, -1);

  attnscope_view_state_set_segments (v, AR_SEGMENTS_ALL);
  check_block (t, 0, n, 0, n);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_A_A);
  check_block (t, 0, b, 0, b);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_A_B);
  check_block (t, 0, b, b, n - b);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_B_A);
  check_block (t, b, n - b, 0, b);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_B_B);
  check_block (t, b, n - b, b, n - b);

  /* the title names the filter; labels are the block's tokens; the selected token (of B) is
   * outlined at its place in the block */
  attnscope_view_state_set_segments (v, AR_SEGMENTS_A_B);
  attnscope_view_state_set_selected_token (v, b + 2);
  AttnscopeAttentionPage *att = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (
             attnscope_heatmap_view_get_figure (attnscope_attention_page_get_heatmap (att)))
             ->heatmap;
  g_assert_cmpstr (fig->title, ==, "Layer 1 · head 2 · sentences A → B");
  g_assert_cmpstr (fig->row_labels[0], ==, "[CLS]");
  g_assert_cmpstr (fig->col_labels[n - b - 1], ==, "[SEP]");
  g_assert_cmpint (fig->highlight_row, ==, -1);
  g_assert_cmpint (fig->highlight_col, ==, 2);
  /* words: the block of the pooled word matrix (BERT's "[SEP]" ends A's words) */
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_POOL_WORDS, TRUE);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_B_A);
  {
    g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (t);
    g_auto (GStrv) labels = ar_word_labels (t, spans, AR_TOKEN_LABEL_DEFAULT);
    int w = spans->n_words, wb = as_word_spans_word_of (spans, b);
    g_assert_cmpint (spans->first[wb], ==, b);
    g_autofree float *pooled = g_new (float, (gsize) w *w);
    as_word_pool_attention (pooled, as_trace_attn_matrices (t, 1, 2), spans);
    att = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
    AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (att);
    g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, w - wb);
    g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, wb);
    for (int i = 0; i < w - wb; i++)
      for (int j = 0; j < wb; j++)
        g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, i, j), ==,
                           pooled[(gsize) (wb + i) * w + j]);
    fig = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
    g_assert_cmpstr (fig->title, ==, "Layer 1 · head 2 · sentences B → A · words");
    g_assert_cmpstr (fig->row_labels[0], ==, labels[wb]);
    /* a click selects the first token of the query word */
    g_signal_emit_by_name (heatmap, "cell-activated", 1, 0);
    g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, spans->first[wb + 1]);
  }
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_POOL_WORDS, FALSE);

  /* a click on a cell of the B → A block selects its query, a token of B */
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_B_A);
  att = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  g_signal_emit_by_name (attnscope_attention_page_get_heatmap (att), "cell-activated", 3, 1);
  g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, b + 3);
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_ALL);
}

/* An encoder attends both ways: the whole square is drawn, with weight above the diagonal. */
static void
test_full_square (void)
{
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", NULL);
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_ALL);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 0);
  attnscope_view_state_set_head (v, 0);
  AttnscopeAttentionPage *att = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (att);
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_false (t->causal);
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_assert_false (fig->mask_upper);
  double above = 0;
  for (int i = 0; i < t->n_tokens; i++)
    for (int j = i + 1; j < t->n_tokens; j++)
      {
        g_assert_cmpint (ar_heatmap_cell_state (fig, i, j), ==, AR_CELL_VALUE);
        above += attnscope_heatmap_view_get_value (heatmap, i, j);
      }
  /* row 0 ([CLS]) puts weight on the last token ([SEP]) */
  g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, 0, t->n_tokens - 1), >, 0);
  g_assert_cmpfloat (above, >, 0.5);
}

static void
test_heads_labels (void)
{
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", TEXT_B);
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (heads);
  g_autoptr (AsHeadStats) stats
      = as_head_stats_compute (attnscope_run_get_trace (gui_test_main_run (window)));
  g_assert_true (stats->bidirectional);
  const ArGridFigure *fig
      = &ar_built_figure_get_parts (attnscope_head_grid_view_get_figure (grid))->grid;
  int counts[AS_HEAD_PATTERN_COUNT] = { 0 };
  for (int l = 0; l < stats->n_layer; l++)
    for (int h = 0; h < stats->n_head; h++)
      {
        AsHeadPattern pattern = stats->patterns[l * stats->n_head + h];
        counts[pattern]++;
        g_assert_cmpint (fig->patterns[l * stats->n_head + h], ==, pattern);
        g_autofree char *tip = attnscope_head_grid_view_dup_tooltip (grid, l, h);
        g_autofree char *label
            = g_strdup_printf ("\nPattern: %s\n", ar_head_pattern_label (pattern));
        g_assert_nonnull (strstr (tip, label));
        g_autofree char *e
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_ENTROPY), 2);
        g_autofree char *c
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_CLS), 2);
        g_autofree char *s
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_SEP), 2);
        g_autofree char *p
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_PREVIOUS), 2);
        g_autofree char *n
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_NEXT), 2);
        g_autofree char *f
            = ar_format_number (as_head_stats_get (stats, l, h, AS_HEAD_STAT_SELF), 2);
        g_autofree char *shares = g_strdup_printf (
            "Entropy %s · [CLS] %s · [SEP] %s · previous %s · next %s · self %s", e, c, s, p, n, f);
        g_assert_nonnull (strstr (tip, shares));
      }
  g_autofree char *summary = g_strdup_printf (
      "Layers × heads: 4 × 4 · [CLS] %d · [SEP] %d · previous token %d · next token %d · self %d "
      "· broad %d · mixed %d",
      counts[AS_HEAD_PATTERN_CLS], counts[AS_HEAD_PATTERN_SEP], counts[AS_HEAD_PATTERN_PREVIOUS],
      counts[AS_HEAD_PATTERN_NEXT], counts[AS_HEAD_PATTERN_SELF], counts[AS_HEAD_PATTERN_BROAD],
      counts[AS_HEAD_PATTERN_MIXED]);
  g_assert_cmpstr (attnscope_heads_page_get_summary (heads), ==, summary);
  /* the same as `attnscope stats` on the pair: labels and shares */
  g_auto (Run) cli = run_cli ("stats", "--model", MINI_BERT, "--text", "the cat sat on the mat .",
                              "--pair", TEXT_B, "--json", NULL);
  g_assert_cmpint (cli.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (cli.out);
  JsonArray *cli_heads = json_object_get_array_member (json_node_get_object (root), "heads");
  g_assert_cmpuint (json_array_get_length (cli_heads), ==, 16);
  for (guint e = 0; e < 16; e++)
    {
      JsonObject *h = json_array_get_object_element (cli_heads, e);
      int l = (int) json_object_get_int_member (h, "layer");
      int hd = (int) json_object_get_int_member (h, "head");
      g_assert_cmpstr (json_object_get_string_member (h, "label"), ==,
                       as_head_pattern_to_string (fig->patterns[l * 4 + hd]));
      for (int k = 0; k < AS_HEAD_STAT_COUNT; k++)
        g_assert_cmpfloat_with_epsilon (
            json_object_get_double_member (h, as_head_stat_kind_to_string (k)),
            as_head_stats_get (stats, l, hd, k), 1e-6);
    }
  /* the sentence shows structured encoder heads, not only mixed ones */
  g_assert_cmpint (counts[AS_HEAD_PATTERN_MIXED], <, 16);
}

static void
test_compare_pairs (void)
{
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", TEXT_B);
  AttnscopeRun *cmp = attnscope_session_get_compare (attnscope_window_get_session (window));
  attnscope_run_set_pair (cmp, "a big dog ran in the park .");
  attnscope_run_set_text (cmp, "the dog sat on the mat .");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AsTrace *b = attnscope_run_get_trace (cmp);
  g_autoptr (AsTrace) want
      = core_trace ("the dog sat on the mat .", "a big dog ran in the park .", FALSE);
  g_assert_cmpint (b->n_tokens, ==, want->n_tokens);
  g_assert_cmpint (b->segment_b_start, ==, want->segment_b_start);
  for (int i = 0; i < b->n_tokens; i++)
    {
      g_assert_cmpint (b->ids[i], ==, want->ids[i]);
      g_assert_cmpint (b->type_ids[i], ==, want->type_ids[i]);
    }
  AttnscopePage *compare = page ("compare");
  ArFigure figure;
  g_assert_true (attnscope_page_get_figure (compare, &figure));
  g_assert_cmpint (figure.kind, ==, AR_FIGURE_COMPARE);
  /* B's panel is about the compared pair, quoted as "A ‖ B" */
  g_assert_nonnull (strstr (figure.compare->b->title, "the dog sat on the mat . ‖ a big dog ran in "
                                                      "the park ."));
  g_assert_true (attnscope_analysis_get_trace (
                     attnscope_session_get_compare_analysis (attnscope_window_get_session (window)))
                 == b);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  ArViewSelection view;
  attnscope_page_get_selection (compare, &view);
  attnscope_page_append_export_args (compare, &view, argv);
  gboolean has_pair = FALSE;
  for (guint i = 0; i + 1 < argv->len; i++)
    has_pair |= g_str_equal (argv->pdata[i], "--compare-pair")
                && g_str_equal (argv->pdata[i + 1], "a big dog ran in the park .");
  g_assert_true (has_pair);
  attnscope_run_set_text (cmp, NULL);
  attnscope_run_set_pair (cmp, NULL);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

/* A pair longer than the context: a banner naming both texts' lengths, the previous trace
 * kept; truncation cuts the longer text first (HF's longest-first). */
static void
test_pair_too_long (void)
{
  g_autofree char *dir = uncased_bert ();
  if (dir == NULL)
    return;
  open_model (dir);
  set_texts ("hello world", "my dog");
  AsTrace *before = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_nonnull (before);
  g_assert_null (attnscope_window_get_input_message (window));
  /* A longer than B; with [CLS] [SEP] [SEP] more than the 12 positions */
  const char *a = "hello my dog is cute and small and fast", *b = "it is";
  set_texts (a, b);
  g_autoptr (AsEncoding) ea = as_tokenizer_encode_full (
      as_model_get_tokenizer (attnscope_session_get_model (attnscope_window_get_session (window))),
      a, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, NULL);
  g_autoptr (AsEncoding) eb = as_tokenizer_encode_full (
      as_model_get_tokenizer (attnscope_session_get_model (attnscope_window_get_session (window))),
      b, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, NULL);
  int n_a = (int) ea->ids->len, n_b = (int) eb->ids->len;
  g_assert_cmpint (n_a + n_b + 3, >, 12);
  g_assert_true (attnscope_run_get_too_long (gui_test_main_run (window)));
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == before);
  int keep_a, keep_b;
  as_truncate_longest_first (n_a, n_b, 12 - 3, &keep_a, &keep_b);
  g_autofree char *banner = g_strdup_printf (
      "Sentence A has %d tokens and sentence B %d: %d with the special tokens, but %s reads at "
      "most 12. Truncating the longer text first keeps %d of A and %d of B.",
      n_a, n_b, n_a + n_b + 3,
      as_model_get_name (attnscope_session_get_model (attnscope_window_get_session (window))),
      keep_a, keep_b);
  g_assert_cmpstr (attnscope_window_get_input_message (window), ==, banner);
  g_assert_cmpint (keep_a + keep_b, ==, 9);
  g_assert_cmpint (keep_b, ==, n_b); /* the longer text, A, loses the tokens */

  /* Truncate: the trace is as_forward_pair's with truncation */
  attnscope_run_set_truncate (gui_test_main_run (window), TRUE);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AsTrace *cut = attnscope_run_get_trace (gui_test_main_run (window));
  g_autoptr (AsTrace) want = core_trace (a, b, TRUE);
  g_assert_cmpint (cut->n_tokens, ==, 12);
  for (int i = 0; i < 12; i++)
    {
      g_assert_cmpint (cut->ids[i], ==, want->ids[i]);
      g_assert_cmpint (cut->type_ids[i], ==, want->type_ids[i]);
    }
  g_assert_cmpint (cut->segment_b_start, ==, 1 + keep_a + 1);
  g_autofree char *truncated = g_strdup_printf (
      "Showing the first %d of sentence A's %d tokens and the first %d of sentence B's %d: %s "
      "reads at most 12.",
      keep_a, n_a, keep_b, n_b,
      as_model_get_name (attnscope_session_get_model (attnscope_window_get_session (window))));
  g_assert_cmpstr (attnscope_window_get_input_message (window), ==, truncated);
  set_texts ("hello world", NULL);
}

/* A decoder takes no pair: Sentence B is ignored (the trace is the text's alone), the
 * predictions are next tokens. */
static void
test_decoder_ignores_pair (void)
{
  g_autofree char *tiny = test_source_path ("tests/fixtures/tiny-gpt2");
  open_model (tiny);
  set_texts ("The man hit the car", "a second sentence");
  g_assert_false (attnscope_window_get_pair_visible (window));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_cmpint (trace->segment_b_start, ==, -1);
  g_assert_null (attnscope_run_get_trace_pair (gui_test_main_run (window)));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) want
      = as_forward_text (attnscope_session_get_model (attnscope_window_get_session (window)),
                         "The man hit the car", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->n_tokens, ==, want->n_tokens);
  for (int i = 0; i < trace->n_tokens; i++)
    g_assert_cmpint (trace->ids[i], ==, want->ids[i]);
  AttnscopePredictionsPage *pred = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (pred), ==, 0);
  g_assert_cmpint (attnscope_predictions_page_get_n_predictions (pred), ==, 10);
  set_texts ("The man hit the car", NULL);
}

/* Sentence B is kept in the settings like the text: closing the window saves it, a new window
 * runs it again (last in the file: it replaces the window). */
static void
test_pair_settings (gconstpointer data)
{
  AttnscopeApplication *app = (AttnscopeApplication *) data;
  open_model (MINI_BERT);
  set_texts ("the cat sat on the mat .", TEXT_B);
  GSettings *settings = attnscope_application_get_settings (app);
  g_assert_nonnull (settings);
  gui_test_destroy_window (GTK_WINDOW (window), TRUE, TIMEOUT_MS);
  g_autofree char *saved_pair = g_settings_get_string (settings, "last-pair");
  g_autofree char *saved_text = g_settings_get_string (settings, "last-text");
  g_assert_cmpstr (saved_pair, ==, TEXT_B);
  g_assert_cmpstr (saved_text, ==, "the cat sat on the mat .");

  window = attnscope_window_new (GTK_APPLICATION (app), settings);
  gtk_window_present (GTK_WINDOW (window));
  attnscope_window_open_startup_model (window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (attnscope_window_get_model_label (window), ==, MINI_BERT);
  g_assert_cmpstr (attnscope_run_get_pair (gui_test_main_run (window)), ==, TEXT_B);
  g_assert_cmpstr (attnscope_run_get_trace_pair (gui_test_main_run (window)), ==, TEXT_B);
  g_assert_cmpint (attnscope_run_get_trace (gui_test_main_run (window))->segment_b_start, ==, 9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));

  g_test_add_func ("/ui/encoder/predictions-mini-bert", test_predictions_mini_bert);
  g_test_add_func ("/ui/encoder/fill", test_fill);
  g_test_add_func ("/ui/encoder/predictions-fixture", test_predictions_fixture);
  g_test_add_func ("/ui/encoder/predictions-no-head", test_predictions_no_head);
  g_test_add_func ("/ui/encoder/pair-mode", test_pair_mode);
  g_test_add_func ("/ui/encoder/sentence-filter", test_sentence_filter);
  g_test_add_func ("/ui/encoder/full-square", test_full_square);
  g_test_add_func ("/ui/encoder/heads-labels", test_heads_labels);
  g_test_add_func ("/ui/encoder/compare-pairs", test_compare_pairs);
  g_test_add_func ("/ui/encoder/pair-too-long", test_pair_too_long);
  g_test_add_func ("/ui/encoder/decoder-ignores-pair", test_decoder_ignores_pair);
  g_test_add_data_func ("/ui/encoder/pair-settings", app, test_pair_settings);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
