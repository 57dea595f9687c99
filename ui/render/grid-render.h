/* grid-render.h — the all-heads grid (model view): one thumbnail heatmap per head, layers as rows
 * (layer 0 at the top) and heads as columns, so a whole model can be scanned at once.
 *
 * Head numbers run along the top under a "Head" caption, layer numbers down the left beside a
 * "Layer" caption; under each thumbnail its pattern label from the head statistics
 * (core/as-head-stats.h: "previous", "first", "self", "mixed"; for an encoder also "next",
 * "[CLS]", "[SEP]", "broad"; where they do not fit under a thumbnail, as in a figure one journal
 * column wide, short forms ("prev", "mix", ...) or the initials with a key below), coloured by
 * pattern so the structured heads stand out. All thumbnails share one colour range and one colour
 * bar, or each has its own range (head_ranges: the heads' patterns, whatever their scale). The
 * highlighted head (the one open in the attention view) is outlined in the accent colour. With
 * grouped-query attention (n_kv_heads < n_heads), the query heads that share a key/value head
 * stand on one tinted background per layer, with a gap between groups.
 *
 * Natural thumbnail size: 720 / max(L, H) units clamped to 56..120, so a 12 × 12 model gives a
 * figure of about 1000 × 1100 units with every label readable. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "as-head-stats.h"
#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

typedef struct
{
  const char *title;
  const char *subtitle;

  int n_layers, n_heads, n_tokens;
  int n_kv_heads;    /* key/value heads the query heads share (grouped-query attention) */
  const float *attn; /* [L][H][T][T] */
  const AsHeadPattern *patterns; /* [L][H], or NULL for no labels */
  /* Rectangular thumbnails (a translation model's cross-attention): ATTN is [L][H][T][N_KEYS]
   * (0: square, [L][H][T][T]); PATTERN_LABELS [L][H] (e.g. as-cross-stats.h's "diagonal", "eos")
   * are written instead of PATTERNS' names when not NULL. */
  int n_keys;
  const char *const *pattern_labels;

  ArColormap colormap;
  double vmin, vmax;
  gboolean log_colors; /* colours by log10 (heatmap-render.h) */
  /* [L][H][2]: each head's own colour range (autoscaled per head), or NULL for VMIN..VMAX; the
   * colour bar then runs from "min" to "max" (COLORBAR_LOW, COLORBAR_HIGH). */
  const double *head_ranges;
  const char *colorbar_low, *colorbar_high;
  /* Weights above the range (a causal model's first token, 1 on itself, left out of autoscaled
   * ranges) are drawn in the top colour; the colour bar says "clipped". */
  gboolean clipped;
  gboolean mask_upper; /* causal models: grey future cells */
  /* [L] each layer's causal sliding window: the keys left of it grey too (0: none); or NULL */
  const int *layer_windows;
  int highlight_layer, highlight_head; /* -1 for none */
  const guint8 *crossed; /* [L][H] non-zero: the head is switched off (ablated), drawn crossed
                          * out; NULL for none */
  gboolean colorbar;
  const char *colorbar_label;

  const ArRenderStyle *style;
} ArGridFigure;

/* Defaults: YlGnBu on [0, 1], colour bar on, no highlight, no data. */
void ar_grid_figure_init (ArGridFigure *fig);

void ar_grid_get_size (const ArGridFigure *fig, double *width, double *height);

/* The height FIG needs WIDTH units wide. */
double ar_grid_get_height_for_width (const ArGridFigure *fig, double width);

void ar_grid_render (cairo_t *cr, const ArGridFigure *fig, double width, double height);

/* Where ar_grid_render_parts draws the thumbnail of (LAYER, HEAD), whose cells span the square
 * (X, Y) to (X + SIZE, Y + SIZE) in figure units: a new cairo context (the renderer draws the
 * cells and a switched-off head's cross into it and destroys it), or NULL to leave it out. */
typedef cairo_t *(*ArGridThumbTarget) (gpointer data, int layer, int head, double x, double y,
                                       double size);

/* The grid in parts, for a widget that keeps each thumbnail's drawing (the heads grid of a long
 * text gets a head at a time): onto CR (unless NULL) everything but the thumbnails' cells and
 * crosses — title, captions, frames, labels, key, colour bar; then each thumbnail's cells and
 * cross onto the context TARGET (unless NULL) gives for it. The thumbnails drawn over the rest
 * make the drawing of ar_grid_render (composed over another surface than the rest, the
 * antialiased seams between cells may round a few levels apart). */
void ar_grid_render_parts (cairo_t *cr, const ArGridFigure *fig, double width, double height,
                           ArGridThumbTarget target, gpointer data);

/* TRUE when A and B draw the same in ar_grid_render_parts' CR (all but the thumbnails' cells and
 * crosses) at one size: the same texts, labels, highlight, colour bar and layout. */
gboolean ar_grid_same_frame (const ArGridFigure *a, const ArGridFigure *b);

/* TRUE when the thumbnail of (LAYER, HEAD) draws the same cells and cross in A and B (both
 * with data, of one shape): its values to the bit, its colours, masked cells and cross. Where it
 * goes is the layout's (ar_grid_same_frame). */
gboolean ar_grid_same_thumb (const ArGridFigure *a, const ArGridFigure *b, int layer, int head);

/* The head whose thumbnail (or pattern label) is under (X, Y): TRUE and *LAYER, *HEAD. */
gboolean ar_grid_hit (const ArGridFigure *fig, double width, double height, double x, double y,
                      int *layer, int *head);

/* The thumbnail rectangle of (LAYER, HEAD) at WIDTH × HEIGHT (square: *SIZE × *SIZE). */
void ar_grid_get_thumb_rect (const ArGridFigure *fig, double width, double height, int layer,
                             int head, double *x, double *y, double *size);

/* The colour a pattern label is written in (light style). */
ArRgb ar_head_pattern_color (AsHeadPattern pattern);
/* The label under a thumbnail: as_head_pattern_to_string's, with "[CLS]" and "[SEP]" for the
 * encoders' cls and sep patterns. Static. */
const char *ar_head_pattern_label (AsHeadPattern pattern);

G_END_DECLS
