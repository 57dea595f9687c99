/* test-family-views.c — what the window shows of a family's own attention settings.
 *
 * The real window under Xvfb. A T5-family model (tests/reference/t5_reference.py, gated-gelu,
 * with T5's Unigram tokenizer.json): the Attention page's "Position Bias" button appears for the
 * encoder and the decoder but not the cross-attention, shows the head's bias exactly as the trace
 * holds it (the same in every layer), exports byte for byte what `attnscope export
 * --position-bias H --kind K` writes, and with the mean over heads says that the bias belongs to
 * each head. Gemma 2 (every other layer looks through a sliding window of 16 keys) on a text
 * longer than the window: a local layer's heatmap masks the keys left of the window and names
 * the window in its title, a global layer's does not, and the heads grid's title names the local
 * layers and greys their thumbnails' cells outside the window. For both, every page the window
 * shows draws its figure (T5's Attribution page too: its decoder's heads and cross-attention
 * heads; a translation model whose attribution were refused would have to say why). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-attribution-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-scan-page.h"
#include "as-forward.h"
#include "as-model.h"
#include "decoder-models.h"
#include "gui-export.h"
#include "gui-test-util.h"
#include "position-bias-figure.h"
#include "t5-models.h"

#define TIMEOUT_MS 120000
#define SOURCE "The group went home after the long day."
#define TARGET "Die Gruppe ging nach Hause."
#define LONG_TEXT                                                                                  \
  "The man hit the car and the car hit the man, then the group went home after a long day at "     \
  "the river near the old mill."

static AttnscopeWindow *window;
static char *tmpdir;

/* The toggle button below W whose label is LABEL, or NULL. */
static GtkToggleButton *
find_toggle (GtkWidget *w, const char *label)
{
  if (GTK_IS_TOGGLE_BUTTON (w) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0)
    return GTK_TOGGLE_BUTTON (w);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkToggleButton *found = find_toggle (c, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
translated (gpointer user_data)
{
  AttnscopeRun *run = gui_test_main_run (window);
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && attnscope_run_get_trace (run) != NULL && attnscope_run_get_trace (run)->source != NULL;
}

/* The attention page shown and up to date. */
static AttnscopePage *
attention_page (void)
{
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  return page;
}

/* The heatmap figure the attention page shows, or NULL. */
static const ArHeatmapFigure *
attention_figure (void)
{
  AttnscopePage *page = attention_page ();
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (
      attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page)));
  return built != NULL ? &ar_built_figure_get_parts (built)->heatmap : NULL;
}

/* The window's export of the attention page equals `attnscope export` with ARGS on MODEL. */
static void
check_export_parity (const char *name, const char *model, const char *const *args)
{
  AttnscopePage *page = attention_page ();
  g_autofree char *window_png = g_strdup_printf ("%s/%s-window.png", tmpdir, name);
  g_autofree char *cli_png = g_strdup_printf ("%s/%s-cli.png", tmpdir, name);
  g_autoptr (GError) error = NULL;
  g_assert_true (gui_export_write (window, page, window_png, 1, &error));
  g_assert_no_error (error);
  /* the sidecar's command names the same view */
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_auto (GStrv) recorded = gui_export_dup_command (window, page, &view, &options, "x.png");
  g_autofree char *joined = g_strjoinv (" ", recorded);
  g_autofree char *wanted = g_strjoinv (" ", (char **) args);
  g_autofree char *view_args = g_strndup (wanted, strstr (wanted, " --scale") - wanted);
  g_test_message ("%s: recorded %s", name, joined);
  g_assert_nonnull (strstr (joined, view_args));
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[] = { g_getenv ("ATTNSCOPE_BIN"), "export", "--model", model, "-o", cli_png };
  for (gsize i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (char *) head[i]);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  gui_test_assert_same_png (name, (const char *const *) argv->pdata, window_png, cli_png);
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

/* The heatmap has its size (a busy machine can show the page before). */
static gboolean
heatmap_sized (gpointer heatmap)
{
  return gtk_widget_get_width (GTK_WIDGET (heatmap)) > 100;
}

static gboolean
scan_shown (gpointer page)
{
  ArFigure figure;
  return attnscope_page_get_figure (ATTNSCOPE_PAGE (page), &figure);
}

/* Every page the window shows for the model gets up to date, and each that draws a figure has
 * one (the heads grid, similarity, projections, the lens, ...: the analyses work for the
 * family); returns how many figures. */
static int
check_every_page (void)
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
      AttnscopePage *page = ATTNSCOPE_PAGE (child);
      attnscope_window_show_page (window, name);
      g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
      ArFigure figure;
      if (ATTNSCOPE_PAGE_GET_CLASS (page)->get_figure == NULL)
        continue; /* a table (the predictions): up to date is all */
      if (!attnscope_page_get_figure (page, &figure) && ATTNSCOPE_IS_ATTRIBUTION_PAGE (page)
          && as_model_get_config (
                 attnscope_session_get_model (attnscope_window_get_session (window)))
                 ->encoder_decoder)
        {
          /* attribution does not apply to a translation model: the page says why */
          const char *why
              = attnscope_attribution_page_get_status (ATTNSCOPE_ATTRIBUTION_PAGE (page));
          g_test_message ("%s page: %s", name, why);
          g_assert_true (strstr (why, "does not apply") != NULL
                         || strstr (why, "not available") != NULL);
          continue;
        }
      if (ATTNSCOPE_IS_SCAN_PAGE (page) && !attnscope_page_get_figure (page, &figure))
        {
          /* the scan (a pass per head) starts when asked: the loss needs no token */
          g_assert_true (
              attnscope_scan_page_scan (ATTNSCOPE_SCAN_PAGE (page), AS_METRIC_LOSS, NULL, NULL));
          g_assert_true (gui_test_wait_until (scan_shown, page, TIMEOUT_MS));
          g_test_message ("%s page: %s", name,
                          attnscope_scan_page_get_status (ATTNSCOPE_SCAN_PAGE (page)));
        }
      if (!attnscope_page_get_figure (page, &figure))
        g_error ("the %s page shows no figure", name);
      g_test_message ("%s page: a figure of kind %d", name, figure.kind);
      shown++;
    }
  return shown;
}

