/* lines-render.c — layout, drawing and hit-testing of the line chart. */
#include "lines-render.h"

#include <math.h>

#include "axis-ticks.h"
#include "colormap.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define TICK_LENGTH 4.0
#define TICK_GAP 4.0
#define AXIS_GAP 8.0
#define LEGEND_GAP 16.0
#define LEGEND_SWATCH 18.0
#define MARKER 3.5
#define HIT_RADIUS 8.0
#define NATURAL_W 420.0
#define NATURAL_H 220.0
/* Beside a plot narrower than this the legend goes under it. */
#define LEGEND_BESIDE_MIN_PLOT 200.0
/* The lowest plot a chart squeezed into a page keeps (ar_line_get_min_height_for_width). */
#define MIN_PLOT_H 90.0

typedef struct
{
  double title_h, tick_h, tick_w, axis_h, legend_w, legend_line_h;
  gboolean legend_below; /* under the axis name, not beside the plot (a narrow figure) */
  double lo, hi;
  ArTicks ticks;
  double px, py, pw, ph;
} Layout;

void
ar_line_figure_init (ArLineFigure *fig)
{
  *fig = (ArLineFigure){
    .x_axis = "Layer",
    .y_axis = "Cosine similarity",
    .ymin = NAN,
    .ymax = NAN,
    .highlight_series = -1,
  };
}

static gboolean
has_data (const ArLineFigure *fig)
{
  return fig->values != NULL && fig->n_series > 0 && fig->n_x > 0;
}

static void
y_range (const ArLineFigure *fig, double *lo, double *hi)
{
  if (isfinite (fig->ymin) && isfinite (fig->ymax) && fig->ymax > fig->ymin)
    {
      *lo = fig->ymin, *hi = fig->ymax;
      return;
    }
  double a = INFINITY, b = -INFINITY;
  for (int i = 0; i < fig->n_series * fig->n_x; i++)
    if (isfinite (fig->values[i]))
      a = MIN (a, fig->values[i]), b = MAX (b, fig->values[i]);
  if (!isfinite (a))
    a = 0, b = 1;
  ar_ticks_nice_range (&a, &b, 5);
  *lo = a, *hi = b;
}

static char *
x_label (const ArLineFigure *fig, int i)
{
  return fig->x_labels != NULL ? g_strdup (fig->x_labels[i]) : g_strdup_printf ("%d", i);
}

static void
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArLineFigure *fig)
{
  *lo = (Layout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  y_range (fig, &lo->lo, &lo->hi);
  ar_ticks_compute (&lo->ticks, lo->lo, lo->hi, 5);
  double w;
  for (int i = 0; i < lo->ticks.n; i++)
    {
      g_autofree char *text = ar_format_number (lo->ticks.values[i], lo->ticks.decimals);
      ar_text_measure (pc, style, text, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w, NULL);
      lo->tick_w = MAX (lo->tick_w, ceil (w));
    }
  ar_text_measure (pc, style, "0", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->tick_h);
  ar_text_measure (pc, style, "Ag", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->axis_h);
  if (fig->series_names != NULL)
    for (int s = 0; s < fig->n_series; s++)
      {
        double h;
        ar_text_measure (pc, style, fig->series_names[s], AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w,
                         &h);
        lo->legend_w = MAX (lo->legend_w, ceil (MIN (w, 160.0)) + LEGEND_SWATCH + 6);
        lo->legend_line_h = MAX (lo->legend_line_h, h + 3);
      }
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + lo->axis_h + AXIS_GAP + lo->tick_w + TICK_GAP + TICK_LENGTH;
}

static double
right_extent (const Layout *lo)
{
  return MARGIN + (lo->legend_w > 0 && !lo->legend_below ? LEGEND_GAP + lo->legend_w : 0);
}

static double
legend_height (const Layout *lo, const ArLineFigure *fig)
{
  return fig->series_names != NULL ? fig->n_series * lo->legend_line_h : 0;
}

/* Below the x axis: its ticks and name, and the legend when it is below. */
static double
bottom_extent (const Layout *lo, const ArLineFigure *fig)
{
  double legend = lo->legend_below ? LEGEND_GAP + legend_height (lo, fig) : 0;
  return TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP + lo->axis_h + legend + MARGIN;
}

/* Puts the legend under the plot when beside it the plot of a figure WIDTH wide would be
 * narrower than LEGEND_BESIDE_MIN_PLOT (a journal column): the legend's names are not cut and
 * the plot keeps its width. */
static void
place_legend (Layout *lo, double width)
{
  lo->legend_below = FALSE;
  if (lo->legend_w > 0 && width - left_extent (lo) - right_extent (lo) < LEGEND_BESIDE_MIN_PLOT)
    lo->legend_below = TRUE;
}

static void
fit (Layout *lo, const ArLineFigure *fig, double width, double height)
{
  place_legend (lo, width);
  lo->px = round (left_extent (lo));
  lo->py = round (MARGIN + lo->title_h);
  lo->pw = MAX (floor (width - lo->px - right_extent (lo)), 0);
  lo->ph = MAX (floor (height - lo->py - bottom_extent (lo, fig)), 0);
}

/* Markers sit in the middle of n_x equal slots so the first and last do not touch the frame. */
static double
x_at (const Layout *lo, const ArLineFigure *fig, int i)
{
  return lo->px + (i + 0.5) * lo->pw / fig->n_x;
}

static double
y_at (const Layout *lo, double v)
{
  return lo->py + lo->ph - (v - lo->lo) / (lo->hi - lo->lo) * lo->ph;
}

/* The title block's height wrapped to a figure WIDTH wide. */
static void
wrap_title (Layout *lo, PangoContext *pc, const ArLineFigure *fig, double width)
{
  lo->title_h = ar_title_block_height_wrapped (pc, ar_render_style_or_default (fig->style),
                                               fig->title, fig->subtitle, width);
}

static void
layout_only (Layout *lo, const ArLineFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  measure (lo, pc, ar_render_style_or_default (fig->style), fig);
  wrap_title (lo, pc, fig, width);
  fit (lo, fig, width, height);
  g_object_unref (pc);
}

void
ar_line_get_size (const ArLineFigure *fig, double *width, double *height)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  double legend_h = legend_height (&lo, fig);
  *width = ceil (left_extent (&lo) + NATURAL_W + right_extent (&lo));
  wrap_title (&lo, pc, fig, *width);
  g_object_unref (pc);
  *height = ceil (MARGIN + lo.title_h + MAX (NATURAL_H, legend_h) + bottom_extent (&lo, fig));
}

