/* attnscope-heatmap-view-exact.c — the exact entries of a long text's zoomed heatmap (see
 * attnscope-heatmap-view-exact.h): the widget's tile cache follows the figure's pooled head, the
 * entries in view are painted over the enlarged blocks, and their tooltip. */
#include "attnscope-heatmap-view-exact.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "attention-overview.h"
#include "attnscope-heatmap-view-private.h"
#include "matrix-paint.h"
#include "render-text.h"

static gboolean
on_tiles_arrived (gpointer data)
{
  gtk_widget_queue_draw (GTK_WIDGET (data));
  return G_SOURCE_REMOVE;
}

void
attnscope_heatmap_view_init_exact (AttnscopeHeatmapView *self)
{
  self->tiles = attnscope_heatmap_tiles_new (on_tiles_arrived, self);
}

void
attnscope_heatmap_view_update_exact (AttnscopeHeatmapView *self)
{
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
  if (fig != NULL && fig->pool > 1 && fig->pool_trace != NULL)
    attnscope_heatmap_tiles_set_source (self->tiles, fig->pool_trace, fig->pool_layer,
                                        fig->pool_head);
  else
    attnscope_heatmap_tiles_set_source (self->tiles, NULL, 0, 0);
}

gboolean
attnscope_heatmap_view_get_exact_region (AttnscopeHeatmapView *self, int *row0, int *n_rows,
                                         int *col0, int *n_cols)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), FALSE);
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
  if (fig == NULL || fig->pool <= 1 || fig->pool_trace == NULL || self->zoom <= 0
      || self->zoom * fig->pool > AR_OVERVIEW_CELLS)
    return FALSE;
  int k = fig->pool, T = fig->pool_trace->n_tokens;
  int br = MIN (self->zoom, fig->n_rows - self->row0),
      bc = MIN (self->zoom, fig->n_cols - self->col0);
  *row0 = self->row0 * k, *col0 = self->col0 * k;
  *n_rows = MIN (T, (self->row0 + br) * k) - *row0;
  *n_cols = MIN (T, (self->col0 + bc) * k) - *col0;
  return *n_rows > 0 && *n_cols > 0;
}

gboolean
attnscope_heatmap_view_exact_ready (AttnscopeHeatmapView *self)
{
  int r0, nr, c0, nc;
  return attnscope_heatmap_view_get_exact_region (self, &r0, &nr, &c0, &nc)
         && attnscope_heatmap_tiles_region (self->tiles, NULL, r0, nr, c0, nc);
}

/* While the exact entries are drawn, the colour bar says so instead of naming the pooling. */
void
attnscope_heatmap_view_label_exact (AttnscopeHeatmapView *self, ArHeatmapFigure *fig)
{
  int r0, nr, c0, nc;
  if (attnscope_heatmap_view_get_exact_region (self, &r0, &nr, &c0, &nc)
      && attnscope_heatmap_tiles_covers (self->tiles, r0, nr, c0, nc))
    {
      /* Translators: the colour bar of a long text's heatmap zoomed in to single entries */
      fig->colorbar_label = _ ("Attention weight · exact entries");
      /* the entries cover the enlarged blocks: a frame need not paint them first */
      fig->cells_covered = TRUE;
    }
}

gboolean
attnscope_heatmap_view_get_exact_value (AttnscopeHeatmapView *self, int row, int col, float *value)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), FALSE);
  return attnscope_heatmap_tiles_lookup (self->tiles, row, col, value);
}

gsize
attnscope_heatmap_view_get_tile_bytes (AttnscopeHeatmapView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), 0);
  return attnscope_heatmap_tiles_get_bytes (self->tiles);
}

void
attnscope_heatmap_view_set_tile_budget (AttnscopeHeatmapView *self, gsize bytes)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  attnscope_heatmap_tiles_set_budget (self->tiles, bytes);
}

/* Where the entries in view are drawn: the top left corner of the first (*X, *Y) and the side of
 * one entry (*E) at WIDTH × HEIGHT: a block's pitch over its K entries. */
static void
entry_geometry (AttnscopeHeatmapView *self, const ArHeatmapFigure *fig, int width, int height,
                double *x, double *y, double *e)
{
  double w, h, x1, y1;
  ar_heatmap_get_cell_rect (fig, width, height, self->row0, self->col0, x, y, &w, &h);
  ar_heatmap_get_cell_rect (fig, width, height, self->row0 + 1, self->col0 + 1, &x1, &y1, &w, &h);
  *e = (x1 - *x) / fig->pool;
}

/* A causal layer's future and the keys left of its sliding window, as the figure masks them. */
static guint8 *
entry_mask (const ArHeatmapFigure *fig, int r0, int nr, int c0, int nc)
{
  if (!fig->mask_upper)
    return NULL;
  guint8 *mask = g_new0 (guint8, (gsize) nr * nc); /* [nr][nc] */
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nc; j++)
      {
        int r = r0 + i, c = c0 + j;
        mask[(gsize) i * nc + j] = c > r || (fig->window > 0 && c <= r - fig->window);
      }
  return mask;
}

/* A tile's colours, one pixel per entry, as ar_matrix_paint gives them on an image (the figure's
 * colormap, range and masked cells). */
static cairo_surface_t *
paint_tile (const float *values, int row0, int nr, int col0, int nc, gpointer data)
{
  const ArHeatmapFigure *fig = data;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  g_autofree guint8 *mask = entry_mask (fig, row0, nr, col0, nc);
  ArMatrixPaint paint = {
    .colormap = fig->colormap,
    .vmin = fig->vmin,
    .vmax = fig->vmax,
    .log = fig->log_colors,
    .cell_mask = mask,
    .masked = style->masked,
    .gap_color = style->background,
    .stride = nc,
  };
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, nc, nr);
  cairo_t *cr = cairo_create (surface);
  ar_matrix_paint (cr, &paint, values, nr, nc, 0, 0, 1, 1);
  cairo_destroy (cr);
  return surface;
}

