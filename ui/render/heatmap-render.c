/* heatmap-render.c — drawing and hit-testing of the heatmap figure; its layout is in
 * heatmap-layout.c, its tick labels in heatmap-axes.c. */
#include "heatmap-render.h"

#include <math.h>

#include "colorbar-render.h"
#include "heatmap-layout-private.h"
#include "matrix-paint.h"
#include "render-text.h"

#define NATURAL_EXTENT 480.0
/* Room around an annotation inside its cell. */
#define ANNOTATION_PAD 4.0
#define ANNOTATION_MAX 13.0

void
ar_heatmap_figure_init (ArHeatmapFigure *fig)
{
  *fig = (ArHeatmapFigure){
    .row_axis = "Queries",
    .col_axis = "Keys",
    .colormap = AR_COLORMAP_YLGNBU,
    .vmin = 0,
    .vmax = 1,
    .annotate = AR_ANNOTATE_AUTO,
    .decimals = 2,
    .highlight_row = -1,
    .highlight_col = -1,
    .label_mode = AR_LABELS_THINNED,
    .colorbar = TRUE,
  };
}

double
ar_heatmap_natural_cell (const ArHeatmapFigure *fig)
{
  double cell = CLAMP (NATURAL_EXTENT / MAX (fig->n_rows, fig->n_cols), 2.0, 64.0);
  return cell >= 8 ? floor (cell) : cell;
}

void
ar_heatmap_get_size (const ArHeatmapFigure *fig, double *width, double *height)
{
  PangoContext *pc = ar_text_context_new ();
  ArHeatmapLayout lo;
  ArHeatmapFigure whole = *fig;
  whole.view_rows = whole.view_cols = 0;
  ar_heatmap_measure (&lo, pc, &whole);
  double cell = ar_heatmap_natural_cell (fig);
  *width = ar_heatmap_has_data (fig) ? ceil (ar_heatmap_left_extent (&lo) + cell * fig->n_cols
                                             + ar_heatmap_right_extent (&lo))
                                     : 2 * AR_FIGURE_MARGIN + 320;
  if (!fig->title_one_line)
    lo.title_h = MAX (fig->title_height,
                      ar_title_block_height_wrapped (pc, ar_render_style_or_default (fig->style),
                                                     fig->title, fig->subtitle, *width));
  g_object_unref (pc);
  if (!ar_heatmap_has_data (fig))
    {
      *height = ceil (2 * AR_FIGURE_MARGIN + lo.title_h);
      return;
    }
  *height = ceil (ar_heatmap_top_extent (&lo) + cell * fig->n_rows
                  + ar_heatmap_bottom_extent (&lo, ar_heatmap_needs_rotation (&lo, cell)));
}

double
ar_heatmap_get_height_for_width (const ArHeatmapFigure *fig, double width)
{
  ArHeatmapFigure whole = *fig;
  whole.view_rows = whole.view_cols = 0;
  ArHeatmapLayout lo;
  /* Fitted to the width alone: the height is as large as the cells want. */
  ar_heatmap_layout_only (&lo, &whole, width, 1e7);
  if (!ar_heatmap_has_data (fig))
    return ceil (2 * AR_FIGURE_MARGIN + lo.title_h);
  return ceil (ar_heatmap_top_extent (&lo) + lo.cell * fig->n_rows
               + ar_heatmap_bottom_extent (&lo, lo.rotate_cols));
}

gboolean
ar_heatmap_same_layout (const ArHeatmapFigure *a, const ArHeatmapFigure *b)
{
  /* Everything the layout reads. */
  return a->n_rows == b->n_rows && a->n_cols == b->n_cols
         && a->row_label_width == b->row_label_width && a->col_label_width == b->col_label_width
         && g_strcmp0 (a->title, b->title) == 0 && g_strcmp0 (a->subtitle, b->subtitle) == 0
         && a->title_one_line == b->title_one_line && a->title_height == b->title_height
         && g_strcmp0 (a->row_axis, b->row_axis) == 0 && g_strcmp0 (a->col_axis, b->col_axis) == 0
         && a->colorbar == b->colorbar && a->label_mode == b->label_mode
         && (!a->colorbar
             || (a->vmin == b->vmin && a->vmax == b->vmax && a->log_colors == b->log_colors
                 && a->clipped == b->clipped
                 && g_strcmp0 (a->colorbar_label, b->colorbar_label) == 0))
         && (a->row_bars == NULL) == (b->row_bars == NULL)
         && g_strcmp0 (a->row_bars_label, b->row_bars_label) == 0 && a->style == b->style;
}

