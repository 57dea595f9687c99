/* attnscope-head-grid-view.c — the all-heads grid widget: keeps a reference to the trace, draws
 * through ar_grid_render() and hit-tests with ar_grid_hit() (see attnscope-head-grid-view.h). */
#include "attnscope-head-grid-view.h"

#include <glib/gi18n.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

struct _AttnscopeHeadGridView
{
  GtkWidget parent_instance;

  AsTrace *trace;
  AsHeadPattern *patterns; /* [L][H] or NULL */
  double *stats;           /* [L][H][AS_HEAD_STAT_COUNT] or NULL */
  char *title, *subtitle;
  ArColormap colormap;
  int highlight_layer, highlight_head;
};

G_DEFINE_FINAL_TYPE (AttnscopeHeadGridView, attnscope_head_grid_view, GTK_TYPE_WIDGET)

enum
{
  HEAD_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

void
attnscope_head_grid_view_set_trace (AttnscopeHeadGridView *self, AsTrace *trace,
                                    const AsHeadStats *stats)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  g_clear_pointer (&self->trace, as_trace_unref);
  g_clear_pointer (&self->patterns, g_free);
  g_clear_pointer (&self->stats, g_free);
  if (trace != NULL)
    {
      self->trace = as_trace_ref (trace);
      if (stats != NULL && stats->n_layer == trace->n_layer && stats->n_head == trace->n_head)
        {
          gsize n = (gsize) stats->n_layer * stats->n_head;
          self->patterns = g_memdup2 (stats->patterns, sizeof (AsHeadPattern) * n);
          self->stats = g_memdup2 (stats->values, sizeof (double) * n * AS_HEAD_STAT_COUNT);
        }
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

int
attnscope_head_grid_view_get_n_layers (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), 0);
  return self->trace != NULL ? self->trace->n_layer : 0;
}

int
attnscope_head_grid_view_get_n_heads (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), 0);
  return self->trace != NULL ? self->trace->n_head : 0;
}

void
attnscope_head_grid_view_set_titles (AttnscopeHeadGridView *self, const char *title,
                                     const char *subtitle)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  if (g_strcmp0 (self->title, title) == 0 && g_strcmp0 (self->subtitle, subtitle) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_free (self->subtitle);
  self->subtitle = g_strdup (subtitle);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_head_grid_view_set_colormap (AttnscopeHeadGridView *self, const char *colormap)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  ArColormap map;
  if (colormap == NULL || !ar_colormap_from_string (colormap, &map, NULL) || map == self->colormap)
    return;
  self->colormap = map;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_head_grid_view_set_highlight (AttnscopeHeadGridView *self, int layer, int head)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  if (self->highlight_layer == layer && self->highlight_head == head)
    return;
  self->highlight_layer = layer;
  self->highlight_head = head;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
attnscope_head_grid_view_get_figure (AttnscopeHeadGridView *self, ArGridFigure *fig)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  ar_grid_figure_init (fig);
  fig->title = self->title;
  fig->subtitle = self->subtitle;
  fig->colormap = self->colormap;
  fig->highlight_layer = self->highlight_layer;
  fig->highlight_head = self->highlight_head;
  fig->colorbar_label = _ ("Attention weight");
  if (self->trace == NULL)
    return;
  fig->n_layers = self->trace->n_layer;
  fig->n_heads = self->trace->n_head;
  fig->n_tokens = self->trace->n_tokens;
  fig->attn = self->trace->attn;
  fig->patterns = self->patterns;
  fig->mask_upper = self->trace->causal;
}

static void
screen_figure (AttnscopeHeadGridView *self, ArGridFigure *fig)
{
  attnscope_head_grid_view_get_figure (self, fig);
  fig->style = attnscope_figure_style_get ();
}

static void
attnscope_head_grid_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  ArGridFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_grid (&fig);
  attnscope_figure_widget_snapshot (widget, snapshot, self->trace != NULL ? &figure : NULL);
}

static void
attnscope_head_grid_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *minimum, int *natural, int *minimum_baseline,
                                  int *natural_baseline)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  ArGridFigure fig;
  screen_figure (self, &fig);
  ArFigure figure = ar_figure_from_grid (&fig);
  /* Big models keep readable thumbnails: below 60 % of the natural size the page scrolls. */
  attnscope_figure_widget_measure (self->trace != NULL ? &figure : NULL, orientation, 0.6, minimum,
                                   natural);
}

static gboolean
hit (AttnscopeHeadGridView *self, double x, double y, int *layer, int *head)
{
  if (self->trace == NULL)
    return FALSE;
  ArGridFigure fig;
  screen_figure (self, &fig);
  return ar_grid_hit (&fig, gtk_widget_get_width (GTK_WIDGET (self)),
                      gtk_widget_get_height (GTK_WIDGET (self)), x, y, layer, head);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  int layer, head;
  if (keyboard || !hit (self, x, y, &layer, &head))
    return FALSE;
  GString *text = g_string_new (NULL);
  g_string_append_printf (text, _ ("Layer %d · head %d"), layer, head);
  if (self->stats != NULL)
    {
      const double *v
          = self->stats + ((gsize) layer * self->trace->n_head + head) * AS_HEAD_STAT_COUNT;
      g_autofree char *entropy = ar_format_number (v[AS_HEAD_STAT_ENTROPY], 2);
      g_autofree char *previous = ar_format_number (v[AS_HEAD_STAT_PREVIOUS], 2);
      g_autofree char *first = ar_format_number (v[AS_HEAD_STAT_FIRST], 2);
      g_autofree char *self_share = ar_format_number (v[AS_HEAD_STAT_SELF], 2);
      g_string_append_printf (text, _ ("\nEntropy %s · previous %s · first %s · self %s"), entropy,
                              previous, first, self_share);
    }
  g_string_append (text, _ ("\nClick to open it in the attention view"));
  gtk_tooltip_set_text (tooltip, text->str);
  g_string_free (text, TRUE);
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                   AttnscopeHeadGridView *self)
{
  int layer, head;
  if (hit (self, x, y, &layer, &head))
    g_signal_emit (self, signals[HEAD_ACTIVATED], 0, layer, head);
}

static void
attnscope_head_grid_view_finalize (GObject *object)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (object);
  g_clear_pointer (&self->trace, as_trace_unref);
  g_free (self->patterns);
  g_free (self->stats);
  g_free (self->title);
  g_free (self->subtitle);
  G_OBJECT_CLASS (attnscope_head_grid_view_parent_class)->finalize (object);
}

static void
attnscope_head_grid_view_class_init (AttnscopeHeadGridViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_head_grid_view_finalize;
  widget_class->snapshot = attnscope_head_grid_view_snapshot;
  widget_class->measure = attnscope_head_grid_view_measure;

  /* A click on the thumbnail of (layer, head). */
  signals[HEAD_ACTIVATED]
      = g_signal_new ("head-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "headgridview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_head_grid_view_init (AttnscopeHeadGridView *self)
{
  self->colormap = AR_COLORMAP_YLGNBU;
  self->highlight_layer = -1;
  self->highlight_head = -1;
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_head_grid_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEAD_GRID_VIEW, NULL);
}