/* VALUES [T][T] are head HEAD's position bias of LAYER of T, entry by entry, exactly (each
 * entry read from the trace's compact bias on its own). */
static void
assert_bias_values (const float *values, const AsTrace *t, int layer, int head)
{
  int T = t->n_tokens;
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++)
      if (values[(gsize) i * T + j] != as_trace_position_bias_entry (t, layer, head, i, j))
        g_error ("bias (%d, %d) of layer %d head %d: %g shown, %g kept", i, j, layer, head,
                 values[(gsize) i * T + j], as_trace_position_bias_entry (t, layer, head, i, j));
}

/* The figure shows head HEAD's position bias of T, exactly. */
static void
assert_bias_figure (const ArHeatmapFigure *fig, const AsTrace *t, int head, const char *title)
{
  g_assert_nonnull (fig);
  g_test_message ("figure: %s", fig->title);
  g_assert_cmpstr (fig->title, ==, title);
  g_assert_cmpint (fig->n_rows, ==, t->n_tokens);
  g_assert_cmpint (fig->n_cols, ==, t->n_tokens);
  assert_bias_values (fig->values, t, 0, head);
}

static void
test_t5_position_bias (void)
{
  g_autofree char *model = t5_model_with_tokenizer ();
  if (model == NULL)
    return;
  gui_test_open (window, model, NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, SOURCE);
  attnscope_window_set_target (window, TARGET);
  g_assert_true (gui_test_wait_until (translated, NULL, TIMEOUT_MS));
  AsTrace *decoder = attnscope_run_get_trace (gui_test_main_run (window));
  AsTrace *encoder = decoder->source;
  g_assert_true (as_trace_has_position_bias (decoder));
  g_assert_true (as_trace_has_position_bias (encoder));

  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  AttnscopePage *page = attention_page ();
  GtkToggleButton *button = find_toggle (GTK_WIDGET (page), "Position Bias");
  g_assert_nonnull (button);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (button))); /* none of its own */

  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 3);
  attention_page ();
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (button)));
  const ArHeatmapFigure *fig = attention_figure ();
  g_assert_true (g_str_has_prefix (fig->title, "Encoder self-attention"));
  gtk_toggle_button_set_active (button, TRUE);
  assert_bias_figure (attention_figure (), encoder, 3,
                      "Position bias of encoder head 3 (every layer)");
  check_export_parity ("encoder-bias", model,
                       (const char *[]){ "--text", SOURCE, "--target", TARGET, "--kind", "encoder",
                                         "--position-bias", "3", "--scale", "1", NULL });

  /* the decoder's own bias (causal: the future masked) */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  attnscope_view_state_set_head (v, 2);
  fig = attention_figure ();
  assert_bias_figure (fig, decoder, 2, "Position bias of decoder head 2 (every layer)");
  g_assert_true (fig->mask_upper);
  maybe_shot ("t5-decoder-position-bias");
  check_export_parity ("decoder-bias", model,
                       (const char *[]){ "--text", SOURCE, "--target", TARGET, "--kind", "decoder",
                                         "--position-bias", "2", "--scale", "1", NULL });

  /* the bias is each head's: the mean over heads has none */
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  g_assert_null (attention_figure ());
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_nonnull (attention_figure ());

  /* the encoder–decoder's pages: attention, heads, similarity, embeddings, alignment, lens */
  g_assert_cmpint (check_every_page (), >=, 6);

  /* the button up again: the attention */
  gtk_toggle_button_set_active (button, FALSE);
  fig = attention_figure ();
  g_assert_true (g_str_has_prefix (fig->title, "Decoder self-attention"));
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  attention_page ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (button)));
}

