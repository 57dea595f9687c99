/* scatter-layout.c — the plots, axes and legend of a scatter plot and its natural size (see
 * scatter-render.h and scatter-layout-private.h). */
#include "scatter-layout-private.h"

#include <math.h>

#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define PAD 0.08
#define NATURAL_W 480.0
#define NATURAL_H 400.0
#define LEGEND_GAP 10.0
#define LEGEND_SPACING 18.0
#define LEGEND_ROW_GAP 4.0
#define LEGEND_NAME_MAX 260.0
#define NATURAL_PANEL_W 400.0
#define NATURAL_PANEL_H 360.0
#define PANEL_GAP 28.0

void
ar_scatter_figure_init (ArScatterFigure *fig)
{
  *fig = (ArScatterFigure){
    .x_axis = "Component 1",
    .y_axis = "Component 2",
    .show_labels = TRUE,
    .label_mode = AR_LABELS_THINNED,
    .n_groups = 1,
    .highlight_point = -1,
  };
}

int
ar_scatter_get_n_panels (const ArScatterFigure *fig)
{
  return fig->xy2 != NULL ? 2 : 1;
}

const float *
ar_scatter_panel_xy (const ArScatterFigure *fig, int panel)
{
  return panel == 0 ? fig->xy : fig->xy2;
}

gboolean
ar_scatter_has_data (const ArScatterFigure *fig)
{
  return fig->xy != NULL && fig->n_points > 0;
}

static gboolean
has_legend (const ArScatterFigure *fig)
{
  return fig->group_names != NULL && fig->n_groups > 1;
}

/* The padded data range of coordinate K (0 = x, 1 = y) of XY. */
static void
data_range (const ArScatterFigure *fig, const float *xy, int k, double *lo, double *hi)
{
  double a = INFINITY, b = -INFINITY;
  for (int i = 0; i < fig->n_points; i++)
    {
      double v = xy[2 * i + k];
      if (isfinite (v))
        a = MIN (a, v), b = MAX (b, v);
    }
  if (!isfinite (a))
    a = -1, b = 1;
  if (b - a < 1e-12)
    {
      double pad = MAX (fabs (a) * 0.1, 1.0);
      a -= pad, b += pad;
    }
  double pad = (b - a) * PAD;
  *lo = a - pad;
  *hi = b + pad;
}

static double
widest_tick (PangoContext *pc, const ArRenderStyle *style, const ArTicks *ticks)
{
  double widest = 0, w;
  for (int i = 0; i < ticks->n; i++)
    {
      g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
      ar_text_measure (pc, style, text, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w, NULL);
      widest = MAX (widest, w);
    }
  return ceil (widest);
}

