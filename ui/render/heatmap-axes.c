/* heatmap-axes.c — a heatmap's tick labels in its three modes (thinned, all, words), the word
 * brackets, and the axis names (see heatmap-render.h). */
#include <math.h>
#include <stdlib.h>

#include "heatmap-layout-private.h"
#include "render-text.h"

#define TICK_GAP AR_HEATMAP_TICK_GAP
#define AXIS_GAP AR_HEATMAP_AXIS_GAP
/* The bracket under a word of several tokens: its distance from the cells and its ends. */
#define BRACKET_OFFSET 2.0
#define BRACKET_END 2.5

/* One tick label, bold in the accent colour when HIGHLIGHTED. */
static void
draw_tick_label (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                 const ArHeatmapLayout *lo, const char *text, gboolean highlighted, double x,
                 double y, double ax, double ay, double angle)
{
  PangoLayout *layout = ar_text_layout (pc, style, text, AR_FONT_TICK * lo->label_scale,
                                        highlighted ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL,
                                        AR_HEATMAP_MAX_LABEL * lo->label_scale);
  ar_render_set_rgb (cr, highlighted ? style->accent : style->text);
  ar_text_draw (cr, layout, x, y, ax, ay, angle);
  g_object_unref (layout);
}

/* The centre of token I along an axis that starts at ORIGIN with cells from FIRST. */
static double
cell_centre (const ArHeatmapLayout *lo, double origin, int first, int i)
{
  return origin + (i - first + 0.5) * lo->cell - lo->gap / 2;
}

static void
draw_token_labels (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                   const ArHeatmapFigure *fig, const ArHeatmapLayout *lo, double below)
{
  for (int i = lo->r0; i < lo->r0 + lo->nr; i++)
    if (ar_heatmap_label_shown (i, lo->row_step, fig->highlight_row))
      {
        g_autofree char *text = ar_heatmap_label_at (fig->row_labels, i);
        draw_tick_label (cr, pc, style, lo, text, i == fig->highlight_row, lo->x0 - TICK_GAP,
                         cell_centre (lo, lo->y0, lo->r0, i), 1, 0.5, 0);
      }
  for (int j = lo->c0; j < lo->c0 + lo->nc; j++)
    if (ar_heatmap_label_shown (j, lo->col_step, fig->highlight_col))
      {
        g_autofree char *text = ar_heatmap_label_at (fig->col_labels, j);
        double x = cell_centre (lo, lo->x0, lo->c0, j);
        if (lo->rotate_cols)
          draw_tick_label (cr, pc, style, lo, text, j == fig->highlight_col, x, below, 1, 0.5,
                           -G_PI / 2);
        else
          draw_tick_label (cr, pc, style, lo, text, j == fig->highlight_col, x, below, 0.5, 0, 0);
      }
}

/* Word W's tokens within the FIRST .. FIRST + N - 1 shown: [*A, *B]; FALSE when none is shown. */
static gboolean
word_span (const ArHeatmapFigure *fig, int w, int first, int n, int *a, int *b)
{
  *a = MAX (fig->word_first[w], first);
  *b = MIN (fig->word_first[w + 1], first + n) - 1;
  return *a <= *b;
}

/* The word labels along one axis: ROWS or columns; each centred on its tokens, dropped where it
 * would come closer than SPACING to the label drawn before it (the highlighted word's always
 * drawn). Brackets mark words of several tokens. */
static void
draw_word_axis (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                const ArHeatmapFigure *fig, const ArHeatmapLayout *lo, gboolean rows, double below)
{
  int first = rows ? lo->r0 : lo->c0, n = rows ? lo->nr : lo->nc;
  double origin = rows ? lo->y0 : lo->x0;
  int highlight = ar_heatmap_word_of (fig, rows ? fig->highlight_row : fig->highlight_col);
  double spacing = lo->label_h * lo->label_scale + 1;
  double last = -INFINITY;
  cairo_set_line_width (cr, 1.0);
  for (int w = 0; w < fig->n_words; w++)
    {
      int a, b;
      if (!word_span (fig, w, first, n, &a, &b))
        continue;
      double start = origin + (a - first) * lo->cell, end = origin + (b - first + 1) * lo->cell;
      double centre = (start + end - lo->gap) / 2;
      if (b > a)
        {
          ar_render_set_rgb (cr, style->muted);
          double edge = rows ? lo->x0 - BRACKET_OFFSET : below - TICK_GAP + BRACKET_OFFSET;
          double out = rows ? -BRACKET_END : BRACKET_END;
          if (rows)
            {
              cairo_move_to (cr, edge, start + 1);
              cairo_line_to (cr, edge + out, start + 1);
              cairo_line_to (cr, edge + out, end - lo->gap - 1);
              cairo_line_to (cr, edge, end - lo->gap - 1);
            }
          else
            {
              cairo_move_to (cr, start + 1, edge);
              cairo_line_to (cr, start + 1, edge + out);
              cairo_line_to (cr, end - lo->gap - 1, edge + out);
              cairo_line_to (cr, end - lo->gap - 1, edge);
            }
          cairo_stroke (cr);
        }
      gboolean on = w == highlight;
      if (!on && centre - last < spacing)
        continue;
      if (!rows && !lo->rotate_cols && !on && centre - last < lo->col_label_w * lo->label_scale + 4)
        continue;
      last = centre;
      const char *text = fig->word_labels[w];
      if (rows)
        draw_tick_label (cr, pc, style, lo, text, on, lo->x0 - TICK_GAP, centre, 1, 0.5, 0);
      else if (lo->rotate_cols)
        draw_tick_label (cr, pc, style, lo, text, on, centre, below, 1, 0.5, -G_PI / 2);
      else
        draw_tick_label (cr, pc, style, lo, text, on, centre, below, 0.5, 0, 0);
    }
}

void
ar_heatmap_draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                      const ArHeatmapFigure *fig, const ArHeatmapLayout *lo)
{
  double pw = lo->nc * lo->cell - lo->gap, ph = lo->nr * lo->cell - lo->gap;
  double below = lo->y0 + ph + TICK_GAP;
  if (ar_heatmap_word_of (fig, 0) >= 0)
    {
      draw_word_axis (cr, pc, style, fig, lo, TRUE, below);
      draw_word_axis (cr, pc, style, fig, lo, FALSE, below);
    }
  else
    draw_token_labels (cr, pc, style, fig, lo, below);
  double s = lo->label_scale;
  ar_axis_names_draw (cr, pc, style, fig->col_axis, fig->row_axis, lo->x0, lo->y0, pw, ph,
                      below + (lo->rotate_cols ? lo->col_label_w * s : lo->label_h * s) + AXIS_GAP,
                      lo->x0 - TICK_GAP - lo->row_label_w * s - AXIS_GAP - lo->row_axis_h / 2);
}
