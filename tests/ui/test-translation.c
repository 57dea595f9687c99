/* test-translation.c — the window on translation (encoder–decoder) models, under Xvfb: the
 * target field and the Translate button (the target must become exactly as_translate_text's
 * text, computed here independently), the three attention kinds of the attention page (cross:
 * T × S values equal to trace->cross_attn of an independent as_forward_translation_text pass, to
 * the bit; encoder S × S; decoder T × T, causal), the cross heads grid, the alignment page (link
 * weights = the head's cross-attention, or the mean over heads computed here), hovering a token,
 * bad input (a target longer than the model's positions, an empty source: a message, the
 * previous trace kept), and a decoder-only model keeping one text field.
 *
 * Models: the random Marian fixture "small" (tests/reference/make_marian_fixtures.py) and the
 * shipped attnscope-mini-en-de. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "as-forward.h"
#include "as-translate.h"
#include "attnscope-alignment-page.h"
#include "attnscope-attention-page.h"
#include "attnscope-export-dialog.h"
#include "attnscope-heads-page.h"
#include "gui-test-util.h"
#include "marian-fixtures.h"
#include "token-label.h"

#define TIMEOUT_MS 60000
#define SOURCE "The group went home."

static AttnscopeWindow *window;

static AdwViewStack *
view_stack (void)
{
  return ADW_VIEW_STACK (gtk_widget_get_ancestor (
      GTK_WIDGET (attnscope_window_get_page (window, "attention")), ADW_TYPE_VIEW_STACK));
}

static AdwViewStackPage *
stack_page (const char *name)
{
  return adw_view_stack_get_page (view_stack (),
                                  GTK_WIDGET (attnscope_window_get_page (window, name)));
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

static gboolean
idle_translation (gpointer user_data)
{
  return !attnscope_run_get_translating (gui_test_main_run (window))
         && !attnscope_run_get_running (gui_test_main_run (window))
         && !attnscope_session_get_busy (attnscope_window_get_session (window));
}

static AsModel *
load (const char *spec)
{
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (spec, &error);
  g_assert_no_error (error);
  return model;
}

/* Types SOURCE, presses Translate and checks: the button is insensitive while the model
 * translates, the target becomes exactly as_translate_text's text, and the trace is the pass over
 * source and target. Returns that independent pass. */
static AsTrace *
translate_and_check (const char *spec, const char *source)
{
  open_model (spec);
  g_assert_true (attnscope_window_get_target_visible (window));
  /* Alt+6 (Predictions) is hidden: the decoder input ends with </s> */
  attnscope_window_show_page (window, "attention");
  attnscope_window_show_page (window, "predictions");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (view_stack ()), ==, "attention");
  g_assert_false (adw_view_stack_page_get_visible (stack_page ("predictions")));
  g_assert_true (adw_view_stack_page_get_visible (stack_page ("alignment")));
  g_assert_false (adw_view_stack_page_get_visible (stack_page ("compare")));
  attnscope_window_set_text (window, source);
  attnscope_window_set_target (window, "");
  g_assert_true (gui_test_wait_until (idle_translation, NULL, TIMEOUT_MS));
  GtkButton *button = attnscope_window_get_translate_button (window);
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (attnscope_run_get_translating (gui_test_main_run (window)));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (button)));
  g_assert_true (gui_test_wait_until (idle_translation, NULL, TIMEOUT_MS));
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (button)));

  g_autoptr (AsModel) model = load (spec);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTranslation) expected = as_translate_text (model, source, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s: “%s” → “%s”", spec, source, expected->text);
  g_assert_cmpstr (attnscope_window_get_target (window), ==, expected->text);
  g_assert_cmpstr (attnscope_run_get_target (gui_test_main_run (window)), ==, expected->text);
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));

  AsTrace *pass = as_forward_translation_text (model, source, expected->text, NULL, &error);
  g_assert_no_error (error);
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_nonnull (trace);
  g_assert_nonnull (trace->source);
  g_assert_cmpint (trace->n_tokens, ==, pass->n_tokens);
  g_assert_cmpint (trace->source->n_tokens, ==, pass->source->n_tokens);
  for (int i = 0; i < pass->n_tokens; i++)
    g_assert_cmpint (trace->ids[i], ==, pass->ids[i]);
  for (int i = 0; i < pass->source->n_tokens; i++)
    g_assert_cmpint (trace->source->ids[i], ==, pass->source->ids[i]);
  /* one strip of chips for the source's tokens, one for the target's */
  AttnscopeTokenStrip *src_strip = attnscope_window_get_source_strip (window);
  AttnscopeTokenStrip *tgt_strip = attnscope_window_get_token_strip (window);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (
      gtk_widget_get_parent (GTK_WIDGET (src_strip))))); /* its scrolled window */
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (src_strip), ==, pass->source->n_tokens);
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (tgt_strip), ==, pass->n_tokens);
  g_auto (GStrv) labels = ar_token_labels_from_trace (pass->source, AR_TOKEN_LABEL_DEFAULT);
  for (int i = 0; i < pass->source->n_tokens; i++)
    g_assert_cmpstr (attnscope_token_strip_get_chip_label (src_strip, i), ==, labels[i]);
  return pass;
}

