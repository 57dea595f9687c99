/* colormap.c — sampling matplotlib's colour maps (see colormap.h for the rule). */
#include "colormap.h"

#include <math.h>

#include "as-error.h"
#include "colormap-private.h"

static const char *const names[AR_COLORMAP_COUNT] = {
  "ylgnbu", "viridis", "magma", "greys", "rdbu_r",
};

static const guint8 (*const tables[AR_COLORMAP_COUNT])[3] = {
  ar_colormap_table_ylgnbu, ar_colormap_table_viridis, ar_colormap_table_magma,
  ar_colormap_table_greys,  ar_colormap_table_rdbu_r,
};

const char *
ar_colormap_to_string (ArColormap map)
{
  g_return_val_if_fail (map < AR_COLORMAP_COUNT, NULL);
  return names[map];
}

gboolean
ar_colormap_from_string (const char *name, ArColormap *map, GError **error)
{
  for (int i = 0; i < AR_COLORMAP_COUNT; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      {
        *map = (ArColormap) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (name, "rdbu") == 0 || g_ascii_strcasecmp (name, "diverging") == 0)
    {
      *map = AR_COLORMAP_RDBU_R;
      return TRUE;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "unknown colour map '%s' (expected ylgnbu, viridis, magma, greys or rdbu_r)", name);
  return FALSE;
}

gboolean
ar_colormap_is_diverging (ArColormap map)
{
  return map == AR_COLORMAP_RDBU_R;
}

ArColor8
ar_colormap_entry (ArColormap map, int index)
{
  g_return_val_if_fail (map < AR_COLORMAP_COUNT, (ArColor8){ 0 });
  index = CLAMP (index, 0, 255);
  const guint8 *e = tables[map][index];
  return (ArColor8){ e[0], e[1], e[2] };
}

ArColor8
ar_colormap_sample (ArColormap map, double t)
{
  if (isnan (t))
    t = 0;
  /* matplotlib: xa = t·N, then truncated to an index, N mapped to N - 1, out-of-range clipped. */
  double x = floor (CLAMP (t, 0.0, 1.0) * 256.0);
  return ar_colormap_entry (map, x >= 256 ? 255 : (int) x);
}

ArColor8
ar_colormap_color (ArColormap map, double value, double vmin, double vmax)
{
  if (!(vmax > vmin))
    return ar_colormap_entry (map, 0);
  return ar_colormap_sample (map, (value - vmin) / (vmax - vmin));
}

ArColor8
ar_colormap_color_scaled (ArColormap map, double value, double vmin, double vmax, gboolean log)
{
  if (!log || !(vmin > 0) || !(vmax > vmin))
    return ar_colormap_color (map, value, vmin, vmax);
  double v = value > 0 ? log10 (value) : -INFINITY;
  return ar_colormap_color (map, v, log10 (vmin), log10 (vmax));
}

ArColor8
ar_palette_color (int i)
{
  const guint8 *e = ar_colormap_table_tab10[(i < 0 ? -i : i) % 10];
  return (ArColor8){ e[0], e[1], e[2] };
}

static double
linear_channel (guint8 v)
{
  double c = v / 255.0;
  return c <= 0.03928 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

double
ar_color_luminance (ArColor8 c)
{
  return 0.2126 * linear_channel (c.r) + 0.7152 * linear_channel (c.g)
         + 0.0722 * linear_channel (c.b);
}
