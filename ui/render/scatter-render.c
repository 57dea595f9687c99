/* scatter-render.c — layout, drawing and hit-testing of the scatter plot. */
#include "scatter-render.h"

#include <math.h>

#include "axis-ticks.h"
#include "colormap.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define TICK_LENGTH 4.0
#define TICK_GAP 4.0
#define AXIS_GAP 8.0
#define POINT_RADIUS 4.5
#define PAD 0.08
#define NATURAL_W 480.0
#define NATURAL_H 400.0

typedef struct
{
  double title_h, tick_h, tick_w, axis_h, legend_h, label_w;
  double lo_x, hi_x, lo_y, hi_y; /* data range shown */
  ArTicks ticks_x, ticks_y;
  double px, py, pw, ph; /* plot rectangle */
} Layout;

#define LEGEND_GAP 10.0
#define LEGEND_SPACING 18.0

void
ar_scatter_figure_init (ArScatterFigure *fig)
{
  *fig = (ArScatterFigure){
    .x_axis = "Component 1",
    .y_axis = "Component 2",
    .show_labels = TRUE,
    .n_groups = 1,
    .highlight_point = -1,
  };
}

static gboolean
has_data (const ArScatterFigure *fig)
{
  return fig->xy != NULL && fig->n_points > 0;
}

/* The padded data range of coordinate K (0 = x, 1 = y). */
static void
data_range (const ArScatterFigure *fig, int k, double *lo, double *hi)
{
  double a = INFINITY, b = -INFINITY;
  for (int i = 0; i < fig->n_points; i++)
    {
      double v = fig->xy[2 * i + k];
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
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig)
{
  *lo = (Layout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  data_range (fig, 1, &lo->lo_y, &lo->hi_y);
  ar_ticks_compute (&lo->ticks_y, lo->lo_y, lo->hi_y, 6);
  ar_text_measure (pc, style, "0", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->tick_h);
  lo->tick_w = widest_tick (pc, style, &lo->ticks_y);
  ar_text_measure (pc, style, "Ag", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->axis_h);
  if (fig->group_names != NULL && fig->n_groups > 1)
    lo->legend_h = lo->tick_h + LEGEND_GAP;
  if (fig->show_labels && fig->labels != NULL)
    {
      PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
      for (int i = 0; i < fig->n_points; i++)
        {
          double w;
          pango_layout_set_text (layout, fig->labels[i] != NULL ? fig->labels[i] : "", -1);
          ar_text_extent (layout, &w, NULL);
          lo->label_w = MAX (lo->label_w, w);
        }
      g_object_unref (layout);
    }
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + lo->axis_h + AXIS_GAP + lo->tick_w + TICK_GAP + TICK_LENGTH;
}

static double
bottom_extent (const Layout *lo)
{
  return TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP + lo->axis_h + MARGIN;
}

static void
fit (Layout *lo, const ArScatterFigure *fig, double width, double height)
{
  lo->px = round (left_extent (lo));
  lo->py = round (MARGIN + lo->title_h + lo->legend_h);
  lo->pw = MAX (floor (width - lo->px - MARGIN), 0);
  lo->ph = MAX (floor (height - lo->py - bottom_extent (lo)), 0);
  if (!has_data (fig) || lo->pw <= 0)
    return;
  /* Widen the x range on the right so that the labels of the rightmost points fit inside. */
  data_range (fig, 0, &lo->lo_x, &lo->hi_x);
  double room = MIN ((lo->label_w + POINT_RADIUS + 6) / lo->pw, 0.5);
  lo->hi_x += (lo->hi_x - lo->lo_x) * room / (1 - room);
  ar_ticks_compute (&lo->ticks_x, lo->lo_x, lo->hi_x, 6);
}

static void
to_plot (const Layout *lo, double vx, double vy, double *x, double *y)
{
  *x = lo->px + (vx - lo->lo_x) / (lo->hi_x - lo->lo_x) * lo->pw;
  *y = lo->py + lo->ph - (vy - lo->lo_y) / (lo->hi_y - lo->lo_y) * lo->ph;
}

static void
layout_only (Layout *lo, const ArScatterFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  measure (lo, pc, ar_render_style_or_default (fig->style), fig);
  fit (lo, fig, width, height);
  g_object_unref (pc);
}

void
ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  *width = ceil (left_extent (&lo) + NATURAL_W + MARGIN);
  *height = ceil (MARGIN + lo.title_h + lo.legend_h + NATURAL_H + bottom_extent (&lo));
}

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
           const Layout *lo)
{
  cairo_set_line_width (cr, 1.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int axis = 0; axis < 2; axis++)
    {
      const ArTicks *ticks = axis == 0 ? &lo->ticks_x : &lo->ticks_y;
      for (int i = 0; i < ticks->n; i++)
        {
          double x, y;
          to_plot (lo, axis == 0 ? ticks->values[i] : lo->lo_x,
                   axis == 0 ? lo->lo_y : ticks->values[i], &x, &y);
          ar_render_set_rgb (cr, style->grid);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, lo->py),
                cairo_line_to (cr, round (x) + 0.5, lo->py + lo->ph);
          else
            cairo_move_to (cr, lo->px, round (y) + 0.5),
                cairo_line_to (cr, lo->px + lo->pw, round (y) + 0.5);
          cairo_stroke (cr);
          ar_render_set_rgb (cr, style->rule);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, lo->py + lo->ph),
                cairo_rel_line_to (cr, 0, TICK_LENGTH);
          else
            cairo_move_to (cr, lo->px, round (y) + 0.5), cairo_rel_line_to (cr, -TICK_LENGTH, 0);
          cairo_stroke (cr);
          g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
          pango_layout_set_text (layout, text, -1);
          ar_render_set_rgb (cr, style->text);
          if (axis == 0)
            ar_text_draw (cr, layout, x, lo->py + lo->ph + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
          else
            ar_text_draw (cr, layout, lo->px - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
        }
    }
  g_object_unref (layout);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, lo->px + 0.5, lo->py + 0.5, lo->pw - 1, lo->ph - 1);
  cairo_stroke (cr);

  ar_axis_names_draw (cr, pc, style, fig->x_axis, fig->y_axis, lo->px, lo->py, lo->pw, lo->ph,
                      lo->py + lo->ph + TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP,
                      MARGIN + lo->axis_h / 2);
}

