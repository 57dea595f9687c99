/* view-selection.c — the view selection and the rules the figure builders share (see
 * view-selection.h). */
#include "view-selection.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "as-attention-ranges.h"

void
ar_view_selection_init (ArViewSelection *view)
{
  *view = (ArViewSelection){
    .aggregate = AR_AGGREGATE_HEAD,
    .selected_token = -1,
    .colormap = AR_COLORMAP_YLGNBU,
    .annotate = AR_ANNOTATE_AUTO,
    .labels = AR_LABELS_THINNED,
    .alignment = AS_ALIGN_TOKENS,
    .segments = AR_SEGMENTS_ALL,
  };
}

gboolean
ar_view_selection_equal (const ArViewSelection *a, const ArViewSelection *b)
{
  return a->layer == b->layer && a->head == b->head && a->aggregate == b->aggregate
         && a->selected_token == b->selected_token && a->colormap == b->colormap
         && a->annotate == b->annotate && a->raw_tokens == b->raw_tokens
         && a->autoscale == b->autoscale && a->autoscale_each == b->autoscale_each
         && a->normalize_rows == b->normalize_rows && a->log_colors == b->log_colors
         && a->pool_words == b->pool_words && a->no_space_marks == b->no_space_marks
         && a->labels == b->labels && a->alignment == b->alignment && a->segments == b->segments
         && a->kind == b->kind && a->pool_mean == b->pool_mean
         && a->norm_weighted == b->norm_weighted && a->qk_before_rope == b->qk_before_rope;
}

ArTokenLabelFlags
ar_view_selection_label_flags (const ArViewSelection *view)
{
  return (view->raw_tokens ? AR_TOKEN_LABEL_RAW : 0)
         | (view->no_space_marks ? AR_TOKEN_LABEL_NO_SPACE_MARKS : 0);
}

gboolean
ar_attention_norm_weighted (const ArAttention *attention, const ArViewSelection *view)
{
  return view->norm_weighted && attention->key_norms != NULL
         && view->aggregate != AR_AGGREGATE_ROLLOUT;
}

/* OUT [T][T] = head (LAYER, HEAD) of ATTENTION's trace with key column j scaled by the key's
 * norm, added to OUT times SCALE when ADD (the mean), else stored. */
static void
weighted_head (float *out, const ArAttention *attention, int layer, int head, float scale,
               gboolean add)
{
  const AsTrace *t = attention->trace;
  int T = t->n_tokens;
  g_autofree float *owned = NULL;
  const float *m = as_trace_attention_head (t, layer, head, &owned);              /* [T][T] */
  const float *n = attention->key_norms + ((gsize) layer * t->n_head + head) * T; /* [T] */
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++)
      {
        gsize k = (gsize) i * T + j;
        float v = m[k] * n[j] * scale;
        out[k] = add ? out[k] + v : v;
      }
}

const float *
ar_attention_matrix (const ArAttention *attention, const ArViewSelection *view, float **owned)
{
  const AsTrace *t = attention->trace;
  *owned = NULL;
  g_return_val_if_fail (view->layer >= 0 && view->layer < t->n_layer, NULL);
  gsize tt = (gsize) t->n_tokens * t->n_tokens;
  if (ar_attention_norm_weighted (attention, view))
    {
      /* one new [T][T] array, as an on-demand head's own */
      if (view->aggregate == AR_AGGREGATE_HEAD)
        {
          g_return_val_if_fail (view->head >= 0 && view->head < t->n_head, NULL);
          *owned = g_new (float, tt);
          weighted_head (*owned, attention, view->layer, view->head, 1.0f, FALSE);
          return *owned;
        }
      *owned = g_new (float, tt);
      for (int h = 0; h < t->n_head; h++)
        weighted_head (*owned, attention, view->layer, h, 1.0f / t->n_head, h > 0);
      return *owned;
    }
  gsize at = attention->one_layer ? 0 : view->layer * tt; /* the layer's [T][T] */
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return attention->mean_heads != NULL ? attention->mean_heads + at : NULL;
    case AR_AGGREGATE_ROLLOUT:
      return attention->rollout != NULL ? attention->rollout + at : NULL;
    case AR_AGGREGATE_HEAD:
    default:
      g_return_val_if_fail (view->head >= 0 && view->head < t->n_head, NULL);
      return as_trace_attention_head (t, view->layer, view->head, owned);
    }
}

