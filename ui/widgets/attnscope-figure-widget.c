/* attnscope-figure-widget.c — shared plumbing of the drawing widgets (see
 * attnscope-figure-widget.h). */
#include "attnscope-figure-widget.h"

#include <adwaita.h>
#include <math.h>

#define MIN_SIZE 200

const ArRenderStyle *
attnscope_figure_style_get (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ()) ? ar_render_style_dark ()
                                                                       : ar_render_style_light ();
}

void
attnscope_figure_widget_replace (GtkWidget *widget, ArBuiltFigure **slot, ArBuiltFigure *figure,
                                 AttnscopeFigureSameFunc same)
{
  if (*slot == figure)
    return;
  gboolean alike = FALSE;
  if (same != NULL && *slot != NULL && figure != NULL)
    {
      ArFigureParts old, new;
      attnscope_figure_widget_restyle (*slot, &old);
      attnscope_figure_widget_restyle (figure, &new);
      alike = old.figure.kind == new.figure.kind &&same (widget, &old, &new);
    }
  g_clear_pointer (slot, ar_built_figure_unref);
  *slot = figure != NULL ? ar_built_figure_ref (figure) : NULL;
  if (alike)
    gtk_widget_queue_draw (widget);
  else
    gtk_widget_queue_resize (widget);
}

gboolean
attnscope_figure_widget_same_size (GtkWidget *widget, const ArFigureParts *old,
                                   const ArFigureParts *new)
{
  double ow, oh, nw, nh;
  ar_figure_get_size (&old->figure, &ow, &oh);
  ar_figure_get_size (&new->figure, &nw, &nh);
  return ow == nw && oh == nh;
}

void
attnscope_figure_widget_restyle (const ArBuiltFigure *figure, ArFigureParts *parts)
{
  ar_figure_parts_restyle (parts, ar_built_figure_get_parts (figure),
                           attnscope_figure_style_get ());
}

void
attnscope_figure_widget_snapshot (GtkWidget *widget, GtkSnapshot *snapshot, const ArFigure *figure)
{
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  if (figure == NULL || width <= 0 || height <= 0)
    return;
  /* tiles of at most TILE pixels a side: a long text's figure (an alignment of 1,000 source
   * tokens is ~22,000 pixels wide) would otherwise be one texture beyond the renderer's largest
   * (16,384), clipped with a warning; each tile draws the figure clipped to itself */
  const int TILE = 4096;
  for (int y = 0; y < height; y += TILE)
    for (int x = 0; x < width; x += TILE)
      {
        graphene_rect_t tile
            = GRAPHENE_RECT_INIT (x, y, MIN (TILE, width - x), MIN (TILE, height - y));
        cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &tile);
        ar_figure_render (cr, figure, width, height);
        cairo_destroy (cr);
      }
}

void
attnscope_figure_widget_measure (const ArFigure *figure, GtkOrientation orientation,
                                 double min_fraction, int *minimum, int *natural)
{
  double width = 0, height = 0;
  if (figure != NULL)
    ar_figure_get_size (figure, &width, &height);
  double extent = orientation == GTK_ORIENTATION_HORIZONTAL ? width : height;
  *minimum = MAX (MIN_SIZE, (int) ceil (min_fraction * extent));
  *natural = MAX (*minimum, (int) ceil (extent));
}

void
attnscope_figure_widget_init (GtkWidget *widget, GCallback query_tooltip, GCallback released)
{
  gtk_widget_set_has_tooltip (widget, TRUE);
  g_signal_connect (widget, "query-tooltip", query_tooltip, NULL);
  if (released != NULL)
    {
      GtkGesture *click = gtk_gesture_click_new ();
      g_signal_connect (click, "released", released, widget);
      gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (click));
    }
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (gtk_widget_queue_draw), widget, G_CONNECT_SWAPPED);
}
