/* colorbar-render.c — the colour bar: 256 bands, ticks, labels. */
#include "colorbar-render.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "axis-ticks.h"
#include "render-text.h"

#define TICK_LENGTH 4.0
#define TICK_GAP 3.0
#define LABEL_GAP 8.0
/* Fewer ticks than this many units apart would collide. */
#define TICK_SPACING 28.0

static gboolean
is_log (const ArColorbar *bar)
{
  return bar->log && bar->vmin > 0 && bar->vmax > bar->vmin;
}

/* Powers of ten in [vmin, vmax], with 2× and 5× them over less than two decades. */
static void
compute_log_ticks (ArTicks *ticks, const ArColorbar *bar)
{
  static const double steps[] = { 1, 2, 5 };
  double lo = log10 (bar->vmin), hi = log10 (bar->vmax);
  int n_steps = hi - lo < 2 ? 3 : 1;
  ticks->n = 0;
  ticks->decimals = 0;
  for (int k = (int) floor (lo); k <= (int) ceil (hi) && ticks->n < AR_TICKS_MAX; k++)
    for (int s = 0; s < n_steps && ticks->n < AR_TICKS_MAX; s++)
      {
        double v = steps[s] * pow (10, k);
        if (v < bar->vmin * (1 - 1e-9) || v > bar->vmax * (1 + 1e-9))
          continue;
        ticks->values[ticks->n++] = v;
        ticks->decimals = MAX (ticks->decimals, -k);
      }
}

static gboolean
is_relative (const ArColorbar *bar)
{
  return bar->low_label != NULL && bar->high_label != NULL;
}

/* The text of tick I of TICKS. Newly allocated. */
static char *
tick_text (const ArColorbar *bar, const ArTicks *ticks, int i)
{
  if (is_relative (bar))
    return g_strdup (i == 0 ? bar->low_label : bar->high_label);
  return ar_format_number (ticks->values[i], ticks->decimals);
}

static void
compute_ticks (ArTicks *ticks, const ArColorbar *bar, double height)
{
  if (is_relative (bar))
    {
      ticks->n = 2, ticks->decimals = 0;
      ticks->values[0] = bar->vmin, ticks->values[1] = bar->vmax;
      return;
    }
  int target = CLAMP ((int) (height / TICK_SPACING), 2, 6);
  if (is_log (bar))
    compute_log_ticks (ticks, bar);
  else if (bar->vmax > bar->vmin)
    ar_ticks_compute (ticks, bar->vmin, bar->vmax, target);
  else
    ticks->n = 0, ticks->decimals = 2;
}

/* Where V sits on BAR, 0 at the bottom and 1 at the top. */
static double
bar_position (const ArColorbar *bar, double v)
{
  if (is_log (bar))
    return (log10 (v) - log10 (bar->vmin)) / (log10 (bar->vmax) - log10 (bar->vmin));
  return (v - bar->vmin) / (bar->vmax - bar->vmin);
}

/* The widest tick label, measured at the largest tick count (the most decimals) so that the
 * width does not depend on the height. */
static double
widest_tick_label (PangoContext *pc, const ArRenderStyle *style, const ArColorbar *bar)
{
  ArTicks ticks;
  compute_ticks (&ticks, bar, 6 * TICK_SPACING);
  double widest = 0, w;
  for (int i = 0; i < ticks.n; i++)
    {
      g_autofree char *text = tick_text (bar, &ticks, i);
      ar_text_measure (pc, style, text, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w, NULL);
      widest = MAX (widest, w);
    }
  return widest;
}

