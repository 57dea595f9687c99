/* scatter-render.c — drawing and hit-testing of the scatter plot (see scatter-render.h). One
 * layout (scatter-layout.c) and one placement (scatter-placement.c) decide where every point and
 * label goes; drawing, hit-testing and the label and legend boxes all start from them. */
#include "scatter-render.h"

#include <math.h>

#include "colormap.h"
#include "render-text.h"
#include "scatter-layout-private.h"

#define MARGIN AR_FIGURE_MARGIN

static void
draw_panel_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                 const ArScatterLayout *lo, const ArScatterPanel *panel, const char *x_axis,
                 const char *y_axis, const char *title)
{
  cairo_set_line_width (cr, 1.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int axis = 0; axis < 2; axis++)
    {
      const ArTicks *ticks = axis == 0 ? &panel->ticks_x : &panel->ticks_y;
      for (int i = 0; i < ticks->n; i++)
        {
          double x, y;
          ar_scatter_to_plot (panel, axis == 0 ? ticks->values[i] : panel->lo_x,
                              axis == 0 ? panel->lo_y : ticks->values[i], &x, &y);
          ar_render_set_rgb (cr, style->grid);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, panel->py),
                cairo_line_to (cr, round (x) + 0.5, panel->py + panel->ph);
          else
            cairo_move_to (cr, panel->px, round (y) + 0.5),
                cairo_line_to (cr, panel->px + panel->pw, round (y) + 0.5);
          cairo_stroke (cr);
          ar_render_set_rgb (cr, style->rule);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, panel->py + panel->ph),
                cairo_rel_line_to (cr, 0, AR_SCATTER_TICK_LENGTH);
          else
            cairo_move_to (cr, panel->px, round (y) + 0.5),
                cairo_rel_line_to (cr, -AR_SCATTER_TICK_LENGTH, 0);
          cairo_stroke (cr);
          g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
          pango_layout_set_text (layout, text, -1);
          ar_render_set_rgb (cr, style->text);
          if (axis == 0)
            ar_text_draw (cr, layout, x,
                          panel->py + panel->ph + AR_SCATTER_TICK_LENGTH + AR_SCATTER_TICK_GAP, 0.5,
                          0, 0);
          else
            ar_text_draw (cr, layout, panel->px - AR_SCATTER_TICK_LENGTH - AR_SCATTER_TICK_GAP, y,
                          1, 0.5, 0);
        }
    }
  g_object_unref (layout);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, panel->px + 0.5, panel->py + 0.5, panel->pw - 1, panel->ph - 1);
  cairo_stroke (cr);

  ar_axis_names_draw (cr, pc, style, x_axis, y_axis, panel->px, panel->py, panel->pw, panel->ph,
                      panel->py + panel->ph + AR_SCATTER_TICK_LENGTH + AR_SCATTER_TICK_GAP
                          + lo->tick_h + AR_SCATTER_AXIS_GAP,
                      panel->px - ar_scatter_left_of_plot (lo, panel) + lo->axis_h / 2);
  if (title != NULL)
    {
      PangoLayout *t
          = ar_text_layout (pc, style, title, AR_FONT_AXIS, PANGO_WEIGHT_BOLD, panel->pw);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, t, panel->px, panel->py - AR_SCATTER_PANEL_TITLE_GAP, 0, 1, 0);
      g_object_unref (t);
    }
}

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
           const ArScatterLayout *lo)
{
  gboolean two = lo->n_panels > 1;
  draw_panel_axes (cr, pc, style, lo, &lo->panels[0], fig->x_axis, fig->y_axis,
                   two ? fig->panel_titles[0] : NULL);
  if (two)
    draw_panel_axes (cr, pc, style, lo, &lo->panels[1],
                     fig->x_axis2 != NULL ? fig->x_axis2 : fig->x_axis,
                     fig->y_axis2 != NULL ? fig->y_axis2 : fig->y_axis, fig->panel_titles[1]);
}

