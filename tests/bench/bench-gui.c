/* bench-gui.c — how fast the real window answers, against the targets of bench-gui.sh (which runs
 * it under Xvfb). Not a test: it checks only that the window shows what is being timed.
 *
 * Opens the application window (1280 × 800) on the model folder MODEL, layer LAYER and one head
 * in the attention view, and measures on the window's own frame clock:
 *
 *   keystroke  For each of 30 texts of at most 32 tokens: the text without its last character is
 *              put in the entry and left to settle; then the last character is inserted into the
 *              entry's buffer, as a keystroke does, and the clock runs until the end
 *              ("after-paint") of the first frame whose snapshot of the attention heatmap holds
 *              the new trace's head. Split into the forward pass (keystroke → the trace lands on
 *              the main thread) and the rest (→ that frame painted).
 *   grid       The heads page at T = 32: ar_figure_render() of the grid into an image surface of
 *              the widget's on-screen size (REPEAT times), and REPEAT redraws of the widget on
 *              screen: its snapshot, and the whole frame (before-paint → end of the paint phase,
 *              which includes GSK rasterising the widget's Cairo node).
 *   attention  The attention page at T = 512: the same for the heatmap; SWITCHES head changes
 *              (set head → page update → frame on screen with the new head); and the hover path:
 *              the hit test ar_heatmap_hit() and the widget's "query-tooltip" handler.
 *   stalls     At T = 1024 (bench-gui-stalls.c): the longest UI-thread stall of each page switch,
 *              token click, annotation toggle and layer/head step, STALL_REPEAT times each.
 *
 * Wall-clock times (g_get_monotonic_time). The snapshot and page-update times come from wrapping
 * the widgets' snapshot and the attention page's update vfuncs here, so the widgets carry no
 * benchmark code.
 *
 * Prints JSON lines on stdout: every sample ({"kind": "keystroke", ...}, {"kind": "switch", ...}),
 * one {"kind": "summary", "name", "n", "median_ms", "min_ms", "max_ms", "target_ms"} per
 * measurement, and {"kind": "env", ...}; a readable table on stderr.
 *
 * usage: bench-gui --model DIR [--repeat N] [--switches N] [--stall-repeat N] [--stalls-only] */
#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-config.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-tokenizer.h"
#include "as-trace.h"
#include "attnscope-attention-page.h"
#include "attnscope-figure-widget.h"
#include "attnscope-heads-page.h"
#include "bench-gui.h"

#define TIMEOUT_MS BENCH_TIMEOUT_MS
#define KEYSTROKE_TARGET_MS 100.0
#define FRAME_TARGET_MS BENCH_FRAME_TARGET_MS
#define LAYER 2
#define HEAD 5
#define HOVER_BATCHES 50
#define HITS_PER_BATCH 20
#define TIPS_PER_BATCH 4

