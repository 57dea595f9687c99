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
} AsRgb;

typedef struct
{
  gboolean paint_background; /* fill the whole figure with BACKGROUND first */
  AsRgb background;
  AsRgb text;      /* titles, tick labels */
  AsRgb muted;     /* subtitles, axis names, notes */
  AsRgb rule;      /* axis lines, plot frames, tick marks */
  AsRgb grid;      /* light grid lines of charts */
  AsRgb masked;    /* cells a causal model cannot see */
  AsRgb accent;    /* highlighted row, column, head or point */
  AsRgb dark_ink;  /* annotation text on light cells */
  AsRgb light_ink; /* annotation text on dark cells */
  const char *font_family;
} AsRenderStyle;

/* The built-in styles (static, never freed). */
const AsRenderStyle *as_render_style_light (void);
const AsRenderStyle *as_render_style_dark (void);

/* STYLE, or the light style for NULL. */
const AsRenderStyle *as_render_style_or_default (const AsRenderStyle *style);

/* cairo_set_source_rgb with C / COLOR8. */
void as_render_set_rgb (cairo_t *cr, AsRgb c);
void as_render_set_color8 (cairo_t *cr, AsColor8 c);

G_END_DECLS
