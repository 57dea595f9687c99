/* colorbar-render.h — the vertical colour bar beside heatmaps: the colour map from VMIN at the
 * bottom to VMAX at the top, one band per table entry, a thin frame, nice tick values on the
 * right and an optional label read bottom to top. A log bar (LOG, VMIN > 0) has its ticks at the
 * powers of ten (and 2× and 5× them when the range spans less than two decades) at their log
 * positions. */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <pango/pangocairo.h>

#include "colormap.h"
#include "render-style.h"

G_BEGIN_DECLS

/* Width of the coloured bar itself. */
#define AR_COLORBAR_BAR_WIDTH 14.0

typedef struct
{
  ArColormap colormap;
  double vmin, vmax;
  const char *label; /* e.g. "Attention weight", or NULL */
  gboolean log;
  /* Words for the two ends instead of numbers ("min", "max": ranges that differ per thumbnail),
   * or NULL. */
  const char *low_label, *high_label;
  /* Values above VMAX are drawn in the top colour: a triangle on top of the bar, in that colour,
   * says so, with the word "clipped" (matplotlib's extend="max"). */
  gboolean clipped;
} ArColorbar;

/* The height of the triangle a clipped bar has on top (inside the room above the bar). */
#define AR_COLORBAR_CLIP_HEIGHT 10.0

/* The total width (bar, ticks, tick labels, label) the colour bar needs. */
double ar_colorbar_get_width (PangoContext *pc, const ArRenderStyle *style, const ArColorbar *bar);

/* Draws BAR with its bar's top left corner at (X, Y), HEIGHT tall. */
void ar_colorbar_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style,
                       const ArColorbar *bar, double x, double y, double height);

G_END_DECLS
