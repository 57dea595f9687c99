/* alignment-render.h — the alignment figure of a translation: the source tokens on one line, the
 * target tokens on a line below, and a link between every source token and every target token
 * whose weight (a head's cross-attention, or the mean over a layer's heads) is visible, drawn the
 * more opaque and the wider the larger the weight — the classic figure aligning "The group went
 * home" with "Die Gruppe ging nach Hause".
 *
 * A plain struct that borrows its arrays; the same ar_alignment_render() draws it in the GTK
 * widget and into PNG/SVG/PDF files. Layout, top to bottom: the title block, the source line
 * (its caption on the left), the band of links, the target line. Each line is centred (a line
 * less than half as wide as the other is spread over its width); tokens are boxes as wide as
 * their labels. When the figure is drawn smaller than its natural size, the
 * lines and links shrink together (titles and captions keep their size).
 *
 * Links: weight w is drawn with opacity and width growing linearly with w / vmax (clamped to 1);
 * links under 1 % of vmax are left out. With a highlighted token, its links are drawn in the
 * accent colour on top and every other link fades. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "render-style.h"

G_BEGIN_DECLS

/* Links lighter than this fraction of vmax are not drawn. */
#define AR_ALIGNMENT_MIN_LINK 0.01
/* Over this many source tokens every target token shows only its AR_ALIGNMENT_LINKS_PER_TARGET
 * strongest links (all of them while it or a source token is highlighted), and a note under the
 * target line says so: a thousand links per target token are one dark band. */
#define AR_ALIGNMENT_DENSE_SOURCE 64
#define AR_ALIGNMENT_LINKS_PER_TARGET 3

typedef struct
{
  const char *title;
  const char *subtitle;

  int n_source, n_target;
  const char *const *source_labels; /* [S] */
  const char *const *target_labels; /* [T] */
  const float *weights;             /* [T][S]: row i = target token i, column j = source token j */
  double vmax;                      /* the weight drawn fully opaque and widest (> 0) */
  const char *source_caption;       /* "Source", or NULL */
  const char *target_caption;       /* "Target", or NULL */
  int highlight_source;             /* a source token whose links stand out, -1 for none */
  int highlight_target;             /* a target token whose links stand out, -1 for none */

  const ArRenderStyle *style; /* NULL = light print style */
} ArAlignmentFigure;

/* Defaults: no data, vmax 1, no highlight, no titles or captions. */
void ar_alignment_figure_init (ArAlignmentFigure *fig);

void ar_alignment_get_size (const ArAlignmentFigure *fig, double *width, double *height);

/* The height FIG needs WIDTH units wide. */
double ar_alignment_get_height_for_width (const ArAlignmentFigure *fig, double width);

void ar_alignment_render (cairo_t *cr, const ArAlignmentFigure *fig, double width, double height);

/* The token under (X, Y) when FIG is drawn at WIDTH × HEIGHT: TRUE with *TARGET (FALSE: a source
 * token) and *INDEX. */
gboolean ar_alignment_hit (const ArAlignmentFigure *fig, double width, double height, double x,
                           double y, gboolean *target, int *index);

/* The box of source (TARGET FALSE) or target token INDEX drawn at WIDTH × HEIGHT. */
void ar_alignment_get_token_rect (const ArAlignmentFigure *fig, double width, double height,
                                  gboolean target, int index, double *x, double *y, double *w,
                                  double *h);

/* The opacity (0..1) the link between target token I and source token J is drawn with, before
 * any highlight fades it: w / vmax clamped to 0..1, 0 below AR_ALIGNMENT_MIN_LINK. */
double ar_alignment_link_strength (const ArAlignmentFigure *fig, int i, int j);

/* How many links per target token FIG draws without a highlight: 0 = all of them. */
int ar_alignment_links_per_target (const ArAlignmentFigure *fig);

G_END_DECLS