/* WIDGET has been given room (a page shown for the first time is allocated in the next frame). */
static gboolean
allocated (gpointer widget)
{
  return gtk_widget_get_width (widget) > 100 && gtk_widget_get_height (widget) > 100;
}

/* The heatmap of the attention page (the cross kind, layer L, head H or the mean) against
 * EXPECTED [rows][cols] within TOLERANCE (0: to the bit); its labels against the tokens of
 * ROWS_TRACE and COLS_TRACE; every cell hit-tests to itself. */
static void
check_heatmap (const float *expected, double tolerance, const AsTrace *rows_trace,
               const AsTrace *cols_trace, const char *title)
{
  AttnscopeAttentionPage *p = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (p);
  int rows = rows_trace->n_tokens, cols = cols_trace->n_tokens;
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, rows);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, cols);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (heatmap), ==, 0);
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (heatmap);
  const ArHeatmapFigure *fig = &ar_built_figure_get_parts (built)->heatmap;
  g_assert_cmpstr (fig->title, ==, title);
  g_auto (GStrv) row_labels = ar_token_labels_from_trace (rows_trace, AR_TOKEN_LABEL_DEFAULT);
  g_auto (GStrv) col_labels = ar_token_labels_from_trace (cols_trace, AR_TOKEN_LABEL_DEFAULT);
  for (int i = 0; i < rows; i++)
    g_assert_cmpstr (fig->row_labels[i], ==, row_labels[i]);
  for (int j = 0; j < cols; j++)
    g_assert_cmpstr (fig->col_labels[j], ==, col_labels[j]);
  /* laid out at the figure's size (the hit-test works on the drawn geometry) */
  g_assert_true (gui_test_wait_until (allocated, heatmap, TIMEOUT_MS));
  double w = gtk_widget_get_width (GTK_WIDGET (heatmap));
  double h = gtk_widget_get_height (GTK_WIDGET (heatmap));
  g_test_message ("heatmap %g x %g", w, h);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      {
        float value = attnscope_heatmap_view_get_value (heatmap, i, j);
        if (tolerance == 0) /* the same pass as the window's: the same bits */
          g_assert_cmpfloat (value, ==, expected[(gsize) i * cols + j]);
        else
          g_assert_cmpfloat_with_epsilon (value, expected[(gsize) i * cols + j], tolerance);
        double x, y, cw, ch;
        ar_heatmap_get_cell_rect (fig, w, h, i, j, &x, &y, &cw, &ch);
        int hr = -1, hc = -1;
        g_assert_true (ar_heatmap_hit (fig, w, h, x + cw / 2, y + ch / 2, &hr, &hc));
        g_assert_cmpint (hr, ==, i);
        g_assert_cmpint (hc, ==, j);
      }
}

