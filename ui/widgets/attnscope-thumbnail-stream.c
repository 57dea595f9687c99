/* attnscope-thumbnail-stream.c — the heads grid's thumbnails computed head by head, visible heads
 * first (see attnscope-thumbnail-stream.h). */
#include "attnscope-thumbnail-stream.h"

#include "attnscope-background.h"

#include <math.h>
#include <string.h>

#include "as-attention-pool.h"
#include "attention-thumbnails.h"
#include "figure.h"
#include "grid-render.h"

enum
{
  TODO,
  RUNNING,
  DONE
};

/* What the worker and the UI thread share; the worker keeps a reference until it ends. */
typedef struct
{
  gint ref;
  GMutex lock;
  AsTrace *trace;
  int n, k, p;   /* heads L·H; block side; blocks a side */
  float *values; /* [n][p][p] NaN until computed (under LOCK) */
  guint8 *state; /* [n] TODO, RUNNING, DONE (under LOCK) */
  int *priority; /* [n_priority] heads to compute first (under LOCK) */
  int n_priority;
  int *order; /* [n] the heads computed, in order (under LOCK) */
  int n_done;
  gboolean notify_pending; /* an ARRIVED call is scheduled (under LOCK) */
  gint64 last_notify;      /* monotonic µs of the last one (under LOCK) */
  GCancellable *cancellable;
  GMainContext *context;
  GSourceFunc arrived; /* UI thread only: NULL once the owner freed the stream */
  gpointer data;
} Shared;

struct _AttnscopeThumbnailStream
{
  Shared *shared;
  int *order_copy; /* what get_order returned last */
};

static Shared *
shared_ref (Shared *s)
{
  g_atomic_int_inc (&s->ref);
  return s;
}

static void
shared_unref (gpointer data)
{
  Shared *s = data;
  if (!g_atomic_int_dec_and_test (&s->ref))
    return;
  g_mutex_clear (&s->lock);
  as_trace_unref (s->trace);
  g_free (s->values);
  g_free (s->state);
  g_free (s->priority);
  g_free (s->order);
  g_object_unref (s->cancellable);
  g_main_context_unref (s->context);
  g_free (s);
}

/* The next head to compute (marked RUNNING), or −1 when none is left. Under LOCK. */
static int
next_head (Shared *s)
{
  for (int i = 0; i < s->n_priority; i++)
    if (s->state[s->priority[i]] == TODO)
      return s->priority[i];
  for (int e = 0; e < s->n; e++)
    if (s->state[e] == TODO)
      return e;
  return -1;
}

static gboolean
deliver (gpointer data)
{
  Shared *s = data;
  g_mutex_lock (&s->lock);
  s->notify_pending = FALSE;
  s->last_notify = g_get_monotonic_time ();
  g_mutex_unlock (&s->lock);
  if (s->arrived != NULL)
    s->arrived (s->data);
  return G_SOURCE_REMOVE;
}

/* Schedules an ARRIVED call on the UI thread: at once after a quiet spell, else
 * ATTNSCOPE_THUMBNAIL_STREAM_MS after the last (the last head always at once). Under LOCK. */
static void
schedule (Shared *s)
{
  if (s->notify_pending)
    return;
  s->notify_pending = TRUE;
  gint64 since = (g_get_monotonic_time () - s->last_notify) / 1000;
  guint delay = s->n_done == s->n || since >= ATTNSCOPE_THUMBNAIL_STREAM_MS
                    ? 0
                    : (guint) (ATTNSCOPE_THUMBNAIL_STREAM_MS - since);
  GSource *source = delay > 0 ? g_timeout_source_new (delay) : g_idle_source_new ();
  g_source_set_callback (source, deliver, shared_ref (s), shared_unref);
  g_source_attach (source, s->context);
  g_source_unref (source);
}

static gpointer
work (gpointer data)
{
  Shared *s = data;
  gsize pp = (gsize) s->p * s->p;
  attnscope_background_thread ();
  g_autofree float *pooled = g_new (float, pp); /* [p][p] */
  for (;;)
    {
      g_mutex_lock (&s->lock);
      int e = g_cancellable_is_cancelled (s->cancellable) ? -1 : next_head (s);
      if (e >= 0)
        s->state[e] = RUNNING;
      g_mutex_unlock (&s->lock);
      if (e < 0)
        break;
      int H = s->trace->n_head;
      if (!as_trace_attention_pool (pooled, s->trace, e / H, e % H, s->k, AS_POOL_MAX, 0,
                                    s->cancellable))
        break;
      g_mutex_lock (&s->lock);
      memcpy (s->values + (gsize) e * pp, pooled, pp * sizeof (float));
      s->state[e] = DONE;
      s->order[s->n_done++] = e;
      schedule (s);
      g_mutex_unlock (&s->lock);
    }
  shared_unref (s);
  attnscope_background_end ();
  return NULL;
}

AttnscopeThumbnailStream *
attnscope_thumbnail_stream_new (AsTrace *trace, GSourceFunc arrived, gpointer data)
{
  Shared *s = g_new0 (Shared, 1);
  s->ref = 1;
  g_mutex_init (&s->lock);
  s->trace = as_trace_ref (trace);
  s->n = trace->n_layer * trace->n_head;
  s->k = as_pool_factor (trace->n_tokens, AR_THUMBNAIL_CELLS);
  s->p = ar_attention_thumbnail_size (trace);
  gsize total = (gsize) s->n * s->p * s->p;
  s->values = g_new (float, total); /* [n][p][p] */
  for (gsize i = 0; i < total; i++)
    s->values[i] = NAN;
  s->state = g_new0 (guint8, s->n);
  s->order = g_new0 (int, s->n);
  s->cancellable = g_cancellable_new ();
  s->context = g_main_context_ref_thread_default ();
  s->arrived = arrived;
  s->data = data;
  AttnscopeThumbnailStream *self = g_new0 (AttnscopeThumbnailStream, 1);
  self->shared = s;
  attnscope_background_begin ();
  g_thread_unref (g_thread_new ("thumbnails", work, shared_ref (s)));
  return self;
}