/* Plain ASCII (so the last character is the last byte), 2 to 32 GPT-2 tokens. */
static const char *const keystroke_texts[] = {
  "The cat",
  "May the force",
  "The man hit the car",
  "Paris is the capital of",
  "The quick brown fox jumps",
  "She opened the door and smiled",
  "The river bank was flooded after the storm",
  "Attention is all you need, they said",
  "The teacher asked the students to open their books",
  "In the morning the birds sing before the sun rises over the hills",
  "He put the keys on the table, picked up his coat and walked out",
  "The old lighthouse keeper climbed the stairs every night to light the lamp",
  "The committee will meet on Tuesday to discuss the budget for the coming year",
  "My grandmother grew tomatoes, beans and potatoes in the small garden behind her house",
  "If you heat water to one hundred degrees at sea level, it begins to boil quickly",
  "The children built a snowman in the park, gave it a carrot nose and a red scarf",
  "The library closes at eight on weekdays, but on Saturdays it stays open until midnight, "
  "and the cafe",
  "She wrote the letter slowly, choosing each word with care, because she knew he would read "
  "it twice",
  "After the concert the musicians packed their instruments into the van and drove home "
  "through the quiet streets of the sleeping town at dawn",
  "The ship sailed north for three weeks through fog and ice before the crew finally saw the "
  "coast of Greenland rising out of the sea",
  "Although it was raining heavily, the marathon runners kept going until the very last mile, "
  "where their families waited with towels and tea",
  "The museum opened a new exhibition about ancient maps, and thousands of visitors came to "
  "see how sailors once imagined the edges of the world",
  "The library closes at eight on weekdays, but on Saturdays it stays open until midnight, "
  "and the cafe on the ground floor serves soup",
  "The first tokens of a sentence often receive most of the attention in the later layers of "
  "a small language model, which is strange but well known",
  "She wrote the letter slowly, choosing each word with care, because she knew he would read "
  "it twice and keep it in a drawer for many years",
  "Every head of the model attends to a different part of the sentence, some to the previous "
  "word, some to the first one and some to themselves",
  "The children built a snowman in the park, gave it a carrot nose and a red scarf, and then "
  "ran home for hot chocolate by the fire",
  "The children built a snowman in the park, gave it a carrot nose and a red scarf, and then "
  "ran home for hot chocolate by the warm fire",
  "The children built a snowman in the park, gave it a carrot nose and a red scarf, and then "
  "ran home for hot chocolate by the warm kitchen fire",
  "Every head of the model attends to a different part of the sentence, some to the previous "
  "word, some to the first one, some to themselves and some everywhere",
};

/* Repeated and cut to make texts of exactly 32, 512 and 1024 tokens; the second one is the
 * comparison text of the 1024-token stalls. */
static const char paragraph[]
    = "The village lies at the foot of a long green valley. In spring the river runs high with "
      "melted snow, and the farmers wait for the water to fall before they plant. The children "
      "walk to school along the old road, past the mill and the church, and in the evening the "
      "older people sit outside and talk about the weather, the prices at the market and the "
      "news from the city. ";
static const char paragraph2[]
    = "In the city the streets are busy from early morning until late at night. Buses and "
      "trams carry people to their offices, and the markets open before the sun is up. In the "
      "evening the squares fill with music, and the older people sit on the benches and talk "
      "about the weather, the prices in the shops and the news from the villages. ";

/* What the frame clock and the wrapped vfuncs saw. */
typedef struct
{
  guint64 frames;        /* frames painted so far */
  gint64 frame_start;    /* before-paint of the frame in progress */
  double frame_ms;       /* before-paint → end of paint, last frame */
  guint64 heatmap_draws; /* snapshots of the attention heatmap */
  guint64 grid_draws;
  guint64 draw_frame;     /* the frame of the last counted snapshot */
  double heatmap_draw_ms; /* the last snapshot of each */
  double grid_draw_ms;
  double update_ms;        /* the attention page's last update */
  double longest_frame_ms; /* since bench_frames_reset_longest () */
} Observed;

/* One timed change: from t0 until the end of a frame whose heatmap snapshot held TRACE's HEAD.
 * TRACE NULL: the next trace that lands (t_landed). */
typedef struct
{
  gboolean active;
  AsTrace *trace;
  int head;
  gint64 t0, t_landed, t_drawn, t_done;
} Probe;

static AttnscopeWindow *window;
static AttnscopeSession *session;
static AttnscopeHeatmapView *heatmap;
static AttnscopeHeadGridView *grid;
static Observed seen;
static Probe probe;
static void (*heatmap_snapshot) (GtkWidget *, GtkSnapshot *);
static void (*grid_snapshot) (GtkWidget *, GtkSnapshot *);
static void (*attention_update) (AttnscopePage *);
/* ---- observing the window ---- */

/* Whether the heatmap holds HEAD of LAYER of TRACE (the page copies it: exact equality), checked
 * on its size, last row and diagonal. */
