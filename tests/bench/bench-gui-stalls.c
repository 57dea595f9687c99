/* bench-gui-stalls.c — how long the window's UI thread is blocked by what a user does at
 * T = 1024, where a page switch must not stall the window (part of bench-gui, run by
 * bench-gui.sh).
 *
 * A stall is measured on the UI thread itself: the default main context's poll function is
 * wrapped, and the thread is busy from the moment poll returns until poll is called again
 * (checking and dispatching sources — input, the idle page updates, results landing, the frame
 * clock's layout and paint — and the benchmark's own action, which runs between two
 * iterations). An action's stall is the longest such stretch from the action until the window
 * has settled: no forward pass or analysis in flight, the page has its result, and 150 ms more
 * for the last frames. Two more numbers tell drawing from the rest: the longest frame
 * (before-paint → end of paint) in that window, and the longest stretch in which no frame was
 * painted (page updates, figure builders, results landing — the UI thread's own work).
 *
 * Actions, each REPEAT times on the 1024-token text (and a 1024-token second text):
 *   switching to each page (the first round computes what the page needs, later rounds find it
 *   in the analysis cache), clicking a token chip on the attention, similarity and compare
 *   pages, toggling annotation (win.annotate) on the attention and similarity pages, and
 *   stepping heads and layers (win.step-head, win.step-layer) on the attention page with one
 *   head and with rollout, and on the similarity page (a new similarity matrix per step). */
#include <stdio.h>

#include "as-trace.h"
#include "attnscope-token-strip.h"
#include "bench-gui.h"

#define SETTLE_SPIN_MS 150

static GPollFunc default_poll;
static gint64 poll_returned; /* when poll last returned */
static guint64 frames_then;  /* frames painted by then */
static double longest_ms;    /* the longest busy stretch since stall_begin () */
static double longest_other; /* the longest one without a frame */

static gint
timed_poll (GPollFD *fds, guint n_fds, gint timeout)
{
  gint64 now = g_get_monotonic_time ();
  if (poll_returned != 0)
    {
      double busy = (now - poll_returned) / 1000.0;
      longest_ms = MAX (longest_ms, busy);
      if (bench_frames () == frames_then)
        longest_other = MAX (longest_other, busy);
    }
  gint result = default_poll (fds, n_fds, timeout);
  poll_returned = g_get_monotonic_time ();
  frames_then = bench_frames ();
  return result;
}

static AttnscopeWindow *window;
static AttnscopeSession *session;

static void
stall_begin (void)
{
  longest_ms = longest_other = 0;
  poll_returned = g_get_monotonic_time ();
  frames_then = bench_frames ();
  bench_frames_reset_longest ();
}

static gboolean
settled (gpointer page)
{
  return !attnscope_session_get_busy (session) && !attnscope_page_get_busy (page);
}

/* Waits until the window has settled after an action on PAGE; returns the longest stall since
 * stall_begin (), the longest frame in *FRAME_MS and the longest stall without a frame in
 * *OTHER_MS. */
static double
stall_end (AttnscopePage *page, double *frame_ms, double *other_ms)
{
  /* The page's update runs from an idle: let it ask for what it needs before looking. */
  gui_test_spin (30);
  if (!gui_test_wait_until (settled, page, BENCH_TIMEOUT_MS))
    g_error ("the window did not settle");
  gui_test_spin (SETTLE_SPIN_MS);
  *frame_ms = bench_longest_frame_ms ();
  *other_ms = longest_other;
  return longest_ms;
}

/* The measurements of one kind of action. */
typedef struct
{
  const char *name, *what;
  GArray *stall, *frame, *other; /* double ms per action */
} Series;

static Series *
series_new (const char *name, const char *what)
{
  Series *s = g_new0 (Series, 1);
  s->name = name;
  s->what = what;
  s->stall = g_array_new (FALSE, FALSE, sizeof (double));
  s->frame = g_array_new (FALSE, FALSE, sizeof (double));
  s->other = g_array_new (FALSE, FALSE, sizeof (double));
  return s;
}

