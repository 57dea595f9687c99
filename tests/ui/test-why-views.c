/* test-why-views.c — the Attention page's norm weighting in the real window (the shipped
 * attnscope-mini, a GPT-2, under Xvfb), against the core and `attnscope stats --norms --json`:
 * - the Norms button: every cell of one head is α_ij · ‖f_h(x_j)‖ (the command's value norms, the
 *   trace's weights) within 1e-5 relative, the title names ‖α·f(x)‖ and the head's share of the
 *   layer's update (the command's head_shares); the mean over heads is the mean of the weighted
 *   heads; off again, the weights come back;
 * - about 1,000 tokens (a random GPT-2 with a context of 1,024, attention on demand): the last
 *   query's row equals the weights times the core's norms;
 * - the query–key view of a rotary model with grouped-query attention: the key/value head in the
 *   title, the query's values after and before RoPE in the column labels;
 * - the query–key view's pass at ~1,000 tokens adds less memory than the main trace's attention;
 * - a translation model (attnscope-mini-en-de): its decoder self-attention is weighted; for its
 *   encoder the page says in one line why the norms do not apply and keeps the weights. */
#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-attention-norms.h"
#include "attnscope-attention-page.h"
#include "attnscope-attribution-page.h"
#include "decoder-models.h"
#include "gpt2-models.h"
#include "qk-figure.h"
#include "render-text.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000
#define MODEL "attnscope-mini"
#define TEXT "The man hit the car"

static AttnscopeWindow *window;

static AttnscopeAttentionPage *
attention_page (void)
{
  AttnscopePage *p = attnscope_window_get_page (window, "attention");
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return ATTNSCOPE_ATTENTION_PAGE (p);
}

/* With ATTNSCOPE_SHOT_DIR set: a screenshot of the screen as NAME.png there. */
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

/* `attnscope stats --model MODEL --text TEXT --norms --json`'s "norms" object. */
static JsonObject *
cli_norms (void)
{
  const char *argv[] = {
    g_getenv ("ATTNSCOPE_BIN"), "stats", "--model", MODEL, "--text", TEXT, "--norms", "--json", NULL
  };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  if (status != 0)
    g_test_message ("stats: %s", err);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  return json_object_ref (json_object_get_object_member (root, "norms"));
}

static double
norm_of (JsonObject *norms, int layer, int head, int key)
{
  JsonArray *l
      = json_array_get_array_element (json_object_get_array_member (norms, "value_norms"), layer);
  return json_array_get_double_element (json_array_get_array_element (l, head), key);
}

static const char *
figure_title (AttnscopeHeatmapView *heatmap)
{
  return ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap.title;
}

static void
assert_rel (double got, double want, double rel)
{
  g_assert_cmpfloat (fabs (got - want), <=, rel * MAX (fabs (want), 1e-6));
}

static void
test_norm_head (void)
{
  gui_test_open (window, MODEL, TEXT, TIMEOUT_MS);
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 1);
  attnscope_view_state_set_head (view, 2);
  AttnscopeAttentionPage *page = attention_page ();
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (page);
  g_assert_null (strstr (figure_title (heatmap), "‖α·f(x)‖"));
  attnscope_attention_page_set_norm_weighted (page, TRUE);
  page = attention_page ();
  g_autoptr (JsonObject) norms = cli_norms ();
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  int T = trace->n_tokens;
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, T);
  g_autofree float *owned = NULL;
  const float *attn = as_trace_attention_head (trace, 1, 2, &owned); /* [T][T] */
  for (int i = 0; i < T; i++)
    for (int j = 0; j <= i; j++)
      assert_rel (attnscope_heatmap_view_get_value (heatmap, i, j),
                  attn[i * T + j] * norm_of (norms, 1, 2, j), 1e-5);
  const char *title = figure_title (heatmap);
  g_test_message ("title: %s", title);
  g_assert_nonnull (strstr (title, "‖α·f(x)‖"));
  double share = json_array_get_double_element (
      json_array_get_array_element (json_object_get_array_member (norms, "head_shares"), 1), 2);
  g_autofree char *percent = g_strdup_printf ("%.0f%% of the layer's update", 100.0 * share);
  g_assert_nonnull (strstr (title, percent));
  g_assert_null (attnscope_attention_page_get_notice (page));
  maybe_shoot ("attention-norms-5");

  /* the mean over the heads: the mean of the weighted heads */
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_MEAN);
  page = attention_page ();
  for (int i = 0; i < T; i++)
    for (int j = 0; j <= i; j++)
      {
        double want = 0.0;
        for (int h = 0; h < trace->n_head; h++)
          {
            g_autofree float *o = NULL;
            const float *a = as_trace_attention_head (trace, 1, h, &o);
            want += a[i * T + j] * norm_of (norms, 1, h, j);
          }
        assert_rel (attnscope_heatmap_view_get_value (heatmap, i, j), want / trace->n_head, 1e-5);
      }
  /* off: the weights again */
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_attention_page_set_norm_weighted (page, FALSE);
  page = attention_page ();
  g_assert_cmpfloat (attnscope_heatmap_view_get_value (heatmap, T - 1, 1), ==,
                     attn[(T - 1) * T + 1]);

  /* the Attribution page's MLP bars and the query–key view with q, to look at */
  AttnscopePage *at = attnscope_window_get_page (window, "attribution");
  attnscope_window_show_page (window, "attribution");
  g_assert_true (gui_test_wait_page (at, TIMEOUT_MS));
  maybe_shoot ("attribution-bars-5");
  attnscope_attribution_page_show_qk (ATTNSCOPE_ATTRIBUTION_PAGE (at), TRUE);
  g_assert_true (gui_test_wait_page (at, TIMEOUT_MS));
  maybe_shoot ("qk-5");
  attnscope_attribution_page_show_qk (ATTNSCOPE_ATTRIBUTION_PAGE (at), FALSE);
}