static gboolean
heatmap_shows (const AsTrace *trace, int head)
{
  int t = trace->n_tokens;
  if (attnscope_heatmap_view_get_n_rows (heatmap) != t
      || attnscope_heatmap_view_get_n_cols (heatmap) != t)
    return FALSE;
  const float *attn = as_trace_attn_matrices (trace, LAYER, head); /* [T][T] */
  for (int i = 0; i < t; i++)
    if (attnscope_heatmap_view_get_value (heatmap, t - 1, i) != attn[(gsize) (t - 1) * t + i]
        || attnscope_heatmap_view_get_value (heatmap, i, i) != attn[(gsize) i * t + i])
      return FALSE;
  return TRUE;
}

static void
timed_heatmap_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  gint64 t0 = g_get_monotonic_time ();
  heatmap_snapshot (widget, snapshot);
  if (widget != GTK_WIDGET (heatmap))
    return;
  seen.heatmap_draw_ms = bench_ms_since (t0);
  seen.heatmap_draws++;
  seen.draw_frame = seen.frames;
  if (probe.active && probe.trace != NULL && probe.t_drawn == 0
      && heatmap_shows (probe.trace, probe.head))
    probe.t_drawn = g_get_monotonic_time ();
}

static void
timed_grid_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  gint64 t0 = g_get_monotonic_time ();
  grid_snapshot (widget, snapshot);
  if (widget != GTK_WIDGET (grid))
    return;
  seen.grid_draw_ms = bench_ms_since (t0);
  seen.grid_draws++;
  seen.draw_frame = seen.frames;
}

static void
timed_attention_update (AttnscopePage *page)
{
  gint64 t0 = g_get_monotonic_time ();
  attention_update (page);
  seen.update_ms = bench_ms_since (t0);
}

static void
on_before_paint (GdkFrameClock *clock, gpointer user_data)
{
  seen.frame_start = g_get_monotonic_time ();
}

/* Connected after GDK's own "paint" handler, which snapshots and renders the window. */
static void
on_paint (GdkFrameClock *clock, gpointer user_data)
{
  seen.frame_ms = bench_ms_since (seen.frame_start);
  seen.longest_frame_ms = MAX (seen.longest_frame_ms, seen.frame_ms);
}

guint64
bench_frames (void)
{
  return seen.frames;
}

double
bench_longest_frame_ms (void)
{
  return seen.longest_frame_ms;
}

void
bench_frames_reset_longest (void)
{
  seen.longest_frame_ms = 0;
}

static void
on_after_paint (GdkFrameClock *clock, gpointer user_data)
{
  seen.frames++;
  if (probe.active && probe.t_drawn != 0 && probe.t_done == 0)
    probe.t_done = g_get_monotonic_time ();
}

static AsTrace *
current_trace (void)
{
  return attnscope_run_get_trace (attnscope_session_get_main (session));
}

static void
on_trace (AttnscopeRun *run, GParamSpec *pspec, gpointer user_data)
{
  AsTrace *trace = attnscope_run_get_trace (run);
  if (probe.active && probe.trace == NULL && trace != NULL)
    {
      probe.t_landed = g_get_monotonic_time ();
      probe.trace = as_trace_ref (trace);
    }
}

static void
observe (void)
{
  GtkWidgetClass *klass = g_type_class_ref (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  heatmap_snapshot = klass->snapshot;
  klass->snapshot = timed_heatmap_snapshot;
  klass = g_type_class_ref (ATTNSCOPE_TYPE_HEAD_GRID_VIEW);
  grid_snapshot = klass->snapshot;
  klass->snapshot = timed_grid_snapshot;
  AttnscopePageClass *page_class = g_type_class_ref (ATTNSCOPE_TYPE_ATTENTION_PAGE);
  attention_update = page_class->update;
  page_class->update = timed_attention_update;

  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_assert_nonnull (clock);
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), NULL);
  g_signal_connect (clock, "paint", G_CALLBACK (on_paint), NULL);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), NULL);
  g_signal_connect (attnscope_session_get_main (session), "notify::trace", G_CALLBACK (on_trace),
                    NULL);
}

static void
probe_start (AsTrace *trace, int head)
{
  memset (&probe, 0, sizeof probe);
  probe.head = head;
  probe.t0 = g_get_monotonic_time ();
  if (trace != NULL)
    {
      probe.trace = as_trace_ref (trace);
      probe.t_landed = probe.t0;
    }
  probe.active = TRUE;
}

