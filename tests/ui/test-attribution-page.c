/* test-attribution-page.c — the Attribution page of the real window (the shipped attnscope-mini,
 * a GPT-2, under Xvfb), against `attnscope attribute --json` run on the same text:
 * - by default the predicted token (the argmax of the pass's last logits) at the last position;
 *   the heatmap has L rows and H columns and a bar per layer beside it for the MLPs; every head's
 *   cell and every layer's MLP bar hold the command's numbers, and the colour range is symmetric
 * around 0;
 * - the list of parts is sorted by size, its first row the largest part of the command's JSON;
 * - activating a head's cell, or a head's row of the list, shows that head on the Attention page;
 * - a second token (vs) and another position: the command's numbers with --vs-id and
 *   --position; while the new attribution is computed the page keeps its figure;
 * - a word the vocabulary splits: the status line says so and the figure stays;
 * - Query–key: the view's head and selected token as the query; the scores, weights, top
 *   dimensions and every cell (q_d·k_jd·scale; the score column) equal `attnscope qk --json`'s;
 *   another head in the view state changes the view;
 * - about 1,000 tokens (a random GPT-2 with a context of 1,024): the last position's numbers
 *   equal the command's;
 * - a post-norm encoder (attnscope-mini-bert): one line with the core's reason, no figure;
 * - a translation model (attnscope-mini-en-de with a source and a target): the cross-attention
 *   heads as a second L × H heatmap beside the heads, every cell the command's number
 *   (`attribute --target --json`'s cross_heads), on its own range ±max|cross head| printed in the
 *   subtitle; its cell, and a cross head's row of the list, open the head on the cross-attention
 *   view, a head's cell on the decoder's self-attention. */
#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-predict.h"
#include "attnscope-attribution-page.h"
#include "gpt2-models.h"
#include "gui-test-util.h"
#include "qk-figure.h"

#define TIMEOUT_MS 60000
#define MODEL "attnscope-mini"
#define TEXT "The man hit the car because it was"

static AttnscopeWindow *window;

static AttnscopeAttributionPage *
attribution_page (void)
{
  AttnscopePage *p = attnscope_window_get_page (window, "attribution");
  attnscope_window_show_page (window, "attribution");
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return ATTNSCOPE_ATTRIBUTION_PAGE (p);
}

static AsTrace *
main_trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

/* `attnscope attribute --model MODEL --text TEXT --target-id TARGET [--vs-id VS] [--position P]
 * --json`, parsed. */