/* [T][S] mean over the heads of layer LAYER of PASS's cross-attention, summed here. */
static float *
cross_mean (const AsTrace *pass, int layer)
{
  int T = pass->n_tokens, S = pass->source->n_tokens;
  float *mean = g_new0 (float, (gsize) T *S);
  for (int h = 0; h < pass->n_head; h++)
    for (int k = 0; k < T * S; k++)
      mean[k] += as_trace_cross_attn (pass, layer, h)[k] / pass->n_head;
  return mean;
}

static void
test_translate_fixture (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small == NULL)
    return;
  g_autoptr (AsTrace) pass = translate_and_check (small, "Hello world, how are you?");
  /* its encoder has 2 layers, its decoder 3: the layer control follows the kind */
  g_assert_cmpint (pass->source->n_layer, ==, 2);
  g_assert_cmpint (pass->n_layer, ==, 3);
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  g_assert_cmpint (attnscope_view_state_get_n_layers (v), ==, 3);
  attnscope_view_state_set_layer (v, 2);
  attnscope_view_state_set_head (v, 3);
  check_heatmap (as_trace_cross_attn (pass, 2, 3), 0, pass, pass->source,
                 "Cross-attention · layer 2 · head 3");
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
  g_assert_cmpint (attnscope_view_state_get_n_layers (v), ==, 2);
  g_assert_cmpint (attnscope_view_state_get_layer (v), ==, 1); /* clamped */
  check_heatmap (as_trace_attn_matrices (pass->source, 1, 3), 0, pass->source, pass->source,
                 "Encoder self-attention · layer 1 · head 3");
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  g_assert_cmpint (attnscope_view_state_get_n_layers (v), ==, 3);
}

