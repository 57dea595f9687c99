/* heatmap-render.h — one matrix as an annotated heatmap: an attention head (queries as rows, keys
 * as columns, as in the seed figure), a mean or rollout, a similarity matrix, a difference.
 *
 * The figure is a plain struct that borrows its arrays; the same ar_heatmap_render() draws it in
 * the GTK widget and into PNG/SVG/PDF files. Layout, top to bottom: the title block (title,
 * subtitle), the plot with row tick labels on the left and the row axis name read bottom to top,
 * column tick labels below (turned to read bottom to top when they do not fit under their
 * column), the column axis name, and the colour bar on the right. Cells are square; the plot is
 * centred in whatever room the decorations leave, so the figure scales to any size. Labels
 * longer than AR_HEATMAP_MAX_LABEL units are ellipsized.
 *
 * Tick labels (label_mode): THINNED draws every k-th label when the cells are shorter than the
 * text; ALL draws every label, in a smaller font when the cells are small; WORDS draws one label
 * per word (word_first/word_labels) centred on the word's tokens, with a bracket under words of
 * several tokens, dropping a word's label where it would run into the one before.
 *
 * Values are annotated (2 decimals by default; cell_labels: a text per cell instead, ellipsized)
 * when annotate is ALWAYS, or AUTO and the cells are large enough — in both cases only when the
 * widest value fits inside its cell (with ALWAYS the decimals drop until it does), so annotations
 * never run into each other; white text on dark cells, dark text on light ones. Cells that hold no
 * value are grey and never annotated: with mask_upper the cells above the diagonal (a causal
 * model's future, exactly 0), cells whose cell_mask entry is not AR_CELL_VALUE, and NaN values. A
 * highlighted row/column (the selected token) is outlined in the accent colour and its tick labels
 * are bold.
 *
 * Colours: the colour map over [vmin, vmax], linearly, or with log_colors by log10 (vmin > 0;
 * values below vmin take the lowest colour, the colour bar gets decade ticks).
 *
 * A zoomed view shows only some of the cells: view_rows × view_cols of them from (view_row0,
 * view_col0) (view_rows = 0: all); the layout, drawing and hit-testing then work on those cells
 * only, so a frame of a 1024-token matrix costs what the visible cells cost. The natural size is
 * always the whole matrix's.
 *
 * Sizes are in figure units (px at scale 1, pt in PDF/SVG). The natural size grows with the
 * number of tokens: cells of 480 / n units clamped to 2..64 (whole units from 8 up). */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

#define AR_HEATMAP_ANNOTATE_CELL 28.0
#define AR_HEATMAP_MAX_LABEL 140.0

typedef enum
{
  AR_ANNOTATE_AUTO,
  AR_ANNOTATE_ALWAYS,
  AR_ANNOTATE_NEVER,
} ArAnnotate;

typedef enum
{
  AR_LABELS_THINNED, /* every k-th label when they do not all fit */
  AR_LABELS_ALL,     /* every label, smaller when needed */
  AR_LABELS_WORDS,   /* one label per word */
} ArLabelMode;

/* What a cell of cell_mask holds. */
typedef enum
{
  AR_CELL_VALUE = 0,
  AR_CELL_MASKED = 1,     /* the model could not attend there (a causal mask) */
  AR_CELL_NO_PARTNER = 2, /* a comparison: the token has no partner in the other text */
} ArCellState;

typedef struct
{
  const char *title;    /* bold first line, or NULL */
  const char *subtitle; /* second line (model, text), or NULL */

  int n_rows, n_cols;
  const float *values;           /* [n_rows][n_cols] */
  const char *const *row_labels; /* [n_rows] or NULL (then 0, 1, 2, ...) */
  const char *const *col_labels; /* [n_cols] or NULL */
  const char *row_axis;          /* "Queries", or NULL for none */
  const char *col_axis;          /* "Keys", or NULL */

  ArColormap colormap;
  double vmin, vmax; /* the colour range */
  gboolean log_colors;
  ArAnnotate annotate;
  int decimals; /* of annotations, 0..6 */
  /* [n_rows][n_cols] texts annotated instead of the values (the logit lens's top tokens), or
   * NULL; ellipsized to their cell, annotated when the cells are large enough (as values are). */
  const char *const *cell_labels;
  gboolean mask_upper;
  /* With mask_upper: a causal sliding window of this many keys (Mistral, Gemma's local layers):
   * the cells left of it (column <= row - window), which the query never saw, are masked too;
   * 0: none. */
  int window;
  const guint8 *cell_mask; /* [n_rows][n_cols] ArCellState, or NULL */
  /* TRUE: the cells in view are not painted (a long text's zoomed heatmap widget paints the exact
   * entries over them: attnscope-heatmap-view-exact.c); axes, colour bar and marks are */
  gboolean cells_covered;
  int highlight_row; /* -1 for none */
  int highlight_col; /* -1 for none */

  ArLabelMode label_mode;
  /* Words (both axes, which then show the same n tokens): word w covers tokens word_first[w] ..
   * word_first[w + 1] - 1. Needed for AR_LABELS_WORDS only. */
  int n_words;
  const int *word_first;          /* [n_words + 1] */
  const char *const *word_labels; /* [n_words] */

  gboolean colorbar;
  const char *colorbar_label; /* "Attention weight", or NULL */
  /* Some cells hold values above vmax (an autoscaled range leaves out a causal model's first row,
   * whose one weight is 1): they are drawn in the top colour with a mark in their corner, and the
   * colour bar says "clipped" (ar_heatmap_find_clipped). */
  gboolean clipped;

  int view_row0, view_col0, view_rows, view_cols; /* a zoomed view; view_rows = 0: all */
  /* The tick labels take the room of the widest of all of them, also when only every k-th is
   * drawn (else: of those drawn): a view that zooms and pans keeps its plot in place. */
  gboolean room_for_all_labels;

  const ArRenderStyle *style; /* NULL = light print style */
  /* The title and subtitle on one line each, ellipsized; else (the default) wrapped to the
   * figure's width. */
  gboolean title_one_line;
  /* > 0: the wrapped title block takes this height (at least its own), so that panels side by
   * side with titles of different lengths keep their cells in line (compare-render.h). */
  double title_height;

  /* The widest row and column tick label, as ar_heatmap_figure_measure_labels () found them;
   * 0 = measure them on every layout. Measuring 512 labels with Pango takes milliseconds, so a
   * view that draws and hit-tests the same labels again and again measures them once. */
  double row_label_width, col_label_width;

  /* A long text's pooled overview (attention-overview.h): each cell is a block of POOL × POOL
   * entries of head POOL_HEAD of layer POOL_LAYER of POOL_TRACE (kept alive by the built figure),
   * whose exact entries the heatmap widget draws when zoomed in; POOL 0: no such figure. */
  int pool;
  const struct _AsTrace *pool_trace;
  int pool_layer, pool_head;
  /* [n_rows] one more value per row drawn as a horizontal bar right of the cells (before the
   * colour bar), on an axis of its own, ±max|v|, printed below the bars, in the figure's colours
   * (the attribution's MLPs beside its L × H heads), or NULL; ROW_BARS_LABEL names them above. */
  const float *row_bars;
  const char *row_bars_label;
} ArHeatmapFigure;