static int
group_of (const ArScatterFigure *fig, int i)
{
  return fig->groups != NULL ? fig->groups[i] : 0;
}

static void
draw_points (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const Layout *lo)
{
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int i = 0; i < fig->n_points; i++)
    {
      double x, y;
      to_plot (lo, fig->xy[2 * i], fig->xy[2 * i + 1], &x, &y);
      if (!isfinite (x) || !isfinite (y))
        continue;
      gboolean on = i == fig->highlight_point;
      cairo_arc (cr, x, y, on ? POINT_RADIUS + 2 : POINT_RADIUS, 0, 2 * G_PI);
      ar_render_set_color8 (cr, ar_palette_color (group_of (fig, i)));
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, on ? 2.0 : 1.0);
      ar_render_set_rgb (cr, on ? style->accent : style->background);
      cairo_stroke (cr);
      if (fig->show_labels && fig->labels != NULL && fig->labels[i] != NULL)
        {
          pango_layout_set_text (layout, fig->labels[i], -1);
          ar_render_set_rgb (cr, on ? style->accent : style->text);
          ar_text_draw (cr, layout, x + POINT_RADIUS + 3, y - POINT_RADIUS, 0, 0.5, 0);
        }
    }
  g_object_unref (layout);
}

/* The legend: one row of dot + group name entries between the title and the plot. */
static void
draw_legend (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const Layout *lo)
{
  if (lo->legend_h <= 0)
    return;
  double x = lo->px, cy = lo->py - LEGEND_GAP - lo->tick_h / 2;
  for (int g = 0; g < fig->n_groups; g++)
    {
      cairo_arc (cr, x + POINT_RADIUS, cy, POINT_RADIUS, 0, 2 * G_PI);
      ar_render_set_color8 (cr, ar_palette_color (g));
      cairo_fill (cr);
      PangoLayout *layout
          = ar_text_layout (pc, style, fig->group_names[g], AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
      double w;
      ar_text_extent (layout, &w, NULL);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, x + 2 * POINT_RADIUS + 5, cy, 0, 0.5, 0);
      g_object_unref (layout);
      x += 2 * POINT_RADIUS + 5 + w + LEGEND_SPACING;
    }
}

void
ar_scatter_render (cairo_t *cr, const ArScatterFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  measure (&lo, pc, style, fig);
  fit (&lo, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig) && lo.pw > 0 && lo.ph > 0)
    {
      draw_axes (cr, pc, style, fig, &lo);
      draw_points (cr, pc, style, fig, &lo);
      draw_legend (cr, pc, style, fig, &lo);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_scatter_hit (const ArScatterFigure *fig, double width, double height, double x, double y,
                int *index)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_only (&lo, fig, width, height);
  int best = -1;
  double best_d2 = AR_SCATTER_HIT_RADIUS * AR_SCATTER_HIT_RADIUS;
  for (int i = 0; i < fig->n_points; i++)
    {
      double px, py;
      to_plot (&lo, fig->xy[2 * i], fig->xy[2 * i + 1], &px, &py);
      double d2 = (px - x) * (px - x) + (py - y) * (py - y);
      if (d2 <= best_d2)
        best = i, best_d2 = d2;
    }
  if (best < 0)
    return FALSE;
  *index = best;
  return TRUE;
}

void
ar_scatter_get_point_position (const ArScatterFigure *fig, double width, double height, int index,
                               double *x, double *y)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  to_plot (&lo, fig->xy[2 * index], fig->xy[2 * index + 1], x, y);
}