/* The shipped model: Translate, then every attention kind, the grid, the alignment, bad input. */
static void
test_shipped (void)
{
  g_autoptr (AsTrace) pass = translate_and_check ("attnscope-mini-en-de", SOURCE);
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 2);
  attnscope_view_state_set_selected_token (v, -1);

  /* cross-attention: rows = target tokens, columns = source tokens */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  check_heatmap (as_trace_cross_attn (pass, 1, 2), 0, pass, pass->source,
                 "Cross-attention · layer 1 · head 2");
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  g_autofree float *mean = cross_mean (pass, 1);
  /* the mean summed here in another order than the window's: within 1e-6 (tests/README.md) */
  check_heatmap (mean, 1e-6, pass, pass->source, "Cross-attention · layer 1 · mean over 4 heads");
  /* no rollout for the cross-attention: a message, no figure */
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_ROLLOUT);
  AttnscopePage *att = page ("attention");
  g_assert_null (attnscope_heatmap_view_get_figure (
      attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (att))));
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);

  /* a click on a cross-attention row selects that target token */
  attnscope_view_state_set_selected_token (v, -1);
  g_signal_emit_by_name (attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (att)),
                         "cell-activated", 4, 1);
  g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, 4);
  attnscope_view_state_set_selected_token (v, -1);

  /* the encoder's S x S and the decoder's causal T x T */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
  check_heatmap (as_trace_attn_matrices (pass->source, 1, 2), 0, pass->source, pass->source,
                 "Encoder self-attention · layer 1 · head 2");
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  check_heatmap (as_trace_attn_matrices (pass, 1, 2), 0, pass, pass,
                 "Decoder self-attention · layer 1 · head 2");
  const ArHeatmapFigure *dec
      = &ar_built_figure_get_parts (
             attnscope_heatmap_view_get_figure (attnscope_attention_page_get_heatmap (
                 ATTNSCOPE_ATTENTION_PAGE (page ("attention")))))
             ->heatmap;
  g_assert_true (dec->mask_upper);

  /* the heads page follows the kind: the cross grid with as-cross-stats' labels */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  const ArGridFigure *grid = &ar_built_figure_get_parts (attnscope_head_grid_view_get_figure (
                                                             attnscope_heads_page_get_grid (heads)))
                                  ->grid;
  g_assert_cmpstr (grid->title, ==, "Cross-attention · all heads");
  g_assert_cmpint (grid->n_tokens, ==, pass->n_tokens);
  g_assert_cmpint (grid->n_keys, ==, pass->source->n_tokens);
  g_autoptr (AsCrossStats) stats = as_cross_stats_new ();
  g_assert_true (as_cross_stats_add (stats, pass, NULL));
  g_assert_true (as_cross_stats_finish (stats, NULL));
  for (int k = 0; k < pass->n_layer * pass->n_head; k++)
    g_assert_cmpstr (grid->pattern_labels[k], ==, stats->labels[k]);
  /* the tooltip of layer 1, head 2: its label and numbers as `stats --kind cross` */
  g_autofree char *tooltip
      = attnscope_head_grid_view_dup_tooltip (attnscope_heads_page_get_grid (heads), 1, 2);
  const double *cv = stats->values + (1 * pass->n_head + 2) * AS_CROSS_STAT_COUNT;
  g_autofree char *want = g_strdup_printf (
      "Layer 1 · head 2\nPattern: %s\nEntropy %.2f · on </s> %.2f · row maximum %.2f · diagonal "
      "%.2f\nClick to open it in the attention view",
      stats->labels[1 * pass->n_head + 2], cv[AS_CROSS_STAT_ENTROPY], cv[AS_CROSS_STAT_EOS],
      cv[AS_CROSS_STAT_MAX], cv[AS_CROSS_STAT_DIAGONAL]);
  g_test_message ("cross tooltip: %s", tooltip);
  g_assert_cmpstr (tooltip, ==, want);
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
  grid = &ar_built_figure_get_parts (
              attnscope_head_grid_view_get_figure (
                  attnscope_heads_page_get_grid (ATTNSCOPE_HEADS_PAGE (page ("heads")))))
              ->grid;
  g_assert_cmpstr (grid->title, ==, "Encoder self-attention · all heads");
  g_assert_cmpint (grid->n_tokens, ==, pass->source->n_tokens);
  g_assert_true (grid->attn == pass->source->attn || grid->n_keys == 0);

  /* the alignment: links weighted by the head's cross-attention, then by the mean */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  AttnscopeAlignmentPage *al = ATTNSCOPE_ALIGNMENT_PAGE (page ("alignment"));
  AttnscopeAlignmentView *av = attnscope_alignment_page_get_view (al);
  const ArAlignmentFigure *fig
      = &ar_built_figure_get_parts (attnscope_alignment_view_get_figure (av))->alignment;
  int T = pass->n_tokens, S = pass->source->n_tokens;
  g_assert_cmpint (fig->n_target, ==, T);
  g_assert_cmpint (fig->n_source, ==, S);
  g_assert_cmpstr (fig->title, ==, "Cross-attention · layer 1 · head 2 · alignment");
  const float *head = as_trace_cross_attn (pass, 1, 2);
  for (int k = 0; k < T * S; k++)
    g_assert_cmpfloat_with_epsilon (fig->weights[k], head[k], 1e-6);
  /* autoscale on (the window's default): full strength at the matrix's largest weight */
  float top = 0;
  for (int k = 0; k < T * S; k++)
    top = MAX (top, head[k]);
  g_assert_cmpfloat_with_epsilon (fig->vmax, top, 1e-6);
  g_assert_cmpfloat_with_epsilon (ar_alignment_link_strength (fig, 1, 1), head[S + 1] / top, 1e-6);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  al = ATTNSCOPE_ALIGNMENT_PAGE (page ("alignment"));
  fig = &ar_built_figure_get_parts (attnscope_alignment_view_get_figure (av))->alignment;
  for (int k = 0; k < T * S; k++)
    g_assert_cmpfloat_with_epsilon (fig->weights[k], mean[k], 1e-6);
  /* hovering target token 2 highlights its links */
  g_assert_true (gui_test_wait_until (allocated, av, TIMEOUT_MS));
  double x, y, w, h;
  ar_alignment_get_token_rect (fig, gtk_widget_get_width (GTK_WIDGET (av)),
                               gtk_widget_get_height (GTK_WIDGET (av)), TRUE, 2, &x, &y, &w, &h);
  g_assert_cmpfloat (w, >, 0);
  attnscope_alignment_view_hover_at (av, x + w / 2, y + h / 2);
  gboolean target = FALSE;
  g_assert_cmpint (attnscope_alignment_view_get_hover (av, &target), ==, 2);
  g_assert_true (target);
  ar_alignment_get_token_rect (fig, gtk_widget_get_width (GTK_WIDGET (av)),
                               gtk_widget_get_height (GTK_WIDGET (av)), FALSE, 1, &x, &y, &w, &h);
  attnscope_alignment_view_hover_at (av, x + w / 2, y + h / 2);
  g_assert_cmpint (attnscope_alignment_view_get_hover (av, &target), ==, 1);
  g_assert_false (target);
  /* a click on target token 3 selects it (the figure highlights it), on source token 1 pins it */
  attnscope_alignment_view_hover_at (av, -1, -1);
  attnscope_alignment_view_click (av, TRUE, 3);
  g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, 3);
  al = ATTNSCOPE_ALIGNMENT_PAGE (page ("alignment"));
  fig = &ar_built_figure_get_parts (attnscope_alignment_view_get_figure (av))->alignment;
  g_assert_cmpint (fig->highlight_target, ==, 3);
  attnscope_alignment_view_click (av, FALSE, 1);
  g_assert_cmpint (attnscope_alignment_view_get_pinned_source (av), ==, 1);
  g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, 3);
  attnscope_alignment_view_click (av, FALSE, 1);
  g_assert_cmpint (attnscope_alignment_view_get_pinned_source (av), ==, -1);
  attnscope_alignment_view_click (av, TRUE, 3);
  g_assert_cmpint (attnscope_view_state_get_selected_token (v), ==, -1);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);

  /* a target longer than the model's 128 positions: the message names the numbers, the trace
   * stays */
  AsTrace *before = attnscope_run_get_trace (gui_test_main_run (window));
  GString *long_target = g_string_new (NULL);
  for (int i = 0; i < 200; i++)
    g_string_append (long_target, "Haus ");
  attnscope_window_set_target (window, long_target->str);
  g_string_free (long_target, TRUE);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  const char *message = attnscope_run_get_error_message (gui_test_main_run (window));
  g_test_message ("long target: %s", message);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "128"));
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == before);
  /* an empty source: the empty state (no trace, no figure of the old text), nothing to
   * translate */
  attnscope_window_set_target (window, "Die Gruppe ging nach Hause.");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  before = attnscope_run_get_trace (gui_test_main_run (window));
  attnscope_window_set_text (window, "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  g_assert_null (attnscope_run_get_trace (gui_test_main_run (window)));
  g_signal_emit_by_name (attnscope_window_get_translate_button (window), "clicked");
  g_assert_false (attnscope_run_get_translating (gui_test_main_run (window)));
  g_assert_null (attnscope_run_get_trace (gui_test_main_run (window)));
  attnscope_window_set_text (window, SOURCE);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_null (attnscope_run_get_error_message (gui_test_main_run (window)));
  /* (the old trace is gone: its address may be the new one's) */
  g_assert_nonnull (attnscope_run_get_trace (gui_test_main_run (window)));
  g_assert_cmpstr (attnscope_run_get_trace_text (gui_test_main_run (window)), ==, SOURCE);
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* The export dialog on the alignment page (the mean of layer 2, autoscaled): a PNG and a sidecar
 * whose command, run in another folder, writes the same bytes. */
static void
test_export_dialog (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_layer (v, 2);
  AttnscopePage *p = page ("alignment");
  g_autofree char *dir = g_dir_make_tmp ("attnscope-translation-XXXXXX", NULL);
  g_autofree char *again = g_build_filename (dir, "again", NULL);
  g_assert_cmpint (g_mkdir (again, 0700), ==, 0);
  AttnscopeExportDialog *d = attnscope_export_dialog_new (window, p);
  attnscope_export_dialog_set_folder (d, dir);
  attnscope_export_dialog_set_name (d, "alignment.png");
  attnscope_export_dialog_set_format (d, AR_EXPORT_PNG);
  attnscope_export_dialog_set_sidecar (d, TRUE);
  g_autofree char *path = attnscope_export_dialog_dup_path (d);
  g_autoptr (GError) error = NULL;
  g_assert_true (attnscope_export_dialog_export (d, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (d));
  g_autofree char *sidecar = g_strconcat (path, ".json", NULL);
  g_assert_true (gui_test_wait_until (file_exists, sidecar, TIMEOUT_MS));

  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, sidecar, &error));
  JsonArray *command = json_object_get_array_member (
      json_node_get_object (json_parser_get_root (parser)), "command");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  GString *line = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (command); i++)
    {
      const char *arg = json_array_get_string_element (command, i);
      g_ptr_array_add (argv, (char *) (i == 0 ? g_getenv ("ATTNSCOPE_BIN") : arg));
      g_string_append_printf (line, "%s ", arg);
    }
  g_ptr_array_add (argv, NULL);
  g_test_message ("sidecar: %s", line->str);
  g_assert_nonnull (
      strstr (line->str, "--target Die Gruppe ging nach Hause. --alignment --mean 2"));
  g_string_free (line, TRUE);
  int status = 0;
  g_autofree char *out = NULL, *err = NULL;
  g_assert_true (g_spawn_sync (again, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, &err, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_autofree char *redone = g_build_filename (again, "alignment.png", NULL);
  g_autofree char *a = NULL, *b = NULL;
  gsize na = 0, nb = 0;
  g_assert_true (g_file_get_contents (path, &a, &na, NULL));
  g_assert_true (g_file_get_contents (redone, &b, &nb, NULL));
  g_assert_cmpuint (na, >, 1000);
  g_assert_cmpmem (a, na, b, nb);
  g_autofree char *redone_sidecar = g_strconcat (redone, ".json", NULL);
  g_unlink (redone_sidecar);
  g_unlink (redone);
  g_unlink (sidecar);
  g_unlink (path);
  g_rmdir (again);
  g_rmdir (dir);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
}

/* A decoder-only model: one text field, no alignment page, attention titles without a stack even
 * with the cross kind left over from a translation model. */
static void
test_decoder_only (void)
{
  const char *src = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_autofree char *tiny = g_build_filename (src, "tests", "fixtures", "tiny-gpt2", NULL);
  attnscope_view_state_set_attention_kind (gui_test_view_state (window), AR_ATTENTION_CROSS);
  /* the alignment page on screen goes with the translation model */
  attnscope_window_show_page (window, "alignment");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (view_stack ()), ==, "alignment");
  open_model (tiny);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (view_stack ()), !=, "alignment");
  attnscope_window_set_text (window, "The man hit the car");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_false (attnscope_window_get_target_visible (window));
  /* the source strip's row (caption and strip) is hidden */
  g_assert_false (gtk_widget_is_visible (GTK_WIDGET (attnscope_window_get_source_strip (window))));
  g_assert_null (attnscope_run_get_trace (gui_test_main_run (window))->source);
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 0);
  AttnscopeAttentionPage *p = ATTNSCOPE_ATTENTION_PAGE (page ("attention"));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (
             attnscope_heatmap_view_get_figure (attnscope_attention_page_get_heatmap (p)))
             ->heatmap;
  g_assert_cmpstr (fig->title, ==, "Layer 1 · head 0");
  g_assert_cmpint (fig->n_rows, ==, fig->n_cols);
  g_assert_false (adw_view_stack_page_get_visible (stack_page ("alignment")));
  g_assert_true (adw_view_stack_page_get_visible (stack_page ("predictions")));
  g_assert_true (adw_view_stack_page_get_visible (stack_page ("compare")));
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
}

int
main (int argc, char **argv)
{
  g_autoptr (AttnscopeApplication) app = gui_test_start (&argc, &argv, &window, TIMEOUT_MS);
  gui_test_park_pointer ();
  g_test_add_func ("/ui/translation/translate-fixture", test_translate_fixture);
  g_test_add_func ("/ui/translation/shipped", test_shipped);
  g_test_add_func ("/ui/translation/export-dialog", test_export_dialog);
  g_test_add_func ("/ui/translation/decoder-only", test_decoder_only);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