static gboolean
probe_done (gpointer user_data)
{
  return probe.t_done != 0;
}

static void
probe_wait (const char *what)
{
  if (!gui_test_wait_until (probe_done, NULL, TIMEOUT_MS))
    g_error ("%s: the heatmap never showed the change", what);
  probe.active = FALSE;
}

typedef struct
{
  const guint64 *draws; /* a widget's snapshot counter */
  guint64 before;
} DrawWait;

static gboolean
drawn (gpointer user_data)
{
  const DrawWait *wait = user_data;
  return *wait->draws > wait->before && seen.frames > seen.draw_frame;
}

/* Queues a redraw of WIDGET and waits for the end of the frame that drew it (DRAWS counts the
 * widget's snapshots). */
static void
redraw (GtkWidget *widget, const guint64 *draws)
{
  DrawWait wait = { draws, *draws };
  gtk_widget_queue_draw (widget);
  if (!gui_test_wait_until (drawn, &wait, TIMEOUT_MS))
    g_error ("no frame drew the widget");
}

static gboolean
any_frame (gpointer user_data)
{
  return seen.frames > *(guint64 *) user_data;
}

/* Lets every run land and a frame be drawn, so that a measurement starts from rest. */
static void
settle (void)
{
  if (!gui_test_wait_runs (window, TIMEOUT_MS))
    g_error ("the model run did not finish");
  guint64 frames = seen.frames;
  gtk_widget_queue_draw (GTK_WIDGET (window));
  if (!gui_test_wait_until (any_frame, &frames, TIMEOUT_MS))
    g_error ("the window drew no frame");
  gui_test_spin (60);
}

/* ---- 1. keystroke → new heatmap on screen ---- */

/* The main text entry: what win.focus-entry focuses. */
static GtkEditable *
find_entry (void)
{
  if (!gtk_widget_activate_action (GTK_WIDGET (window), "win.focus-entry", NULL))
    g_error ("the window has no win.focus-entry action");
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *entry = focus != NULL ? gtk_widget_get_ancestor (focus, GTK_TYPE_ENTRY) : NULL;
  if (entry == NULL)
    g_error ("win.focus-entry focused no GtkEntry");
  return GTK_EDITABLE (entry);
}

static void
bench_keystrokes (void)
{
  GtkEditable *entry = find_entry ();
  int n = G_N_ELEMENTS (keystroke_texts);
  g_autofree double *total = g_new (double, n), *forward = g_new (double, n),
                    *to_screen = g_new (double, n);
  attnscope_window_show_page (window, "attention");
  for (int i = 0; i < n; i++)
    {
      const char *text = keystroke_texts[i];
      int len = strlen (text);
      g_autofree char *before = g_strndup (text, len - 1);
      attnscope_window_set_text (window, before);
      settle ();
      gtk_editable_set_position (entry, -1);
      int position = len - 1;
      probe_start (NULL, HEAD);
      gtk_editable_insert_text (entry, text + len - 1, 1, &position);
      probe_wait (text);
      if (g_strcmp0 (attnscope_run_get_text (attnscope_session_get_main (session)), text) != 0
          || probe.trace->n_tokens > 32)
        g_error ("text %d: the session ran \"%s\" (%d tokens)", i,
                 attnscope_run_get_text (attnscope_session_get_main (session)),
                 probe.trace->n_tokens);
      total[i] = (probe.t_done - probe.t0) / 1000.0;
      forward[i] = (probe.t_landed - probe.t0) / 1000.0;
      to_screen[i] = (probe.t_done - probe.t_landed) / 1000.0;
      printf ("{\"kind\": \"keystroke\", \"text\": %d, \"tokens\": %d, \"total_ms\": %.3f, "
              "\"forward_ms\": %.3f, \"to_screen_ms\": %.3f, \"page_update_ms\": %.3f, "
              "\"snapshot_ms\": %.3f, \"frame_ms\": %.3f}\n",
              i, probe.trace->n_tokens, total[i], forward[i], to_screen[i], seen.update_ms,
              seen.heatmap_draw_ms, seen.frame_ms);
      g_clear_pointer (&probe.trace, as_trace_unref);
    }
  bench_summary ("keystroke_to_heatmap", "keystroke -> new heatmap on screen, T <= 32", total, n,
                 KEYSTROKE_TARGET_MS, FALSE);
  bench_summary ("keystroke_forward", "  of which keystroke -> trace lands (forward pass)", forward,
                 n, 0, FALSE);
  bench_summary ("keystroke_landed_to_screen", "  of which trace lands -> frame painted", to_screen,
                 n, 0, FALSE);
}