gboolean
ar_heatmap_cell_clipped (const ArHeatmapFigure *fig, int row, int col)
{
  double v = fig->values[(gsize) row * fig->n_cols + col];
  return ar_heatmap_cell_state (fig, row, col) == AR_CELL_VALUE
         && v > fig->vmax + 1e-6 * fabs (fig->vmax);
}

gboolean
ar_heatmap_find_clipped (const ArHeatmapFigure *fig)
{
  double top = fig->vmax + 1e-6 * fabs (fig->vmax);
  for (int i = 0; i < fig->n_rows; i++)
    {
      int first, end;
      ar_heatmap_row_span (fig, i, &first, &end);
      const float *row = fig->values + (gsize) i * fig->n_cols; /* [n_cols] */
      for (int j = first; j < end; j++)
        if (row[j] > top /* false for NaN */
            && (fig->cell_mask == NULL || ar_heatmap_cell_clipped (fig, i, j)))
          return TRUE;
    }
  return FALSE;
}

void
ar_heatmap_row_span (const ArHeatmapFigure *fig, int row, int *first, int *end)
{
  *first = 0;
  *end = fig->n_cols;
  if (!fig->mask_upper)
    return;
  *end = CLAMP (row + 1, 0, fig->n_cols);
  if (fig->window > 0)
    *first = CLAMP (row - fig->window + 1, 0, *end);
}

ArCellState
ar_heatmap_cell_state (const ArHeatmapFigure *fig, int row, int col)
{
  gsize k = (gsize) row * fig->n_cols + col;
  if (fig->mask_upper && (col > row || (fig->window > 0 && col <= row - fig->window)))
    return AR_CELL_MASKED;
  if (fig->cell_mask != NULL && fig->cell_mask[k] != AR_CELL_VALUE)
    return (ArCellState) fig->cell_mask[k];
  return isnan (fig->values[k]) ? AR_CELL_NO_PARTNER : AR_CELL_VALUE;
}

/* Annotations: the font size and decimals at which the widest value shown fits inside a cell;
 * FALSE when the figure is not annotated at this size. */
static gboolean
annotation_fit (PangoContext *pc, const ArRenderStyle *style, const ArHeatmapFigure *fig,
                const ArHeatmapLayout *lo, double *size, int *decimals)
{
  if (fig->annotate == AR_ANNOTATE_NEVER
      || (fig->annotate == AR_ANNOTATE_AUTO && lo->cell < AR_HEATMAP_ANNOTATE_CELL)
      || lo->cell - lo->gap < AR_FONT_SMALL)
    return FALSE;
  double lo_v = INFINITY, hi_v = -INFINITY;
  for (int i = lo->r0; i < lo->r0 + lo->nr; i++)
    for (int j = lo->c0; j < lo->c0 + lo->nc; j++)
      if (ar_heatmap_cell_state (fig, i, j) == AR_CELL_VALUE)
        {
          double v = fig->values[(gsize) i * fig->n_cols + j];
          lo_v = MIN (lo_v, v), hi_v = MAX (hi_v, v);
        }
  if (!isfinite (lo_v))
    return FALSE;
  *size = CLAMP (lo->cell * 0.3, AR_FONT_SMALL, ANNOTATION_MAX);
  if (fig->cell_labels != NULL)
    return lo->cell - lo->gap >= AR_FONT_SMALL + ANNOTATION_PAD; /* texts are ellipsized */
  for (*decimals = CLAMP (fig->decimals, 0, 6); *decimals >= 0; (*decimals)--)
    {
      /* Digits are equally wide: the widest text is one of the extremes. */
      double w_lo, w_hi, h;
      g_autofree char *a = ar_format_number (lo_v, *decimals);
      g_autofree char *b = ar_format_number (hi_v, *decimals);
      ar_text_measure (pc, style, a, *size, PANGO_WEIGHT_NORMAL, &w_lo, &h);
      ar_text_measure (pc, style, b, *size, PANGO_WEIGHT_NORMAL, &w_hi, NULL);
      if (MAX (w_lo, w_hi) + ANNOTATION_PAD <= lo->cell - lo->gap && h <= lo->cell - lo->gap)
        return TRUE;
      if (fig->annotate != AR_ANNOTATE_ALWAYS)
        return FALSE;
    }
  return FALSE;
}