static void
series_add (Series *s, AttnscopePage *page)
{
  double frame = 0, other = 0, stall = stall_end (page, &frame, &other);
  g_array_append_val (s->stall, stall);
  g_array_append_val (s->frame, frame);
  g_array_append_val (s->other, other);
  printf ("{\"kind\": \"stall\", \"action\": \"%s\", \"stall_ms\": %.3f, \"frame_ms\": %.3f, "
          "\"other_ms\": %.3f}\n",
          s->name, stall, frame, other);
}

/* Prints S's summaries: the stall judged by its maximum; the longest frame and the longest
 * stall without a frame for reference. */
static void
series_finish (Series *s)
{
  g_autofree char *frame_name = g_strconcat (s->name, "_frame", NULL);
  g_autofree char *other_name = g_strconcat (s->name, "_other", NULL);
  bench_summary (s->name, s->what, (double *) s->stall->data, s->stall->len, BENCH_FRAME_TARGET_MS,
                 TRUE);
  bench_summary (frame_name, "    the longest frame", (double *) s->frame->data, s->frame->len, 0,
                 TRUE);
  bench_summary (other_name, "    the longest stall without a frame", (double *) s->other->data,
                 s->other->len, BENCH_FRAME_TARGET_MS, TRUE);
  g_array_unref (s->stall);
  g_array_unref (s->frame);
  g_array_unref (s->other);
  g_free (s);
}

static AttnscopePage *
show (const char *name)
{
  attnscope_window_show_page (window, name);
  return attnscope_window_get_page (window, name);
}

/* Shows page NAME and waits until it settled (not measured). */
static AttnscopePage *
prepare (const char *name)
{
  AttnscopePage *page = show (name);
  double frame, other;
  stall_end (page, &frame, &other);
  return page;
}

static void
bench_page_switches (int repeat)
{
  static const struct
  {
    const char *page, *name, *what;
  } pages[] = {
    { "heads", "stall_switch_heads", "switch to Heads (6 x 12 grid)" },
    { "similarity", "stall_switch_similarity", "switch to Similarity (contexts)" },
    { "embeddings", "stall_switch_embeddings", "switch to Embeddings (PCA, 1024 points)" },
    { "compare", "stall_switch_compare", "switch to Compare (two 1024-token texts)" },
    { "predictions", "stall_switch_predictions", "switch to Predictions" },
    { "attention", "stall_switch_attention", "switch to Attention (one head)" },
  };
  Series *series[G_N_ELEMENTS (pages)];
  for (gsize p = 0; p < G_N_ELEMENTS (pages); p++)
    series[p] = series_new (pages[p].name, pages[p].what);
  prepare ("attention");
  for (int r = 0; r < repeat; r++)
    for (gsize p = 0; p < G_N_ELEMENTS (pages); p++)
      {
        stall_begin ();
        AttnscopePage *page = show (pages[p].page);
        series_add (series[p], page);
      }
  for (gsize p = 0; p < G_N_ELEMENTS (pages); p++)
    series_finish (series[p]);
}

/* Clicks on the chips of the token strip, as a user selects tokens, on page PAGE_NAME. */
static void
bench_token_clicks (const char *page_name, const char *name, const char *what, int repeat)
{
  AttnscopePage *page = prepare (page_name);
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  guint n = attnscope_token_strip_get_n_chips (strip);
  Series *s = series_new (name, what);
  for (int r = 0; r < 2 * repeat; r++)
    {
      guint chip = (r * 97u + 5u) % n;
      stall_begin ();
      gtk_toggle_button_set_active (attnscope_token_strip_get_chip (strip, chip), TRUE);
      series_add (s, page);
    }
  series_finish (s);
}

