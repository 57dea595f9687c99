/* colormap.c — sampling matplotlib's colour maps (see colormap.h for the rule). */
#include "colormap.h"

#include <math.h>

#include "as-error.h"
#include "colormap-private.h"

static const char *const names[AS_COLORMAP_COUNT] = {
  "ylgnbu", "viridis", "magma", "greys", "rdbu_r",
};

static const guint8 (*const tables[AS_COLORMAP_COUNT])[3] = {
  as_colormap_table_ylgnbu, as_colormap_table_viridis, as_colormap_table_magma,
  as_colormap_table_greys,  as_colormap_table_rdbu_r,
};

const char *
as_colormap_to_string (AsColormap map)
{
  g_return_val_if_fail (map < AS_COLORMAP_COUNT, NULL);
  return names[map];
}

gboolean
as_colormap_from_string (const char *name, AsColormap *map, GError **error)
{
  for (int i = 0; i < AS_COLORMAP_COUNT; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      {
        *map = (AsColormap) i;
        return TRUE;
      }
  if (g_ascii_strcasecmp (name, "rdbu") == 0 || g_ascii_strcasecmp (name, "diverging") == 0)
    {
      *map = AS_COLORMAP_RDBU_R;
      return TRUE;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "unknown colour map '%s' (expected ylgnbu, viridis, magma, greys or rdbu_r)", name);
  return FALSE;
}

gboolean
as_colormap_is_diverging (AsColormap map)
{
  return map == AS_COLORMAP_RDBU_R;
}

AsColor8
as_colormap_entry (AsColormap map, int index)
{
  g_return_val_if_fail (map < AS_COLORMAP_COUNT, (AsColor8){ 0 });
  index = CLAMP (index, 0, 255);
  const guint8 *e = tables[map][index];
  return (AsColor8){ e[0], e[1], e[2] };
}

AsColor8
as_colormap_sample (AsColormap map, double t)
{
  if (isnan (t))
    t = 0;
  /* matplotlib: xa = t·N, then truncated to an index, N mapped to N - 1, out-of-range clipped. */
  double x = floor (CLAMP (t, 0.0, 1.0) * 256.0);
  return as_colormap_entry (map, x >= 256 ? 255 : (int) x);
}

AsColor8
as_colormap_color (AsColormap map, double value, double vmin, double vmax)
{
  if (!(vmax > vmin))
    return as_colormap_entry (map, 0);
  return as_colormap_sample (map, (value - vmin) / (vmax - vmin));
}

AsColor8
as_palette_color (int i)
{
  const guint8 *e = as_colormap_table_tab10[(i < 0 ? -i : i) % 10];
  return (AsColor8){ e[0], e[1], e[2] };
}

static double
linear_channel (guint8 v)
{
  double c = v / 255.0;
  return c <= 0.03928 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

double
as_color_luminance (AsColor8 c)
{
  return 0.2126 * linear_channel (c.r) + 0.7152 * linear_channel (c.g)
         + 0.0722 * linear_channel (c.b);
}
