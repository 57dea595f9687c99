/* heatmap-render.c — layout, drawing and hit-testing of the heatmap figure.
 *
 * One layout function (fit) decides every position from the figure and the size; render, hit and
 * cell_rect all start from it, so what is drawn and what is hit can never disagree. */
#include "heatmap-render.h"

#include <math.h>
#include <stdlib.h>

#include "colorbar-render.h"
#include "matrix-paint.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define TICK_GAP 6.0
#define AXIS_GAP 8.0
#define COLORBAR_GAP 16.0
/* Cells at least this large are separated by a one-unit gap. */
#define GAP_MIN_CELL 12.0
#define NATURAL_EXTENT 480.0

typedef struct
{
  /* measured from the figure, independent of the size */
  double title_h;
  double row_label_w, col_label_w, label_h;
  double row_axis_h, col_axis_h;
  double colorbar_w;
  /* fitted to the size */
  double cell, gap, x0, y0;
  gboolean rotate_cols;
  int row_step, col_step;
} Layout;

void
ar_heatmap_figure_init (ArHeatmapFigure *fig)
{
  *fig = (ArHeatmapFigure){
    .row_axis = "Queries",
    .col_axis = "Keys",
    .colormap = AR_COLORMAP_YLGNBU,
    .vmin = 0,
    .vmax = 1,
    .annotate = AR_ANNOTATE_AUTO,
    .decimals = 2,
    .highlight_row = -1,
    .highlight_col = -1,
    .colorbar = TRUE,
  };
}

static gboolean
has_data (const ArHeatmapFigure *fig)
{
  return fig->values != NULL && fig->n_rows > 0 && fig->n_cols > 0;
}

/* Tick label I of an axis (LABELS may be NULL: the index). Newly allocated. */
static char *
label_at (const char *const *labels, int i)
{
  return labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%d", i);
}

/* The widest of N labels (bold, as a highlighted label is drawn), at most AR_HEATMAP_MAX_LABEL. */
static double
widest_label (PangoContext *pc, const ArRenderStyle *style, const char *const *labels, int n)
{
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_TICK, PANGO_WEIGHT_BOLD, 0);
  double widest = 0, w;
  for (int i = 0; i < n && widest < AR_HEATMAP_MAX_LABEL; i++)
    {
      g_autofree char *label = label_at (labels, i);
      pango_layout_set_text (layout, label, -1);
      ar_text_extent (layout, &w, NULL);
      widest = MAX (widest, w);
    }
  g_object_unref (layout);
  return ceil (MIN (widest, AR_HEATMAP_MAX_LABEL));
}

/* The widest row and column labels: FIG's cached widths, or measured now. */
static void
measure_labels (PangoContext *pc, const ArRenderStyle *style, const ArHeatmapFigure *fig,
                double *row_w, double *col_w)
{
  *row_w = fig->row_label_width > 0 ? fig->row_label_width
                                    : widest_label (pc, style, fig->row_labels, fig->n_rows);
  /* Attention and similarity matrices label both axes with the same tokens: measure once. */
  if (fig->col_label_width > 0)
    *col_w = fig->col_label_width;
  else if (fig->col_labels == fig->row_labels && fig->n_cols == fig->n_rows)
    *col_w = *row_w;
  else
    *col_w = widest_label (pc, style, fig->col_labels, fig->n_cols);
}

void
ar_heatmap_figure_measure_labels (ArHeatmapFigure *fig)
{
  fig->row_label_width = fig->col_label_width = 0;
  if (!has_data (fig))
    return;
  PangoContext *pc = ar_text_context_new ();
  measure_labels (pc, ar_render_style_or_default (fig->style), fig, &fig->row_label_width,
                  &fig->col_label_width);
  g_object_unref (pc);
}

