/* attnscope-head-grid-view.c — the all-heads grid widget: draws its built figure through
 * ar_grid_render() and hit-tests with ar_grid_hit() (see attnscope-head-grid-view.h). */
#include "attnscope-head-grid-view.h"

#include <glib/gi18n.h>

#include "attnscope-figure-widget.h"
#include "attnscope-grid-drawing.h"
#include "render-text.h"
#include "view-selection.h"

struct _AttnscopeHeadGridView
{
  GtkWidget parent_instance;

  ArBuiltFigure *figure;  /* a grid, or NULL */
  double *stats;          /* [L][H][AS_HEAD_STAT_COUNT] or NULL */
  double *cross_stats;    /* [L][H][AS_CROSS_STAT_COUNT] of a cross-attention grid, or NULL */
  gboolean bidirectional; /* the statistics of an encoder: next, [CLS] and [SEP] too */
  AttnscopeGridDrawing *drawing; /* the kept drawing: only changed thumbnails are drawn anew */
};

G_DEFINE_FINAL_TYPE (AttnscopeHeadGridView, attnscope_head_grid_view, GTK_TYPE_WIDGET)

enum
{
  HEAD_ACTIVATED,
  HEAD_TOGGLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const ArGridFigure *
grid (AttnscopeHeadGridView *self)
{
  return self->figure != NULL ? &ar_built_figure_get_parts (self->figure)->grid : NULL;
}

void
attnscope_head_grid_view_set_figure (AttnscopeHeadGridView *self, ArBuiltFigure *figure,
                                     const AsHeadStats *stats)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  g_return_if_fail (figure == NULL || ar_built_figure_get (figure)->kind == AR_FIGURE_GRID);
  g_clear_pointer (&self->stats, g_free);
  g_clear_pointer (&self->cross_stats, g_free);
  attnscope_figure_widget_replace (GTK_WIDGET (self), &self->figure, figure,
                                   attnscope_figure_widget_same_size);
  if (figure == NULL)
    {
      /* nothing to keep: the kept drawing would hold the last figure (and what it references) */
      attnscope_grid_drawing_free (self->drawing);
      self->drawing = attnscope_grid_drawing_new ();
    }
  const ArGridFigure *fig = grid (self);
  if (fig != NULL && stats != NULL && stats->n_layer == fig->n_layers
      && stats->n_head == fig->n_heads)
    {
      self->stats = g_memdup2 (stats->values, sizeof (double) * (gsize) stats->n_layer
                                                  * stats->n_head * AS_HEAD_STAT_COUNT);
      self->bidirectional = stats->bidirectional;
    }
}

ArBuiltFigure *
attnscope_head_grid_view_get_figure (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), NULL);
  return self->figure;
}

int
attnscope_head_grid_view_get_n_layers (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), 0);
  return grid (self) != NULL ? grid (self)->n_layers : 0;
}

int
attnscope_head_grid_view_get_n_heads (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), 0);
  return grid (self) != NULL ? grid (self)->n_heads : 0;
}

static void
attnscope_head_grid_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  if (self->figure == NULL)
    return;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  attnscope_grid_drawing_snapshot (self->drawing, snapshot, self->figure, &parts,
                                   gtk_widget_get_width (widget), gtk_widget_get_height (widget));
}

static void
attnscope_head_grid_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *minimum, int *natural, int *minimum_baseline,
                                  int *natural_baseline)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  ArFigureParts parts;
  if (self->figure != NULL)
    attnscope_figure_widget_restyle (self->figure, &parts);
  /* Big models keep readable thumbnails: below 60 % of the natural size the page scrolls. */
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : NULL, orientation, 0.6,
                                   minimum, natural);
}

static gboolean
hit (AttnscopeHeadGridView *self, double x, double y, int *layer, int *head)
{
  if (self->figure == NULL)
    return FALSE;
  ArFigureParts parts;
  attnscope_figure_widget_restyle (self->figure, &parts);
  return ar_grid_hit (&parts.grid, gtk_widget_get_width (GTK_WIDGET (self)),
                      gtk_widget_get_height (GTK_WIDGET (self)), x, y, layer, head);
}

void
attnscope_head_grid_view_set_cross_stats (AttnscopeHeadGridView *self, const AsCrossStats *stats)
{
  g_return_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self));
  const ArGridFigure *fig = grid (self);
  g_clear_pointer (&self->cross_stats, g_free);
  if (fig != NULL && stats != NULL && stats->n_layer == fig->n_layers
      && stats->n_head == fig->n_heads)
    self->cross_stats = g_memdup2 (stats->values, sizeof (double) * (gsize) stats->n_layer
                                                      * stats->n_head * AS_CROSS_STAT_COUNT);
}