/* ---- 2 and 3: drawing ---- */

/* ar_figure_render() of FIGURE into an image surface of WIDGET's on-screen size, REPEAT times. */
static void
time_render (double *ms, const ArFigure *figure, GtkWidget *widget, int repeat)
{
  int scale = gtk_widget_get_scale_factor (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  cairo_surface_t *surface
      = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width * scale, height * scale);
  cairo_surface_set_device_scale (surface, scale, scale);
  for (int r = 0; r < repeat; r++)
    {
      gint64 t0 = g_get_monotonic_time ();
      cairo_t *cr = cairo_create (surface);
      ar_figure_render (cr, figure, width, height);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      ms[r] = bench_ms_since (t0);
    }
  cairo_surface_destroy (surface);
}

/* REPEAT redraws of WIDGET on screen: its snapshot time (*DRAW_MS, counted by *DRAWS) and the
 * time of the whole frame that drew it. */
static void
time_redraws (double *snapshot, double *frame, GtkWidget *widget, const guint64 *draws,
              const double *draw_ms, int repeat)
{
  for (int r = 0; r < repeat; r++)
    {
      redraw (widget, draws);
      snapshot[r] = *draw_ms;
      frame[r] = seen.frame_ms;
    }
}

/* Renders, snapshots and frames of WIDGET showing FIGURE; NAME prefixes the summaries. */
static void
bench_drawing (const char *name, const char *what, const ArFigure *figure, GtkWidget *widget,
               const guint64 *draws, const double *draw_ms, int repeat)
{
  g_autofree double *render = g_new (double, repeat), *snapshot = g_new (double, repeat),
                    *frame = g_new (double, repeat);
  time_render (render, figure, widget, repeat);
  time_redraws (snapshot, frame, widget, draws, draw_ms, repeat);
  g_autofree char *render_name = g_strconcat (name, "_render", NULL);
  g_autofree char *snapshot_name = g_strconcat (name, "_snapshot", NULL);
  g_autofree char *frame_name = g_strconcat (name, "_frame", NULL);
  g_autofree char *render_what
      = g_strdup_printf ("%s: render at %d x %d px", what, gtk_widget_get_width (widget),
                         gtk_widget_get_height (widget));
  bench_summary (render_name, render_what, render, repeat, FRAME_TARGET_MS, FALSE);
  bench_summary (snapshot_name, "  widget snapshot (records the Cairo node)", snapshot, repeat, 0,
                 FALSE);
  bench_summary (frame_name, "  whole frame redrawing it (snapshot + GSK render)", frame, repeat,
                 FRAME_TARGET_MS, FALSE);
}

static void
bench_grid (const char *text, int repeat)
{
  attnscope_window_set_text (window, text);
  attnscope_window_show_page (window, "heads");
  settle ();
  AsTrace *trace = current_trace ();
  if (attnscope_head_grid_view_get_n_layers (grid) != trace->n_layer
      || attnscope_head_grid_view_get_n_heads (grid) != trace->n_head)
    g_error ("the grid does not show the trace");
  ArFigureParts parts;
  attnscope_figure_widget_restyle (attnscope_head_grid_view_get_figure (grid), &parts);
  ArFigure figure = parts.figure;
  printf ("{\"kind\": \"grid\", \"layers\": %d, \"heads\": %d, \"tokens\": %d, \"width\": %d, "
          "\"height\": %d}\n",
          trace->n_layer, trace->n_head, trace->n_tokens, gtk_widget_get_width (GTK_WIDGET (grid)),
          gtk_widget_get_height (GTK_WIDGET (grid)));
  g_autofree char *what = g_strdup_printf ("%d x %d all-heads grid, T = %d", trace->n_layer,
                                           trace->n_head, trace->n_tokens);
  bench_drawing ("grid", what, &figure, GTK_WIDGET (grid), &seen.grid_draws, &seen.grid_draw_ms,
                 repeat);
}

