/* figure.h — any figure attnscope draws, behind one type: what file export and the export dialog
 * work with. A figure borrows one of the figure structs (heatmap, grid, scatter, line chart,
 * comparison) and dispatches to its size and render functions, so every view exports through
 * exactly the function that draws it on screen. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "compare-render.h"
#include "grid-render.h"
#include "heatmap-render.h"
#include "lines-render.h"
#include "scatter-render.h"

G_BEGIN_DECLS

typedef enum
{
  AS_FIGURE_HEATMAP,
  AS_FIGURE_GRID,
  AS_FIGURE_SCATTER,
  AS_FIGURE_LINES,
  AS_FIGURE_COMPARE,
} AsFigureKind;

typedef struct
{
  AsFigureKind kind;
  union
  {
    const AsHeatmapFigure *heatmap;
    const AsGridFigure *grid;
    const AsScatterFigure *scatter;
    const AsLineFigure *lines;
    const AsCompareFigure *compare;
  };
} AsFigure;

/* Wrappers that borrow FIG. */
AsFigure as_figure_from_heatmap (const AsHeatmapFigure *fig);
AsFigure as_figure_from_grid (const AsGridFigure *fig);
AsFigure as_figure_from_scatter (const AsScatterFigure *fig);
AsFigure as_figure_from_lines (const AsLineFigure *fig);
AsFigure as_figure_from_compare (const AsCompareFigure *fig);

/* The natural size in figure units (whole numbers; px at scale 1, pt in PDF and SVG). */
void as_figure_get_size (const AsFigure *fig, double *width, double *height);

/* Draws FIG into (0, 0, WIDTH, HEIGHT) of CR's user space. */
void as_figure_render (cairo_t *cr, const AsFigure *fig, double width, double height);

G_END_DECLS