static void
measure (ArScatterLayout *lo, PangoContext *pc, const ArRenderStyle *style,
         const ArScatterFigure *fig)
{
  *lo = (ArScatterLayout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  lo->n_panels = ar_scatter_get_n_panels (fig);
  if (!ar_scatter_has_data (fig))
    return;
  for (int k = 0; k < lo->n_panels; k++)
    {
      ArScatterPanel *panel = &lo->panels[k];
      data_range (fig, ar_scatter_panel_xy (fig, k), 1, &panel->lo_y, &panel->hi_y);
      ar_ticks_compute (&panel->ticks_y, panel->lo_y, panel->hi_y, 6);
      panel->tick_w = widest_tick (pc, style, &panel->ticks_y);
    }
  ar_text_measure (pc, style, "0", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->tick_h);
  ar_text_measure (pc, style, "Ag", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->axis_h);
  lo->legend_row_h = lo->tick_h + LEGEND_ROW_GAP;
  if (lo->n_panels > 1)
    lo->panel_title_h = lo->axis_h + AR_SCATTER_PANEL_TITLE_GAP;
}

/* The room left of a plot: axis name, tick labels, ticks. */
double
ar_scatter_left_of_plot (const ArScatterLayout *lo, const ArScatterPanel *panel)
{
  return lo->axis_h + AR_SCATTER_AXIS_GAP + panel->tick_w + AR_SCATTER_TICK_GAP
         + AR_SCATTER_TICK_LENGTH;
}

static double
left_extent (const ArScatterLayout *lo)
{
  return MARGIN + ar_scatter_left_of_plot (lo, &lo->panels[0]);
}

static double
bottom_extent (const ArScatterLayout *lo)
{
  return AR_SCATTER_TICK_LENGTH + AR_SCATTER_TICK_GAP + lo->tick_h + AR_SCATTER_AXIS_GAP
         + lo->axis_h + MARGIN;
}

/* A legend entry's layout (name shortened to LEGEND_NAME_MAX). */
PangoLayout *
ar_scatter_legend_entry (PangoContext *pc, const ArRenderStyle *style, const char *name)
{
  return ar_text_layout (pc, style, name, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, LEGEND_NAME_MAX);
}

static double
legend_entry_width (PangoContext *pc, const ArRenderStyle *style, const char *name)
{
  PangoLayout *layout = ar_scatter_legend_entry (pc, style, name);
  double w;
  ar_text_extent (layout, &w, NULL);
  g_object_unref (layout);
  return 2 * AR_SCATTER_POINT_RADIUS + 5 + w;
}

/* "+ N more": the entry that stands for the groups the legend has no room for. */
static char *
legend_more_text (int n)
{
  return g_strdup_printf ("+ %d more", n);
}

/* Calls FUNC for each legend entry laid out in rows WIDTH wide from (X0, Y0) (see
 * scatter-layout-private.h). Entries fill at most AR_SCATTER_LEGEND_ROWS rows; when the groups do
 * not fit, the last row ends with "+ N more". Returns the number of rows; *SHOWN (may be NULL) =
 * the groups listed. */
int
ar_scatter_legend_walk (PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
                        const ArScatterLayout *lo, double width, double x0, double y0,
                        ArScatterLegendFunc func, gpointer data, int *shown)
{
  if (shown != NULL)
    *shown = 0;
  if (!has_legend (fig))
    return 0;
  int n = fig->n_groups;
  g_autofree double *widths = g_new (double, n);
  g_autofree int *row_of = g_new (int, n);
  g_autofree double *x_of = g_new (double, n);
  int rows = 1;
  double x = x0;
  for (int g = 0; g < n; g++)
    {
      widths[g] = MIN (legend_entry_width (pc, style, fig->group_names[g]), width);
      if (x > x0 && x + widths[g] > x0 + width)
        rows++, x = x0;
      row_of[g] = rows, x_of[g] = x;
      x += widths[g] + LEGEND_SPACING;
    }
  int count = n;
  g_autofree char *more = NULL;
  double more_w = 0, more_x = x0;
  int more_row = 0;
  if (rows > AR_SCATTER_LEGEND_ROWS)
    {
      /* Keep the entries of the allowed rows that leave room for "+ N more" after them. */
      count = 0;
      while (count < n && row_of[count] <= AR_SCATTER_LEGEND_ROWS)
        count++;
      for (;;)
        {
          g_free (more);
          more = legend_more_text (n - count);
          more_w = legend_entry_width (pc, style, more) - 2 * AR_SCATTER_POINT_RADIUS - 5;
          if (count == 0)
            {
              more_row = 1, more_x = x0;
              break;
            }
          double end = x_of[count - 1] + widths[count - 1] + LEGEND_SPACING;
          if (end + more_w <= x0 + width)
            {
              more_row = row_of[count - 1], more_x = end;
              break;
            }
          count--;
        }
      rows = more_row;
      for (int g = 0; g < count; g++)
        rows = MAX (rows, row_of[g]);
    }
  if (func != NULL)
    {
      for (int g = 0; g < count; g++)
        func (g, fig->group_names[g], x_of[g] + AR_SCATTER_POINT_RADIUS,
              y0 + (row_of[g] - 0.5) * lo->legend_row_h, x_of[g] + 2 * AR_SCATTER_POINT_RADIUS + 5,
              widths[g], data);
      if (more != NULL)
        func (-1, more, more_x, y0 + (more_row - 0.5) * lo->legend_row_h, more_x, more_w, data);
    }
  if (shown != NULL)
    *shown = count;
  return rows;
}

static void
fit (ArScatterLayout *lo, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
     double width, double height)
{
  double left0 = round (left_extent (lo));
  double gap = lo->n_panels > 1 ? PANEL_GAP + ar_scatter_left_of_plot (lo, &lo->panels[1]) : 0;
  double total = MAX (floor (width - left0 - MARGIN - gap), 0);
  double pw = lo->n_panels > 1 ? floor (total / 2) : total;
  lo->legend_rows = ar_scatter_legend_walk (pc, style, fig, lo, width - left0 - MARGIN, 0, 0, NULL,
                                            NULL, &lo->legend_shown);
  lo->legend_h = lo->legend_rows > 0 ? lo->legend_rows * lo->legend_row_h + LEGEND_GAP : 0;
  double py = round (MARGIN + lo->title_h + lo->legend_h + lo->panel_title_h);
  double ph = MAX (floor (height - py - bottom_extent (lo)), 0);
  for (int k = 0; k < lo->n_panels; k++)
    {
      ArScatterPanel *panel = &lo->panels[k];
      panel->px = k == 0 ? left0 : round (left0 + pw + gap);
      panel->pw = pw;
      panel->py = py;
      panel->ph = ph;
      if (!ar_scatter_has_data (fig) || pw <= 0)
        continue;
      data_range (fig, ar_scatter_panel_xy (fig, k), 0, &panel->lo_x, &panel->hi_x);
      ar_ticks_compute (&panel->ticks_x, panel->lo_x, panel->hi_x, 6);
    }
}

void
ar_scatter_to_plot (const ArScatterPanel *panel, double vx, double vy, double *x, double *y)
{
  *x = panel->px + (vx - panel->lo_x) / (panel->hi_x - panel->lo_x) * panel->pw;
  *y = panel->py + panel->ph - (vy - panel->lo_y) / (panel->hi_y - panel->lo_y) * panel->ph;
}

void
ar_scatter_layout (ArScatterLayout *lo, PangoContext *pc, const ArScatterFigure *fig, double width,
                   double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  measure (lo, pc, style, fig);
  /* the title block wraps to the width instead of being cut */
  lo->title_h = ar_title_block_height_wrapped (pc, style, fig->title, fig->subtitle, width);
  fit (lo, pc, style, fig, width, height);
}

/* The natural width of one plot. */
static double
natural_plot_w (const ArScatterLayout *lo)
{
  return lo->n_panels > 1 ? NATURAL_PANEL_W : NATURAL_W;
}

void
ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height)
{
  ArScatterLayout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  double w = round (left_extent (&lo)) + natural_plot_w (&lo) + MARGIN;
  if (lo.n_panels > 1)
    w += PANEL_GAP + ar_scatter_left_of_plot (&lo, &lo.panels[1]) + natural_plot_w (&lo);
  *width = ceil (w);
  *height = ar_scatter_get_height_for_width (fig, *width);
}

double
ar_scatter_get_height_for_width (const ArScatterFigure *fig, double width)
{
  ArScatterLayout lo;
  PangoContext *pc = ar_text_context_new ();
  ar_scatter_layout (&lo, pc, fig, width, 1e7);
  g_object_unref (pc);
  double aspect = lo.n_panels > 1 ? NATURAL_PANEL_H / NATURAL_PANEL_W : NATURAL_H / NATURAL_W;
  return ceil (lo.panels[0].py + lo.panels[0].pw * aspect + bottom_extent (&lo));
}
