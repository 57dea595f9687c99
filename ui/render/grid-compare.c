/* grid-compare.c — whether two heads grids draw alike, in parts (see grid-render.h): what lets the
 * heads grid widget keep the drawings of the thumbnails a new figure did not change. */
#include "grid-render.h"

#include <string.h>

static gboolean
same_bytes (gconstpointer a, gconstpointer b, gsize n)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a == b || memcmp (a, b, n) == 0;
}

static gboolean
same_labels (const char *const *a, const char *const *b, int n)
{
  if (a == NULL || b == NULL)
    return a == b;
  for (int i = 0; i < n; i++)
    if (g_strcmp0 (a[i], b[i]) != 0)
      return FALSE;
  return TRUE;
}

gboolean
ar_grid_same_frame (const ArGridFigure *a, const ArGridFigure *b)
{
  int n = a->n_layers * a->n_heads;
  return g_strcmp0 (a->title, b->title) == 0 && g_strcmp0 (a->subtitle, b->subtitle) == 0
         && a->n_layers == b->n_layers && a->n_heads == b->n_heads && a->n_tokens == b->n_tokens
         && a->n_kv_heads == b->n_kv_heads && a->n_keys == b->n_keys
         && (a->attn == NULL) == (b->attn == NULL)
         && same_bytes (a->patterns, b->patterns, sizeof (AsHeadPattern) * n)
         && same_labels (a->pattern_labels, b->pattern_labels, n) && a->colormap == b->colormap
         && a->vmin == b->vmin && a->vmax == b->vmax && a->log_colors == b->log_colors
         && (a->head_ranges == NULL) == (b->head_ranges == NULL)
         && g_strcmp0 (a->colorbar_low, b->colorbar_low) == 0
         && g_strcmp0 (a->colorbar_high, b->colorbar_high) == 0 && a->clipped == b->clipped
         && a->mask_upper == b->mask_upper
         && same_bytes (a->layer_windows, b->layer_windows, sizeof (int) * a->n_layers)
         && a->highlight_layer == b->highlight_layer && a->highlight_head == b->highlight_head
         && a->colorbar == b->colorbar && g_strcmp0 (a->colorbar_label, b->colorbar_label) == 0
         && a->style == b->style;
}

gboolean
ar_grid_same_thumb (const ArGridFigure *a, const ArGridFigure *b, int layer, int head)
{
  if (a->attn == NULL || b->attn == NULL || a->n_layers != b->n_layers || a->n_heads != b->n_heads
      || a->n_tokens != b->n_tokens || a->n_keys != b->n_keys)
    return FALSE;
  gsize e = (gsize) layer * a->n_heads + head;
  gsize cells = (gsize) a->n_tokens * (a->n_keys > 0 ? a->n_keys : a->n_tokens);
  double ra[2] = { a->vmin, a->vmax }, rb[2] = { b->vmin, b->vmax };
  if (a->head_ranges != NULL)
    memcpy (ra, a->head_ranges + 2 * e, sizeof ra);
  if (b->head_ranges != NULL)
    memcpy (rb, b->head_ranges + 2 * e, sizeof rb);
  int wa = a->mask_upper && a->layer_windows != NULL ? a->layer_windows[layer] : 0,
      wb = b->mask_upper && b->layer_windows != NULL ? b->layer_windows[layer] : 0;
  gboolean xa = a->crossed != NULL && a->crossed[e], xb = b->crossed != NULL && b->crossed[e];
  const ArRenderStyle *sa = ar_render_style_or_default (a->style),
                      *sb = ar_render_style_or_default (b->style);
  return ra[0] == rb[0] && ra[1] == rb[1] && (a->head_ranges == NULL) == (b->head_ranges == NULL)
         && a->colormap == b->colormap && a->log_colors == b->log_colors
         && a->mask_upper == b->mask_upper && wa == wb && xa == xb
         && same_bytes (&sa->masked, &sb->masked, sizeof sa->masked)
         && same_bytes (&sa->text, &sb->text, sizeof sa->text)
         && same_bytes (&sa->background, &sb->background, sizeof sa->background)
         && same_bytes (a->attn + e * cells, b->attn + e * cells, sizeof (float) * cells);
}
