/* bench-gui-long.c — whether the window keeps its main loop going on a text of thousands of
 * tokens whose attention the trace computes on demand (tests/bench/bench-gui-long.sh runs it under
 * Xvfb; not a test). Target: no gap between frame-clock ticks longer than 50 ms while layers,
 * heads and pages switch and the heatmap zooms; a zoomed heatmap frame at 8,192 tokens ≤ 16 ms
 * once its tiles are computed.
 *
 * Opens the application window (1280 × 800) on MODEL with ATTNSCOPE_ATTENTION=on-demand and a
 * text of exactly TOKENS tokens. A tick callback keeps the window's frame clock ticking every
 * frame; the gap between two ticks is how long the main loop could not paint; a 5 ms timeout of
 * high priority measures the same when GTK pauses its ticks. The larger of the two counts. For each
 * action — a layer step, a head step, a page switch, a zoom into the heatmap (to exact entries) and
 * a pan of the zoomed view — it does the action, then lets the window work until the page is no
 * longer busy (its background work done, every result drawn), and records the longest tick gap in
 * that stretch. Then, with a text of ZOOM_TOKENS tokens (0: skipped), it zooms the heatmap to 64
 * blocks (exact entries), lets the tiles of two neighbouring views arrive, and times REPEAT
 * frames (before-paint → after-paint) of the view moving between them.
 *
 * Prints JSON lines on stdout ({"kind": "gap", "action": ..., "gap_ms": ...}, {"kind":
 * "zoom-frame",
 * ...}, one {"kind": "summary", ...} per kind) and a table on stderr.
 *
 * usage: bench-gui-long --model DIR [--tokens T] [--zoom-tokens T] [--switches N] [--repeat N] */
#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-model.h"
#include "as-tokenizer.h"
#include "attnscope-attention-page.h"
#include "attnscope-background.h"
#include "attnscope-heatmap-view-exact.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 600000
#define GAP_TARGET_MS 50.0
#define FRAME_TARGET_MS 16.0

static AttnscopeWindow *window;
static gint64 last_tick;
static double longest_gap; /* ms, since gap_reset () */
static gint64 last_beat;
static double longest_beat; /* ms between two runs of a 5 ms high-priority timeout */
static gint64 frame_start;
static double frame_ms; /* the longest frame since it was last set to 0 */
static guint64 frames;

static gboolean
on_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  gint64 now = g_get_monotonic_time ();
  if (last_tick > 0)
    longest_gap = MAX (longest_gap, (now - last_tick) / 1000.0);
  last_tick = now;
  return G_SOURCE_CONTINUE;
}

/* The main loop's own heartbeat: how late a 5 ms timeout of high priority runs is how long the
 * loop was kept from it (ticks can pause when GTK has nothing to paint). */
static gboolean
on_beat (gpointer data)
{
  gint64 now = g_get_monotonic_time ();
  if (last_beat > 0)
    longest_beat = MAX (longest_beat, (now - last_beat) / 1000.0);
  last_beat = now;
  return G_SOURCE_CONTINUE;
}

static void
gap_reset (void)
{
  last_tick = last_beat = 0;
  longest_gap = longest_beat = 0;
}

static void
on_before_paint (GdkFrameClock *clock, gpointer data)
{
  frame_start = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock, gpointer data)
{
  frame_ms = MAX (frame_ms, (g_get_monotonic_time () - frame_start) / 1000.0);
  frames++;
}

static const char paragraph[]
    = "The village lies at the foot of a long green valley. In spring the river runs high with "
      "melted snow, and the farmers wait for the water to fall before they plant. The children "
      "walk to school along the old road, past the mill and the church, and in the evening the "
      "older people sit outside and talk about the weather and the news from the city. ";

/* A text of exactly N tokens (or a few more when no cut makes N): the paragraph repeated, cut. */
static char *
text_of_tokens (AsTokenizer *tokenizer, int n)
{
  g_autoptr (GError) error = NULL;
  GString *source = g_string_new (NULL);
  g_autoptr (GArray) ids = NULL;
  while (ids == NULL || (int) ids->len < n + 8)
    {
      for (int i = 0; i < 16; i++)
        g_string_append (source, paragraph);
      g_clear_pointer (&ids, g_array_unref);
      ids = as_tokenizer_encode (tokenizer, source->str, -1, &error);
      if (ids == NULL)
        g_error ("%s", error->message);
    }
  g_string_free (source, TRUE);
  for (int cut = n; cut < n + 8; cut++)
    {
      char *text = as_tokenizer_decode (tokenizer, (const int32_t *) ids->data, cut);
      g_autoptr (GArray) again = as_tokenizer_encode (tokenizer, text, -1, &error);
      if (again != NULL && (int) again->len == n)
        return text;
      g_free (text);
    }
  return as_tokenizer_decode (tokenizer, (const int32_t *) ids->data, n);
}