static JsonObject *
cli_attribution_of (const char *model, const char *text, int target, int vs, int position)
{
  g_autofree char *t = g_strdup_printf ("%d", target);
  g_autofree char *v = g_strdup_printf ("%d", vs);
  g_autofree char *p = g_strdup_printf ("%d", position);
  const char *argv[16] = { g_getenv ("ATTNSCOPE_BIN"),
                           "attribute",
                           "--model",
                           model,
                           "--text",
                           text,
                           "--target-id",
                           t,
                           "--json" };
  int n = 9;
  if (vs >= 0)
    {
      argv[n++] = "--vs-id";
      argv[n++] = v;
    }
  if (position >= 0)
    {
      argv[n++] = "--position";
      argv[n++] = p;
    }
  argv[n] = NULL;
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  if (status != 0)
    g_test_message ("attribute: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static JsonObject *
cli_attribution (int target, int vs, int position)
{
  return cli_attribution_of (MODEL, TEXT, target, vs, position);
}

/* With ATTNSCOPE_SHOT_DIR set: a screenshot of the screen as OUT_DIR/NAME.png (ImageMagick's
 * import), to look at the page; nothing otherwise. */
static void
maybe_shoot (const char *name)
{
  const char *dir = g_getenv ("ATTNSCOPE_SHOT_DIR");
  if (dir == NULL)
    return;
  gui_test_park_pointer ();
  gui_test_spin (500);
  g_autofree char *path = g_strdup_printf ("%s/%s.png", dir, name);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_test_message ("%s: %s", path, status == 0 ? "written" : err);
}

/* The page's heatmap and attribution hold the numbers of WANT (the command's JSON). */
static void
assert_same (AttnscopeAttributionPage *page, JsonObject *want)
{
  AttnscopeHeatmapView *heatmap = attnscope_attribution_page_get_heatmap (page);
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  g_assert_nonnull (at);
  int L = at->n_layer, H = at->n_head;
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, L);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, H); /* MLPs: row bars */
  const ArHeatmapFigure *bars
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_assert_nonnull (bars->row_bars);
  g_assert_cmpint (at->position, ==, json_object_get_int_member (want, "position"));
  g_assert_cmpint (at->target_id, ==, json_object_get_int_member (want, "target_id"));
  JsonArray *heads = json_object_get_array_member (want, "heads");
  JsonArray *mlps = json_object_get_array_member (want, "mlps");
  g_assert_cmpint (json_array_get_length (heads), ==, L);
  double largest = 0.0;
  for (int l = 0; l < L; l++)
    {
      JsonArray *row = json_array_get_array_element (heads, l);
      for (int h = 0; h < H; h++)
        {
          float v = (float) json_array_get_double_element (row, h);
          g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, l, h), ==, v);
          largest = MAX (largest, fabs (v));
        }
      float m = (float) json_array_get_double_element (mlps, l);
      g_assert_cmpfloat (bars->row_bars[l], ==, m);
      largest = MAX (largest, fabs (m));
    }
  g_assert_cmpfloat ((float) at->logit, ==, (float) json_object_get_double_member (want, "logit"));
  g_assert_cmpfloat ((float) at->sum, ==, (float) json_object_get_double_member (want, "sum"));
  /* the parts add up to the logit */
  g_assert_cmpfloat_with_epsilon (at->sum, at->logit, 1e-4 * MAX (1.0, fabs (at->logit)));
  /* a symmetric colour range: ± the largest cell */
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_assert_cmpfloat_with_epsilon (fig->vmax, largest, 1e-6 * largest);
  g_assert_cmpfloat (fig->vmin, ==, -fig->vmax);
}

/* Whether page NAME is on screen and the Attribution page not. */
static gboolean
shown (gpointer name)
{
  GtkWidget *page = GTK_WIDGET (attnscope_window_get_page (window, name));
  GtkWidget *attribution = GTK_WIDGET (attnscope_window_get_page (window, "attribution"));
  return gtk_widget_get_mapped (page) && gtk_widget_get_width (page) > 0
         && (page == attribution || !gtk_widget_get_mapped (attribution));
}

static void
test_default (void)
{
  gui_test_open (window, MODEL, TEXT, TIMEOUT_MS);
  /* Alt+9 shows the page */
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_until (shown, "attention", TIMEOUT_MS));
  g_assert_true (gui_test_send_key (GTK_WINDOW (window), GDK_KEY_9, GDK_ALT_MASK));
  g_assert_true (gui_test_wait_until (shown, "attribution", TIMEOUT_MS));
  AttnscopeAttributionPage *page = attribution_page ();
  AsTrace *trace = main_trace ();
  int V = trace->vocab_size;
  const float *logits = trace->logits + (gsize) (trace->logits_rows - 1) * V;
  int best = 0;
  for (int v = 1; v < V; v++)
    best = logits[v] > logits[best] ? v : best;
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  g_assert_cmpint (at->target_id, ==, best);
  g_assert_cmpint (at->position, ==, trace->n_tokens - 1);
  g_assert_cmpint (at->vs_id, ==, -1);
  g_autoptr (JsonObject) want = cli_attribution (best, -1, -1);
  assert_same (page, want);
  g_test_message ("status: %s", attnscope_attribution_page_get_status (page));
  g_assert_nonnull (strstr (attnscope_attribution_page_get_status (page), "(predicted)"));
  maybe_shoot ("attribution-short");

  /* the list: sorted by size, the first row the largest of the parts */
  GtkListBox *parts = attnscope_attribution_page_get_parts (page);
  double previous = INFINITY;
  int rows = 0;
  for (GtkListBoxRow *row; (row = gtk_list_box_get_row_at_index (parts, rows)) != NULL; rows++)
    {
      GtkWidget *number = gtk_widget_get_last_child (gtk_list_box_row_get_child (row));
      double value = g_ascii_strtod (gtk_label_get_text (GTK_LABEL (number)), NULL);
      g_assert_cmpfloat (fabs (value), <=, previous + 5e-4);
      previous = fabs (value);
    }
  g_assert_cmpint (rows, ==, ATTRIBUTION_PAGE_PARTS);
  double largest = fabs (json_object_get_double_member (want, "embeddings"));
  JsonArray *heads = json_object_get_array_member (want, "heads");
  for (int l = 0; l < at->n_layer; l++)
    {
      largest = MAX (largest, fabs (json_array_get_double_element (
                                  json_object_get_array_member (want, "mlps"), l)));
      largest = MAX (largest, fabs (json_array_get_double_element (
                                  json_object_get_array_member (want, "attn_biases"), l)));
      for (int h = 0; h < at->n_head; h++)
        largest = MAX (largest, fabs (json_array_get_double_element (
                                    json_array_get_array_element (heads, l), h)));
    }
  GtkWidget *first = gtk_widget_get_last_child (
      gtk_list_box_row_get_child (gtk_list_box_get_row_at_index (parts, 0)));
  double shown = g_ascii_strtod (gtk_label_get_text (GTK_LABEL (first)), NULL);
  g_assert_cmpfloat_with_epsilon (fabs (shown), largest, 5e-4);
}

