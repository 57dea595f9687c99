/* render-style.c — the light (print) and dark styles. */
#include "render-style.h"

/* Fonts: DejaVu Sans is installed with the app (fonts-dejavu-core) so figures look the same on
 * every machine; fontconfig falls back to any sans font for scripts it does not cover. */
#define FONT_FAMILY "DejaVu Sans, Sans"

static const ArRenderStyle light = {
  .paint_background = TRUE,
  .background = { 1, 1, 1 },
  .text = { 0.13, 0.13, 0.13 },
  .muted = { 0.40, 0.40, 0.40 },
  .rule = { 0.30, 0.30, 0.30 },
  .grid = { 0.90, 0.90, 0.90 },
  .masked = { 0.95, 0.95, 0.95 },
  .accent = { 0.85, 0.20, 0.10 },
  .dark_ink = { 0.10, 0.10, 0.10 },
  .light_ink = { 1, 1, 1 },
  .font_family = FONT_FAMILY,
};

static const ArRenderStyle dark = {
  .paint_background = TRUE,
  .background = { 0.14, 0.14, 0.15 },
  .text = { 0.92, 0.92, 0.92 },
  .muted = { 0.65, 0.65, 0.67 },
  .rule = { 0.70, 0.70, 0.72 },
  .grid = { 0.25, 0.25, 0.27 },
  .masked = { 0.20, 0.20, 0.21 },
  .accent = { 1.00, 0.45, 0.30 },
  .dark_ink = { 0.10, 0.10, 0.10 },
  .light_ink = { 1, 1, 1 },
  .font_family = FONT_FAMILY,
};

const ArRenderStyle *
ar_render_style_light (void)
{
  return &light;
}

const ArRenderStyle *
ar_render_style_dark (void)
{
  return &dark;
}

const ArRenderStyle *
ar_render_style_or_default (const ArRenderStyle *style)
{
  return style != NULL ? style : &light;
}

void
ar_render_set_rgb (cairo_t *cr, ArRgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

void
ar_render_set_color8 (cairo_t *cr, ArColor8 c)
{
  cairo_set_source_rgb (cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
}