/* Defaults: YlGnBu on [0, 1], AUTO annotation with 2 decimals, "Queries"/"Keys", colour bar on,
 * thinned labels, no highlight, no mask, no titles, no data, the whole matrix in view. */
void ar_heatmap_figure_init (ArHeatmapFigure *fig);

/* Measures FIG's tick labels (with FIG's style) into row_label_width and col_label_width. */
void ar_heatmap_figure_measure_labels (ArHeatmapFigure *fig);

/* The natural size of FIG (whole units). */
void ar_heatmap_get_size (const ArHeatmapFigure *fig, double *width, double *height);

/* The height FIG needs when drawn WIDTH units wide (its cells then fill the width). */
double ar_heatmap_get_height_for_width (const ArHeatmapFigure *fig, double width);

/* TRUE when A and B are laid out alike at every size — the same cells, label widths, titles, axis
 * names and colour bar — so a widget showing A can show B without a new layout. Measures
 * nothing: A's and B's label widths must have been measured (ar_heatmap_figure_measure_labels)
 * or be measured alike. */
gboolean ar_heatmap_same_layout (const ArHeatmapFigure *a, const ArHeatmapFigure *b);

/* Draws FIG into the rectangle (0, 0, WIDTH, HEIGHT) of CR's user space. */
void ar_heatmap_render (cairo_t *cr, const ArHeatmapFigure *fig, double width, double height);

/* The cell under (X, Y) when FIG is drawn at WIDTH × HEIGHT: TRUE and *ROW, *COL (of the whole
 * matrix, also in a zoomed view), or FALSE outside the cells shown. */
gboolean ar_heatmap_hit (const ArHeatmapFigure *fig, double width, double height, double x,
                         double y, int *row, int *col);

/* The rectangle of cell (ROW, COL) when drawn at WIDTH × HEIGHT (for tooltips and tests). */
void ar_heatmap_get_cell_rect (const ArHeatmapFigure *fig, double width, double height, int row,
                               int col, double *x, double *y, double *cell_w, double *cell_h);

/* The rectangle the cells shown occupy at WIDTH × HEIGHT. */
void ar_heatmap_get_plot_rect (const ArHeatmapFigure *fig, double width, double height, double *x,
                               double *y, double *plot_w, double *plot_h);

/* Whether values are annotated when drawn at WIDTH × HEIGHT. */
gboolean ar_heatmap_is_annotated (const ArHeatmapFigure *fig, double width, double height);

/* Whether a cell of FIG that holds a value holds one above its vmax (what `clipped` says). */
gboolean ar_heatmap_find_clipped (const ArHeatmapFigure *fig);

/* Whether cell (ROW, COL) of FIG holds a value above its vmax. */
gboolean ar_heatmap_cell_clipped (const ArHeatmapFigure *fig, int row, int col);

/* What cell (ROW, COL) of FIG holds (NaN values count as AR_CELL_NO_PARTNER). */
ArCellState ar_heatmap_cell_state (const ArHeatmapFigure *fig, int row, int col);

/* The columns of ROW that the causal mask and window leave (*FIRST … *END − 1; empty when
 * *FIRST ≥ *END): every other cell of the row is AR_CELL_MASKED. The cells inside still have the
 * states ar_heatmap_cell_state gives (cell_mask, no partner). Loops over a row of thousands of
 * cells use it instead of asking each cell. */
void ar_heatmap_row_span (const ArHeatmapFigure *fig, int row, int *first, int *end);

/* Paints every cell of FIG (the whole matrix, whatever the view) into the rectangle (X, Y, W, H),
 * without gaps, labels or colour bar: the minimap of a zoomed view. */
void ar_heatmap_paint_cells (cairo_t *cr, const ArHeatmapFigure *fig, double x, double y, double w,
                             double h);

G_END_DECLS