/* Activating head (LAYER, HEAD) — its cell or, with ROW ≥ 0, that row of the list — shows it on
 * the Attention page. */
static void
check_opens (int layer, int head, int row)
{
  AttnscopeAttributionPage *page = attribution_page ();
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_layer (view, 0);
  attnscope_view_state_set_head (view, 0);
  if (row >= 0)
    {
      GtkListBoxRow *r
          = gtk_list_box_get_row_at_index (attnscope_attribution_page_get_parts (page), row);
      g_signal_emit_by_name (attnscope_attribution_page_get_parts (page), "row-activated", r);
    }
  else
    g_signal_emit_by_name (attnscope_attribution_page_get_heatmap (page), "cell-activated", layer,
                           head);
  g_assert_true (gui_test_wait_until (shown, "attention", TIMEOUT_MS));
  g_assert_cmpint (attnscope_view_state_get_layer (view), ==, layer);
  g_assert_cmpint (attnscope_view_state_get_head (view), ==, head);
}

static void
test_open_head (void)
{
  AttnscopeAttributionPage *page = attribution_page ();
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  check_opens (at->n_layer - 1, at->n_head - 1, -1);
  check_opens (1, 0, -1);
  /* the list's first row that is a head */
  page = attribution_page ();
  GtkListBox *parts = attnscope_attribution_page_get_parts (page);
  for (int i = 0; i < ATTRIBUTION_PAGE_PARTS; i++)
    {
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (parts, i);
      int head = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "head"));
      if (head < 0)
        continue;
      int layer = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "layer"));
      g_test_message ("row %d: head %d.%d", i, layer, head);
      check_opens (layer, head, i);
      return;
    }
  g_assert_not_reached ();
}

static void
test_vs (void)
{
  AttnscopeAttributionPage *page = attribution_page ();
  AsTrace *trace = main_trace ();
  const AsTokenizer *tokenizer = as_model_get_tokenizer (
      attnscope_session_get_model (attnscope_window_get_session (window)));
  g_autofree char *man = as_predict_dup_ids_text (tokenizer, &trace->ids[1], 1);
  g_autofree char *car = as_predict_dup_ids_text (tokenizer, &trace->ids[4], 1);
  ArBuiltFigure *before
      = attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page));
  g_assert_nonnull (before);
  attnscope_attribution_page_set_tokens (page, man, car);
  attnscope_attribution_page_set_position (page, 3);
  /* computed in the background: the figure on screen stays meanwhile */
  if (attnscope_page_get_busy (ATTNSCOPE_PAGE (page)))
    g_assert_true (attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page))
                   == before);
  page = attribution_page ();
  g_autoptr (JsonObject) want = cli_attribution (trace->ids[1], trace->ids[4], 3);
  g_assert_cmpint (json_object_get_int_member (want, "vs_id"), ==, trace->ids[4]);
  assert_same (page, want);
  g_assert_cmpint (attnscope_attribution_page_get_attribution (page)->vs_id, ==, trace->ids[4]);

  /* a word that is several tokens: refused in the status line, the figure stays */
  ArBuiltFigure *shown
      = attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page));
  attnscope_attribution_page_set_tokens (page, "qqzzxqqzzx", NULL);
  page = attribution_page ();
  g_test_message ("status: %s", attnscope_attribution_page_get_status (page));
  g_assert_nonnull (strstr (attnscope_attribution_page_get_status (page), "qqzzxqqzzx"));
  g_assert_true (attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page))
                 == shown);
  attnscope_attribution_page_set_tokens (page, NULL, NULL);
  attnscope_attribution_page_set_position (page, -1);
  page = attribution_page ();
  g_assert_cmpint (attnscope_attribution_page_get_attribution (page)->position, ==,
                   trace->n_tokens - 1);
}

