/* bench-heatmap-zoom.c — how long the heatmap view takes to draw a frame of a 1024-token matrix,
 * whole and zoomed (tests/bench/bench-heatmap-zoom.sh runs it under Xvfb; not a test).
 *
 * The view (AttnscopeHeatmapView) fills a 1280 × 800 window and shows a causal T × T matrix of
 * softmax rows (random logits, seed 1) with word-like token labels, as an attention head of a
 * 1024-token text looks. For each view — all of it, then 512, 256, 128, 64, 32 and 16 rows around
 * the middle — it measures REPEAT times each:
 *   moved-snapshot, moved-frame: the view moved by one row and one column (as a drag or the arrow
 *     keys move it): the widget's snapshot function, and the frame on screen from the frame
 *     clock's before-paint to its after-paint (the snapshot, GSK's rendering of it, the copy to
 *     the window) — every frame draws the figure anew;
 *   snapshot, frame: a redraw of the same view (the cursor moving, a tooltip, an expose), where
 *     the widget reuses the drawing of the figure it kept.
 * The whole matrix cannot move: its "moved" frames go round three figures of the same size and
 * labels (as switching heads does). Prints one JSON object per line: {"view": N, "what":
 * "...", "median_ms": ..., "max_ms": ...}.
 *
 * usage: bench-heatmap-zoom [--tokens T] [--repeat N] */
#include <adwaita.h>
#include <math.h>

#include "attnscope-heatmap-view.h"
#include "attnscope-widgets.h"
#include "built-figure.h"

static AttnscopeHeatmapView *view;
static GdkFrameClock *clock_;
static gint64 frame_start;
static double frame_ms;
static guint64 frames;

static void
on_before_paint (GdkFrameClock *clock, gpointer user_data)
{
  frame_start = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock, gpointer user_data)
{
  frame_ms = (g_get_monotonic_time () - frame_start) / 1000.0;
  frames++;
}

/* A causal T × T matrix of softmax rows with labels: what an attention head looks like. */
static ArBuiltFigure *
attention_like_figure (int t)
{
  static const char *const words[]
      = { "\u2423the", "\u2423man",  "\u2423hit",   "\u2423car",  ",",
          "\u2423and", "\u2423then", "\u2423drove", "\u2423home", "." };
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new0 (float, (gsize) t *t));
  char **labels = g_new0 (char *, t + 1);
  GRand *rand = g_rand_new_with_seed (1);
  for (int i = 0; i < t; i++)
    {
      labels[i] = g_strdup (words[i % G_N_ELEMENTS (words)]);
      float *row = values + (gsize) i * t;
      double sum = 0;
      for (int j = 0; j <= i; j++)
        sum += row[j] = (float) exp (3 * g_rand_double (rand));
      for (int j = 0; j <= i; j++)
        row[j] = (float) (row[j] / sum);
    }
  g_rand_free (rand);
  fig->n_rows = fig->n_cols = t;
  fig->values = values;
  fig->row_labels = fig->col_labels = ar_built_figure_take_strv (built, labels);
  fig->mask_upper = TRUE;
  fig->title = "Layer 0 · head 0";
  fig->subtitle = "bench · a text of 1024 tokens";
  fig->colorbar_label = "Attention weight";
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

