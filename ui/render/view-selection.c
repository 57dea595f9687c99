/* view-selection.c — the view selection and the rules the figure builders share (see
 * view-selection.h). */
#include "view-selection.h"

#include <glib/gi18n-lib.h>
#include <math.h>

void
ar_view_selection_init (ArViewSelection *view)
{
  *view = (ArViewSelection){
    .aggregate = AR_AGGREGATE_HEAD,
    .selected_token = -1,
    .colormap = AR_COLORMAP_YLGNBU,
    .annotate = AR_ANNOTATE_AUTO,
  };
}

gboolean
ar_view_selection_equal (const ArViewSelection *a, const ArViewSelection *b)
{
  return a->layer == b->layer && a->head == b->head && a->aggregate == b->aggregate
         && a->selected_token == b->selected_token && a->colormap == b->colormap
         && a->annotate == b->annotate && a->raw_tokens == b->raw_tokens
         && a->autoscale == b->autoscale;
}

const float *
ar_attention_matrix (const ArAttention *attention, const ArViewSelection *view)
{
  const AsTrace *t = attention->trace;
  g_return_val_if_fail (view->layer >= 0 && view->layer < t->n_layer, NULL);
  gsize tt = (gsize) t->n_tokens * t->n_tokens;
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return attention->mean_heads != NULL ? attention->mean_heads + view->layer * tt : NULL;
    case AR_AGGREGATE_ROLLOUT:
      return attention->rollout != NULL ? attention->rollout + view->layer * tt : NULL;
    case AR_AGGREGATE_HEAD:
    default:
      g_return_val_if_fail (view->head >= 0 && view->head < t->n_head, NULL);
      return as_trace_attn (t, view->layer, view->head);
    }
}

int
ar_kv_head_of (int head, int n_heads, int n_kv_heads)
{
  if (n_kv_heads <= 0 || n_kv_heads >= n_heads)
    return -1;
  return head / (n_heads / n_kv_heads);
}

char *
ar_attention_title (const ArViewSelection *view, int n_heads, int n_kv_heads)
{
  int kv = ar_kv_head_of (view->head, n_heads, n_kv_heads);
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return g_strdup_printf (_ ("Layer %d · mean over %d heads"), view->layer, n_heads);
    case AR_AGGREGATE_ROLLOUT:
      return g_strdup_printf (_ ("Attention rollout through layer %d"), view->layer);
    case AR_AGGREGATE_HEAD:
    default:
      if (kv >= 0)
        return g_strdup_printf (_ ("Layer %d · head %d · key/value head %d"), view->layer,
                                view->head, kv);
      return g_strdup_printf (_ ("Layer %d · head %d"), view->layer, view->head);
    }
}

char *
ar_quote_text (const char *text)
{
  /* Translators: a text quoted in a figure; use your language's quotation marks. */
  return g_strdup_printf (_ ("“%s”"), text);
}

char *
ar_figure_subtitle (const char *model_name, const char *text)
{
  if (text == NULL)
    return g_strdup (model_name);
  g_autofree char *quoted = ar_quote_text (text);
  /* Translators: figure subtitle: the model's name and the quoted text. */
  return g_strdup_printf (_ ("%s · %s"), model_name, quoted);
}

/* LO and HI of the finite values of VALUES [N] (+inf and -inf when there is none). */
static void
min_max (const float *values, gsize n, double *lo, double *hi)
{
  float a = INFINITY, b = -INFINITY;
  for (gsize i = 0; i < n; i++)
    if (isfinite (values[i]))
      a = MIN (a, values[i]), b = MAX (b, values[i]);
  *lo = a, *hi = b;
}

void
ar_attention_range (double range[2], const AsTrace *trace)
{
  min_max (trace->attn, (gsize) trace->n_layer * trace->n_head * trace->n_tokens * trace->n_tokens,
           &range[0], &range[1]);
}

void
ar_sequential_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax)
{
  double lo = 0, hi = 1;
  if (autoscale)
    min_max (values, n, &lo, &hi);
  *vmin = hi > lo ? lo : 0;
  *vmax = hi > lo ? hi : 1;
}

void
ar_signed_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax,
                 gboolean *diverging)
{
  double lo, hi;
  min_max (values, n, &lo, &hi);
  *diverging = lo < 0;
  if (!*diverging)
    {
      *vmin = autoscale && hi > lo ? lo : 0;
      *vmax = autoscale && hi > lo ? hi : 1;
      return;
    }
  double r = autoscale ? MAX (-lo, hi) : 1;
  *vmin = -r, *vmax = r;
}

double
ar_difference_range (const float *diff, gsize n)
{
  double max_abs = 0;
  for (gsize i = 0; i < n; i++)
    max_abs = MAX (max_abs, fabs (diff[i]));
  return MAX (ceil (max_abs * 100 - 1e-9) / 100, 0.01);
}