gconstpointer
ar_attention_key (const ArAttention *attention, const ArViewSelection *view)
{
  if (ar_attention_norm_weighted (attention, view))
    return attention->key_norms;
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return attention->mean_heads;
    case AR_AGGREGATE_ROLLOUT:
      return attention->rollout;
    case AR_AGGREGATE_HEAD:
    default:
      return attention->trace;
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
ar_attention_kind_title (const ArViewSelection *view, int n_heads, int n_kv_heads,
                         gboolean translation)
{
  if (view->kind == AR_ATTENTION_SELF && !translation)
    return ar_attention_title (view, n_heads, n_kv_heads);
  const char *stack = view->kind == AR_ATTENTION_ENCODER ? _ ("Encoder self-attention")
                      : view->kind == AR_ATTENTION_CROSS ? _ ("Cross-attention")
                                                         : _ ("Decoder self-attention");
  switch (view->aggregate)
    {
    case AR_AGGREGATE_MEAN:
      /* Translators: "Cross-attention · layer 1 · mean over 4 heads" */
      return g_strdup_printf (_ ("%s · layer %d · mean over %d heads"), stack, view->layer,
                              n_heads);
    case AR_AGGREGATE_ROLLOUT:
      /* Translators: "Encoder self-attention · rollout through layer 1" */
      return g_strdup_printf (_ ("%s · rollout through layer %d"), stack, view->layer);
    case AR_AGGREGATE_HEAD:
    default:
      /* Translators: "Cross-attention · layer 1 · head 0" */
      return g_strdup_printf (_ ("%s · layer %d · head %d"), stack, view->layer, view->head);
    }
}

char *
ar_quote_text (const char *text)
{
  /* Translators: a text quoted in a figure; use your language's quotation marks. */
  return g_strdup_printf (_ ("“%s”"), text);
}

void
ar_sequential_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax)
{
  double lo = 0, hi = 1;
  if (autoscale)
    as_finite_range (values, n, &lo, &hi);
  *vmin = hi > lo ? lo : 0;
  *vmax = hi > lo ? hi : 1;
}

void
ar_signed_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax,
                 gboolean *diverging)
{
  double range[2];
  as_finite_range (values, n, &range[0], &range[1]);
  ar_signed_range_of (range, autoscale, vmin, vmax, diverging);
}

void
ar_signed_range_of (const double *finite_range, gboolean autoscale, double *vmin, double *vmax,
                    gboolean *diverging)
{
  double lo = finite_range[0], hi = finite_range[1];
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
    if (isfinite (diff[i]))
      max_abs = MAX (max_abs, fabs (diff[i]));
  if (max_abs < 1e-4)
    return 1e-4;
  /* Two significant digits, rounded up. */
  double unit = pow (10, floor (log10 (max_abs)) - 1);
  return ceil (max_abs / unit - 1e-9) * unit;
}

/* The cells of ROW that hold a value: how many (counting stops at 2 unless LO is given), and
 * with LO, HI and SMALLEST their smallest, largest and smallest positive value. */
static int
row_values (const ArHeatmapFigure *fig, int i, double *lo, double *hi, double *smallest)
{
  int first, end, k = 0;
  ar_heatmap_row_span (fig, i, &first, &end);
  const float *row = fig->values + (gsize) i * fig->n_cols; /* [n_cols] */
  for (int j = first; j < end && (k < 2 || lo != NULL); j++)
    {
      if (isnan (row[j])
          || (fig->cell_mask != NULL && ar_heatmap_cell_state (fig, i, j) != AR_CELL_VALUE))
        continue;
      k++;
      if (lo == NULL)
        continue;
      *lo = MIN (*lo, row[j]), *hi = MAX (*hi, row[j]);
      if (row[j] > 0)
        *smallest = MIN (*smallest, row[j]);
    }
  return k;
}

void
ar_heatmap_view_range (const ArViewSelection *view, const ArHeatmapFigure *fig, double *vmin,
                       double *vmax)
{
  double lo = INFINITY, hi = -INFINITY, smallest = INFINITY;
  int rows_with_choice = 0; /* rows with more than one cell holding a value */
  for (int i = 0; i < fig->n_rows && rows_with_choice == 0; i++)
    rows_with_choice += row_values (fig, i, NULL, NULL, NULL) > 1;
  for (int i = 0; i < fig->n_rows; i++)
    {
      double row_lo = INFINITY, row_hi = -INFINITY, row_smallest = INFINITY;
      int k = row_values (fig, i, &row_lo, &row_hi, &row_smallest);
      /* A row with one value (a causal model's first token: weight 1 on itself) says nothing. */
      if (k == 1 && rows_with_choice > 0)
        continue;
      lo = MIN (lo, row_lo), hi = MAX (hi, row_hi), smallest = MIN (smallest, row_smallest);
    }
  gboolean data = view->autoscale && hi > lo;
  *vmin = data ? lo : 0;
  *vmax = data ? hi : 1;
  if (!view->log_colors)
    return;
  if (!data)
    *vmin = 1e-3 * *vmax;
  else
    *vmin = MAX (isfinite (smallest) ? smallest : 0, 1e-4 * *vmax);
}

void
ar_normalize_rows (float *out, const float *values, int rows, int cols)
{
  for (int i = 0; i < rows; i++)
    {
      const float *row = values + (gsize) i * cols; /* [cols] */
      float top = 0;
      for (int j = 0; j < cols; j++)
        if (row[j] > top)
          top = row[j];
      for (int j = 0; j < cols; j++)
        out[(gsize) i * cols + j] = top > 0 ? row[j] / top : 0;
    }
}