/* The query–key view of layer 2, head 1 for query 5 (the selected token): the panel's numbers
 * and cells are `attnscope qk --json`'s. */
static void
test_qk (void)
{
  AttnscopeAttributionPage *page = attribution_page ();
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_layer (view, 2);
  attnscope_view_state_set_head (view, 1);
  attnscope_view_state_set_selected_token (view, 5);
  attnscope_attribution_page_show_qk (page, TRUE);
  page = attribution_page ();
  AttnscopeQkPanel *panel = attnscope_attribution_page_get_qk_panel (page);
  const AsQk *qk = attnscope_qk_panel_get_qk (panel);
  g_assert_nonnull (qk);
  g_assert_cmpint (qk->layer, ==, 2);
  g_assert_cmpint (qk->head, ==, 1);
  g_assert_cmpint (qk->query, ==, 5);
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "qk",
                         "--model",
                         MODEL,
                         "--text",
                         TEXT,
                         "--layer",
                         "2",
                         "--head",
                         "1",
                         "--token",
                         "5",
                         "--json",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *want = json_node_get_object (json_parser_get_root (parser));
  JsonArray *products = json_object_get_array_member (want, "products");
  JsonArray *scores
      = json_array_get_array_element (json_object_get_array_member (want, "scores"), 0);
  JsonArray *probs = json_array_get_array_element (json_object_get_array_member (want, "probs"), 0);
  JsonArray *top = json_object_get_array_member (want, "top_dims");
  int hd = qk->head_dim, D = MIN (hd, AR_QK_FIGURE_DIMS);
  AttnscopeHeatmapView *heatmap = attnscope_qk_panel_get_heatmap (panel);
  /* a causal model: query 5 sees keys 0..5 */
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, 6);
  g_assert_cmpint (attnscope_heatmap_view_get_n_cols (heatmap), ==, D + 1);
  /* the command lists the --top dimensions (its default) */
  g_assert_cmpint (json_array_get_length (top), >, 0);
  for (guint d = 0; d < json_array_get_length (top); d++)
    g_assert_cmpint (qk->top_dims[d], ==, json_array_get_int_element (top, d));
  for (int j = 0; j <= 5; j++)
    {
      g_assert_cmpfloat (qk->scores[j], ==, (float) json_array_get_double_element (scores, j));
      g_assert_cmpfloat (qk->probs[j], ==, (float) json_array_get_double_element (probs, j));
      g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, j, D), ==, qk->scores[j]);
      JsonArray *row = json_array_get_array_element (products, j);
      for (int c = 0; c < D; c++)
        {
          float p = (float) json_array_get_double_element (row, qk->top_dims[c]);
          g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, j, c), ==, p * qk->scale);
        }
    }
  for (int j = 6; j < qk->n_keys; j++)
    g_assert_true (json_array_get_null_element (scores, j));
  maybe_shoot ("qk-short");
  /* another head: the view follows the view state */
  attnscope_view_state_set_head (view, 3);
  page = attribution_page ();
  g_assert_cmpint (attnscope_qk_panel_get_qk (panel)->head, ==, 3);
  attnscope_attribution_page_show_qk (page, FALSE);
  attnscope_view_state_set_selected_token (view, -1);
}

/* About 1,000 tokens on a random GPT-2 with a context of 1,024 (the figure pages' model): the
 * last position's attribution equals the command's. */
