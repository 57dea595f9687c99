/* compare-render.c — the comparison figure: heatmap panels in a row with cells of one size, an
 * optional chart below. */
#include "compare-render.h"

#include <math.h>

#include "heatmap-layout-private.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define NOTE_GAP 6.0
/* Side by side the panels' cells must be at least this large, else (a figure one journal
 * column wide) the panels are stacked, each the figure's width. */
#define STACK_BELOW_CELL 8.0

typedef struct
{
  double head_h;     /* title block (with margin) and note */
  gboolean stacked;  /* panels one under the other instead of side by side */
  double x[3], w[3]; /* heatmap panels A, B, diff */
  double y[3], h[3];
  double chart_y, chart_w, chart_h;
} Layout;

/* What a panel needs besides its cells: widths left and right of them, heights above and below
 * (with its column labels turned). */
typedef struct
{
  double dec_w, dec_h;
  int rows, cols;
} PanelNeeds;

static const ArHeatmapFigure *
panel_figure (const ArCompareFigure *fig, int i)
{
  return i == 0 ? fig->a : i == 1 ? fig->b : fig->diff;
}

/* The note under the title, wrapped to a figure WIDTH wide. */
static PangoLayout *
note_layout (PangoContext *pc, const ArRenderStyle *style, const ArCompareFigure *fig, double width)
{
  PangoLayout *layout
      = ar_text_layout (pc, style, fig->note, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, 0);
  pango_layout_set_width (layout, (int) (MAX (width - 2 * MARGIN, 1) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  return layout;
}

/* The title block and note of a figure WIDTH wide, wrapped. */
static double
head_height (PangoContext *pc, const ArRenderStyle *style, const ArCompareFigure *fig, double width)
{
  double h = ar_title_block_height_wrapped (pc, style, fig->title, fig->subtitle, width);
  if (fig->note != NULL && *fig->note != '\0')
    {
      double note_h;
      PangoLayout *layout = note_layout (pc, style, fig, width);
      ar_text_extent (layout, NULL, &note_h);
      g_object_unref (layout);
      h += note_h + NOTE_GAP;
    }
  return h > 0 ? MARGIN + h : 0;
}

/* The panels' needs (zero rows and columns for an absent panel). */
static void
panel_needs (PangoContext *pc, const ArCompareFigure *fig, PanelNeeds needs[3])
{
  for (int i = 0; i < 3; i++)
    {
      const ArHeatmapFigure *p = panel_figure (fig, i);
      needs[i] = (PanelNeeds){ 0 };
      if (p == NULL || !ar_heatmap_has_data (p))
        continue;
      ArHeatmapFigure whole = *p;
      whole.view_rows = whole.view_cols = 0;
      ArHeatmapLayout lo;
      ar_heatmap_measure (&lo, pc, &whole);
      needs[i].dec_w = ar_heatmap_left_extent (&lo) + ar_heatmap_right_extent (&lo);
      needs[i].dec_h = ar_heatmap_top_extent (&lo) + ar_heatmap_bottom_extent (&lo, TRUE);
      needs[i].rows = p->n_rows;
      needs[i].cols = p->n_cols;
    }
}

/* The common cell size when the panels share WIDTH. */
static double
cell_for_width (const PanelNeeds needs[3], double width)
{
  double dec = 0;
  int cols = 0;
  for (int i = 0; i < 3; i++)
    dec += needs[i].dec_w, cols += needs[i].cols;
  return cols > 0 ? MAX ((width - dec) / cols, 0) : 0;
}

/* The common cell size when each panel has WIDTH to itself (panels stacked). */
static double
stacked_cell_for_width (const PanelNeeds needs[3], double width)
{
  double cell = INFINITY;
  for (int i = 0; i < 3; i++)
    if (needs[i].cols > 0)
      cell = MIN (cell, (width - needs[i].dec_w) / needs[i].cols);
  return isfinite (cell) ? MAX (cell, 0) : 0;
}

/* The cells side by side (or STACKED) when the panels have WIDTH and HEIGHT. */
static double
cell_for_size (const PanelNeeds needs[3], double width, double height, gboolean stacked)
{
  double cell = stacked ? stacked_cell_for_width (needs, width) : cell_for_width (needs, width);
  double dec_h = 0;
  int rows = 0;
  for (int i = 0; i < 3; i++)
    if (needs[i].rows > 0)
      {
        if (stacked)
          dec_h += needs[i].dec_h, rows += needs[i].rows;
        else
          cell = MIN (cell, MAX ((height - needs[i].dec_h) / needs[i].rows, 0));
      }
  if (stacked && rows > 0)
    cell = MIN (cell, MAX ((height - dec_h) / rows, 0));
  return cell;
}

/* Whether the panels are stacked in WIDTH × HEIGHT (HEIGHT infinite: as tall as they want): side
 * by side their cells would be smaller than STACK_BELOW_CELL, and stacked they are larger. */
static gboolean
stacks_at (const PanelNeeds needs[3], double width, double height)
{
  double side = cell_for_size (needs, width, height, FALSE);
  return side < STACK_BELOW_CELL && cell_for_size (needs, width, height, TRUE) > side;
}

/* The height of the panels with cells of CELL, side by side or STACKED. */
static double
panels_height (const PanelNeeds needs[3], double cell, gboolean stacked)
{
  double h = 0;
  for (int i = 0; i < 3; i++)
    if (needs[i].rows > 0)
      h = stacked ? h + ceil (needs[i].dec_h + needs[i].rows * cell)
                  : MAX (h, needs[i].dec_h + needs[i].rows * cell);
  return ceil (h);
}

static double
chart_width (const ArCompareFigure *fig, double width)
{
  double w = 0, h;
  if (fig->chart != NULL)
    ar_line_get_size (fig->chart, &w, &h);
  return MIN (width, MAX (w, width / 2));
}

static void
layout_for (Layout *lo, PangoContext *pc, const ArCompareFigure *fig, double width, double height)
{
  *lo = (Layout){ 0 };
  lo->head_h = head_height (pc, ar_render_style_or_default (fig->style), fig, width);
  PanelNeeds needs[3];
  panel_needs (pc, fig, needs);
  double body_h = MAX (height - lo->head_h, 0);
  lo->chart_w = chart_width (fig, width);
  double chart_h = fig->chart != NULL ? ar_line_get_height_for_width (fig->chart, lo->chart_w) : 0;
  lo->chart_h = MIN (chart_h, body_h * 0.45);
  double panels_y = lo->head_h, panels_h = body_h - lo->chart_h;
  lo->chart_y = panels_y + panels_h;
  lo->stacked = stacks_at (needs, width, panels_h);
  if (lo->stacked)
    {
      /* One column of panels, each the figure's width, with cells of one size. */
      double cell = cell_for_size (needs, width, panels_h, TRUE);
      double widest = 0, y = panels_y;
      for (int i = 0; i < 3; i++)
        {
          lo->w[i] = needs[i].cols > 0 ? floor (needs[i].dec_w + needs[i].cols * cell) : 0;
          lo->h[i] = needs[i].rows > 0 ? ceil (needs[i].dec_h + needs[i].rows * cell) : 0;
          lo->y[i] = y;
          y += lo->h[i];
          widest = MAX (widest, lo->w[i]);
        }
      for (int i = 0; i < 3; i++)
        lo->x[i] = MAX (floor ((width - widest) / 2), 0);
      return;
    }
  /* One cell size for every panel: the width's, unless the height allows less. */
  double cell = cell_for_size (needs, width, panels_h, FALSE);
  double total = 0;
  for (int i = 0; i < 3; i++)
    {
      lo->w[i] = needs[i].cols > 0 ? floor (needs[i].dec_w + needs[i].cols * cell) : 0;
      total += lo->w[i];
    }
  double x = MAX (floor ((width - total) / 2), 0);
  for (int i = 0; i < 3; i++)
    {
      lo->x[i] = x;
      lo->y[i] = panels_y;
      lo->h[i] = panels_h;
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

double
ar_compare_get_height_for_width (const ArCompareFigure *fig, double width)
{
  PangoContext *pc = ar_text_context_new ();
  double head_h = head_height (pc, ar_render_style_or_default (fig->style), fig, width);
  PanelNeeds needs[3];
  panel_needs (pc, fig, needs);
  g_object_unref (pc);
  double chart_h = fig->chart != NULL
                       ? ar_line_get_height_for_width (fig->chart, chart_width (fig, width))
                       : 0;
  gboolean stacked = stacks_at (needs, width, INFINITY);
  double cell = stacked ? stacked_cell_for_width (needs, width) : cell_for_width (needs, width);
  return ceil (head_h + panels_height (needs, cell, stacked) + chart_h);
}

void
ar_compare_get_size (const ArCompareFigure *fig, double *width, double *height)
{
  PangoContext *pc = ar_text_context_new ();
  PanelNeeds needs[3];
  panel_needs (pc, fig, needs);
  g_object_unref (pc);
  /* The natural cell of the largest panel, for all of them. */
  double cell = 64;
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL && needs[i].rows > 0)
      cell = MIN (cell, ar_heatmap_natural_cell (panel_figure (fig, i)));
  double total_w = 0, w = 0, h;
  for (int i = 0; i < 3; i++)
    total_w += needs[i].cols > 0 ? floor (needs[i].dec_w + needs[i].cols * cell) : 0;
  if (fig->chart != NULL)
    {
      ar_line_get_size (fig->chart, &w, &h);
      total_w = MAX (total_w, w);
    }
  *width = ceil (total_w);
  *height = ar_compare_get_height_for_width (fig, *width);
}

void
ar_compare_render (cairo_t *cr, const ArCompareFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  layout_for (&lo, pc, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (fig->note != NULL && *fig->note != '\0')
    {
      PangoLayout *layout = note_layout (pc, style, fig, width);
      ar_render_set_rgb (cr, style->muted);
      ar_text_draw (cr, layout, MARGIN, lo.head_h - NOTE_GAP, 0, 1, 0);
      g_object_unref (layout);
    }
  for (int i = 0; i < 3; i++)
    if (panel_figure (fig, i) != NULL && lo.w[i] > 0)
      {
        cairo_save (cr);
        cairo_translate (cr, lo.x[i], lo.y[i]);
        ar_heatmap_render (cr, panel_figure (fig, i), lo.w[i], lo.h[i]);
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
    if (panel_figure (fig, i) != NULL && x >= lo.x[i] && x < lo.x[i] + lo.w[i] && y >= lo.y[i]
        && y < lo.y[i] + lo.h[i])
      {
        *panel = (ArComparePanel) i;
        return ar_heatmap_hit (panel_figure (fig, i), lo.w[i], lo.h[i], x - lo.x[i], y - lo.y[i],
                               row, col);
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
  *x = lo.x[panel], *y = lo.y[panel], *panel_w = lo.w[panel], *panel_h = lo.h[panel];
}