/* Toggles annotation (the menu's win.annotate) on page PAGE_NAME. */
static void
bench_annotation (const char *page_name, const char *name, const char *what, int repeat)
{
  AttnscopePage *page = prepare (page_name);
  Series *s = series_new (name, what);
  for (int r = 0; r < 2 * repeat; r++)
    {
      stall_begin ();
      g_action_group_activate_action (G_ACTION_GROUP (window), "annotate", NULL);
      series_add (s, page);
    }
  series_finish (s);
}

/* Steps through layers or heads with ACTION (win.step-layer / win.step-head) on page PAGE_NAME:
 * from layer and head 0, COUNT steps up and COUNT back down, REPEAT times. */
static void
bench_steps (const char *page_name, const char *action, int count, const char *name,
             const char *what, int repeat)
{
  AttnscopeViewState *view = attnscope_session_get_view (session);
  attnscope_view_state_set_layer (view, 0);
  attnscope_view_state_set_head (view, 0);
  AttnscopePage *page = prepare (page_name);
  Series *s = series_new (name, what);
  for (int r = 0; r < repeat; r++)
    for (int i = 0; i < 2 * count; i++)
      {
        stall_begin ();
        gtk_widget_activate_action (GTK_WIDGET (window), action, "i", i < count ? 1 : -1);
        series_add (s, page);
      }
  series_finish (s);
}

void
bench_stalls (AttnscopeWindow *w, const char *text, const char *compare, int repeat)
{
  window = w;
  session = attnscope_window_get_session (window);
  AttnscopeViewState *view = attnscope_session_get_view (session);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 0);
  attnscope_view_state_set_head (view, 0);
  attnscope_view_state_set_selected_token (view, -1);
  show ("attention");
  attnscope_window_set_text (window, text);
  attnscope_run_set_text (attnscope_session_get_compare (session), compare);
  if (!gui_test_wait_runs (window, BENCH_TIMEOUT_MS))
    g_error ("the 1024-token texts did not run");
  AsTrace *trace = attnscope_run_get_trace (attnscope_session_get_main (session));
  AsTrace *second = attnscope_run_get_trace (attnscope_session_get_compare (session));
  if (trace == NULL || trace->n_tokens != 1024 || second == NULL || second->n_tokens != 1024)
    g_error ("the texts are not 1024 tokens long");
  printf ("{\"kind\": \"stalls\", \"tokens\": %d, \"repeat\": %d}\n", trace->n_tokens, repeat);
  bench_note ("T = 1024 on screen");

  GMainContext *context = g_main_context_default ();
  default_poll = g_main_context_get_poll_func (context);
  g_main_context_set_poll_func (context, timed_poll);

  bench_page_switches (repeat);
  bench_note ("page switches done");
  bench_token_clicks ("attention", "stall_click_attention", "click a token: Attention", repeat);
  bench_token_clicks ("similarity", "stall_click_similarity",
                      "click a token: Similarity (table + matrix)", repeat);
  bench_token_clicks ("compare", "stall_click_compare", "click a token: Compare", repeat);
  bench_note ("token clicks done");
  bench_annotation ("attention", "stall_annotate_attention", "toggle annotation: Attention",
                    repeat);
  bench_annotation ("similarity", "stall_annotate_similarity", "toggle annotation: Similarity",
                    repeat);
  bench_note ("annotation done");
  bench_steps ("attention", "win.step-head", 5, "stall_head_attention",
               "next/previous head: Attention", repeat);
  bench_steps ("attention", "win.step-layer", 5, "stall_layer_attention",
               "next/previous layer: Attention", repeat);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_ROLLOUT);
  bench_steps ("attention", "win.step-layer", 5, "stall_layer_rollout",
               "next/previous layer: Attention, rollout", repeat);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  bench_steps ("similarity", "win.step-layer", 5, "stall_layer_similarity",
               "next/previous layer: Similarity (new matrix)", repeat);
  bench_note ("layer and head steps done");

  g_main_context_set_poll_func (context, default_poll);
}
