/* figure.c — dispatch from AsFigure to the figure kinds. */
#include "figure.h"

AsFigure
as_figure_from_heatmap (const AsHeatmapFigure *fig)
{
  return (AsFigure){ .kind = AS_FIGURE_HEATMAP, .heatmap = fig };
}

AsFigure
as_figure_from_grid (const AsGridFigure *fig)
{
  return (AsFigure){ .kind = AS_FIGURE_GRID, .grid = fig };
}

AsFigure
as_figure_from_scatter (const AsScatterFigure *fig)
{
  return (AsFigure){ .kind = AS_FIGURE_SCATTER, .scatter = fig };
}

AsFigure
as_figure_from_lines (const AsLineFigure *fig)
{
  return (AsFigure){ .kind = AS_FIGURE_LINES, .lines = fig };
}

AsFigure
as_figure_from_compare (const AsCompareFigure *fig)
{
  return (AsFigure){ .kind = AS_FIGURE_COMPARE, .compare = fig };
}

void
as_figure_get_size (const AsFigure *fig, double *width, double *height)
{
  switch (fig->kind)
    {
    case AS_FIGURE_HEATMAP:
      as_heatmap_get_size (fig->heatmap, width, height);
      return;
    case AS_FIGURE_GRID:
      as_grid_get_size (fig->grid, width, height);
      return;
    case AS_FIGURE_SCATTER:
      as_scatter_get_size (fig->scatter, width, height);
      return;
    case AS_FIGURE_LINES:
      as_line_get_size (fig->lines, width, height);
      return;
    case AS_FIGURE_COMPARE:
      as_compare_get_size (fig->compare, width, height);
      return;
    }
  g_assert_not_reached ();
}

void
as_figure_render (cairo_t *cr, const AsFigure *fig, double width, double height)
{
  switch (fig->kind)
    {
    case AS_FIGURE_HEATMAP:
      as_heatmap_render (cr, fig->heatmap, width, height);
      return;
    case AS_FIGURE_GRID:
      as_grid_render (cr, fig->grid, width, height);
      return;
    case AS_FIGURE_SCATTER:
      as_scatter_render (cr, fig->scatter, width, height);
      return;
    case AS_FIGURE_LINES:
      as_line_render (cr, fig->lines, width, height);
      return;
    case AS_FIGURE_COMPARE:
      as_compare_render (cr, fig->compare, width, height);
      return;
    }
  g_assert_not_reached ();
}