static void
draw_annotations (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                  const ArHeatmapFigure *fig, const ArHeatmapLayout *lo, double size, int decimals)
{
  double room = fig->cell_labels != NULL ? lo->cell - lo->gap - ANNOTATION_PAD / 2 : 0;
  PangoLayout *layout = ar_text_layout (pc, style, "", size, PANGO_WEIGHT_NORMAL, room);
  for (int i = lo->r0; i < lo->r0 + lo->nr; i++)
    for (int j = lo->c0; j < lo->c0 + lo->nc; j++)
      {
        if (ar_heatmap_cell_state (fig, i, j) != AR_CELL_VALUE)
          continue;
        double v = fig->values[(gsize) i * fig->n_cols + j];
        ArColor8 c
            = ar_colormap_color_scaled (fig->colormap, v, fig->vmin, fig->vmax, fig->log_colors);
        g_autofree char *text = fig->cell_labels != NULL ? NULL : ar_format_number (v, decimals);
        pango_layout_set_text (
            layout, text != NULL ? text : fig->cell_labels[(gsize) i * fig->n_cols + j], -1);
        ar_render_set_rgb (cr, ar_color_luminance (c) < 0.408 ? style->light_ink : style->dark_ink);
        ar_text_draw (cr, layout, lo->x0 + (j - lo->c0 + 0.5) * lo->cell - lo->gap / 2,
                      lo->y0 + (i - lo->r0 + 0.5) * lo->cell - lo->gap / 2, 0.5, 0.5, 0);
      }
  g_object_unref (layout);
}