double
ar_line_get_height_for_width (const ArLineFigure *fig, double width)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  wrap_title (&lo, pc, fig, width);
  g_object_unref (pc);
  /* The plot keeps its natural proportions. */
  place_legend (&lo, width);
  double pw = MAX (width - left_extent (&lo) - right_extent (&lo), 0);
  double beside = lo.legend_below ? 0 : legend_height (&lo, fig);
  return ceil (MARGIN + lo.title_h + MAX (pw * NATURAL_H / NATURAL_W, beside)
               + bottom_extent (&lo, fig));
}

double
ar_line_get_min_height_for_width (const ArLineFigure *fig, double width)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  wrap_title (&lo, pc, fig, width);
  g_object_unref (pc);
  place_legend (&lo, width);
  double beside = lo.legend_below ? 0 : legend_height (&lo, fig);
  return ceil (MARGIN + lo.title_h + MAX (MIN_PLOT_H, beside) + bottom_extent (&lo, fig));
}

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArLineFigure *fig,
           const Layout *lo)
{
  cairo_set_line_width (cr, 1.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int i = 0; i < lo->ticks.n; i++)
    {
      double y = round (y_at (lo, lo->ticks.values[i])) + 0.5;
      ar_render_set_rgb (cr, style->grid);
      cairo_move_to (cr, lo->px, y);
      cairo_line_to (cr, lo->px + lo->pw, y);
      cairo_stroke (cr);
      g_autofree char *text = ar_format_number (lo->ticks.values[i], lo->ticks.decimals);
      pango_layout_set_text (layout, text, -1);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, lo->px - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
    }
  /* Label every k-th x position so that the labels do not collide. */
  int step = MAX (1, (int) ceil (24.0 / MAX (lo->pw / fig->n_x, 1e-6)));
  for (int i = 0; i < fig->n_x; i += step)
    {
      double x = round (x_at (lo, fig, i)) + 0.5;
      ar_render_set_rgb (cr, style->rule);
      cairo_move_to (cr, x, lo->py + lo->ph);
      cairo_rel_line_to (cr, 0, TICK_LENGTH);
      cairo_stroke (cr);
      g_autofree char *text = x_label (fig, i);
      pango_layout_set_text (layout, text, -1);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, x, lo->py + lo->ph + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
    }
  g_object_unref (layout);
  ar_render_set_rgb (cr, style->rule);
  cairo_move_to (cr, lo->px + 0.5, lo->py);
  cairo_line_to (cr, lo->px + 0.5, lo->py + lo->ph - 0.5);
  cairo_line_to (cr, lo->px + lo->pw, lo->py + lo->ph - 0.5);
  cairo_stroke (cr);

  ar_axis_names_draw (cr, pc, style, fig->x_axis, fig->y_axis, lo->px, lo->py, lo->pw, lo->ph,
                      lo->py + lo->ph + TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP,
                      MARGIN + lo->axis_h / 2);
}