static void
test_gemma_window (void)
{
  g_autofree char *model
      = decoder_model ("gemma2-softcaps-alternate-tokenizer", decoder_gemma2_caps, TRUE);
  if (model == NULL)
    return;
  gui_test_open (window, model, LONG_TEXT, TIMEOUT_MS);
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_cmpint (t->n_tokens, >, 2 * 16);
  g_assert_cmpint (t->attn_recipe[0].window, ==, 16);
  g_assert_cmpint (t->attn_recipe[1].window, ==, 0);

  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 2);
  attnscope_view_state_set_head (v, 1);
  const ArHeatmapFigure *fig = attention_figure ();
  g_test_message ("local layer: %s", fig->title);
  g_assert_cmpstr (fig->title, ==,
                   "Layer 2 · head 1 · key/value head 0 · sliding window of 16 tokens");
  g_assert_cmpint (fig->window, ==, 16);
  int last = t->n_tokens - 1;
  g_assert_cmpint (ar_heatmap_cell_state (fig, last, last - 16), ==, AR_CELL_MASKED);
  g_assert_cmpint (ar_heatmap_cell_state (fig, last, last - 15), ==, AR_CELL_VALUE);
  g_assert_cmpint (ar_heatmap_cell_state (fig, 15, 0), ==, AR_CELL_VALUE);
  g_assert_cmpint (ar_heatmap_cell_state (fig, 16, 0), ==, AR_CELL_MASKED);
  /* the tooltip says why */
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (attention_page ()));
  double x, y, cw, ch;
  g_assert_true (gui_test_wait_until (heatmap_sized, heatmap, TIMEOUT_MS));
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, last, 0, &x, &y, &cw, &ch));
  g_autofree char *tip = attnscope_heatmap_view_dup_tooltip_at (heatmap, x + cw / 2, y + ch / 2);
  g_test_message ("tooltip: %s", tip);
  g_assert_nonnull (strstr (tip, "masked: outside the layer&apos;s sliding window of 16 tokens"));
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, 0, last, &x, &y, &cw, &ch));
  g_autofree char *future = attnscope_heatmap_view_dup_tooltip_at (heatmap, x + cw / 2, y + ch / 2);
  g_assert_nonnull (strstr (future, "masked: the model cannot attend to a later token"));
  /* the cells masked are exactly those the layer gave weight 0 */
  for (int i = 0; i < fig->n_rows; i++)
    for (int j = 0; j <= i; j++)
      if (ar_heatmap_cell_state (fig, i, j) == AR_CELL_MASKED)
        g_assert_cmpfloat (fig->values[(gsize) i * fig->n_cols + j], ==, 0);
  maybe_shot ("gemma-local-layer");
  check_export_parity (
      "gemma-local", model,
      (const char *[]){ "--text", LONG_TEXT, "--layer", "2", "--head", "1", "--scale", "1", NULL });

  attnscope_view_state_set_layer (v, 1);
  fig = attention_figure ();
  g_assert_cmpstr (fig->title, ==, "Layer 1 · head 1 · key/value head 0");
  g_assert_cmpint (fig->window, ==, 0);
  g_assert_cmpint (ar_heatmap_cell_state (fig, last, 0), ==, AR_CELL_VALUE);
  /* the mean over a local layer's heads has its window; rollout mixes layers and has none */
  attnscope_view_state_set_layer (v, 0);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  g_assert_cmpint (attention_figure ()->window, ==, 16);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_ROLLOUT);
  g_assert_cmpint (attention_figure ()->window, ==, 0);

  AttnscopePage *heads = attnscope_window_get_page (window, "heads");
  attnscope_window_show_page (window, "heads");
  g_assert_true (gui_test_wait_page (heads, TIMEOUT_MS));
  ArFigure grid;
  g_assert_true (attnscope_page_get_figure (heads, &grid));
  g_assert_cmpint (grid.kind, ==, AR_FIGURE_GRID);
  g_test_message ("grid: %s", grid.grid->title);
  g_assert_cmpstr (grid.grid->title, ==, "All heads · layers 0, 2 local (window 16)");
  g_assert_nonnull (grid.grid->layer_windows);
  g_assert_cmpint (grid.grid->layer_windows[0], ==, 16);
  g_assert_cmpint (grid.grid->layer_windows[1], ==, 0);
  g_assert_cmpint (grid.grid->layer_windows[2], ==, 16);
  g_assert_cmpint (grid.grid->layer_windows[3], ==, 0);

  /* attention, heads, similarity, embeddings, compare (with a second text), lens */
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)),
                          "The car hit the man.");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpint (check_every_page (), >=, 6);
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)),
                          "");

  /* a model without windows: no button, no window, the grid's plain title */
  g_autofree char *gpt2 = gui_test_fixture_path ("tiny-gpt2");
  gui_test_open (window, gpt2, "The man hit the car", TIMEOUT_MS);
  g_assert_true (gui_test_wait_page (heads, TIMEOUT_MS));
  g_assert_true (attnscope_page_get_figure (heads, &grid));
  g_assert_cmpstr (grid.grid->title, ==, "All heads");
  g_assert_null (grid.grid->layer_windows);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_cmpint (attention_figure ()->window, ==, 0);
  g_assert_false (gtk_widget_get_visible (
      GTK_WIDGET (find_toggle (GTK_WIDGET (attention_page ()), "Position Bias"))));
}