char *
attnscope_head_grid_view_dup_tooltip (AttnscopeHeadGridView *self, int layer, int head)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), NULL);
  const ArGridFigure *fig = grid (self);
  if (fig == NULL || layer < 0 || layer >= fig->n_layers || head < 0 || head >= fig->n_heads)
    return NULL;
  GString *text = g_string_new (NULL);
  g_string_append_printf (text, _ ("Layer %d · head %d"), layer, head);
  int kv = ar_kv_head_of (head, fig->n_heads, fig->n_kv_heads);
  if (kv >= 0)
    g_string_append_printf (text, _ (" · key/value head %d (shared by heads %d–%d)"), kv,
                            kv * (fig->n_heads / fig->n_kv_heads),
                            (kv + 1) * (fig->n_heads / fig->n_kv_heads) - 1);
  if (self->stats != NULL)
    {
      const double *v = self->stats + ((gsize) layer * fig->n_heads + head) * AS_HEAD_STAT_COUNT;
      g_autofree char *entropy = ar_format_number (v[AS_HEAD_STAT_ENTROPY], 2);
      g_autofree char *previous = ar_format_number (v[AS_HEAD_STAT_PREVIOUS], 2);
      g_autofree char *first = ar_format_number (v[AS_HEAD_STAT_FIRST], 2);
      g_autofree char *self_share = ar_format_number (v[AS_HEAD_STAT_SELF], 2);
      if (self->bidirectional)
        {
          /* An encoder's shares, as `attnscope stats` prints them. */
          g_autofree char *next = ar_format_number (v[AS_HEAD_STAT_NEXT], 2);
          g_autofree char *cls = ar_format_number (v[AS_HEAD_STAT_CLS], 2);
          g_autofree char *sep = ar_format_number (v[AS_HEAD_STAT_SEP], 2);
          if (fig->patterns != NULL)
            g_string_append_printf (
                text, _ ("\nPattern: %s"),
                ar_head_pattern_label (fig->patterns[layer * fig->n_heads + head]));
          g_string_append_printf (text,
                                  _ ("\nEntropy %s · [CLS] %s · [SEP] %s · previous %s · next %s "
                                     "· self %s"),
                                  entropy, cls, sep, previous, next, self_share);
        }
      else
        g_string_append_printf (text, _ ("\nEntropy %s · previous %s · first %s · self %s"),
                                entropy, previous, first, self_share);
    }
  if (self->cross_stats != NULL)
    {
      /* the cross-attention's numbers, as `attnscope stats --kind cross` prints them */
      const double *v
          = self->cross_stats + ((gsize) layer * fig->n_heads + head) * AS_CROSS_STAT_COUNT;
      g_autofree char *entropy = ar_format_number (v[AS_CROSS_STAT_ENTROPY], 2);
      g_autofree char *eos = ar_format_number (v[AS_CROSS_STAT_EOS], 2);
      g_autofree char *max = ar_format_number (v[AS_CROSS_STAT_MAX], 2);
      g_autofree char *diagonal = ar_format_number (v[AS_CROSS_STAT_DIAGONAL], 2);
      if (fig->pattern_labels != NULL)
        g_string_append_printf (text, _ ("\nPattern: %s"),
                                fig->pattern_labels[layer * fig->n_heads + head]);
      g_string_append_printf (text, _ ("\nEntropy %s · on </s> %s · row maximum %s · diagonal %s"),
                              entropy, eos, max, diagonal);
    }
  g_string_append (text, _ ("\nClick to open it in the attention view"));
  return g_string_free (text, FALSE);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (widget);
  int layer, head;
  if (keyboard || !hit (self, x, y, &layer, &head))
    return FALSE;
  g_autofree char *text = attnscope_head_grid_view_dup_tooltip (self, layer, head);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
on_click_released (GtkGestureClick *gesture, int n_press, double x, double y,
                   AttnscopeHeadGridView *self)
{
  int layer, head;
  GdkModifierType state
      = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  if (hit (self, x, y, &layer, &head))
    g_signal_emit (self, signals[(state & GDK_SHIFT_MASK) ? HEAD_TOGGLED : HEAD_ACTIVATED], 0,
                   layer, head);
}

gboolean
attnscope_head_grid_view_head_at (AttnscopeHeadGridView *self, double x, double y, int *layer,
                                  int *head)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), FALSE);
  return hit (self, x, y, layer, head);
}

static void
attnscope_head_grid_view_finalize (GObject *object)
{
  AttnscopeHeadGridView *self = ATTNSCOPE_HEAD_GRID_VIEW (object);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  g_clear_pointer (&self->drawing, attnscope_grid_drawing_free);
  g_free (self->stats);
  g_free (self->cross_stats);
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
  /* A Shift+click on the thumbnail of (layer, head): switch it off or on. */
  signals[HEAD_TOGGLED]
      = g_signal_new ("head-toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                      NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);

  gtk_widget_class_set_css_name (widget_class, "headgridview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

int
attnscope_head_grid_view_get_redrawn (AttnscopeHeadGridView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEAD_GRID_VIEW (self), 0);
  return attnscope_grid_drawing_get_redrawn (self->drawing);
}

static void
attnscope_head_grid_view_init (AttnscopeHeadGridView *self)
{
  self->drawing = attnscope_grid_drawing_new ();
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip),
                                G_CALLBACK (on_click_released));
}

GtkWidget *
attnscope_head_grid_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_HEAD_GRID_VIEW, NULL);
}