static int
group_of (const ArScatterFigure *fig, int i)
{
  return fig->groups != NULL ? fig->groups[i] : 0;
}

static void
draw_points (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const ArScatterPlacement *p)
{
  int n = fig->n_points;
  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  ar_render_set_rgb (cr, style->muted);
  for (int k = 0; k < p->n; k++)
    if (p->x[k] != p->cx[k] || p->y[k] != p->cy[k])
      {
        cairo_move_to (cr, p->cx[k], p->cy[k]);
        cairo_line_to (cr, p->x[k], p->y[k]);
        cairo_stroke (cr);
      }
  cairo_restore (cr);
  /* Dimmed points first, marked and highlighted points last, on top. */
  for (int pass = 3; pass >= 0; pass--)
    for (int k = 0; k < p->n; k++)
      {
        int i = k % n;
        gboolean dimmed = ar_scatter_is_dimmed (fig, i);
        if ((dimmed ? 3 : ar_scatter_label_priority (fig, i)) != pass || !isfinite (p->x[k])
            || !isfinite (p->y[k]))
          continue;
        gboolean on = i == fig->highlight_point, marked = pass == 1;
        double radius = on || marked ? AR_SCATTER_POINT_RADIUS + 1.5
                        : dimmed     ? AR_SCATTER_POINT_RADIUS - 1
                                     : AR_SCATTER_POINT_RADIUS;
        cairo_arc (cr, p->x[k], p->y[k], radius, 0, 2 * G_PI);
        if (dimmed)
          ar_render_set_rgb (cr, style->muted);
        else
          ar_render_set_color8 (cr, ar_palette_color (group_of (fig, i)));
        cairo_fill_preserve (cr);
        cairo_set_line_width (cr, on || marked ? 2.0 : 1.0);
        ar_render_set_rgb (cr, on ? style->accent : marked ? style->text : style->background);
        cairo_stroke (cr);
      }
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int k = 0; k < p->n; k++)
    if (p->labelled[k])
      {
        int i = k % n;
        pango_layout_set_text (layout, fig->labels[i], -1);
        ar_render_set_rgb (cr, i == fig->highlight_point       ? style->accent
                               : ar_scatter_is_dimmed (fig, i) ? style->muted
                                                               : style->text);
        ar_text_draw (cr, layout, p->box[4 * k], p->box[4 * k + 1], 0, 0, 0);
      }
  g_object_unref (layout);
}

typedef struct
{
  cairo_t *cr;
  PangoContext *pc;
  const ArRenderStyle *style;
} LegendDraw;

static void
draw_legend_entry (int g, const char *name, double cx, double cy, double name_x, double w,
                   gpointer data)
{
  LegendDraw *d = data;
  if (g >= 0)
    {
      cairo_arc (d->cr, cx, cy, AR_SCATTER_POINT_RADIUS, 0, 2 * G_PI);
      ar_render_set_color8 (d->cr, ar_palette_color (g));
      cairo_fill (d->cr);
    }
  PangoLayout *layout = ar_scatter_legend_entry (d->pc, d->style, name);
  if (g >= 0)
    pango_layout_set_width (layout, (int) ((w - 2 * AR_SCATTER_POINT_RADIUS - 5) * PANGO_SCALE));
  ar_render_set_rgb (d->cr, g >= 0 ? d->style->text : d->style->muted);
  ar_text_draw (d->cr, layout, name_x, cy, 0, 0.5, 0);
  g_object_unref (layout);
}

