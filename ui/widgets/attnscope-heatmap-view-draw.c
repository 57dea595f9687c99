/* attnscope-heatmap-view-draw.c — the heatmap widget's snapshot: the figure drawn through
 * ar_heatmap_render() (the cells in view only when zoomed) and kept while figure, style, size and
 * view stay, the keyboard cursor over it and, while zoomed, the minimap of the whole matrix. */
#include "attnscope-heatmap-view-private.h"

#include <math.h>
#include <string.h>

#include "attnscope-figure-widget.h"

#define MINIMAP_MAX 120.0
#define MINIMAP_INSET 8.0

static double
minimap_size (int width, int height)
{
  return floor (MIN (MINIMAP_MAX, MIN (width * 0.2, height * 0.3)));
}

/* The whole matrix painted into a SIZE × SIZE picture (twice that in pixels), kept while the
 * figure and the style stay. */
static cairo_surface_t *
minimap_picture (AttnscopeHeatmapView *self, const ArHeatmapFigure *fig, double size)
{
  int px = (int) (2 * size);
  if (self->minimap != NULL
      && (self->minimap_figure != self->figure || self->minimap_style != fig->style
          || cairo_image_surface_get_width (self->minimap) != px))
    g_clear_pointer (&self->minimap, cairo_surface_destroy);
  if (self->minimap == NULL)
    {
      self->minimap = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, px, px);
      cairo_t *cr = cairo_create (self->minimap);
      ar_heatmap_paint_cells (cr, fig, 0, 0, px, px);
      cairo_destroy (cr);
      self->minimap_figure = self->figure;
      self->minimap_style = fig->style;
    }
  return self->minimap;
}

static void
draw_minimap (AttnscopeHeatmapView *self, cairo_t *cr, const ArHeatmapFigure *fig, int width,
              int height)
{
  double size = minimap_size (width, height);
  if (size < 24)
    return;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  double x = width - size - MINIMAP_INSET, y = height - size - MINIMAP_INSET;
  cairo_save (cr);
  ar_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, x - 3, y - 3, size + 6, size + 6);
  cairo_fill (cr);
  cairo_rectangle (cr, x, y, size, size);
  cairo_clip (cr);
  cairo_translate (cr, x, y);
  cairo_scale (cr, 0.5, 0.5);
  cairo_set_source_surface (cr, minimap_picture (self, fig, size), 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, x - 0.5, y - 0.5, size + 1, size + 1);
  cairo_stroke (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_set_line_width (cr, 2.0);
  double sx = size / fig->n_cols, sy = size / fig->n_rows;
  cairo_rectangle (cr, x + self->col0 * sx, y + self->row0 * sy, MAX (self->zoom * sx, 2),
                   MAX (self->zoom * sy, 2));
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_cursor (AttnscopeHeatmapView *self, cairo_t *cr, const ArHeatmapFigure *fig, int width,
             int height)
{
  int r = self->cursor_row, c = self->cursor_col;
  if (r < 0
      || (self->zoom > 0
          && (r < self->row0 || r >= self->row0 + self->zoom || c < self->col0
              || c >= self->col0 + self->zoom)))
    return;
  double x, y, w, h;
  ar_heatmap_get_cell_rect (fig, width, height, r, c, &x, &y, &w, &h);
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  cairo_save (cr);
  cairo_set_line_width (cr, 2.0);
  ar_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, x - 2, y - 2, w + 4, h + 4);
  cairo_stroke (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_rectangle (cr, x - 1, y - 1, w + 2, h + 2);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* The figure's drawing for PARTS at WIDTH × HEIGHT in the current view: the kept one, or drawn
 * anew. */
static GskRenderNode *
figure_node (AttnscopeHeatmapView *self, const ArFigureParts *parts, int width, int height)
{
  int view[3] = { self->row0, self->col0, self->zoom };
  guint tiles = attnscope_heatmap_tiles_get_generation (self->tiles);
  if (self->node != NULL && self->node_figure == self->figure && self->node_tiles == tiles
      && self->node_style == parts->heatmap.style && self->node_width == width
      && self->node_height == height && memcmp (self->node_view, view, sizeof view) == 0)
    return self->node;
  g_clear_pointer (&self->node, gsk_render_node_unref);
  GtkSnapshot *inner = gtk_snapshot_new ();
  cairo_t *cr = gtk_snapshot_append_cairo (inner, &GRAPHENE_RECT_INIT (0, 0, width, height));
  ar_figure_render (cr, &parts->figure, width, height);
  attnscope_heatmap_view_draw_exact (self, cr, &parts->heatmap, width, height);
  cairo_destroy (cr);
  self->node = gtk_snapshot_free_to_node (inner);
  self->node_figure = self->figure;
  self->node_style = parts->heatmap.style;
  self->node_width = width, self->node_height = height;
  self->node_tiles = tiles;
  memcpy (self->node_view, view, sizeof view);
  return self->node;
}

void
attnscope_heatmap_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  if (self->figure == NULL || width <= 0 || height <= 0)
    return;
  ArFigureParts parts;
  attnscope_heatmap_view_screen_figure (self, &parts);
  GskRenderNode *node = figure_node (self, &parts, width, height);
  if (node != NULL)
    gtk_snapshot_append_node (snapshot, node);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  draw_cursor (self, cr, &parts.heatmap, width, height);
  if (self->zoom > 0)
    draw_minimap (self, cr, &parts.heatmap, width, height);
  cairo_destroy (cr);
}

void
attnscope_heatmap_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeHeatmapView *self = ATTNSCOPE_HEATMAP_VIEW (widget);
  ArFigureParts parts;
  if (self->figure != NULL)
    attnscope_heatmap_view_screen_figure (self, &parts);
  attnscope_figure_widget_measure (self->figure != NULL ? &parts.figure : NULL, orientation, 0,
                                   minimum, natural);
}
