/* figure.h — any figure attnscope draws, behind one type: what file export and the export dialog
 * work with. A figure borrows one of the figure structs (heatmap, grid, scatter, line chart,
 * comparison, alignment) and dispatches to its size and render functions, so every view exports
 * through exactly the function that draws it on screen. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "alignment-render.h"
#include "compare-render.h"
#include "grid-render.h"
#include "heatmap-render.h"
#include "lines-render.h"
#include "scatter-render.h"

G_BEGIN_DECLS

typedef enum
{
  AR_FIGURE_HEATMAP,
  AR_FIGURE_GRID,
  AR_FIGURE_SCATTER,
  AR_FIGURE_LINES,
  AR_FIGURE_COMPARE,
  AR_FIGURE_ALIGNMENT,
} ArFigureKind;

typedef struct
{
  ArFigureKind kind;
  union
  {
    const ArHeatmapFigure *heatmap;
    const ArGridFigure *grid;
    const ArScatterFigure *scatter;
    const ArLineFigure *lines;
    const ArCompareFigure *compare;
    const ArAlignmentFigure *alignment;
  };
} ArFigure;

/* Room for one figure of any kind with the parts a comparison is made of (three heatmap panels
 * and a chart): what a built figure (built-figure.h) holds, and what a widget's restyled copy
 * is. FIGURE points at the member that is the figure. */
typedef struct
{
  ArFigure figure;
  ArHeatmapFigure heatmap; /* a heatmap, or panel A of a comparison */
  ArHeatmapFigure panel_b;
  ArHeatmapFigure panel_diff;
  ArGridFigure grid;
  ArScatterFigure scatter;
  ArLineFigure lines; /* a line chart, or the chart of a comparison */
  ArCompareFigure compare;
  ArAlignmentFigure alignment;
} ArFigureParts;

/* OUT = IN (the figure structs, not the arrays they borrow) drawn in STYLE instead (NULL: the
 * light print style): how a widget shows a built figure in the screen's light or dark style. */
void ar_figure_parts_restyle (ArFigureParts *out, const ArFigureParts *in,
                              const ArRenderStyle *style);

/* Wrappers that borrow FIG. */
ArFigure ar_figure_from_heatmap (const ArHeatmapFigure *fig);
ArFigure ar_figure_from_grid (const ArGridFigure *fig);
ArFigure ar_figure_from_scatter (const ArScatterFigure *fig);
ArFigure ar_figure_from_lines (const ArLineFigure *fig);
ArFigure ar_figure_from_compare (const ArCompareFigure *fig);
ArFigure ar_figure_from_alignment (const ArAlignmentFigure *fig);

/* The natural size in figure units (whole numbers; px at scale 1, pt in PDF and SVG). */
void ar_figure_get_size (const ArFigure *fig, double *width, double *height);

/* The height FIG needs when laid out WIDTH units wide (its cells or plot fill the width). */
double ar_figure_get_height_for_width (const ArFigure *fig, double width);

/* Draws FIG into (0, 0, WIDTH, HEIGHT) of CR's user space. */
void ar_figure_render (cairo_t *cr, const ArFigure *fig, double width, double height);

G_END_DECLS