static void
draw_highlight (cairo_t *cr, const ArRenderStyle *style, const ArHeatmapFigure *fig,
                const ArHeatmapLayout *lo)
{
  cairo_save (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_set_line_width (cr, 2.0);
  double pw = lo->nc * lo->cell - lo->gap, ph = lo->nr * lo->cell - lo->gap;
  cairo_rectangle (cr, lo->x0 - 1, lo->y0 - 1, pw + 2, ph + 2);
  cairo_clip (cr);
  int r = fig->highlight_row - lo->r0, c = fig->highlight_col - lo->c0;
  if (fig->highlight_row >= 0 && r >= 0 && r < lo->nr)
    cairo_rectangle (cr, lo->x0, lo->y0 + r * lo->cell, pw, lo->cell - lo->gap);
  if (fig->highlight_col >= 0 && c >= 0 && c < lo->nc)
    cairo_rectangle (cr, lo->x0 + c * lo->cell, lo->y0, lo->cell - lo->gap, ph);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* A triangle in the top right corner of every cell in view that holds a value above the colour
 * range, in white or black, whichever stands out from the top colour (cells of 5 units and
 * more; the colour bar says "clipped" in any case). */
static void
draw_clipped_marks (cairo_t *cr, const ArHeatmapFigure *fig, const ArHeatmapLayout *lo)
{
  if (!fig->clipped || lo->cell < 5)
    return;
  ArColor8 top = ar_colormap_entry (fig->colormap, 255);
  double luminance = (0.2126 * top.r + 0.7152 * top.g + 0.0722 * top.b) / 255;
  double size = MIN (lo->cell * 0.4, 9);
  cairo_save (cr);
  cairo_set_source_rgb (cr, luminance < 0.5 ? 1 : 0, luminance < 0.5 ? 1 : 0,
                        luminance < 0.5 ? 1 : 0);
  for (int i = lo->r0; i < lo->r0 + lo->nr; i++)
    for (int j = lo->c0; j < lo->c0 + lo->nc; j++)
      if (ar_heatmap_cell_clipped (fig, i, j))
        {
          double x1 = lo->x0 + (j - lo->c0 + 1) * lo->cell - lo->gap;
          double y0 = lo->y0 + (i - lo->r0) * lo->cell;
          cairo_move_to (cr, x1, y0);
          cairo_line_to (cr, x1, y0 + size);
          cairo_line_to (cr, x1 - size, y0);
          cairo_close_path (cr);
          cairo_fill (cr);
        }
  cairo_restore (cr);
}

static ArMatrixPaint
paint_for (const ArHeatmapFigure *fig, const ArRenderStyle *style)
{
  return (ArMatrixPaint){
    .colormap = fig->colormap,
    .vmin = fig->vmin,
    .vmax = fig->vmax,
    .log = fig->log_colors,
    .mask_upper = fig->mask_upper,
    .window = fig->mask_upper ? fig->window : 0,
    .cell_mask = fig->cell_mask,
    .masked = style->masked,
    .gap_color = style->background,
    .stride = fig->n_cols,
  };
}

void
ar_heatmap_render (cairo_t *cr, const ArHeatmapFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  ArHeatmapLayout lo;
  ar_heatmap_layout (&lo, pc, fig, width, height);

  cairo_save (cr);
  if (fig->title_one_line)
    ar_figure_frame_draw (cr, pc, style, fig->title, fig->subtitle, width, height);
  else
    ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (ar_heatmap_has_data (fig) && lo.cell > 0)
    {
      ArMatrixPaint paint = paint_for (fig, style);
      paint.gap = lo.gap;
      paint.row0 = lo.r0;
      paint.col0 = lo.c0;
      if (!fig->cells_covered)
        ar_matrix_paint (cr, &paint, fig->values, lo.nr, lo.nc, lo.x0, lo.y0, lo.cell, lo.cell);
      double size;
      int decimals;
      if (annotation_fit (pc, style, fig, &lo, &size, &decimals))
        draw_annotations (cr, pc, style, fig, &lo, size, decimals);
      draw_clipped_marks (cr, fig, &lo);
      draw_highlight (cr, style, fig, &lo);
      ar_heatmap_draw_axes (cr, pc, style, fig, &lo);
      if (fig->colorbar)
        {
          ArColorbar bar = { .colormap = fig->colormap,
                             .vmin = fig->vmin,
                             .vmax = fig->vmax,
                             .label = fig->colorbar_label,
                             .log = fig->log_colors,
                             .clipped = fig->clipped };
          double bars = lo.bars_w > 0 ? lo.bars_w + AR_HEATMAP_COLORBAR_GAP : 0;
          ar_colorbar_draw (cr, pc, style, &bar,
                            lo.x0 + lo.nc * lo.cell + AR_HEATMAP_COLORBAR_GAP + bars, lo.y0,
                            lo.nr * lo.cell - lo.gap);
        }
      if (lo.bars_w > 0)
        ar_heatmap_draw_row_bars (cr, pc, style, fig, &lo,
                                  lo.x0 + lo.nc * lo.cell + AR_HEATMAP_COLORBAR_GAP);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

void
ar_heatmap_paint_cells (cairo_t *cr, const ArHeatmapFigure *fig, double x, double y, double w,
                        double h)
{
  if (!ar_heatmap_has_data (fig))
    return;
  ArMatrixPaint paint = paint_for (fig, ar_render_style_or_default (fig->style));
  ar_matrix_paint (cr, &paint, fig->values, fig->n_rows, fig->n_cols, x, y, w / fig->n_cols,
                   h / fig->n_rows);
}

gboolean
ar_heatmap_hit (const ArHeatmapFigure *fig, double width, double height, double x, double y,
                int *row, int *col)
{
  if (!ar_heatmap_has_data (fig))
    return FALSE;
  ArHeatmapLayout lo;
  ar_heatmap_layout_only (&lo, fig, width, height);
  if (lo.cell <= 0)
    return FALSE;
  double c = floor ((x - lo.x0) / lo.cell), r = floor ((y - lo.y0) / lo.cell);
  if (c < 0 || r < 0 || c >= lo.nc || r >= lo.nr)
    return FALSE;
  *row = lo.r0 + (int) r;
  *col = lo.c0 + (int) c;
  return TRUE;
}

void
ar_heatmap_get_cell_rect (const ArHeatmapFigure *fig, double width, double height, int row, int col,
                          double *x, double *y, double *cell_w, double *cell_h)
{
  ArHeatmapLayout lo;
  ar_heatmap_layout_only (&lo, fig, width, height);
  *x = lo.x0 + (col - lo.c0) * lo.cell;
  *y = lo.y0 + (row - lo.r0) * lo.cell;
  *cell_w = *cell_h = lo.cell - lo.gap;
}

void
ar_heatmap_get_plot_rect (const ArHeatmapFigure *fig, double width, double height, double *x,
                          double *y, double *plot_w, double *plot_h)
{
  ArHeatmapLayout lo;
  ar_heatmap_layout_only (&lo, fig, width, height);
  *x = lo.x0, *y = lo.y0;
  *plot_w = lo.nc * lo.cell - lo.gap;
  *plot_h = lo.nr * lo.cell - lo.gap;
}

gboolean
ar_heatmap_is_annotated (const ArHeatmapFigure *fig, double width, double height)
{
  if (!ar_heatmap_has_data (fig))
    return FALSE;
  PangoContext *pc = ar_text_context_new ();
  ArHeatmapLayout lo;
  ar_heatmap_layout (&lo, pc, fig, width, height);
  double size;
  int decimals;
  gboolean on
      = lo.cell > 0
        && annotation_fit (pc, ar_render_style_or_default (fig->style), fig, &lo, &size, &decimals);
  g_object_unref (pc);
  return on;
}
