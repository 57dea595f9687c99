/* heatmap-layout.c — measuring a heatmap's decorations and fitting its cells to a size (see
 * heatmap-layout-private.h). */
#include "heatmap-layout-private.h"

#include <math.h>
#include <stdlib.h>

#include "colorbar-render.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define TICK_GAP AR_HEATMAP_TICK_GAP
#define AXIS_GAP AR_HEATMAP_AXIS_GAP
#define COLORBAR_GAP AR_HEATMAP_COLORBAR_GAP

gboolean
ar_heatmap_has_data (const ArHeatmapFigure *fig)
{
  return fig->values != NULL && fig->n_rows > 0 && fig->n_cols > 0;
}

char *
ar_heatmap_label_at (const char *const *labels, int i)
{
  return labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%d", i);
}

static gboolean
word_mode (const ArHeatmapFigure *fig)
{
  return fig->label_mode == AR_LABELS_WORDS && fig->n_words > 0 && fig->word_first != NULL
         && fig->word_labels != NULL;
}

int
ar_heatmap_word_of (const ArHeatmapFigure *fig, int i)
{
  if (!word_mode (fig) || i < 0)
    return -1;
  int lo = 0, hi = fig->n_words - 1;
  while (lo < hi)
    {
      int mid = (lo + hi + 1) / 2;
      if (fig->word_first[mid] <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
  return i < fig->word_first[fig->n_words] ? lo : -1;
}

/* The widest of N labels (bold, as a highlighted label is drawn), at most AR_HEATMAP_MAX_LABEL. */
static double
widest_label (PangoContext *pc, const ArRenderStyle *style, const char *const *labels, int n)
{
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_TICK, PANGO_WEIGHT_BOLD, 0);
  double widest = 0, w;
  for (int i = 0; i < n && widest < AR_HEATMAP_MAX_LABEL; i++)
    {
      g_autofree char *label = ar_heatmap_label_at (labels, i);
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
  if (fig->row_label_width > 0 && fig->col_label_width > 0)
    {
      *row_w = fig->row_label_width, *col_w = fig->col_label_width;
      return;
    }
  if (word_mode (fig))
    {
      *row_w = *col_w = widest_label (pc, style, fig->word_labels, fig->n_words);
      return;
    }
  *row_w = widest_label (pc, style, fig->row_labels, fig->n_rows);
  /* Attention and similarity matrices label both axes with the same tokens: measure once. */
  if (fig->col_labels == fig->row_labels && fig->n_cols == fig->n_rows)
    *col_w = *row_w;
  else
    *col_w = widest_label (pc, style, fig->col_labels, fig->n_cols);
}

void
ar_heatmap_figure_measure_labels (ArHeatmapFigure *fig)
{
  fig->row_label_width = fig->col_label_width = 0;
  if (!ar_heatmap_has_data (fig))
    return;
  PangoContext *pc = ar_text_context_new ();
  measure_labels (pc, ar_render_style_or_default (fig->style), fig, &fig->row_label_width,
                  &fig->col_label_width);
  g_object_unref (pc);
}

gboolean
ar_heatmap_label_shown (int i, int step, int highlight)
{
  if (i == highlight)
    return TRUE;
  return i % step == 0 && (highlight < 0 || abs (i - highlight) >= step);
}

/* The widest of the labels LABELS [FIRST, FIRST + N) drawn every STEP-th (the highlighted one,
 * HIGHLIGHT, bold). */
static double
widest_shown (PangoContext *pc, const ArRenderStyle *style, const char *const *labels, int first,
              int n, int step, int highlight)
{
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_TICK, PANGO_WEIGHT_NORMAL, 0);
  double widest = 0, w;
  for (int i = first; i < first + n && widest < AR_HEATMAP_MAX_LABEL; i++)
    if (ar_heatmap_label_shown (i, step, highlight) && i != highlight)
      {
        g_autofree char *label = ar_heatmap_label_at (labels, i);
        pango_layout_set_text (layout, label, -1);
        ar_text_extent (layout, &w, NULL);
        widest = MAX (widest, w);
      }
  g_object_unref (layout);
  if (highlight >= first && highlight < first + n)
    {
      g_autofree char *label = ar_heatmap_label_at (labels, highlight);
      ar_text_measure (pc, style, label, AR_FONT_TICK, PANGO_WEIGHT_BOLD, &w, NULL);
      widest = MAX (widest, w);
    }
  return ceil (MIN (widest, AR_HEATMAP_MAX_LABEL));
}

/* The cells in view: all, or the zoomed window clamped to the matrix. */
static void
visible_cells (const ArHeatmapFigure *fig, int *r0, int *c0, int *nr, int *nc)
{
  if (fig->view_rows <= 0 || fig->view_cols <= 0)
    {
      *r0 = *c0 = 0, *nr = fig->n_rows, *nc = fig->n_cols;
      return;
    }
  *nr = CLAMP (fig->view_rows, 1, fig->n_rows);
  *nc = CLAMP (fig->view_cols, 1, fig->n_cols);
  *r0 = CLAMP (fig->view_row0, 0, fig->n_rows - *nr);
  *c0 = CLAMP (fig->view_col0, 0, fig->n_cols - *nc);
}

void
ar_heatmap_measure (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  *lo = (ArHeatmapLayout){ .label_scale = 1 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!ar_heatmap_has_data (fig))
    return;
  visible_cells (fig, &lo->r0, &lo->c0, &lo->nr, &lo->nc);
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
      ArColorbar bar = { .colormap = fig->colormap,
                         .vmin = fig->vmin,
                         .vmax = fig->vmax,
                         .label = fig->colorbar_label,
                         .log = fig->log_colors,
                         .clipped = fig->clipped };
      lo->colorbar_w = ar_colorbar_get_width (pc, style, &bar);
    }
  lo->bars_w = fig->row_bars != NULL ? AR_HEATMAP_BARS_W : 0;
}

