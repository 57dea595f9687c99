/* figure.c — dispatch from ArFigure to the figure kinds. */
#include "figure.h"

ArFigure
ar_figure_from_heatmap (const ArHeatmapFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_HEATMAP, .heatmap = fig };
}

ArFigure
ar_figure_from_grid (const ArGridFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_GRID, .grid = fig };
}

ArFigure
ar_figure_from_scatter (const ArScatterFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_SCATTER, .scatter = fig };
}

ArFigure
ar_figure_from_lines (const ArLineFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_LINES, .lines = fig };
}

ArFigure
ar_figure_from_compare (const ArCompareFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_COMPARE, .compare = fig };
}

ArFigure
ar_figure_from_alignment (const ArAlignmentFigure *fig)
{
  return (ArFigure){ .kind = AR_FIGURE_ALIGNMENT, .alignment = fig };
}

void
ar_figure_get_size (const ArFigure *fig, double *width, double *height)
{
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      ar_heatmap_get_size (fig->heatmap, width, height);
      return;
    case AR_FIGURE_GRID:
      ar_grid_get_size (fig->grid, width, height);
      return;
    case AR_FIGURE_SCATTER:
      ar_scatter_get_size (fig->scatter, width, height);
      return;
    case AR_FIGURE_LINES:
      ar_line_get_size (fig->lines, width, height);
      return;
    case AR_FIGURE_COMPARE:
      ar_compare_get_size (fig->compare, width, height);
      return;
    case AR_FIGURE_ALIGNMENT:
      ar_alignment_get_size (fig->alignment, width, height);
      return;
    }
  g_assert_not_reached ();
}

double
ar_figure_get_height_for_width (const ArFigure *fig, double width)
{
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      return ar_heatmap_get_height_for_width (fig->heatmap, width);
    case AR_FIGURE_GRID:
      return ar_grid_get_height_for_width (fig->grid, width);
    case AR_FIGURE_SCATTER:
      return ar_scatter_get_height_for_width (fig->scatter, width);
    case AR_FIGURE_LINES:
      return ar_line_get_height_for_width (fig->lines, width);
    case AR_FIGURE_COMPARE:
      return ar_compare_get_height_for_width (fig->compare, width);
    case AR_FIGURE_ALIGNMENT:
      return ar_alignment_get_height_for_width (fig->alignment, width);
    }
  g_assert_not_reached ();
}

void
ar_figure_render (cairo_t *cr, const ArFigure *fig, double width, double height)
{
  switch (fig->kind)
    {
    case AR_FIGURE_HEATMAP:
      ar_heatmap_render (cr, fig->heatmap, width, height);
      return;
    case AR_FIGURE_GRID:
      ar_grid_render (cr, fig->grid, width, height);
      return;
    case AR_FIGURE_SCATTER:
      ar_scatter_render (cr, fig->scatter, width, height);
      return;
    case AR_FIGURE_LINES:
      ar_line_render (cr, fig->lines, width, height);
      return;
    case AR_FIGURE_COMPARE:
      ar_compare_render (cr, fig->compare, width, height);
      return;
    case AR_FIGURE_ALIGNMENT:
      ar_alignment_render (cr, fig->alignment, width, height);
      return;
    }
  g_assert_not_reached ();
}

void
ar_figure_parts_restyle (ArFigureParts *out, const ArFigureParts *in, const ArRenderStyle *style)
{
  *out = *in;
  out->heatmap.style = out->panel_b.style = out->panel_diff.style = style;
  out->grid.style = out->scatter.style = out->lines.style = out->compare.style = style;
  out->alignment.style = style;
  out->compare.a = &out->heatmap;
  out->compare.b = &out->panel_b;
  out->compare.diff = in->compare.diff != NULL ? &out->panel_diff : NULL;
  out->compare.chart = in->compare.chart != NULL ? &out->lines : NULL;
  switch (in->figure.kind)
    {
    case AR_FIGURE_HEATMAP:
      out->figure = ar_figure_from_heatmap (&out->heatmap);
      return;
    case AR_FIGURE_GRID:
      out->figure = ar_figure_from_grid (&out->grid);
      return;
    case AR_FIGURE_SCATTER:
      out->figure = ar_figure_from_scatter (&out->scatter);
      return;
    case AR_FIGURE_LINES:
      out->figure = ar_figure_from_lines (&out->lines);
      return;
    case AR_FIGURE_COMPARE:
      out->figure = ar_figure_from_compare (&out->compare);
      return;
    case AR_FIGURE_ALIGNMENT:
      out->figure = ar_figure_from_alignment (&out->alignment);
      return;
    }
  g_assert_not_reached ();
}