/* Head changes at the current trace: set head → page update → frame with the new head. */
static void
bench_head_switches (AsTrace *trace, int switches)
{
  g_autofree double *total = g_new (double, switches), *work = g_new (double, switches);
  for (int s = 0; s < switches; s++)
    {
      int head = (HEAD + 1 + s) % trace->n_head;
      probe_start (trace, head);
      attnscope_view_state_set_head (attnscope_session_get_view (session), head);
      probe_wait ("head switch");
      total[s] = (probe.t_done - probe.t0) / 1000.0;
      work[s] = seen.update_ms + seen.frame_ms;
      printf ("{\"kind\": \"switch\", \"head\": %d, \"tokens\": %d, \"total_ms\": %.3f, "
              "\"page_update_ms\": %.3f, \"snapshot_ms\": %.3f, \"frame_ms\": %.3f}\n",
              head, trace->n_tokens, total[s], seen.update_ms, seen.heatmap_draw_ms, seen.frame_ms);
      g_clear_pointer (&probe.trace, as_trace_unref);
      gui_test_spin (30);
    }
  attnscope_view_state_set_head (attnscope_session_get_view (session), HEAD);
  bench_summary ("switch_to_screen", "  head switch -> new head on screen", total, switches, 0,
                 FALSE);
  bench_summary ("switch_work", "  head switch: page update + frame (main thread)", work, switches,
                 FRAME_TARGET_MS, FALSE);
}

/* The hover path at random cell centres, per call in batches: the hit test alone, and the
 * widget's whole "query-tooltip" handler (hit test, value formatting, tooltip markup). */
static void
bench_hover (void)
{
  GtkWidget *widget = GTK_WIDGET (heatmap);
  ArFigureParts parts;
  attnscope_figure_widget_restyle (attnscope_heatmap_view_get_figure (heatmap), &parts);
  ArHeatmapFigure *fig = &parts.heatmap;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  /* The cell grid from its first and last cells (each call lays the figure out). */
  double x0, y0, cw, ch, x1, y1;
  ar_heatmap_get_cell_rect (fig, width, height, 0, 0, &x0, &y0, &cw, &ch);
  ar_heatmap_get_cell_rect (fig, width, height, fig->n_rows - 1, fig->n_cols - 1, &x1, &y1, &cw,
                            &ch);
  double pitch_x = (x1 - x0) / MAX (fig->n_cols - 1, 1),
         pitch_y = (y1 - y0) / MAX (fig->n_rows - 1, 1);
  double hit[HOVER_BATCHES], tooltip[HOVER_BATCHES];
  g_autoptr (GRand) rand = g_rand_new_with_seed (1);
  GtkTooltip *tip = g_object_new (GTK_TYPE_TOOLTIP, NULL);
  for (int b = 0; b < HOVER_BATCHES; b++)
    {
      double x[HITS_PER_BATCH], y[HITS_PER_BATCH];
      int rows[HITS_PER_BATCH], cols[HITS_PER_BATCH];
      for (int k = 0; k < HITS_PER_BATCH; k++)
        {
          rows[k] = g_rand_int_range (rand, 0, fig->n_rows);
          cols[k] = g_rand_int_range (rand, 0, fig->n_cols);
          x[k] = x0 + cols[k] * pitch_x + 0.5 * cw;
          y[k] = y0 + rows[k] * pitch_y + 0.5 * ch;
        }
      int wrong = 0;
      gint64 t0 = g_get_monotonic_time ();
      for (int k = 0; k < HITS_PER_BATCH; k++)
        {
          int row = -1, col = -1;
          if (!ar_heatmap_hit (fig, width, height, x[k], y[k], &row, &col) || row != rows[k]
              || col != cols[k])
            wrong++;
        }
      hit[b] = bench_ms_since (t0) / HITS_PER_BATCH;
      if (wrong > 0)
        g_error ("the hit test missed %d cell centres", wrong);
      t0 = g_get_monotonic_time ();
      for (int k = 0; k < TIPS_PER_BATCH; k++)
        {
          gboolean shown = FALSE;
          g_signal_emit_by_name (widget, "query-tooltip", (int) x[k], (int) y[k], FALSE, tip,
                                 &shown);
          wrong += !shown;
        }
      tooltip[b] = bench_ms_since (t0) / TIPS_PER_BATCH;
      if (wrong > 0)
        g_error ("the tooltip handler refused %d cell centres", wrong);
    }
  g_object_unref (tip);
  bench_summary ("hover_hit", "  hover: hit test (per call)", hit, HOVER_BATCHES, 0, FALSE);
  bench_summary ("hover_tooltip", "  hover: query-tooltip handler (per call)", tooltip,
                 HOVER_BATCHES, FRAME_TARGET_MS, FALSE);
}