/* What a tile's picture depends on besides its entries: the colours and the masked cells. */
static guint64
picture_key (const ArHeatmapFigure *fig)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  double parts[] = { fig->vmin, fig->vmax };
  guint64 key = (guint64) fig->colormap;
  key = key * 31 + (guint64) fig->log_colors;
  key = key * 31 + (guint64) fig->mask_upper;
  key = key * 31 + (guint64) fig->window;
  guint8 masked[sizeof style->masked];
  memcpy (masked, &style->masked, sizeof masked);
  for (guint i = 0; i < sizeof masked; i++)
    key = key * 131 + masked[i];
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      guint64 bits;
      memcpy (&bits, &parts[i], sizeof bits);
      key = key * 1000003 + bits;
    }
  return key;
}

/* Paints the entries in view over the enlarged blocks: each tile's kept picture scaled to the
 * entries' size, nearest-neighbour, without antialiasing, so that a pixel takes the colour of the
 * entry its centre falls in (as ar_matrix_paint's images). */
void
attnscope_heatmap_view_draw_exact (AttnscopeHeatmapView *self, cairo_t *cr,
                                   const ArHeatmapFigure *fig, int width, int height)
{
  int r0, nr, c0, nc;
  if (!attnscope_heatmap_view_get_exact_region (self, &r0, &nr, &c0, &nc))
    return;
  if (!attnscope_heatmap_tiles_region (self->tiles, NULL, r0, nr, c0, nc))
    return; /* computed meanwhile: the enlarged blocks stay until they are in */
  double x, y, e;
  entry_geometry (self, fig, width, height, &x, &y, &e);
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  guint64 key = picture_key (fig);
  cairo_save (cr);
  /* The blocks' gaps and the part of a last, shorter block that no entry covers. */
  int br = MIN (self->zoom, fig->n_rows - self->row0),
      bc = MIN (self->zoom, fig->n_cols - self->col0);
  ar_render_set_rgb (cr, style->background);
  cairo_rectangle (cr, x, y, bc * fig->pool * e, br * fig->pool * e);
  cairo_fill (cr);
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  int S = ATTNSCOPE_TILE_SIDE;
  for (int tr = r0 / S; tr <= (r0 + nr - 1) / S; tr++)
    for (int tc = c0 / S; tc <= (c0 + nc - 1) / S; tc++)
      {
        int tnr, tnc;
        cairo_surface_t *picture = attnscope_heatmap_tiles_get_picture (
            self->tiles, tr, tc, key, paint_tile, (gpointer) fig, &tnr, &tnc);
        if (picture == NULL)
          continue;
        /* the tile's entries in view, in entries from the region's corner */
        int i0 = MAX (r0, tr * S) - r0, i1 = MIN (r0 + nr, tr * S + tnr) - r0;
        int j0 = MAX (c0, tc * S) - c0, j1 = MIN (c0 + nc, tc * S + tnc) - c0;
        cairo_save (cr);
        cairo_rectangle (cr, x + j0 * e, y + i0 * e, (j1 - j0) * e, (i1 - i0) * e);
        cairo_translate (cr, x + (tc * S - c0) * e, y + (tr * S - r0) * e);
        cairo_scale (cr, e, e);
        cairo_set_source_surface (cr, picture, 0, 0);
        cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
        cairo_fill (cr);
        cairo_restore (cr);
      }
  cairo_restore (cr);
}

gboolean
attnscope_heatmap_view_exact_hit (AttnscopeHeatmapView *self, double x, double y, int *row,
                                  int *col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), FALSE);
  int r0, nr, c0, nc;
  if (!attnscope_heatmap_view_get_exact_region (self, &r0, &nr, &c0, &nc))
    return FALSE;
  ArFigureParts parts;
  attnscope_heatmap_view_screen_figure (self, &parts);
  double x0, y0, e;
  entry_geometry (self, &parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                  gtk_widget_get_height (GTK_WIDGET (self)), &x0, &y0, &e);
  if (e <= 0 || x < x0 || y < y0)
    return FALSE;
  int i = (int) floor ((y - y0) / e), j = (int) floor ((x - x0) / e);
  if (i >= nr || j >= nc)
    return FALSE;
  *row = r0 + i, *col = c0 + j;
  return TRUE;
}

char *
attnscope_heatmap_view_dup_exact_tooltip (AttnscopeHeatmapView *self, double x, double y)
{
  int r, c;
  float v;
  if (!attnscope_heatmap_view_exact_hit (self, x, y, &r, &c)
      || !attnscope_heatmap_tiles_lookup (self->tiles, r, c, &v))
    return NULL;
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
  char *const *tokens = fig->pool_trace->tokens;
  g_autofree char *value = NULL;
  if (fig->mask_upper && (c > r || (fig->window > 0 && c <= r - fig->window)))
    value = g_strdup (_ ("masked: the model cannot attend to a later token"));
  else
    {
      g_autofree char *number = ar_format_number (v, 6);
      /* Translators: a long text's zoomed heatmap: one entry, not a block's maximum or mean */
      value = g_strdup_printf (_ ("%s (exact entry)"), number);
    }
  return g_markup_printf_escaped (
      "%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", fig->row_axis ? fig->row_axis : _ ("Row"),
      tokens[r], r, fig->col_axis ? fig->col_axis : _ ("Column"), tokens[c], c, value);
}