/* With $ATTNSCOPE_SHOT_DIR: a screenshot NAME.png of the screen. */
static void
maybe_shot (const char *name)
{
  const char *dir = g_getenv ("ATTNSCOPE_SHOT_DIR");
  if (dir == NULL)
    return;
  g_autofree char *file = g_strdup_printf ("%s/%s.png", dir, name);
  const char *argv[] = { "/usr/bin/import", "-window", "root", file, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
summary (const char *name, GArray *ms, double target)
{
  if (ms->len == 0)
    return;
  double *v = (double *) ms->data;
  qsort (v, ms->len, sizeof (double), compare_double);
  double median = v[ms->len / 2], max = v[ms->len - 1];
  printf ("{\"kind\": \"summary\", \"name\": \"%s\", \"n\": %u, \"median_ms\": %.1f, "
          "\"max_ms\": %.1f, \"target_ms\": %g}\n",
          name, ms->len, median, max, target);
  fprintf (stderr, "%-28s %4u  median %8.1f ms  max %8.1f ms  target %g ms  %s\n", name, ms->len,
           median, max, target, max <= target ? "met" : "NOT met");
}

static const char *shown = "attention"; /* the page shown */
static gboolean all_pages;

static void
show (const char *name)
{
  shown = name;
  attnscope_window_show_page (window, name);
}

static AttnscopePage *
current_page (void)
{
  return attnscope_window_get_page (window, shown);
}

static gboolean
page_settled (gpointer data)
{
  AttnscopePage *page = current_page ();
  return page != NULL && !attnscope_page_get_busy (page);
}

static guint settle_ms = TIMEOUT_MS; /* --settle: how long an action may work before its gap */

/* Lets the window work until the page is done (at most settle_ms), then records the longest tick
 * gap meanwhile. */
static void
settle (const char *action, GArray *gaps, gint64 t0)
{
  gui_test_spin (30);
  gui_test_wait_until (page_settled, NULL, settle_ms);
  gui_test_spin (100);
  double gap = MAX (longest_gap, longest_beat);
  g_array_append_val (gaps, gap);
  printf ("{\"kind\": \"gap\", \"action\": \"%s\", \"tick_gap_ms\": %.1f, \"loop_gap_ms\": %.1f, "
          "\"done_ms\": %.0f}\n",
          action, longest_gap, longest_beat, (g_get_monotonic_time () - t0) / 1000.0);
  fflush (stdout);
}

static AttnscopeHeatmapView *
heatmap (void)
{
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  return attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
}

static gboolean
exact_ready (gpointer data)
{
  return attnscope_heatmap_view_exact_ready (heatmap ());
}

static void
set_text (AsTokenizer *tokenizer, int n)
{
  g_autofree char *text = text_of_tokens (tokenizer, n);
  gint64 t0 = g_get_monotonic_time ();
  attnscope_window_set_text (window, text);
  if (!gui_test_wait_runs (window, TIMEOUT_MS))
    g_error ("the pass over %d tokens did not end", n);
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  fprintf (stderr, "bench-gui-long: %d tokens (%s) in %.1f s\n", t->n_tokens,
           as_trace_attention_held (t) ? "matrices" : "on demand",
           (g_get_monotonic_time () - t0) / 1e6);
}

/* Layer and head steps, page switches, zooms and pans at the current text. */
static void
measure_gaps (int switches, AttnscopeViewState *state)
{
  GArray *layer = g_array_new (FALSE, FALSE, sizeof (double)),
         *head = g_array_new (FALSE, FALSE, sizeof (double)),
         *page = g_array_new (FALSE, FALSE, sizeof (double)),
         *zoom = g_array_new (FALSE, FALSE, sizeof (double));
  const char *const pages[]
      = { "heads", "attention", "similarity", "attention", "heads", "attention" };
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  /* with --all-pages: every page of the window, each followed by the Attention page */
  GPtrArray *order = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    g_ptr_array_add (order, (gpointer) pages[i]);
  static const char *const others[]
      = { "heads",     "similarity", "embeddings",  "compare", "predictions",
          "alignment", "lens",       "attribution", "ablation" };
  for (guint i = 0; all_pages && i < G_N_ELEMENTS (others); i++)
    {
      g_ptr_array_add (order, (gpointer) others[i]);
      g_ptr_array_add (order, (gpointer) "attention");
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = order->pdata[i];
      gap_reset ();
      gint64 t0 = g_get_monotonic_time ();
      show (name);
      g_autofree char *what = g_strdup_printf ("page %s", name);
      settle (what, page, t0);
      fprintf (stderr, "  page %-12s longest gap %7.1f ms\n", name,
               MAX (longest_gap, longest_beat));
      g_autofree char *shot = g_strdup_printf ("long-4k-page-%s", name);
      maybe_shot (shot);
    }
  g_ptr_array_unref (order);
  for (int i = 0; i < switches; i++)
    {
      gap_reset ();
      gint64 t0 = g_get_monotonic_time ();
      attnscope_view_state_set_layer (state, (i + 1) % t->n_layer);
      settle ("layer", layer, t0);
      gap_reset ();
      t0 = g_get_monotonic_time ();
      attnscope_view_state_set_head (state, (i + 1) % t->n_head);
      settle ("head", head, t0);
    }
  /* the mean over the heads and the rollout of layer 1, one layer from tiles (or the rollout's
   * refusal) */
  show ("attention");
  GArray *agg = g_array_new (FALSE, FALSE, sizeof (double));
  attnscope_view_state_set_layer (state, 1);
  const AttnscopeAggregate aggregates[] = { ATTNSCOPE_AGGREGATE_MEAN, ATTNSCOPE_AGGREGATE_ROLLOUT };
  const char *const aggregate_names[] = { "mean", "rollout" };
  for (int a = 0; a < 2; a++)
    {
      gap_reset ();
      gint64 t0 = g_get_monotonic_time ();
      attnscope_view_state_set_aggregate (state, aggregates[a]);
      g_autofree char *what = g_strdup_printf ("layer 1 %s", aggregate_names[a]);
      settle (what, agg, t0);
      fprintf (stderr, "  %-18s longest gap %7.1f ms, done in %.1f s\n", what,
               MAX (longest_gap, longest_beat), (g_get_monotonic_time () - t0) / 1e6);
      g_autofree char *shot = g_strdup_printf ("long-4k-%s", aggregate_names[a]);
      maybe_shot (shot);
    }
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (state, 0);
  settle ("head again", agg, g_get_monotonic_time ());
  AttnscopeHeatmapView *view = heatmap ();
  maybe_shot ("long-heatmap-4k-pooled");
  for (int i = 0; i < switches; i++)
    {
      int P = attnscope_heatmap_view_get_n_rows (view);
      gap_reset ();
      gint64 t0 = g_get_monotonic_time ();
      attnscope_heatmap_view_set_view (view, (P / 2 + 40 * i) % (P - 64),
                                       (P / 4 + 16 * i) % (P / 2), 64);
      gui_test_wait_until (exact_ready, NULL, TIMEOUT_MS);
      settle ("zoom", zoom, t0);
      if (i == 0)
        maybe_shot ("long-heatmap-4k-exact");
      gap_reset ();
      t0 = g_get_monotonic_time ();
      attnscope_heatmap_view_set_view (view, 0, 0, 0);
      settle ("zoom out", zoom, t0);
    }
  g_autofree char *n = g_strdup_printf ("T=%d", t->n_tokens);
  g_autofree char *a = g_strconcat ("page switch ", n, NULL);
  g_autofree char *b = g_strconcat ("layer step ", n, NULL);
  g_autofree char *c = g_strconcat ("head step ", n, NULL);
  g_autofree char *d = g_strconcat ("zoom in/out ", n, NULL);
  fprintf (stderr, "the longest gap between frame-clock ticks per action:\n");
  summary (a, page, GAP_TARGET_MS);
  summary (b, layer, GAP_TARGET_MS);
  summary (c, head, GAP_TARGET_MS);
  summary (d, zoom, GAP_TARGET_MS);
  g_autofree char *e = g_strconcat ("mean/rollout/back ", n, NULL);
  summary (e, agg, GAP_TARGET_MS);
  g_array_unref (agg);
  g_array_unref (layer), g_array_unref (head), g_array_unref (page), g_array_unref (zoom);
}

/* The heatmap shows the pooled head of the current trace. */
static gboolean
pooled_current (gpointer data)
{
  ArBuiltFigure *f = attnscope_heatmap_view_get_figure (heatmap ());
  return f != NULL
         && ar_built_figure_get_parts (f)->heatmap.pool_trace
                == attnscope_run_get_trace (gui_test_main_run (window));
}

/* The frames of a zoomed heatmap moving between two views whose tiles are in. */
static void
measure_zoom_frames (int repeat)
{
  show ("attention");
  gui_test_wait_until (page_settled, NULL, TIMEOUT_MS);
  gui_test_wait_until (pooled_current, NULL, TIMEOUT_MS);
  AttnscopeHeatmapView *view = heatmap ();
  int P = attnscope_heatmap_view_get_n_rows (view);
  int views[2][2] = { { P / 2, P / 4 }, { P / 2 + 1, P / 4 + 1 } };
  for (int i = 0; i < 2; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      attnscope_heatmap_view_set_view (view, views[i][0], views[i][1], 64);
      gui_test_wait_until (exact_ready, NULL, TIMEOUT_MS);
      fprintf (stderr, "bench-gui-long: the tiles of a zoomed view in %.0f ms\n",
               (g_get_monotonic_time () - t0) / 1000.0);
    }
  int r0, nr, c0, nc;
  attnscope_heatmap_view_get_exact_region (view, &r0, &nr, &c0, &nc);
  gui_test_spin (200);
  maybe_shot ("long-heatmap-8k-exact");
  GArray *ms = g_array_new (FALSE, FALSE, sizeof (double));
  for (int i = 0; i < repeat; i++)
    {
      int *v = views[i % 2];
      guint64 before = frames;
      frame_ms = 0;
      attnscope_heatmap_view_set_view (view, v[0], v[1], 64);
      if (!attnscope_heatmap_view_exact_ready (view))
        g_error ("the tiles of a view were dropped");
      while (frames < before + 2)
        g_main_context_iteration (NULL, TRUE);
      g_array_append_val (ms, frame_ms);
      printf ("{\"kind\": \"zoom-frame\", \"entries\": %d, \"frame_ms\": %.2f}\n", nr, frame_ms);
    }
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  g_autofree char *name
      = g_strdup_printf ("zoomed frame T=%d (%d×%d entries)", t->n_tokens, nr, nc);
  summary (name, ms, FRAME_TARGET_MS);
  g_array_unref (ms);
}

int
main (int argc, char **argv)
{
  g_autofree char *model = NULL;
  int tokens = 4096, zoom_tokens = 8192, switches = 6, repeat = 30;
  const GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &model, "model folder", "DIR" },
    { "tokens", 0, 0, G_OPTION_ARG_INT, &tokens, "text length (4096)", "T" },
    { "zoom-tokens", 0, 0, G_OPTION_ARG_INT, &zoom_tokens, "zoomed frames at (8192; 0: none)",
      "T" },
    { "switches", 0, 0, G_OPTION_ARG_INT, &switches,
      "layer/head steps and zooms (6; 0: no gaps measured)", "N" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "zoomed frames (30)", "N" },
    { "all-pages", 0, 0, G_OPTION_ARG_NONE, &all_pages, "switch to every page", NULL },
    { "settle", 0, 0, G_OPTION_ARG_INT, &settle_ms, "ms an action may work (600000)", "MS" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || model == NULL)
    {
      fprintf (stderr, "usage: bench-gui-long --model DIR [--tokens T] [--zoom-tokens T]\n");
      return 2;
    }
  g_setenv ("ATTNSCOPE_ATTENTION", "on-demand", TRUE);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_wait_model (window, TIMEOUT_MS);
  attnscope_window_open_model (window, model);
  if (!gui_test_wait_model (window, TIMEOUT_MS))
    g_error ("cannot open %s", model);
  AttnscopeViewState *state = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (state, ATTNSCOPE_AGGREGATE_HEAD);
  AsTokenizer *tokenizer = as_model_get_tokenizer (
      attnscope_session_get_model (attnscope_window_get_session (window)));
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), NULL);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), NULL);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), on_tick, NULL, NULL);
  g_timeout_add_full (G_PRIORITY_HIGH, 5, on_beat, NULL, NULL);
  show ("attention");
  set_text (tokenizer, tokens);
  gui_test_wait_until (page_settled, NULL, TIMEOUT_MS);
  if (switches > 0)
    measure_gaps (switches, state);
  if (zoom_tokens > 0)
    {
      set_text (tokenizer, zoom_tokens);
      measure_zoom_frames (repeat);
    }
  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  /* the jobs still running (head statistics of 8,192 tokens) are cancelled with the window: wait
   * for them, or the exit handlers unload OpenBLAS under them */
  gint64 t0 = g_get_monotonic_time ();
  if (!attnscope_background_wait (120000))
    g_error ("background jobs still run two minutes after the window was destroyed");
  fprintf (stderr, "bench-gui-long: the window's jobs ended %.0f ms after it was destroyed\n",
           (g_get_monotonic_time () - t0) / 1000.0);
  return 0;
}