static void
bench_attention (const char *text, int repeat, int switches)
{
  attnscope_window_set_text (window, text);
  attnscope_window_show_page (window, "attention");
  settle ();
  bench_note ("T = 512 on screen");
  AsTrace *trace = current_trace ();
  if (!heatmap_shows (trace, HEAD))
    g_error ("the heatmap does not show the trace");
  GtkWidget *widget = GTK_WIDGET (heatmap);
  ArFigureParts parts;
  attnscope_figure_widget_restyle (attnscope_heatmap_view_get_figure (heatmap), &parts);
  ArHeatmapFigure fig = parts.heatmap;
  ArFigure figure = parts.figure;
  printf (
      "{\"kind\": \"attention\", \"tokens\": %d, \"width\": %d, \"height\": %d, "
      "\"annotated\": %s}\n",
      trace->n_tokens, gtk_widget_get_width (widget), gtk_widget_get_height (widget),
      ar_heatmap_is_annotated (&fig, gtk_widget_get_width (widget), gtk_widget_get_height (widget))
          ? "true"
          : "false");
  g_autofree char *what = g_strdup_printf ("attention heatmap, T = %d", trace->n_tokens);
  bench_drawing ("attention", what, &figure, widget, &seen.heatmap_draws, &seen.heatmap_draw_ms,
                 repeat);
  bench_note ("attention drawing done");
  bench_head_switches (trace, switches);
  bench_note ("head switches done");
  /* The switches replaced the widget's arrays that FIG borrowed. */
  settle ();
  bench_hover ();
}

/* ---- setup ---- */

/* A text of exactly N tokens: the paragraph repeated, cut after a number of tokens (re-encoding
 * can merge across the cut, so a few longer cuts are tried). */
static char *
text_of_tokens (AsTokenizer *tokenizer, const char *paragraph_text, int n)
{
  g_autoptr (GError) error = NULL;
  GString *source = g_string_new (NULL);
  g_autoptr (GArray) ids = NULL;
  while (ids == NULL || (int) ids->len < n + 8)
    {
      g_string_append (source, paragraph_text);
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
  g_error ("no cut of the paragraph makes %d tokens", n);
}

static void
check_texts (AsTokenizer *tokenizer)
{
  for (gsize i = 0; i < G_N_ELEMENTS (keystroke_texts); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) ids = as_tokenizer_encode (tokenizer, keystroke_texts[i], -1, &error);
      if (ids == NULL || ids->len > 32 || strlen (keystroke_texts[i]) < 2)
        g_error ("keystroke text %zu is not 2+ characters of at most 32 tokens", i);
    }
}

