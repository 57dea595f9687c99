/* render-style.h — the colours and font every figure shares.
 *
 * A figure struct points at a style; NULL means the light print style (white paper, near-black
 * text), which file export uses. The GTK widgets pass the dark style in dark mode, or a style with
 * paint_background = FALSE to draw on the widget's own background. Colours are sRGB in 0..1. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "colormap.h"

G_BEGIN_DECLS

typedef struct
{
  double r, g, b;
} ArRgb;

typedef struct
{
  gboolean paint_background; /* fill the whole figure with BACKGROUND first */
  ArRgb background;
  ArRgb text;      /* titles, tick labels */
  ArRgb muted;     /* subtitles, axis names, notes */
  ArRgb rule;      /* axis lines, plot frames, tick marks */
  ArRgb grid;      /* light grid lines of charts */
  ArRgb masked;    /* cells a causal model cannot see */
  ArRgb accent;    /* highlighted row, column, head or point */
  ArRgb dark_ink;  /* annotation text on light cells */
  ArRgb light_ink; /* annotation text on dark cells */
  const char *font_family;
} ArRenderStyle;

/* The built-in styles (static, never freed). */
const ArRenderStyle *ar_render_style_light (void);
const ArRenderStyle *ar_render_style_dark (void);

/* STYLE, or the light style for NULL. */
const ArRenderStyle *ar_render_style_or_default (const ArRenderStyle *style);

/* cairo_set_source_rgb with C / COLOR8. */
void ar_render_set_rgb (cairo_t *cr, ArRgb c);
void ar_render_set_color8 (cairo_t *cr, ArColor8 c);

G_END_DECLS