static void
test_long (void)
{
  static char *model_dir;
  if (model_dir == NULL && (model_dir = gpt2_model (6, 12, 96, 1024)) == NULL)
    return;
  g_autofree char *text = gpt2_long_text ();
  gint64 start = g_get_monotonic_time ();
  gui_test_open (window, model_dir, text, TIMEOUT_MS);
  AttnscopeAttributionPage *page = attribution_page ();
  g_test_message ("opened and attributed in %.1f s", (g_get_monotonic_time () - start) / 1e6);
  AsTrace *trace = main_trace ();
  g_assert_cmpint (trace->n_tokens, >, 900);
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  g_assert_cmpint (at->position, ==, trace->n_tokens - 1);
  g_autoptr (JsonObject) want = cli_attribution_of (model_dir, text, at->target_id, -1, -1);
  assert_same (page, want);
  maybe_shoot ("attribution-long");
  /* the query–key view of the last token: every key is seen */
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_layer (view, 5);
  attnscope_view_state_set_head (view, 11);
  attnscope_view_state_set_selected_token (view, -1);
  attnscope_attribution_page_show_qk (page, TRUE);
  start = g_get_monotonic_time ();
  page = attribution_page ();
  g_test_message ("query–key view in %.1f s", (g_get_monotonic_time () - start) / 1e6);
  AttnscopeQkPanel *panel = attnscope_attribution_page_get_qk_panel (page);
  g_assert_cmpint (attnscope_qk_panel_get_qk (panel)->query, ==, trace->n_tokens - 1);
  AttnscopeHeatmapView *heatmap = attnscope_qk_panel_get_heatmap (panel);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, trace->n_tokens);
  /* in view: the keys nearest the query */
  int row0, col0, n;
  attnscope_heatmap_view_get_view (heatmap, &row0, &col0, &n);
  g_assert_cmpint (n, ==, QK_PANEL_ROWS);
  g_assert_cmpint (row0, ==, trace->n_tokens - QK_PANEL_ROWS);
  maybe_shoot ("qk-long");
  attnscope_attribution_page_show_qk (page, FALSE);
}

static void
test_post_norm (void)
{
  gui_test_open (window, "attnscope-mini-bert", "The man hit the car", TIMEOUT_MS);
  AttnscopeAttributionPage *page = attribution_page ();
  g_test_message ("status: %s", attnscope_attribution_page_get_status (page));
  g_assert_nonnull (strstr (attnscope_attribution_page_get_status (page), "post-norm"));
  g_assert_null (attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page)));
  g_assert_null (attnscope_attribution_page_get_attribution (page));
}

static gboolean
translation_idle (gpointer user_data)
{
  AttnscopeRun *run = gui_test_main_run (window);
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && !attnscope_session_get_busy (attnscope_window_get_session (window));
}

/* A translation model: the cross-attention heads beside the heads, as `attribute --json` gives
 * them, on their own symmetric range; a click opens the head on the cross-attention view. */