double
ar_heatmap_left_extent (const ArHeatmapLayout *lo)
{
  return MARGIN + (lo->row_axis_h > 0 ? lo->row_axis_h + AXIS_GAP : 0)
         + lo->row_label_w * lo->label_scale + TICK_GAP;
}

double
ar_heatmap_right_extent (const ArHeatmapLayout *lo)
{
  return MARGIN + (lo->colorbar_w > 0 ? COLORBAR_GAP + lo->colorbar_w : 0)
         + (lo->bars_w > 0 ? COLORBAR_GAP + lo->bars_w : 0);
}

double
ar_heatmap_top_extent (const ArHeatmapLayout *lo)
{
  return MARGIN + lo->title_h;
}

double
ar_heatmap_bottom_extent (const ArHeatmapLayout *lo, gboolean rotate)
{
  double s = lo->label_scale;
  return TICK_GAP + (rotate ? lo->col_label_w * s : lo->label_h * s)
         + (lo->col_axis_h > 0 ? AXIS_GAP + lo->col_axis_h : 0) + MARGIN;
}

/* Column labels turn when the widest does not fit under its cell. */
gboolean
ar_heatmap_needs_rotation (const ArHeatmapLayout *lo, double cell)
{
  return lo->col_label_w * lo->label_scale + 4 > cell;
}

/* The cell size for WIDTH × HEIGHT with the current label scale; sets rotate_cols. */
static double
fit_cell (ArHeatmapLayout *lo, double width, double height)
{
  double avail_w = width - ar_heatmap_left_extent (lo) - ar_heatmap_right_extent (lo);
  double top = ar_heatmap_top_extent (lo);
  double cell
      = MIN (avail_w / lo->nc, (height - top - ar_heatmap_bottom_extent (lo, FALSE)) / lo->nr);
  lo->rotate_cols = ar_heatmap_needs_rotation (lo, cell);
  if (lo->rotate_cols)
    cell = MIN (avail_w / lo->nc, (height - top - ar_heatmap_bottom_extent (lo, TRUE)) / lo->nr);
  return MAX (cell, 0.0);
}

/* The label step of thinned labels for cells of CELL. */
static int
thinned_step (const ArHeatmapLayout *lo, double cell)
{
  return cell <= 0 ? 1 : MAX (1, (int) ceil ((lo->label_h * lo->label_scale + 1) / cell));
}

