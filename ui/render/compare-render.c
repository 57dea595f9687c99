/* compare-render.c — the comparison figure: heatmap panels in a row with cells of one size, an
 * optional chart below. */
#include "compare-render.h"

#include <math.h>
#include <string.h>

#include "heatmap-layout-private.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define NOTE_GAP 6.0
/* Side by side the panels' cells must be at least this large, else (a figure one journal
 * column wide) the panels are stacked, each the figure's width. */
#define STACK_BELOW_CELL 8.0
/* The chart's share of the height, and what it yields to panels whose plots would be lower than
 * PANEL_MIN_PLOT. */
#define CHART_SHARE 0.45
#define CHART_SHARE_LEAN 0.25
#define PANEL_MIN_PLOT 150.0

typedef struct
{
  double head_h;     /* title block (with margin) and note */
  gboolean stacked;  /* panels one under the other instead of side by side */
  double x[3], w[3]; /* heatmap panels A, B, diff */
  double y[3], h[3];
  double title_h[3]; /* each panel's wrapped title block (side by side: the tallest of them) */
  double chart_y, chart_w, chart_h;
} Layout;

/* What a panel needs besides its cells: widths left and right of them, heights above and below
 * (with its column labels turned), of which TITLE_H is its title block. */
typedef struct
{
  double dec_w, dec_h, title_h;
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

/* The panels' needs (zero rows and columns for an absent panel), with the widths of the tick
 * labels drawn at cells of CELL (0: of all labels). */
static void
panel_needs (PangoContext *pc, const ArCompareFigure *fig, double cell, PanelNeeds needs[3])
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
      if (cell > 0)
        ar_heatmap_measure_shown (&lo, pc, &whole, cell);
      needs[i].dec_w = ar_heatmap_left_extent (&lo) + ar_heatmap_right_extent (&lo);
      needs[i].dec_h = ar_heatmap_top_extent (&lo) + ar_heatmap_bottom_extent (&lo, TRUE);
      needs[i].title_h = lo.title_h;
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

/* The panels' widths W [3] with cells of CELL in a figure WIDTH wide: stacked each the figure's
 * width; side by side their cells' and decorations' width, and what is left of the figure's width
 * shared among them (a panel centres its cells, so their cells stay alike; the titles get the
 * room to wrap in). */
static void
panel_widths (const PanelNeeds needs[3], double cell, double width, gboolean stacked, double w[3])
{
  double total = 0;
  int n = 0;
  for (int i = 0; i < 3; i++)
    {
      w[i] = needs[i].cols > 0 ? (stacked ? width : floor (needs[i].dec_w + needs[i].cols * cell))
                               : 0;
      total += w[i];
      n += needs[i].cols > 0;
    }
  if (stacked || n == 0 || total >= width)
    return;
  double extra = floor ((width - total) / n);
  for (int i = 0; i < 3; i++)
    if (needs[i].cols > 0)
      w[i] += extra;
}

/* The panels' cells and title blocks: NEEDS with each panel's title wrapped to the width its
 * cells leave it (side by side: the tallest title for all, so that their cells line up), as
 * ADJUSTED, and the cell those leave in WIDTH × HEIGHT. A wrapped title takes height from the
 * cells, which makes the panels narrower and may wrap a title further: repeated until the
 * titles hold. */
static double
fit_titles (PangoContext *pc, const ArCompareFigure *fig, const PanelNeeds needs[3], double width,
            double height, gboolean stacked, PanelNeeds adjusted[3], double title_h[3])
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  double cell = 0;
  for (int i = 0; i < 3; i++)
    adjusted[i] = needs[i], title_h[i] = needs[i].title_h;
  for (int round = 0; round < 4; round++)
    {
      cell = cell_for_size (adjusted, width, height, stacked);
      double wrapped[3] = { 0 }, tallest = 0, w[3];
      panel_widths (adjusted, cell, width, stacked, w);
      for (int i = 0; i < 3; i++)
        if (needs[i].cols > 0)
          {
            const ArHeatmapFigure *p = panel_figure (fig, i);
            wrapped[i] = ar_title_block_height_wrapped (pc, p->style != NULL ? p->style : style,
                                                        p->title, p->subtitle, w[i]);
            tallest = MAX (tallest, wrapped[i]);
          }
      gboolean changed = FALSE;
      for (int i = 0; i < 3; i++)
        {
          double h = stacked ? wrapped[i] : needs[i].cols > 0 ? tallest : 0;
          if (h > title_h[i] + 0.01)
            {
              title_h[i] = h;
              adjusted[i].dec_h = needs[i].dec_h - needs[i].title_h + h;
              changed = TRUE;
            }
        }
      if (!changed)
        break;
    }
  return cell_for_size (adjusted, width, height, stacked);
}

/* Side by side or stacked (*STACKED), with the titles wrapped as each arrangement wraps them
 * (fit_titles): stacked when side by side the cells would be smaller than STACK_BELOW_CELL and
 * stacked they are larger. Returns the cell, with ADJUSTED and TITLE_H as fit_titles. */