/* umT5 keeps a bias table per layer: the figure of the view's layer shows that layer's block
 * (named in the title), the layers' blocks differ, and `export --position-bias H --layer L` takes
 * the layer (checked on T5, whose one bias every layer shares, below). */
static void
test_umt5_position_bias (void)
{
  g_autofree char *dir = t5_model ("umt5", t5_umt5);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const int32_t src[] = { 37, 12, 88, 5, 140, 9, 1 }, tgt[] = { 0, 17, 23, 61, 4 };
  g_autoptr (AsTrace) t = as_forward_translation (model, src, G_N_ELEMENTS (src), tgt,
                                                  G_N_ELEMENTS (tgt), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (t->n_position_bias, ==, t->n_layer);
  gsize nn = (gsize) t->n_tokens * t->n_tokens;
  ArViewSelection view;
  ar_view_selection_init (&view);
  for (int layer = 0; layer < t->n_layer; layer++)
    {
      view.layer = layer;
      ArFigureTexts texts = { 0 };
      g_autoptr (ArBuiltFigure) built = ar_build_position_bias_figure (t, 1, &view, &texts);
      const ArHeatmapFigure *fig = &ar_built_figure_get_parts (built)->heatmap;
      g_autofree char *title = g_strdup_printf ("Position bias of decoder layer %d head 1", layer);
      g_assert_cmpstr (fig->title, ==, title);
      assert_bias_values (fig->values, t, layer, 1);
    }
  g_autofree float *first = as_trace_position_bias_head (t, 0, 1);
  g_autofree float *second = as_trace_position_bias_head (t, 1, 1);
  g_assert_true (memcmp (first, second, nn * sizeof (float)) != 0);

  g_autofree char *t5 = t5_model_with_tokenizer ();
  if (t5 == NULL)
    return;
  g_autofree char *png = g_build_filename (g_get_tmp_dir (), "attnscope-bias-layer.png", NULL);
  const char *bin = g_getenv ("ATTNSCOPE_BIN");
  const char *ok[]
      = { bin,      "export",  "--model",         t5,  "--text",  SOURCE, "--target", TARGET,
          "--kind", "decoder", "--position-bias", "1", "--layer", "1",    "-o",       png,
          NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (ok, &out, &err, &status);
  g_test_message ("--position-bias 1 --layer 1: %s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));
  g_unlink (png);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  const char *bad[]
      = { bin,      "export",  "--model",         t5,  "--text", SOURCE, "--target", TARGET,
          "--kind", "decoder", "--position-bias", "1", "--head", "0",    "-o",       png,
          NULL };
  gui_test_spawn (bad, &out, &err, &status);
  g_test_message ("--position-bias 1 --head 0: %s", err);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "--position-bias H"));
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  tmpdir = g_dir_make_tmp ("attnscope-family-views-XXXXXX", NULL);
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  /* the command line's look: fixed colours, values in the cells */
  attnscope_view_state_set_autoscale (gui_test_view_state (window), FALSE);
  attnscope_view_state_set_annotate (gui_test_view_state (window), TRUE);
  g_test_add_func ("/ui/family-views/t5-position-bias", test_t5_position_bias);
  g_test_add_func ("/ui/family-views/umt5-position-bias", test_umt5_position_bias);
  g_test_add_func ("/ui/family-views/gemma-window", test_gemma_window);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