static void
draw_series (cairo_t *cr, const ArRenderStyle *style, const ArLineFigure *fig, const Layout *lo,
             int s)
{
  const double *v = fig->values + (gsize) s * fig->n_x; /* [n_x] */
  gboolean on = s == fig->highlight_series;
  ar_render_set_color8 (cr, ar_palette_color (s));
  cairo_set_line_width (cr, on ? 3.0 : 1.8);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  gboolean pen_down = FALSE;
  for (int i = 0; i < fig->n_x; i++)
    {
      if (!isfinite (v[i]))
        {
          pen_down = FALSE;
          continue;
        }
      if (pen_down)
        cairo_line_to (cr, x_at (lo, fig, i), y_at (lo, v[i]));
      else
        cairo_move_to (cr, x_at (lo, fig, i), y_at (lo, v[i]));
      pen_down = TRUE;
    }
  cairo_stroke (cr);
  for (int i = 0; i < fig->n_x; i++)
    if (isfinite (v[i]))
      {
        cairo_arc (cr, x_at (lo, fig, i), y_at (lo, v[i]), on ? MARKER + 1 : MARKER, 0, 2 * G_PI);
        ar_render_set_color8 (cr, ar_palette_color (s));
        cairo_fill_preserve (cr);
        cairo_set_line_width (cr, 1.0);
        ar_render_set_rgb (cr, style->background);
        cairo_stroke (cr);
      }
}

static void
draw_legend (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArLineFigure *fig,
             const Layout *lo)
{
  if (fig->series_names == NULL)
    return;
  double x = lo->legend_below ? lo->px : lo->px + lo->pw + LEGEND_GAP;
  double y = lo->legend_below ? lo->py + lo->ph + TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP
                                    + lo->axis_h + LEGEND_GAP
                              : lo->py;
  for (int s = 0; s < fig->n_series; s++)
    {
      double cy = y + (s + 0.5) * lo->legend_line_h;
      ar_render_set_color8 (cr, ar_palette_color (s));
      cairo_set_line_width (cr, 1.8);
      cairo_move_to (cr, x, cy);
      cairo_rel_line_to (cr, LEGEND_SWATCH, 0);
      cairo_stroke (cr);
      cairo_arc (cr, x + LEGEND_SWATCH / 2, cy, MARKER, 0, 2 * G_PI);
      cairo_fill (cr);
      PangoLayout *layout = ar_text_layout (
          pc, style, fig->series_names[s], AR_FONT_SMALL,
          s == fig->highlight_series ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL, 160.0);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, x + LEGEND_SWATCH + 6, cy, 0, 0.5, 0);
      g_object_unref (layout);
    }
}

void
ar_line_render (cairo_t *cr, const ArLineFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  measure (&lo, pc, style, fig);
  wrap_title (&lo, pc, fig, width);
  fit (&lo, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig) && lo.pw > 0 && lo.ph > 0)
    {
      draw_axes (cr, pc, style, fig, &lo);
      for (int s = 0; s < fig->n_series; s++)
        if (s != fig->highlight_series)
          draw_series (cr, style, fig, &lo, s);
      if (fig->highlight_series >= 0 && fig->highlight_series < fig->n_series)
        draw_series (cr, style, fig, &lo, fig->highlight_series);
      draw_legend (cr, pc, style, fig, &lo);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_line_hit (const ArLineFigure *fig, double width, double height, double x, double y, int *series,
             int *x_index)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_only (&lo, fig, width, height);
  double best = HIT_RADIUS * HIT_RADIUS;
  gboolean found = FALSE;
  for (int s = 0; s < fig->n_series; s++)
    for (int i = 0; i < fig->n_x; i++)
      {
        double v = fig->values[(gsize) s * fig->n_x + i];
        if (!isfinite (v))
          continue;
        double dx = x_at (&lo, fig, i) - x, dy = y_at (&lo, v) - y;
        if (dx * dx + dy * dy <= best)
          best = dx * dx + dy * dy, *series = s, *x_index = i, found = TRUE;
      }
  return found;
}

void
ar_line_get_point_position (const ArLineFigure *fig, double width, double height, int series,
                            int x_index, double *x, double *y)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  *x = x_at (&lo, fig, x_index);
  *y = y_at (&lo, fig->values[(gsize) series * fig->n_x + x_index]);
}