/* About 1,000 tokens, attention on demand: the last row is the weights times the core's norms. */
static void
test_norm_long (void)
{
  static char *model_dir;
  if (model_dir == NULL && (model_dir = gpt2_model (6, 12, 96, 1024)) == NULL)
    return;
  g_autofree char *text = gpt2_long_text ();
  gui_test_open (window, model_dir, text, TIMEOUT_MS);
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 3);
  attnscope_view_state_set_head (view, 5);
  AttnscopeAttentionPage *page = attention_page ();
  gint64 start = g_get_monotonic_time ();
  attnscope_attention_page_set_norm_weighted (page, TRUE);
  page = attention_page ();
  g_test_message ("norm-weighted at ~1,000 tokens in %.2f s",
                  (g_get_monotonic_time () - start) / 1e6);
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  int T = trace->n_tokens;
  g_assert_cmpint (T, >, 900);
  AsModel *model = attnscope_session_get_model (attnscope_window_get_session (window));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsAttentionNorms) norms = as_attention_norms_of_trace (model, trace, NULL, &error);
  g_assert_no_error (error);
  g_autofree float *row = g_new (float, T);
  as_trace_attention_tile (trace, 3, 5, T - 1, 1, 0, T, row, T);
  const float *n = as_attention_norms_values (norms, 3, 5);
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (page);
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, T);
  for (int j = 0; j < T; j++)
    assert_rel (attnscope_heatmap_view_get_value (heatmap, T - 1, j), row[j] * n[j], 1e-6);
  maybe_shoot ("attention-norms-long");
  attnscope_attention_page_set_norm_weighted (page, FALSE);
}

/* The query–key view of a rotary model with grouped-query attention (Qwen2): the title names the
 * key/value head, each dimension's column label the query's value there, after RoPE by default
 * and before it with the panel's switch (the core's q and q_before_rope). */
static void
test_qk_rope (void)
{
  static const char *const qwen2[]
      = { "--family",    "qwen2", "--layers",       "2",   "--heads", "4",
          "--hidden",    "64",    "--intermediate", "112", "--vocab", "320",
          "--positions", "1024",  "--kv-heads",     "2",   NULL };
  g_autofree char *model = decoder_model ("why-views-qwen2", qwen2, TRUE);
  if (model == NULL)
    return;
  gui_test_open (window, model, "the cat sat on the mat", TIMEOUT_MS);
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_layer (view, 1);
  attnscope_view_state_set_head (view, 3);
  attnscope_view_state_set_selected_token (view, 4);
  AttnscopePage *p = attnscope_window_get_page (window, "attribution");
  attnscope_window_show_page (window, "attribution");
  AttnscopeAttributionPage *page = ATTNSCOPE_ATTRIBUTION_PAGE (p);
  attnscope_attribution_page_show_qk (page, TRUE);
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  AttnscopeQkPanel *panel = attnscope_attribution_page_get_qk_panel (page);
  const AsQk *qk = attnscope_qk_panel_get_qk (panel);
  g_assert_nonnull (qk);
  g_assert_nonnull (qk->q_before_rope);
  g_assert_cmpint (qk->kv_head, ==, 1);
  AttnscopeHeatmapView *heatmap = attnscope_qk_panel_get_heatmap (panel);
  for (int before = 0; before <= 1; before++)
    {
      attnscope_qk_panel_set_before_rope (panel, before);
      attnscope_attribution_page_show_qk (page, FALSE);
      attnscope_attribution_page_show_qk (page, TRUE);
      g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
      qk = attnscope_qk_panel_get_qk (panel);
      const ArHeatmapFigure *fig
          = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
      g_test_message ("%s\n%s\n%s", fig->title, fig->subtitle, fig->col_labels[0]);
      g_assert_nonnull (strstr (fig->title, "key/value head 1"));
      g_assert_nonnull (strstr (fig->subtitle, before ? "q before RoPE" : "q after RoPE"));
      const float *q = before ? qk->q_before_rope : qk->q;
      g_autofree char *value = ar_format_number (q[qk->top_dims[0]], 2);
      g_autofree char *label = g_strdup_printf ("d%d · q %s", qk->top_dims[0], value);
      g_assert_cmpstr (fig->col_labels[0], ==, label);
    }
  attnscope_qk_panel_set_before_rope (panel, FALSE);
  attnscope_attribution_page_show_qk (page, FALSE);
  attnscope_view_state_set_selected_token (view, -1);
}

