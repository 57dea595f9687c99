/* scatter-layout-private.h — where everything of a scatter plot goes (scatter-render.h), shared
 * by its three files: scatter-layout.c (the plots, axes, legend and sizes: ar_scatter_layout),
 * scatter-placement.c (where each point and label is drawn: ar_scatter_place) and
 * scatter-render.c (drawing, hit-testing and the boxes the widget asks for). Drawing and
 * hit-testing both start from one layout and one placement, so what is drawn and what is hit can
 * never disagree. */
#pragma once

#include <pango/pangocairo.h>

#include "axis-ticks.h"
#include "scatter-render.h"

G_BEGIN_DECLS

#define AR_SCATTER_POINT_RADIUS 4.5
#define AR_SCATTER_TICK_LENGTH 4.0
#define AR_SCATTER_TICK_GAP 4.0
#define AR_SCATTER_AXIS_GAP 8.0
#define AR_SCATTER_PANEL_TITLE_GAP 6.0

/* One plot: its data range, ticks and rectangle. */
typedef struct
{
  double lo_x, hi_x, lo_y, hi_y; /* data range shown */
  ArTicks ticks_x, ticks_y;
  double tick_w;         /* widest y tick label */
  double px, py, pw, ph; /* plot rectangle */
} ArScatterPanel;

typedef struct
{
  double title_h, tick_h, axis_h, legend_row_h, panel_title_h;
  int legend_rows;
  int legend_shown; /* groups listed; the rest are summed up as "+ N more" */
  double legend_h;
  int n_panels;
  ArScatterPanel panels[2];
} ArScatterLayout;

/* Where the points and their labels are drawn: n = n_panels × n_points entries, the second
 * panel's after the first's. */
typedef struct
{
  int n;
  double *x, *y;      /* [n] drawn positions */
  double *cx, *cy;    /* [n] the spot a spread point belongs to (= x, y when alone) */
  double *box;        /* [n][4] label boxes */
  gboolean *labelled; /* [n] */
} ArScatterPlacement;

/* ---- scatter-layout.c ---- */

/* FIG's coordinates of plot PANEL (0 or 1): [n_points][2]. */
const float *ar_scatter_panel_xy (const ArScatterFigure *fig, int panel);
gboolean ar_scatter_has_data (const ArScatterFigure *fig);

/* Measures FIG (with PC) and fits it to WIDTH × HEIGHT. */
void ar_scatter_layout (ArScatterLayout *lo, PangoContext *pc, const ArScatterFigure *fig,
                        double width, double height);

/* The room left of PANEL's plot: axis name, tick labels, ticks. */
double ar_scatter_left_of_plot (const ArScatterLayout *lo, const ArScatterPanel *panel);

/* (*X, *Y) = where data point (VX, VY) lands in PANEL's plot. */
void ar_scatter_to_plot (const ArScatterPanel *panel, double vx, double vy, double *x, double *y);

/* A legend entry's text, its name shortened to fit. */
PangoLayout *ar_scatter_legend_entry (PangoContext *pc, const ArRenderStyle *style,
                                      const char *name);

/* A legend entry: its group G (-1 for "+ N more", whose text is NAME), the dot's centre, where
 * its name starts and its width. */
typedef void (*ArScatterLegendFunc) (int g, const char *name, double cx, double cy, double name_x,
                                     double w, gpointer data);

/* Calls FUNC (may be NULL) for each entry of FIG's legend laid out in rows WIDTH wide from (X0,
 * Y0); returns the number of rows, *SHOWN (may be NULL) = the groups listed. */
int ar_scatter_legend_walk (PangoContext *pc, const ArRenderStyle *style,
                            const ArScatterFigure *fig, const ArScatterLayout *lo, double width,
                            double x0, double y0, ArScatterLegendFunc func, gpointer data,
                            int *shown);

/* ---- scatter-placement.c ---- */

/* P = where FIG's points and labels go in LO (coincident points spread, labels placed). Free
 * with ar_scatter_placement_clear. */
void ar_scatter_place (ArScatterPlacement *p, PangoContext *pc, const ArScatterFigure *fig,
                       const ArScatterLayout *lo);
/* Layout and placement at WIDTH × HEIGHT with a context of their own. */
void ar_scatter_place_only (ArScatterLayout *lo, ArScatterPlacement *p, const ArScatterFigure *fig,
                            double width, double height);
void ar_scatter_placement_clear (ArScatterPlacement *p);

/* Drawn small and grey: point I is not marked while a word is highlighted. */
gboolean ar_scatter_is_dimmed (const ArScatterFigure *fig, int i);

/* The order labels are placed and points drawn in: 0 the highlighted point, 1 the marked points,
 * 2 the rest. */
int ar_scatter_label_priority (const ArScatterFigure *fig, int i);

G_END_DECLS
