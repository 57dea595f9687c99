/* compare-render.c — the comparison figure: heatmap panels in a row, an optional chart below. */
#include "compare-render.h"

#include <math.h>

#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define NOTE_GAP 6.0

typedef struct
{
  double head_h;     /* title block (with margin) and note */
  double x[3], w[3]; /* heatmap panels A, B, diff */
  double panels_y, panels_h;
  double chart_y, chart_w, chart_h;
} Layout;

static const ArHeatmapFigure *
panel_figure (const ArCompareFigure *fig, int i)
{
  return i == 0 ? fig->a : i == 1 ? fig->b : fig->diff;
}

static double
head_height (PangoContext *pc, const ArRenderStyle *style, const ArCompareFigure *fig)
{
  double h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (fig->note != NULL && *fig->note != '\0')
    {
      double note_h;
      ar_text_measure (pc, style, fig->note, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, NULL, &note_h);
      h += note_h + NOTE_GAP;
    }
  return h > 0 ? MARGIN + h : 0;
}

static void
layout_for (Layout *lo, PangoContext *pc, const ArCompareFigure *fig, double width, double height)
{
  *lo = (Layout){ 0 };
  lo->head_h = head_height (pc, ar_render_style_or_default (fig->style), fig);
  double nat_w[3] = { 0 }, panels_nat_h = 0, total_w = 0, chart_nat_w = 0, chart_nat_h = 0;
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL)
      {
        double h;
        ar_heatmap_get_size (panel_figure (fig, i), &nat_w[i], &h);
        panels_nat_h = MAX (panels_nat_h, h);
        total_w += nat_w[i];
      }
  if (fig->chart != NULL)
    ar_line_get_size (fig->chart, &chart_nat_w, &chart_nat_h);
  double body_h = MAX (height - lo->head_h, 0);
  double share = panels_nat_h + chart_nat_h > 0 ? panels_nat_h / (panels_nat_h + chart_nat_h) : 1;
  lo->panels_y = lo->head_h;
  lo->panels_h = floor (body_h * share);
  lo->chart_y = lo->panels_y + lo->panels_h;
  lo->chart_h = fig->chart != NULL ? body_h - lo->panels_h : 0;
  /* The chart keeps its natural width (scaled with the figure) rather than stretching. */
  lo->chart_w = total_w > 0 ? MIN (width, floor (width * MAX (chart_nat_w / total_w, 0.5))) : width;
  double x = 0;
  for (int i = 0; i < 3; i++)
    {
      lo->x[i] = x;
      lo->w[i] = total_w > 0 ? floor (width * nat_w[i] / total_w) : 0;
      x += lo->w[i];
    }
}

static void
layout_only (Layout *lo, const ArCompareFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  layout_for (lo, pc, fig, width, height);
  g_object_unref (pc);
}

void
ar_compare_get_size (const ArCompareFigure *fig, double *width, double *height)
{
  PangoContext *pc = ar_text_context_new ();
  double head_h = head_height (pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  double total_w = 0, panels_h = 0, w, h;
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL)
      {
        ar_heatmap_get_size (panel_figure (fig, i), &w, &h);
        total_w += w;
        panels_h = MAX (panels_h, h);
      }
  double chart_h = 0;
  if (fig->chart != NULL)
    {
      ar_line_get_size (fig->chart, &w, &chart_h);
      total_w = MAX (total_w, w);
    }
  *width = ceil (total_w);
  *height = ceil (head_h + panels_h + chart_h);
}

void
ar_compare_render (cairo_t *cr, const ArCompareFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  layout_for (&lo, pc, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (fig->note != NULL && *fig->note != '\0')
    {
      PangoLayout *layout = ar_text_layout (pc, style, fig->note, AR_FONT_SUBTITLE,
                                            PANGO_WEIGHT_NORMAL, width - 2 * MARGIN);
      ar_render_set_rgb (cr, style->accent);
      ar_text_draw (cr, layout, MARGIN, lo.head_h - NOTE_GAP, 0, 1, 0);
      g_object_unref (layout);
    }
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL)
      {
        cairo_save (cr);
        cairo_translate (cr, lo.x[i], lo.panels_y);
        ar_heatmap_render (cr, panel_figure (fig, i), lo.w[i], lo.panels_h);
        cairo_restore (cr);
      }
  if (fig->chart != NULL)
    {
      cairo_save (cr);
      cairo_translate (cr, 0, lo.chart_y);
      ar_line_render (cr, fig->chart, lo.chart_w, lo.chart_h);
      cairo_restore (cr);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_compare_hit (const ArCompareFigure *fig, double width, double height, double x, double y,
                ArComparePanel *panel, int *row, int *col)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  if (fig->chart != NULL && y >= lo.chart_y)
    {
      *panel = AR_COMPARE_PANEL_CHART;
      return ar_line_hit (fig->chart, lo.chart_w, lo.chart_h, x, y - lo.chart_y, row, col);
    }
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL && x >= lo.x[i] && x < lo.x[i] + lo.w[i])
      {
        *panel = (ArComparePanel) i;
        return ar_heatmap_hit (panel_figure (fig, i), lo.w[i], lo.panels_h, x - lo.x[i],
                               y - lo.panels_y, row, col);
      }
  return FALSE;
}

void
ar_compare_get_panel_rect (const ArCompareFigure *fig, double width, double height,
                           ArComparePanel panel, double *x, double *y, double *panel_w,
                           double *panel_h)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  *x = *y = *panel_w = *panel_h = 0;
  if (panel == AR_COMPARE_PANEL_CHART)
    {
      if (fig->chart != NULL)
        *y = lo.chart_y, *panel_w = lo.chart_w, *panel_h = lo.chart_h;
      return;
    }
  if (panel_figure (fig, panel) == NULL)
    return;
  *x = lo.x[panel], *y = lo.panels_y, *panel_w = lo.w[panel], *panel_h = lo.panels_h;
}