static void
test_translation (void)
{
  const char *source = "Hi there", *target = "Hallo da";
  gui_test_open (window, "attnscope-mini-en-de", NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  attnscope_window_set_text (window, source);
  attnscope_window_set_target (window, target);
  g_assert_true (gui_test_wait_until (translation_idle, NULL, TIMEOUT_MS));
  AttnscopeAttributionPage *page = attribution_page ();
  g_test_message ("status: %s", attnscope_attribution_page_get_status (page));
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  g_assert_nonnull (at);
  g_assert_nonnull (at->cross_heads);
  AttnscopeHeatmapView *cross = attnscope_attribution_page_get_cross_heatmap (page);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cross)));
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (cross);
  g_assert_nonnull (built);
  const ArHeatmapFigure *fig = &ar_built_figure_get_parts (built)->heatmap;
  g_test_message ("%s; %s", fig->title, fig->subtitle);
  g_assert_cmpint (fig->n_rows, ==, at->n_layer);
  g_assert_cmpint (fig->n_cols, ==, at->n_head);

  g_autofree char *t = g_strdup_printf ("%d", at->target_id);
  g_autofree char *p = g_strdup_printf ("%d", at->position);
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "attribute",
                         "--model",
                         "attnscope-mini-en-de",
                         "--text",
                         source,
                         "--target",
                         target,
                         "--target-id",
                         t,
                         "--position",
                         p,
                         "--json",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *want = json_node_get_object (json_parser_get_root (parser));
  JsonArray *rows = json_object_get_array_member (want, "cross_heads");
  g_assert_cmpint (json_array_get_length (rows), ==, at->n_layer);
  double largest = 0.0;
  for (int l = 0; l < at->n_layer; l++)
    for (int h = 0; h < at->n_head; h++)
      {
        double w = json_array_get_double_element (json_array_get_array_element (rows, l), h);
        g_assert_cmpfloat ((float) w, ==, attnscope_heatmap_view_get_value (cross, l, h));
        largest = MAX (largest, fabs (w));
      }
  g_assert_cmpfloat (largest, >, 0.0);
  g_assert_cmpfloat_with_epsilon (fig->vmax, largest, 1e-6 * largest);
  g_assert_cmpfloat (fig->vmin, ==, -fig->vmax);
  g_autofree char *range = g_strdup_printf ("±%.3f", largest);
  g_assert_nonnull (strstr (fig->subtitle, range));
  maybe_shoot ("attribution-translation");

  /* a cross head's cell opens it on the cross-attention view */
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_SELF);
  g_signal_emit_by_name (cross, "cell-activated", at->n_layer - 1, 1);
  g_assert_true (gui_test_wait_until (shown, "attention", TIMEOUT_MS));
  g_assert_cmpint (attnscope_view_state_get_attention_kind (view), ==, AR_ATTENTION_CROSS);
  g_assert_cmpint (attnscope_view_state_get_layer (view), ==, at->n_layer - 1);
  g_assert_cmpint (attnscope_view_state_get_head (view), ==, 1);
  /* the list's first cross head row opens that head on the cross-attention view too */
  page = attribution_page ();
  GtkListBox *parts = attnscope_attribution_page_get_parts (page);
  GtkListBoxRow *cross_row = NULL;
  for (int i = 0; cross_row == NULL && i < ATTRIBUTION_PAGE_PARTS; i++)
    {
      GtkListBoxRow *r = gtk_list_box_get_row_at_index (parts, i);
      if (r != NULL && g_object_get_data (G_OBJECT (r), "cross") != NULL)
        cross_row = r;
    }
  g_assert_nonnull (cross_row);
  int cross_layer = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (cross_row), "layer"));
  int cross_head = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (cross_row), "head"));
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_SELF);
  g_signal_emit_by_name (parts, "row-activated", cross_row);
  g_assert_true (gui_test_wait_until (shown, "attention", TIMEOUT_MS));
  g_assert_cmpint (attnscope_view_state_get_attention_kind (view), ==, AR_ATTENTION_CROSS);
  g_assert_cmpint (attnscope_view_state_get_layer (view), ==, cross_layer);
  g_assert_cmpint (attnscope_view_state_get_head (view), ==, cross_head);
  /* and a head's cell on the decoder's own self-attention */
  page = attribution_page ();
  g_signal_emit_by_name (attnscope_attribution_page_get_heatmap (page), "cell-activated", 0, 2);
  g_assert_true (gui_test_wait_until (shown, "attention", TIMEOUT_MS));
  g_assert_cmpint (attnscope_view_state_get_attention_kind (view), ==, AR_ATTENTION_SELF);
  g_assert_cmpint (attnscope_view_state_get_head (view), ==, 2);
}

int
main (int argc, char **argv)
{
  g_autoptr (AttnscopeApplication) app = gui_test_start (&argc, &argv, &window, TIMEOUT_MS);
  g_test_add_func ("/ui/attribution-page/default", test_default);
  g_test_add_func ("/ui/attribution-page/open-head", test_open_head);
  g_test_add_func ("/ui/attribution-page/vs", test_vs);
  g_test_add_func ("/ui/attribution-page/qk", test_qk);
  g_test_add_func ("/ui/attribution-page/long", test_long);
  g_test_add_func ("/ui/attribution-page/post-norm", test_post_norm);
  g_test_add_func ("/ui/attribution-page/translation", test_translation);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