static void
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArHeatmapFigure *fig)
{
  *lo = (Layout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  measure_labels (pc, style, fig, &lo->row_label_w, &lo->col_label_w);
  ar_text_measure (pc, style, "Ag", AR_FONT_TICK, PANGO_WEIGHT_NORMAL, NULL, &lo->label_h);
  if (fig->row_axis != NULL)
    ar_text_measure (pc, style, fig->row_axis, AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL,
                     &lo->row_axis_h);
  if (fig->col_axis != NULL)
    ar_text_measure (pc, style, fig->col_axis, AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL,
                     &lo->col_axis_h);
  if (fig->colorbar)
    {
      ArColorbar bar = { fig->colormap, fig->vmin, fig->vmax, fig->colorbar_label };
      lo->colorbar_w = ar_colorbar_get_width (pc, style, &bar);
    }
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + (lo->row_axis_h > 0 ? lo->row_axis_h + AXIS_GAP : 0) + lo->row_label_w + TICK_GAP;
}

static double
right_extent (const Layout *lo)
{
  return MARGIN + (lo->colorbar_w > 0 ? COLORBAR_GAP + lo->colorbar_w : 0);
}

static double
top_extent (const Layout *lo)
{
  return MARGIN + lo->title_h;
}

static double
bottom_extent (const Layout *lo, gboolean rotate)
{
  return TICK_GAP + (rotate ? lo->col_label_w : lo->label_h)
         + (lo->col_axis_h > 0 ? AXIS_GAP + lo->col_axis_h : 0) + MARGIN;
}

/* Column labels turn when the widest does not fit under its cell. */
static gboolean
needs_rotation (const Layout *lo, double cell)
{
  return lo->col_label_w + 4 > cell;
}

static double
natural_cell (const ArHeatmapFigure *fig)
{
  double cell = CLAMP (NATURAL_EXTENT / MAX (fig->n_rows, fig->n_cols), 2.0, 64.0);
  return cell >= 8 ? floor (cell) : cell;
}

static void
fit (Layout *lo, const ArHeatmapFigure *fig, double width, double height)
{
  if (!has_data (fig))
    return;
  double avail_w = width - left_extent (lo) - right_extent (lo);
  double top = top_extent (lo);
  double cell
      = MIN (avail_w / fig->n_cols, (height - top - bottom_extent (lo, FALSE)) / fig->n_rows);
  lo->rotate_cols = needs_rotation (lo, cell);
  if (lo->rotate_cols)
    cell = MIN (avail_w / fig->n_cols, (height - top - bottom_extent (lo, TRUE)) / fig->n_rows);
  cell = MAX (cell, 0.0);
  if (cell >= 8)
    cell = floor (cell);
  lo->cell = cell;
  lo->gap = cell >= GAP_MIN_CELL ? 1.0 : 0.0;
  double avail_h = height - top - bottom_extent (lo, lo->rotate_cols);
  lo->x0 = round (left_extent (lo) + MAX (avail_w - cell * fig->n_cols, 0) / 2);
  lo->y0 = round (top + MAX (avail_h - cell * fig->n_rows, 0) / 2);
  lo->row_step = cell > 0 ? MAX (1, (int) ceil ((lo->label_h + 1) / cell)) : 1;
  lo->col_step = lo->rotate_cols ? lo->row_step : 1;
}

static void
layout_for (Layout *lo, PangoContext *pc, const ArHeatmapFigure *fig, double width, double height)
{
  measure (lo, pc, ar_render_style_or_default (fig->style), fig);
  fit (lo, fig, width, height);
}

/* The layout without drawing (hit-testing). */
static void
layout_only (Layout *lo, const ArHeatmapFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  layout_for (lo, pc, fig, width, height);
  g_object_unref (pc);
}

void
ar_heatmap_get_size (const ArHeatmapFigure *fig, double *width, double *height)
{
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  if (!has_data (fig))
    {
      *width = 2 * MARGIN + 320;
      *height = ceil (2 * MARGIN + lo.title_h);
      return;
    }
  double cell = natural_cell (fig);
  *width = ceil (left_extent (&lo) + cell * fig->n_cols + right_extent (&lo));
  *height = ceil (top_extent (&lo) + cell * fig->n_rows
                  + bottom_extent (&lo, needs_rotation (&lo, cell)));
}

gboolean
ar_heatmap_same_layout (const ArHeatmapFigure *a, const ArHeatmapFigure *b)
{
  /* Everything measure () reads. */
  return a->n_rows == b->n_rows && a->n_cols == b->n_cols
         && a->row_label_width == b->row_label_width && a->col_label_width == b->col_label_width
         && g_strcmp0 (a->title, b->title) == 0 && g_strcmp0 (a->subtitle, b->subtitle) == 0
         && g_strcmp0 (a->row_axis, b->row_axis) == 0 && g_strcmp0 (a->col_axis, b->col_axis) == 0
         && a->colorbar == b->colorbar
         && (!a->colorbar
             || (a->vmin == b->vmin && a->vmax == b->vmax
                 && g_strcmp0 (a->colorbar_label, b->colorbar_label) == 0))
         && a->style == b->style;
}

static gboolean
annotated (const ArHeatmapFigure *fig, const Layout *lo)
{
  return fig->annotate == AR_ANNOTATE_ALWAYS
         || (fig->annotate == AR_ANNOTATE_AUTO && lo->cell >= AR_HEATMAP_ANNOTATE_CELL);
}

static void
draw_annotations (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                  const ArHeatmapFigure *fig, const Layout *lo)
{
  double size = CLAMP (lo->cell * 0.3, 8.0, 13.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", size, PANGO_WEIGHT_NORMAL, 0);
  for (int i = 0; i < fig->n_rows; i++)
    for (int j = 0; j < fig->n_cols; j++)
      {
        if (fig->mask_upper && j > i)
          continue;
        double v = fig->values[(gsize) i * fig->n_cols + j];
        ArColor8 c = ar_colormap_color (fig->colormap, v, fig->vmin, fig->vmax);
        g_autofree char *text = ar_format_number (v, CLAMP (fig->decimals, 0, 6));
        pango_layout_set_text (layout, text, -1);
        ar_render_set_rgb (cr, ar_color_luminance (c) < 0.408 ? style->light_ink : style->dark_ink);
        ar_text_draw (cr, layout, lo->x0 + (j + 0.5) * lo->cell - lo->gap / 2,
                      lo->y0 + (i + 0.5) * lo->cell - lo->gap / 2, 0.5, 0.5, 0);
      }
  g_object_unref (layout);
}

static void
draw_highlight (cairo_t *cr, const ArRenderStyle *style, const ArHeatmapFigure *fig,
                const Layout *lo)
{
  cairo_save (cr);
  ar_render_set_rgb (cr, style->accent);
  cairo_set_line_width (cr, 2.0);
  double pw = fig->n_cols * lo->cell - lo->gap, ph = fig->n_rows * lo->cell - lo->gap;
  if (fig->highlight_row >= 0 && fig->highlight_row < fig->n_rows)
    cairo_rectangle (cr, lo->x0, lo->y0 + fig->highlight_row * lo->cell, pw, lo->cell - lo->gap);
  if (fig->highlight_col >= 0 && fig->highlight_col < fig->n_cols)
    cairo_rectangle (cr, lo->x0 + fig->highlight_col * lo->cell, lo->y0, lo->cell - lo->gap, ph);
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* One tick label, bold in the accent colour when HIGHLIGHTED. */
static void
draw_tick_label (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *text,
                 gboolean highlighted, double x, double y, double ax, double ay, double angle)
{
  PangoLayout *layout = ar_text_layout (pc, style, text, AR_FONT_TICK,
                                        highlighted ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL,
                                        AR_HEATMAP_MAX_LABEL);
  ar_render_set_rgb (cr, highlighted ? style->accent : style->text);
  ar_text_draw (cr, layout, x, y, ax, ay, angle);
  g_object_unref (layout);
}

/* Every STEP-th label, and the highlighted one in place of its neighbours. */
static gboolean
label_shown (int i, int step, int highlight)
{
  if (i == highlight)
    return TRUE;
  return i % step == 0 && (highlight < 0 || abs (i - highlight) >= step);
}

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArHeatmapFigure *fig,
           const Layout *lo)
{
  double pw = fig->n_cols * lo->cell - lo->gap, ph = fig->n_rows * lo->cell - lo->gap;
  for (int i = 0; i < fig->n_rows; i++)
    if (label_shown (i, lo->row_step, fig->highlight_row))
      {
        g_autofree char *text = label_at (fig->row_labels, i);
        draw_tick_label (cr, pc, style, text, i == fig->highlight_row, lo->x0 - TICK_GAP,
                         lo->y0 + (i + 0.5) * lo->cell - lo->gap / 2, 1, 0.5, 0);
      }
  double below = lo->y0 + ph + TICK_GAP;
  for (int j = 0; j < fig->n_cols; j++)
    if (label_shown (j, lo->col_step, fig->highlight_col))
      {
        g_autofree char *text = label_at (fig->col_labels, j);
        double x = lo->x0 + (j + 0.5) * lo->cell - lo->gap / 2;
        if (lo->rotate_cols)
          draw_tick_label (cr, pc, style, text, j == fig->highlight_col, x, below, 1, 0.5,
                           -G_PI / 2);
        else
          draw_tick_label (cr, pc, style, text, j == fig->highlight_col, x, below, 0.5, 0, 0);
      }
  ar_axis_names_draw (cr, pc, style, fig->col_axis, fig->row_axis, lo->x0, lo->y0, pw, ph,
                      below + (lo->rotate_cols ? lo->col_label_w : lo->label_h) + AXIS_GAP,
                      lo->x0 - TICK_GAP - lo->row_label_w - AXIS_GAP - lo->row_axis_h / 2);
}

void
ar_heatmap_render (cairo_t *cr, const ArHeatmapFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  layout_for (&lo, pc, fig, width, height);

  cairo_save (cr);
  ar_figure_frame_draw (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig) && lo.cell > 0)
    {
      ArMatrixPaint paint = {
        .colormap = fig->colormap,
        .vmin = fig->vmin,
        .vmax = fig->vmax,
        .mask_upper = fig->mask_upper,
        .masked = style->masked,
        .gap = lo.gap,
        .gap_color = style->background,
      };
      ar_matrix_paint (cr, &paint, fig->values, fig->n_rows, fig->n_cols, lo.x0, lo.y0, lo.cell,
                       lo.cell);
      if (annotated (fig, &lo))
        draw_annotations (cr, pc, style, fig, &lo);
      draw_highlight (cr, style, fig, &lo);
      draw_axes (cr, pc, style, fig, &lo);
      if (fig->colorbar)
        {
          ArColorbar bar = { fig->colormap, fig->vmin, fig->vmax, fig->colorbar_label };
          ar_colorbar_draw (cr, pc, style, &bar, lo.x0 + fig->n_cols * lo.cell + COLORBAR_GAP,
                            lo.y0, fig->n_rows * lo.cell - lo.gap);
        }
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_heatmap_hit (const ArHeatmapFigure *fig, double width, double height, double x, double y,
                int *row, int *col)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_only (&lo, fig, width, height);
  if (lo.cell <= 0)
    return FALSE;
  double c = floor ((x - lo.x0) / lo.cell), r = floor ((y - lo.y0) / lo.cell);
  if (c < 0 || r < 0 || c >= fig->n_cols || r >= fig->n_rows)
    return FALSE;
  *row = (int) r;
  *col = (int) c;
  return TRUE;
}

void
ar_heatmap_get_cell_rect (const ArHeatmapFigure *fig, double width, double height, int row, int col,
                          double *x, double *y, double *cell_w, double *cell_h)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  *x = lo.x0 + col * lo.cell;
  *y = lo.y0 + row * lo.cell;
  *cell_w = *cell_h = lo.cell - lo.gap;
}

gboolean
ar_heatmap_is_annotated (const ArHeatmapFigure *fig, double width, double height)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_only (&lo, fig, width, height);
  return annotated (fig, &lo);
}