/* With thinned labels only every k-th is drawn: the room beside and below the cells is that of the
 * widest label drawn, not of the widest of all (a long text's cells grow by what a long token
 * drawn nowhere would take). Returns the cell for the narrower labels, keeping the steps of CELL
 * (larger cells only spread the same labels further apart), or CELL when nothing changes. */
static double
fit_shown_labels (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig, double width,
                  double height, double cell)
{
  double guess = cell;
  if (guess <= 0)
    {
      /* the widest labels leave no room at all: the step of cells without them */
      ArHeatmapLayout bare = *lo;
      bare.row_label_w = bare.col_label_w = 0;
      guess = fit_cell (&bare, width, height);
    }
  int step = thinned_step (lo, guess);
  if (fig->label_mode != AR_LABELS_THINNED || step <= 1 || !lo->rotate_cols
      || fig->room_for_all_labels)
    return cell;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  ArHeatmapLayout narrow = *lo;
  narrow.row_label_w
      = widest_shown (pc, style, fig->row_labels, lo->r0, lo->nr, step, fig->highlight_row);
  narrow.col_label_w
      = widest_shown (pc, style, fig->col_labels, lo->c0, lo->nc, step, fig->highlight_col);
  double wider = fit_cell (&narrow, width, height);
  if (!narrow.rotate_cols || wider <= cell)
    return cell;
  *lo = narrow;
  lo->fixed_step = step;
  return wider;
}

void
ar_heatmap_measure_shown (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig,
                          double cell)
{
  int step = thinned_step (lo, cell);
  if (fig->label_mode != AR_LABELS_THINNED || step <= 1 || !ar_heatmap_has_data (fig))
    return;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  lo->row_label_w = MIN (lo->row_label_w, widest_shown (pc, style, fig->row_labels, lo->r0, lo->nr,
                                                        step, fig->highlight_row));
  lo->col_label_w = MIN (lo->col_label_w, widest_shown (pc, style, fig->col_labels, lo->c0, lo->nc,
                                                        step, fig->highlight_col));
}

static void
fit (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig, double width, double height)
{
  if (!ar_heatmap_has_data (fig))
    return;
  double cell = fit_cell (lo, width, height);
  if (fig->label_mode == AR_LABELS_ALL && cell > 0 && lo->label_h + 1 > cell)
    {
      /* Every label in a font as tall as a cell. */
      lo->label_scale = cell / (lo->label_h + 1);
      cell = fit_cell (lo, width, height);
    }
  cell = fit_shown_labels (lo, pc, fig, width, height, cell);
  if (cell >= 8)
    cell = floor (cell);
  lo->cell = cell;
  lo->gap = cell >= 12.0 ? 1.0 : 0.0;
  double avail_w = width - ar_heatmap_left_extent (lo) - ar_heatmap_right_extent (lo);
  double top = ar_heatmap_top_extent (lo);
  double avail_h = height - top - ar_heatmap_bottom_extent (lo, lo->rotate_cols);
  lo->x0 = round (ar_heatmap_left_extent (lo) + MAX (avail_w - cell * lo->nc, 0) / 2);
  lo->y0 = round (top + MAX (avail_h - cell * lo->nr, 0) / 2);
  double label_h = lo->label_h * lo->label_scale;
  lo->row_step = fig->label_mode == AR_LABELS_ALL || cell <= 0 ? 1
                 : lo->fixed_step > 0                          ? lo->fixed_step
                                      : MAX (1, (int) ceil ((label_h + 1) / cell));
  lo->col_step = lo->rotate_cols ? lo->row_step : 1;
}

void
ar_heatmap_layout (ArHeatmapLayout *lo, PangoContext *pc, const ArHeatmapFigure *fig, double width,
                   double height)
{
  ar_heatmap_measure (lo, pc, fig);
  if (!fig->title_one_line)
    lo->title_h = MAX (fig->title_height,
                       ar_title_block_height_wrapped (pc, ar_render_style_or_default (fig->style),
                                                      fig->title, fig->subtitle, width));
  fit (lo, pc, fig, width, height);
}

void
ar_heatmap_layout_only (ArHeatmapLayout *lo, const ArHeatmapFigure *fig, double width,
                        double height)
{
  PangoContext *pc = ar_text_context_new ();
  ar_heatmap_layout (lo, pc, fig, width, height);
  g_object_unref (pc);
}
