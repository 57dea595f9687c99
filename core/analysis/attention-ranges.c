/* attention-ranges.c — the smallest and largest attention weight of each head and of all heads
 * (see as-attention-ranges.h). */
#include "as-attention-ranges.h"

#include <math.h>

void
as_finite_range (const float *values, gsize n, double *lo, double *hi)
{
  float a = INFINITY, b = -INFINITY;
  for (gsize i = 0; i < n; i++)
    if (isfinite (values[i]))
      a = MIN (a, values[i]), b = MAX (b, values[i]);
  *lo = a, *hi = b;
}

/* LO and HI of the weights of the R × C matrix A that say something: with CAUSAL (R = C) the
 * cells on and below the diagonal of the rows after the first, else all of them. */
static void
head_min_max (const float *a, int r, int c, gboolean causal, double *lo, double *hi)
{
  if (!causal || r < 2)
    {
      as_finite_range (a, (gsize) r * c, lo, hi);
      return;
    }
  *lo = INFINITY, *hi = -INFINITY;
  for (int i = 1; i < r; i++)
    {
      double l, h;
      as_finite_range (a + (gsize) i * c, (gsize) i + 1, &l, &h);
      *lo = MIN (*lo, l), *hi = MAX (*hi, h);
    }
}

/* Head E's attention [R][C]: a pointer into what DATA holds, or a new array in *OWNED. */
typedef const float *(*HeadAttention) (gconstpointer data, int e, float **owned);

/* The ranges of the N_HEADS matrices [R][C] HEAD_OF gives. */
static double *
ranges_of (HeadAttention head_of, gconstpointer data, int n_heads, int r, int c, gboolean causal)
{
  double *ranges = g_new (double, 2 + 2 * (gsize) n_heads); /* [2 + 2·L·H] */
  ranges[0] = INFINITY, ranges[1] = -INFINITY;
  for (int e = 0; e < n_heads; e++)
    {
      g_autofree float *owned = NULL;
      double *range = ranges + 2 + 2 * e;
      head_min_max (head_of (data, e, &owned), r, c, causal, &range[0], &range[1]);
      ranges[0] = MIN (ranges[0], range[0]);
      ranges[1] = MAX (ranges[1], range[1]);
    }
  return ranges;
}

static const float *
self_head (gconstpointer data, int e, float **owned)
{
  const AsTrace *t = data;
  return as_trace_attention_head (t, e / t->n_head, e % t->n_head, owned);
}

static const float *
cross_head (gconstpointer data, int e, float **owned)
{
  const AsTrace *t = data;
  *owned = NULL;
  return as_trace_cross_attn (t, e / t->n_head, e % t->n_head);
}

/* Query rows of an on-demand head read per tile (64 × T floats: 2 MB at 8,192 tokens). */
#define RANGE_ROW_BLOCK 64

/* As head_min_max on head E of T, whose attention it computes on demand: ROW_BLOCK rows at a
 * time, and of a causal stack only the keys up to each block's last row (the rest is masked).
 * The same values as the whole head's, never [T][T] in memory. */
static void
tiled_head_min_max (const AsTrace *t, int e, double *lo, double *hi)
{
  int T = t->n_tokens, layer = e / t->n_head, head = e % t->n_head;
  g_autofree float *block = g_new (float, (gsize) RANGE_ROW_BLOCK *MAX (T, 1)); /* [64][T] */
  *lo = INFINITY, *hi = -INFINITY;
  for (int r0 = 0; r0 < T; r0 += RANGE_ROW_BLOCK)
    {
      int n = MIN (RANGE_ROW_BLOCK, T - r0), cols = t->causal ? r0 + n : T;
      as_trace_attention_tile (t, layer, head, r0, n, 0, cols, block, cols);
      for (int i = 0; i < n; i++)
        {
          int row = r0 + i;
          if (t->causal && row == 0 && T >= 2)
            continue; /* the first row's single 1 says nothing (head_min_max) */
          double l, h;
          as_finite_range (block + (gsize) i * cols, t->causal ? (gsize) row + 1 : (gsize) cols, &l,
                           &h);
          *lo = MIN (*lo, l), *hi = MAX (*hi, h);
        }
    }
}

double *
as_trace_attention_ranges (const AsTrace *trace)
{
  if (as_trace_attention_held (trace))
    return ranges_of (self_head, trace, trace->n_layer * trace->n_head, trace->n_tokens,
                      trace->n_tokens, trace->causal);
  int n_heads = trace->n_layer * trace->n_head;
  double *ranges = g_new (double, 2 + 2 * (gsize) n_heads); /* [2 + 2·L·H] */
  ranges[0] = INFINITY, ranges[1] = -INFINITY;
  for (int e = 0; e < n_heads; e++)
    {
      double *range = ranges + 2 + 2 * e;
      tiled_head_min_max (trace, e, &range[0], &range[1]);
      ranges[0] = MIN (ranges[0], range[0]);
      ranges[1] = MAX (ranges[1], range[1]);
    }
  return ranges;
}

double *
as_trace_cross_attention_ranges (const AsTrace *trace)
{
  g_return_val_if_fail (trace->cross_attn != NULL && trace->source != NULL, NULL);
  return ranges_of (cross_head, trace, trace->n_layer * trace->n_head, trace->n_tokens,
                    trace->source->n_tokens, FALSE);
}