/* This process's resident memory in bytes (/proc/self/status, VmRSS). */
static guint64
rss_bytes (void)
{
  g_autofree char *status = NULL;
  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  const char *line = strstr (status, "VmRSS:");
  g_assert_nonnull (line);
  return g_ascii_strtoull (line + 6, NULL, 10) * 1024;
}

/* The query–key view's pass at ~1,000 tokens: the memory it adds (RSS before and after it
 * landed) is below the main trace's attention, [L][H][T][T] floats. */
static void
test_qk_memory (void)
{
  static char *model_dir;
  if (model_dir == NULL && (model_dir = gpt2_model (6, 12, 96, 1024)) == NULL)
    return;
  g_autofree char *text = gpt2_long_text ();
  gui_test_open (window, model_dir, text, TIMEOUT_MS);
  AttnscopePage *p = attnscope_window_get_page (window, "attribution");
  attnscope_window_show_page (window, "attribution");
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  guint64 attention = (guint64) trace->n_layer * trace->n_head * trace->n_tokens * trace->n_tokens
                      * sizeof (float);
  maybe_shoot ("attribution-bars-long");
  guint64 before = rss_bytes ();
  gint64 start = g_get_monotonic_time ();
  attnscope_attribution_page_show_qk (ATTNSCOPE_ATTRIBUTION_PAGE (p), TRUE);
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  guint64 after = rss_bytes ();
  g_assert_nonnull (attnscope_qk_panel_get_qk (
      attnscope_attribution_page_get_qk_panel (ATTNSCOPE_ATTRIBUTION_PAGE (p))));
  gint64 grown = (gint64) after - (gint64) before;
  g_test_message ("T = %d: the query–key pass added %.1f MB of RSS in %.2f s; the main trace's "
                  "attention is %.1f MB",
                  trace->n_tokens, grown / 1e6, (g_get_monotonic_time () - start) / 1e6,
                  attention / 1e6);
  g_assert_cmpint (grown, <, (gint64) attention);
  maybe_shoot ("qk-long");
  attnscope_attribution_page_show_qk (ATTNSCOPE_ATTRIBUTION_PAGE (p), FALSE);
}

/* A translation model: its decoder self-attention is weighted; its encoder's is not, and one line
 * says why while the weights stay. */
static void
test_norm_translation (void)
{
  gui_test_open (window, "attnscope-mini-en-de", NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, "The group went home.");
  attnscope_window_set_target (window, "Die Gruppe ging nach Hause.");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_SELF);
  attnscope_view_state_set_layer (view, 0);
  attnscope_view_state_set_head (view, 0);
  AttnscopeAttentionPage *page = attention_page ();
  attnscope_attention_page_set_norm_weighted (page, TRUE);
  page = attention_page ();
  AttnscopeHeatmapView *heatmap = attnscope_attention_page_get_heatmap (page);
  g_assert_null (attnscope_attention_page_get_notice (page));
  g_assert_nonnull (strstr (figure_title (heatmap), "‖α·f(x)‖"));
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_ENCODER);
  page = attention_page ();
  const char *notice = attnscope_attention_page_get_notice (page);
  g_test_message ("notice: %s", notice);
  g_assert_nonnull (notice);
  g_assert_nonnull (strstr (notice, "Norm weighting does not apply"));
  g_assert_nonnull (attnscope_heatmap_view_get_figure (heatmap));
  g_assert_null (strstr (figure_title (heatmap), "‖α·f(x)‖"));
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_SELF);
  attnscope_attention_page_set_norm_weighted (page, FALSE);
}

int
main (int argc, char **argv)
{
  g_autoptr (AttnscopeApplication) app = gui_test_start (&argc, &argv, &window, TIMEOUT_MS);
  g_test_add_func ("/ui/why-views/norm-head", test_norm_head);
  g_test_add_func ("/ui/why-views/norm-long", test_norm_long);
  g_test_add_func ("/ui/why-views/qk-memory", test_qk_memory);
  g_test_add_func ("/ui/why-views/qk-rope", test_qk_rope);
  g_test_add_func ("/ui/why-views/norm-translation", test_norm_translation);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
