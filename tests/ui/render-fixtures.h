/* render-fixtures.h — what the ui/render tests share: the seed's attention matrices, figures built
 * on them, drawing a figure into an image surface, and reading pixels back. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"
#include "figure.h"

G_BEGIN_DECLS

/* tests/README.md, "Published values", single head: softmax(E·Eᵀ) of the six seed embeddings, rows
 * = queries. [6][6] */
extern const float seed_a1_attention[36];
/* tests/README.md, "Published values", two heads: head 0 of the two-head example
 * (torch.manual_seed(42)). [6][6] */
extern const float seed_a2_head0[36];
extern const char *const seed_words[6];

/* The seed heatmap: VALUES [6][6] with the seed's words on both axes, titles, colour bar. */
void seed_heatmap (ArHeatmapFigure *fig, const float *values);

/* FIG drawn at WIDTH × HEIGHT units into a new ARGB32 image of ceil(size·SCALE) pixels. */
cairo_surface_t *draw_figure (const ArFigure *fig, double width, double height, double scale);

/* The colour of pixel (X, Y) (the images are opaque: premultiplication does not matter). */
ArColor8 pixel_at (cairo_surface_t *image, int x, int y);

/* |a - b| <= TOL in every channel. */
gboolean color_close (ArColor8 a, ArColor8 b, int tol);

/* Asserts pixel (X, Y) is EXPECTED within ±1 per channel, naming WHAT on failure. */
void assert_pixel (cairo_surface_t *image, int x, int y, ArColor8 expected, const char *what);

G_END_DECLS