static gboolean
timeout_reached (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until a frame after FRAMES_BEFORE was painted (or 5 s passed). */
static void
wait_frame (guint64 frames_before)
{
  gboolean late = FALSE;
  guint id = g_timeout_add (5000, timeout_reached, &late);
  while (frames <= frames_before && !late)
    g_main_context_iteration (NULL, TRUE);
  if (!late)
    g_source_remove (id);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
report (int n_view, const char *what, double *ms, int n)
{
  qsort (ms, n, sizeof (double), compare_doubles);
  g_print ("{\"view\": %d, \"what\": \"%s\", \"median_ms\": %.2f, \"max_ms\": %.2f, \"n\": %d}\n",
           n_view, what, ms[n / 2], ms[n - 1], n);
}

/* The widget's snapshot alone, timed. */
static double
time_snapshot (void)
{
  GtkWidget *w = GTK_WIDGET (view);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  gint64 t0 = g_get_monotonic_time ();
  GTK_WIDGET_GET_CLASS (w)->snapshot (w, snapshot);
  GskRenderNode *node = gtk_snapshot_free_to_node (snapshot);
  double ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (node != NULL)
    gsk_render_node_unref (node);
  return ms;
}

/* One redraw on screen, timed by the frame clock. */
static double
time_frame (void)
{
  guint64 before = frames;
  gtk_widget_queue_draw (GTK_WIDGET (view));
  wait_frame (before);
  return frame_ms;
}

int
main (int argc, char **argv)
{
  int tokens = 1024, repeat = 30;
  const GOptionEntry entries[] = {
    { "tokens", 0, 0, G_OPTION_ARG_INT, &tokens, "Matrix size T (default 1024)", "T" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Frames per measurement (default 30)", "N" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("— time the heatmap view's frames");
  g_option_context_add_main_entries (context, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (context, &argc, &argv, &error) || tokens < 16 || repeat < 1)
    {
      g_printerr ("bench-heatmap-zoom: %s\n", error != NULL ? error->message : "bad arguments");
      return 2;
    }
  gtk_init ();
  adw_init ();
  attnscope_widgets_init ();

  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 1280, 800);
  view = ATTNSCOPE_HEATMAP_VIEW (attnscope_heatmap_view_new ());
  gtk_window_set_child (window, GTK_WIDGET (view));
  g_autoptr (ArBuiltFigure) figure = attention_like_figure (tokens);
  /* other heads, say: the same size and labels */
  g_autoptr (ArBuiltFigure) second = attention_like_figure (tokens);
  g_autoptr (ArBuiltFigure) third = attention_like_figure (tokens);
  ArBuiltFigure *figures[3] = { figure, second, third };
  attnscope_heatmap_view_set_figure (view, figure);
  gtk_window_present (window);
  while (gtk_widget_get_width (GTK_WIDGET (view)) <= 0)
    g_main_context_iteration (NULL, TRUE);
  clock_ = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock_, "before-paint", G_CALLBACK (on_before_paint), NULL);
  g_signal_connect (clock_, "after-paint", G_CALLBACK (on_after_paint), NULL);
  time_frame (); /* the first frame measures the labels */
  g_print ("{\"env\": true, \"tokens\": %d, \"repeat\": %d, \"width\": %d, \"height\": %d, "
           "\"renderer\": \"%s\", \"gtk\": \"%d.%d.%d\"}\n",
           tokens, repeat, gtk_widget_get_width (GTK_WIDGET (view)),
           gtk_widget_get_height (GTK_WIDGET (view)),
           g_getenv ("GSK_RENDERER") != NULL ? g_getenv ("GSK_RENDERER") : "default",
           gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version ());

  g_autofree double *snap = g_new (double, repeat), *frame = g_new (double, repeat);
  const int sizes[] = { 0, 512, 256, 128, 64, 32, 16 };
  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      int n = sizes[s];
      if (n >= tokens)
        continue;
      int r0 = (tokens - n) / 2;
      for (int r = 0; r < repeat; r++)
        {
          if (n > 0)
            attnscope_heatmap_view_set_view (view, r0 + 2 * r % 4, r0 + 2 * r % 4, n);
          else
            attnscope_heatmap_view_set_figure (view, figures[2 * r % 3]);
          snap[r] = time_snapshot ();
          /* the frame draws anew too: drop what the snapshot above kept */
          if (n > 0)
            attnscope_heatmap_view_set_view (view, r0 + (2 * r + 1) % 4, r0 + (2 * r + 1) % 4, n);
          else
            attnscope_heatmap_view_set_figure (view, figures[(2 * r + 1) % 3]);
          frame[r] = time_frame ();
        }
      report (n, "moved-snapshot", snap, repeat);
      report (n, "moved-frame", frame, repeat);
      for (int r = 0; r < repeat; r++)
        snap[r] = time_snapshot (), frame[r] = time_frame ();
      report (n, "snapshot", snap, repeat);
      report (n, "frame", frame, repeat);
    }
  gtk_window_destroy (window);
  return 0;
}