void
attnscope_thumbnail_stream_free (AttnscopeThumbnailStream *self)
{
  if (self == NULL)
    return;
  self->shared->arrived = NULL;
  g_cancellable_cancel (self->shared->cancellable);
  shared_unref (self->shared);
  g_free (self->order_copy);
  g_free (self);
}

AsTrace *
attnscope_thumbnail_stream_get_trace (AttnscopeThumbnailStream *self)
{
  return self->shared->trace;
}

void
attnscope_thumbnail_stream_prioritise (AttnscopeThumbnailStream *self, const int *heads, int n)
{
  Shared *s = self->shared;
  g_mutex_lock (&s->lock);
  g_free (s->priority);
  s->priority = g_memdup2 (heads, (gsize) n * sizeof (int));
  s->n_priority = n;
  g_mutex_unlock (&s->lock);
}

float *
attnscope_thumbnail_stream_dup (AttnscopeThumbnailStream *self, int *n_done)
{
  Shared *s = self->shared;
  g_mutex_lock (&s->lock);
  float *copy = g_memdup2 (s->values, (gsize) s->n * s->p * s->p * sizeof (float));
  *n_done = s->n_done;
  g_mutex_unlock (&s->lock);
  return copy;
}

const float *
attnscope_thumbnail_stream_get_complete (AttnscopeThumbnailStream *self)
{
  Shared *s = self->shared;
  g_mutex_lock (&s->lock);
  gboolean complete = s->n_done == s->n;
  g_mutex_unlock (&s->lock);
  /* once complete, nothing writes the values any more */
  return complete ? s->values : NULL;
}

const int *
attnscope_thumbnail_stream_get_order (AttnscopeThumbnailStream *self, int *n)
{
  Shared *s = self->shared;
  g_mutex_lock (&s->lock);
  g_free (self->order_copy);
  self->order_copy = g_memdup2 (s->order, (gsize) s->n * sizeof (int));
  *n = s->n_done;
  g_mutex_unlock (&s->lock);
  return self->order_copy;
}

ArBuiltFigure *
attnscope_thumbnail_stream_build_partial (AttnscopeThumbnailStream *self,
                                          const ArAttention *attention, const AsHeadStats *stats,
                                          const ArViewSelection *asked, const ArFigureTexts *texts)
{
  const AsTrace *t = self->shared->trace;
  int n_done;
  g_autofree float *values = attnscope_thumbnail_stream_dup (self, &n_done);
  ArAttention partial = *attention;
  partial.thumbnails = values;
  ArViewSelection view = *asked;
  if (partial.range == NULL)
    view.autoscale = FALSE;
  /* no statistics yet: no labels (the patterns are replaced below) */
  g_autofree AsHeadPattern *none = g_new0 (AsHeadPattern, (gsize) t->n_layer * t->n_head);
  AsHeadStats placeholder = { .n_layer = t->n_layer, .n_head = t->n_head, .patterns = none };
  ArBuiltFigure *built
      = ar_build_grid_figure (&partial, stats != NULL ? stats : &placeholder, &view, texts);
  if (built == NULL || stats != NULL)
    return built;
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  fig->patterns = NULL;
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}

typedef struct
{
  graphene_rect_t shown;
  int n_heads;
  int *out;
  int n;
} VisibleHeads;

/* ar_grid_render_parts' target that draws nothing: the heads whose thumbnail meets the part
 * shown (the layout measured once for all of them). */
static cairo_t *
collect_visible (gpointer data, int layer, int head, double x, double y, double size)
{
  VisibleHeads *visible = data;
  graphene_rect_t thumb = GRAPHENE_RECT_INIT ((float) x, (float) y, (float) size, (float) size);
  if (graphene_rect_intersection (&thumb, &visible->shown, NULL))
    visible->out[visible->n++] = layer * visible->n_heads + head;
  return NULL;
}

int
attnscope_head_grid_visible_heads (AttnscopeHeadGridView *grid, int *out)
{
  ArBuiltFigure *built = attnscope_head_grid_view_get_figure (grid);
  if (built == NULL)
    return 0;
  const ArGridFigure *fig = &ar_built_figure_get_parts (built)->grid;
  int width = gtk_widget_get_width (GTK_WIDGET (grid)),
      height = gtk_widget_get_height (GTK_WIDGET (grid));
  if (width <= 0 || height <= 0)
    return 0;
  /* The part of the grid its scrolled window shows, in the grid's coordinates: from the
   * adjustments, which hold the new position at once (the allocation follows a frame later). */
  graphene_rect_t shown = GRAPHENE_RECT_INIT (0, 0, width, height);
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (grid), GTK_TYPE_SCROLLED_WINDOW);
  if (scroller != NULL)
    {
      GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
      graphene_rect_t port = GRAPHENE_RECT_INIT (
          (float) (gtk_adjustment_get_value (h) - gtk_widget_get_margin_start (GTK_WIDGET (grid))),
          (float) (gtk_adjustment_get_value (v) - gtk_widget_get_margin_top (GTK_WIDGET (grid))),
          (float) gtk_adjustment_get_page_size (h), (float) gtk_adjustment_get_page_size (v));
      if (gtk_adjustment_get_page_size (v) > 0)
        graphene_rect_intersection (&shown, &port, &shown);
    }
  VisibleHeads visible = { shown, fig->n_heads, out, 0 };
  ar_grid_render_parts (NULL, fig, width, height, collect_visible, &visible);
  return visible.n;
}