void
ar_scatter_render (cairo_t *cr, const ArScatterFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  ArScatterLayout lo;
  ar_scatter_layout (&lo, pc, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  const ArScatterPanel *first = &lo.panels[0];
  if (ar_scatter_has_data (fig) && first->pw > 0 && first->ph > 0)
    {
      ArScatterPlacement p;
      ar_scatter_place (&p, pc, fig, &lo);
      draw_axes (cr, pc, style, fig, &lo);
      draw_points (cr, pc, style, fig, &p);
      LegendDraw d = { cr, pc, style };
      ar_scatter_legend_walk (pc, style, fig, &lo, width - first->px - MARGIN, first->px,
                              first->py - lo.panel_title_h - lo.legend_h, draw_legend_entry, &d,
                              NULL);
      ar_scatter_placement_clear (&p);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_scatter_hit (const ArScatterFigure *fig, double width, double height, double x, double y,
                int *index)
{
  if (!ar_scatter_has_data (fig))
    return FALSE;
  ArScatterLayout lo;
  ArScatterPlacement p;
  ar_scatter_place_only (&lo, &p, fig, width, height);
  int best = -1;
  double best_d2 = AR_SCATTER_HIT_RADIUS * AR_SCATTER_HIT_RADIUS;
  for (int k = 0; k < p.n; k++)
    {
      double d2 = (p.x[k] - x) * (p.x[k] - x) + (p.y[k] - y) * (p.y[k] - y);
      if (d2 <= best_d2)
        best = k, best_d2 = d2;
    }
  ar_scatter_placement_clear (&p);
  if (best < 0)
    return FALSE;
  *index = best;
  return TRUE;
}

void
ar_scatter_get_point_position (const ArScatterFigure *fig, double width, double height, int index,
                               double *x, double *y)
{
  ArScatterLayout lo;
  ArScatterPlacement p;
  ar_scatter_place_only (&lo, &p, fig, width, height);
  *x = index >= 0 && index < p.n ? p.x[index] : NAN;
  *y = index >= 0 && index < p.n ? p.y[index] : NAN;
  ar_scatter_placement_clear (&p);
}

int
ar_scatter_get_label_boxes (const ArScatterFigure *fig, double width, double height, double *boxes,
                            int *indices)
{
  ArScatterLayout lo;
  ArScatterPlacement p;
  ar_scatter_place_only (&lo, &p, fig, width, height);
  int n = 0;
  for (int k = 0; k < p.n; k++)
    if (p.labelled[k])
      {
        if (boxes != NULL)
          for (int c = 0; c < 4; c++)
            boxes[4 * n + c] = p.box[4 * k + c];
        if (indices != NULL)
          indices[n] = k;
        n++;
      }
  ar_scatter_placement_clear (&p);
  return n;
}

typedef struct
{
  double *boxes;
  int *groups;
  int n;
  double row_h;
} LegendBoxes;

static void
collect_legend_box (int g, const char *name, double cx, double cy, double name_x, double w,
                    gpointer data)
{
  LegendBoxes *b = data;
  if (b->boxes != NULL)
    {
      double x0 = g >= 0 ? cx - AR_SCATTER_POINT_RADIUS : name_x;
      double *box = b->boxes + 4 * b->n;
      box[0] = x0, box[1] = cy - b->row_h / 2, box[2] = w, box[3] = b->row_h;
    }
  if (b->groups != NULL)
    b->groups[b->n] = g;
  b->n++;
}

int
ar_scatter_get_legend_boxes (const ArScatterFigure *fig, double width, double height, double *boxes,
                             int *groups, double *plot)
{
  ArScatterLayout lo;
  PangoContext *pc = ar_text_context_new ();
  ar_scatter_layout (&lo, pc, fig, width, height);
  const ArScatterPanel *first = &lo.panels[0];
  if (plot != NULL)
    plot[0] = first->px, plot[1] = first->py, plot[2] = first->pw, plot[3] = first->ph;
  LegendBoxes b = { boxes, groups, 0, lo.legend_row_h };
  ar_scatter_legend_walk (pc, ar_render_style_or_default (fig->style), fig, &lo,
                          width - first->px - MARGIN, first->px,
                          first->py - lo.panel_title_h - lo.legend_h, collect_legend_box, &b, NULL);
  g_object_unref (pc);
  return b.n;
}