/* The word beside a clipped bar's triangle (a new layout). */
static PangoLayout *
clipped_layout (PangoContext *pc, const ArRenderStyle *style)
{
  /* Translators: beside the colour bar's top: values above its range are drawn in its top
   * colour */
  return ar_text_layout (pc, style, _ ("clipped"), AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
}

double
ar_colorbar_get_width (PangoContext *pc, const ArRenderStyle *style, const ArColorbar *bar)
{
  double h = 0;
  double labels = widest_tick_label (pc, style, bar);
  if (bar->clipped)
    {
      double w;
      PangoLayout *layout = clipped_layout (pc, style);
      ar_text_extent (layout, &w, NULL);
      g_object_unref (layout);
      labels = MAX (labels, w);
    }
  double width = AR_COLORBAR_BAR_WIDTH + TICK_LENGTH + TICK_GAP + labels;
  if (bar->label != NULL && *bar->label != '\0')
    {
      ar_text_measure (pc, style, bar->label, AR_FONT_TICK, PANGO_WEIGHT_NORMAL, NULL, &h);
      width += LABEL_GAP + h;
    }
  return ceil (width);
}

static void
draw_bands (cairo_t *cr, const ArColorbar *bar, double x, double y, double height)
{
  double band = height / 256.0;
  /* Bottom to top, each band reaching one band into the next so anti-aliased seams blend two
   * neighbouring colours instead of letting the background through. */
  for (int i = 0; i < 256; i++)
    {
      double bottom = y + height - i * band;
      double top = MAX (y, bottom - (i < 255 ? 2 : 1) * band);
      ar_render_set_color8 (cr, ar_colormap_entry (bar->colormap, i));
      cairo_rectangle (cr, x, top, AR_COLORBAR_BAR_WIDTH, bottom - top);
      cairo_fill (cr);
    }
}

/* The triangle on top of a clipped bar at (X, Y) and the word beside it. */
static void
draw_clipped (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArColorbar *bar,
              double x, double y)
{
  double w = AR_COLORBAR_BAR_WIDTH, h = AR_COLORBAR_CLIP_HEIGHT;
  cairo_move_to (cr, x - 0.5, y - 1);
  cairo_line_to (cr, x + w / 2, y - 1 - h);
  cairo_line_to (cr, x + w + 0.5, y - 1);
  cairo_close_path (cr);
  ar_render_set_color8 (cr, ar_colormap_entry (bar->colormap, 255));
  cairo_fill_preserve (cr);
  ar_render_set_rgb (cr, style->muted);
  cairo_set_line_width (cr, 1.0);
  cairo_stroke (cr);
  PangoLayout *layout = clipped_layout (pc, style);
  ar_render_set_rgb (cr, style->muted);
  /* just above the bar's top, where no tick label is (draw skips those) */
  ar_text_draw (cr, layout, x + w + TICK_LENGTH + TICK_GAP, y - 2, 0, 1, 0);
  g_object_unref (layout);
}

void
ar_colorbar_draw (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArColorbar *bar,
                  double x, double y, double height)
{
  if (height <= 0)
    return;
  draw_bands (cr, bar, x, y, height);

  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  ar_render_set_rgb (cr, style->muted);
  cairo_rectangle (cr, x - 0.5, y - 0.5, AR_COLORBAR_BAR_WIDTH + 1, height + 1);
  cairo_stroke (cr);

  ArTicks ticks;
  compute_ticks (&ticks, bar, height);
  double right = x + AR_COLORBAR_BAR_WIDTH;
  if (bar->clipped)
    draw_clipped (cr, pc, style, bar, x, y);
  for (int i = 0; i < ticks.n; i++)
    {
      double t = bar_position (bar, ticks.values[i]);
      double ty = y + height - t * height;
      ar_render_set_rgb (cr, style->rule);
      cairo_move_to (cr, right, ty);
      cairo_line_to (cr, right + TICK_LENGTH, ty);
      cairo_stroke (cr);
      /* a label at the very top would run into "clipped" */
      if (bar->clipped && ty < y + 7)
        continue;
      g_autofree char *text = tick_text (bar, &ticks, i);
      PangoLayout *layout = ar_text_layout (pc, style, text, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, layout, right + TICK_LENGTH + TICK_GAP, ty, 0, 0.5, 0);
      g_object_unref (layout);
    }
  if (bar->label != NULL && *bar->label != '\0')
    {
      PangoLayout *layout
          = ar_text_layout (pc, style, bar->label, AR_FONT_TICK, PANGO_WEIGHT_NORMAL, 0);
      ar_render_set_rgb (cr, style->muted);
      double lx = right + TICK_LENGTH + TICK_GAP + widest_tick_label (pc, style, bar) + LABEL_GAP;
      double label_w;
      ar_text_extent (layout, &label_w, NULL);
      /* Centred on the bar; longer than a short bar it starts at its top and runs on below it
       * (beside the column labels, where nothing else is) rather than being cut. */
      if (label_w <= height)
        ar_text_draw (cr, layout, lx, y + height / 2, 0.5, 0, -G_PI / 2);
      else
        ar_text_draw (cr, layout, lx, y, 1, 0, -G_PI / 2);
      g_object_unref (layout);
    }
  cairo_restore (cr);
}