static void
open_bench_model (const char *model)
{
  gui_test_wait_model (window, TIMEOUT_MS);
  attnscope_window_open_model (window, model);
  g_autofree char *name = g_path_get_basename (model);
  if (!gui_test_wait_model (window, TIMEOUT_MS)
      || g_strcmp0 (attnscope_session_get_model_name (session), name) != 0)
    g_error ("cannot open %s: %s", model, attnscope_window_get_last_error (window));
  attnscope_view_state_set_aggregate (attnscope_session_get_view (session),
                                      ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (attnscope_session_get_view (session), LAYER);
  attnscope_view_state_set_head (attnscope_session_get_view (session), HEAD);
}

static void
print_env (const char *model)
{
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  AsModel *m = attnscope_session_get_model (session);
  const AsConfig *config = as_model_get_config (m);
  g_autofree char *name = g_strescape (model, NULL);
  printf ("{\"kind\": \"env\", \"gtk\": \"%u.%u.%u\", \"adwaita\": \"%u.%u.%u\", "
          "\"renderer\": \"%s\", \"window\": [%d, %d], \"scale\": %d, \"threads\": %d, "
          "\"model\": \"%s\", \"layers\": %d, \"heads\": %d, \"embd\": %d, \"vocab\": %d, "
          "\"layer\": %d, \"head\": %d}\n",
          gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
          adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version (),
          renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "none",
          gtk_widget_get_width (GTK_WIDGET (window)), gtk_widget_get_height (GTK_WIDGET (window)),
          gtk_widget_get_scale_factor (GTK_WIDGET (window)), as_forward_threads (), name,
          config->n_layer, config->n_head, config->n_embd, config->vocab_size, LAYER, HEAD);
}

int
main (int argc, char **argv)
{
  g_autofree char *model = NULL;
  int repeat = 100, switches = 30, stall_repeat = 5;
  gboolean stalls_only = FALSE;
  GOptionEntry entries[] = {
    { "model", 0, 0, G_OPTION_ARG_FILENAME, &model, "model folder (distilgpt2-shaped)", "DIR" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "renders and redraws per figure (100)", "N" },
    { "switches", 0, 0, G_OPTION_ARG_INT, &switches, "head switches at T = 512 (30)", "N" },
    { "stall-repeat", 0, 0, G_OPTION_ARG_INT, &stall_repeat,
      "repetitions of each action at T = 1024 (5)", "N" },
    { "stalls-only", 0, 0, G_OPTION_ARG_NONE, &stalls_only, "only the T = 1024 stalls", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("- time the window's drawing");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || model == NULL || repeat < 1
      || switches < 1 || stall_repeat < 1)
    {
      fprintf (stderr, "bench-gui: %s\n", error ? error->message : "--model DIR is required");
      return 2;
    }
  bench_note ("start");
  gtk_init ();
  adw_init ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  session = attnscope_window_get_session (window);
  gui_test_park_pointer ();
  open_bench_model (model);
  heatmap = attnscope_attention_page_get_heatmap (
      ATTNSCOPE_ATTENTION_PAGE (attnscope_window_get_page (window, "attention")));
  grid = attnscope_heads_page_get_grid (
      ATTNSCOPE_HEADS_PAGE (attnscope_window_get_page (window, "heads")));
  observe ();
  bench_note ("model open");

  AsTokenizer *tokenizer = as_model_get_tokenizer (attnscope_session_get_model (session));
  check_texts (tokenizer);
  if (!stalls_only)
    {
      g_autofree char *text32 = text_of_tokens (tokenizer, paragraph, 32);
      g_autofree char *text512 = text_of_tokens (tokenizer, paragraph, 512);
      bench_keystrokes ();
      bench_note ("keystrokes done");
      bench_grid (text32, repeat);
      bench_note ("grid done");
      bench_attention (text512, repeat, switches);
      bench_note ("attention view done");
    }
  g_autofree char *text1024 = text_of_tokens (tokenizer, paragraph, 1024);
  g_autofree char *compare1024 = text_of_tokens (tokenizer, paragraph2, 1024);
  bench_stalls (window, text1024, compare1024, stall_repeat);
  bench_note ("stalls done");
  print_env (model);

  bench_print_table ();
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