static double
fit_arrangement (PangoContext *pc, const ArCompareFigure *fig, const PanelNeeds needs[3],
                 double width, double height, gboolean *stacked, PanelNeeds adjusted[3],
                 double title_h[3])
{
  double side = fit_titles (pc, fig, needs, width, height, FALSE, adjusted, title_h);
  *stacked = FALSE;
  if (side >= STACK_BELOW_CELL)
    return side;
  PanelNeeds one[3];
  double one_h[3];
  double column = fit_titles (pc, fig, needs, width, height, TRUE, one, one_h);
  if (column <= side)
    return side;
  *stacked = TRUE;
  memcpy (adjusted, one, sizeof one);
  memcpy (title_h, one_h, sizeof one_h);
  return column;
}

/* The panels' needs in WIDTH × HEIGHT with the tick labels they will draw: of long texts only
 * every k-th label shows, and the others' widths would take the cells' room. */
static void
drawn_needs (PangoContext *pc, const ArCompareFigure *fig, double width, double height,
             PanelNeeds needs[3])
{
  panel_needs (pc, fig, 0, needs);
  double cell = cell_for_size (needs, width, height, stacks_at (needs, width, height));
  if (cell > 0)
    panel_needs (pc, fig, cell, needs);
}

/* The rows of the panel with the most (they share one cell size). */
static int
panel_rows (const PanelNeeds needs[3])
{
  return MAX (needs[0].rows, MAX (needs[1].rows, needs[2].rows));
}

/* The chart's height CHART_W wide in a body BODY_H tall: its own, at most SHARE of the body
 * unless that leaves its plot lower than its least. */
static double
chart_height (const ArCompareFigure *fig, double chart_w, double body_h, double share)
{
  if (fig->chart == NULL)
    return 0;
  double natural = ar_line_get_height_for_width (fig->chart, chart_w);
  double least = ar_line_get_min_height_for_width (fig->chart, chart_w);
  return MIN (natural, MAX (body_h * share, least));
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
  double body_h = MAX (height - lo->head_h, 0);
  lo->chart_w = chart_width (fig, width);
  PanelNeeds measured[3], wrapped[3];
  const PanelNeeds *needs = measured;
  double panels_y = lo->head_h, panels_h = 0, cell = 0;
  /* The chart takes up to CHART_SHARE of the height; when the panels' cells would then be too
   * small to see (two long texts on a page), it yields down to CHART_SHARE_LEAN. */
  for (int lean = 0; lean < 2; lean++)
    {
      lo->chart_h = chart_height (fig, lo->chart_w, body_h, lean ? CHART_SHARE_LEAN : CHART_SHARE);
      panels_h = body_h - lo->chart_h;
      drawn_needs (pc, fig, width, panels_h, measured);
      cell = fit_arrangement (pc, fig, measured, width, panels_h, &lo->stacked, wrapped,
                              lo->title_h);
      if (fig->chart == NULL || cell * panel_rows (measured) >= PANEL_MIN_PLOT)
        break;
    }
  lo->chart_y = panels_y + panels_h;
  needs = wrapped;
  if (lo->stacked)
    {
      /* One column of panels, each the figure's width, with cells of one size. */
      panel_widths (needs, cell, width, TRUE, lo->w);
      double y = panels_y;
      for (int i = 0; i < 3; i++)
        {
          lo->h[i] = needs[i].rows > 0 ? ceil (needs[i].dec_h + needs[i].rows * cell) : 0;
          lo->y[i] = y;
          y += lo->h[i];
          lo->x[i] = 0;
        }
      return;
    }
  /* One cell size for every panel: the width's, unless the height allows less. */
  panel_widths (needs, cell, width, FALSE, lo->w);
  double total = lo->w[0] + lo->w[1] + lo->w[2];
  double x = MAX (floor ((width - total) / 2), 0);
  for (int i = 0; i < 3; i++)
    {
      lo->x[i] = x;
      lo->y[i] = panels_y;
      lo->h[i] = panels_h;
      x += lo->w[i];
    }
}

/* Panel I as LO draws it: with its title block's height. */
static ArHeatmapFigure
placed_panel (const ArCompareFigure *fig, const Layout *lo, int i)
{
  ArHeatmapFigure panel = *panel_figure (fig, i);
  panel.title_height = lo->title_h[i];
  return panel;
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
  PanelNeeds needs[3], wrapped[3];
  drawn_needs (pc, fig, width, INFINITY, needs);
  double chart_h = fig->chart != NULL
                       ? ar_line_get_height_for_width (fig->chart, chart_width (fig, width))
                       : 0;
  gboolean stacked;
  double title_h[3];
  double cell = fit_arrangement (pc, fig, needs, width, INFINITY, &stacked, wrapped, title_h);
  g_object_unref (pc);
  return ceil (head_h + panels_height (wrapped, cell, stacked) + chart_h);
}

void
ar_compare_get_size (const ArCompareFigure *fig, double *width, double *height)
{
  PangoContext *pc = ar_text_context_new ();
  PanelNeeds needs[3];
  panel_needs (pc, fig, 0, needs);
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
        ArHeatmapFigure panel = placed_panel (fig, &lo, i);
        cairo_save (cr);
        cairo_translate (cr, lo.x[i], lo.y[i]);
        ar_heatmap_render (cr, &panel, lo.w[i], lo.h[i]);
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
        ArHeatmapFigure placed = placed_panel (fig, &lo, i);
        return ar_heatmap_hit (&placed, lo.w[i], lo.h[i], x - lo.x[i], y - lo.y[i], row, col);
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
