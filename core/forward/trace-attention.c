/* trace-attention.c — reading a trace's self-attention: from its matrices, or recomputed on
 * demand from the queries and keys the pass kept (as-trace.h; core/README.md, "Attention on
 * demand").
 *
 * An entry is softmax(q_i·k_j·scale) under the layer's mask. The pass kept each query row's
 * largest score and 1/sum, so an entry costs one dot product of head-width length. To give the
 * pass's bits, the scores of a tile's rows come from the very products the pass made for their
 * block of 64 rows and the blocks of 256 keys that meet the tile's columns (the same rows and keys:
 * a product of another shape may round differently), and go through the same elementwise soft-cap
 * and exponential. */
#include "as-trace.h"
#include "as-forward.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "attention-private.h"
#include "blas-threads-private.h"
#include "kernels-private.h"
#include "pass-private.h"

/* The weights of query ROW at columns C0 .. C1−1 (keys it sees), in place in S [T] (its raw
 * scores q·k there, column c at S[c]): bias, soft-cap, exponential with the kept maximum and
 * 1/sum, each elementwise. */
static void
weights_of_range (const AsTrace *t, int layer, int head, int row, int c0, int c1, float *s)
{
  const AsAttentionRecipe *r = &t->attn_recipe[layer];
  float scale = r->scale;
  float *v = s + c0;
  if (r->bias_relative != NULL)
    {
      /* as the pass: q·kᵀ · scale + B, rounded to float32; B (row, c) at [head][c − row + T − 1]
       * of the compact bias, the values the pass added */
      gsize T = t->n_tokens;
      const float *b = r->bias_relative + head * (2 * T - 1) + (T - 1) - row + c0;
      for (int c = 0; c < c1 - c0; c++)
        v[c] = v[c] * scale + b[c];
      scale = 1.0f;
    }
  if (r->softcap > 0.0f)
    {
      /* as the pass: (q·kᵀ · scaling) / cap, tanh, · cap, each rounded to float32 */
      for (int c = 0; c < c1 - c0; c++)
        v[c] = (float) tanh ((double) ((v[c] * scale) / r->softcap)) * r->softcap;
      scale = 1.0f;
    }
  gsize stat = ((gsize) layer * t->n_head + head) * t->n_tokens + row;
  as_softmax_entries (v, c1 - c0, t->attn_row_max[stat], t->attn_row_inv[stat], scale);
}

/* The exponential's loop (kernels.c, built for AVX-512, AVX2 and the baseline) gives its main
 * vector body and its remainder paths a last bit apart now and then, so a part of a row gets the
 * pass's bits only when every entry takes the path it took in the pass over the whole span
 * LO .. HI−1: ranges of whole multiples of EXP_ALIGN entries from LO (the main body at every
 * vector width, whatever the address), and the remainder past the last multiple as one call, as
 * in the pass. Measured: 0 entries of 126 million with other bits, parts at any offset and length
 * against whole spans, any alignment (AVX-512 machine). */
#define EXP_ALIGN 16

/* The weights of query ROW (keys LO .. HI−1 visible) at least at columns S0 .. S1−1, in place in
 * S [T] as weights_of_range, computed in the pass's grouping. */
static void
weights_of_row (const AsTrace *t, int layer, int head, int row, int lo, int hi, int s0, int s1,
                float *s)
{
  int body_end = lo + (hi - lo) / EXP_ALIGN * EXP_ALIGN;
  if (s0 < body_end)
    {
      int a = lo + (s0 - lo) / EXP_ALIGN * EXP_ALIGN;
      int b = MIN (body_end, lo + (s1 - lo + EXP_ALIGN - 1) / EXP_ALIGN * EXP_ALIGN);
      weights_of_range (t, layer, head, row, a, b, s);
    }
  if (s1 > body_end)
    weights_of_range (t, layer, head, row, body_end, hi, s);
}

void
as_trace_attention_tile (const AsTrace *t, int layer, int head, int row0, int n_rows, int col0,
                         int n_cols, float *out, int ld)
{
  int T = t->n_tokens, hd = t->head_dim;
  g_return_if_fail (layer >= 0 && layer < t->n_layer && head >= 0 && head < t->n_head);
  g_return_if_fail (row0 >= 0 && n_rows >= 0 && row0 + n_rows <= T);
  g_return_if_fail (col0 >= 0 && n_cols >= 0 && col0 + n_cols <= T && ld >= n_cols);
  if (n_rows == 0 || n_cols == 0)
    return;
  if (as_trace_attention_held (t))
    {
      const float *A = as_trace_attn_matrices (t, layer, head); /* [T][T] */
      for (int i = 0; i < n_rows; i++)
        memcpy (out + (gsize) i * ld, A + (gsize) (row0 + i) * T + col0, sizeof (float) * n_cols);
      return;
    }
  const float *q = t->attn_q + ((gsize) layer * t->n_head + head) * T * hd; /* [T][hd] */
  const float *k = t->attn_k + ((gsize) layer * t->n_kv_head + as_trace_kv_head (t, head)) * T * hd;
  const AsAttentionRecipe *r = &t->attn_recipe[layer];
  g_autofree float *scores = g_new (float, (gsize) AS_ATTENTION_ROW_BLOCK *T); /* [64][T] */
  as_blas_single_threaded ();
  /* the pass's blocks of rows that meet the tile, each scored by the pass's own products of its
   * blocks of keys — only those that meet the tile's columns */
  int first = row0 / AS_ATTENTION_ROW_BLOCK * AS_ATTENTION_ROW_BLOCK;
  for (int b0 = first; b0 < row0 + n_rows; b0 += AS_ATTENTION_ROW_BLOCK)
    {
      int rows = MIN (AS_ATTENTION_ROW_BLOCK, T - b0), k0, k1;
      as_attention_block_keys (r->causal, r->window, b0, rows, T, &k0, &k1);
      int i0 = MAX (row0, b0), i1 = MIN (row0 + n_rows, b0 + rows);
      const float *qb = q + (gsize) b0 * hd, *kb = k + (gsize) k0 * hd;
      /* the tile's columns, widened to the exponential's groups, and the rows' remainders past
       * their last group (near each row's last visible key: the spans grow with the row) */
      int lo_a, hi_a, lo_b, hi_b;
      as_softmax_row_span (i0, T, r->causal, r->window, &lo_a, &hi_a);
      as_softmax_row_span (i1 - 1, T, r->causal, r->window, &lo_b, &hi_b);
      as_attention_scores (scores, T, qb, hd, kb, hd, rows, hd, k0, k1, col0 - EXP_ALIGN,
                           col0 + n_cols + EXP_ALIGN);
      if (col0 + n_cols > hi_a - EXP_ALIGN)
        as_attention_scores (scores, T, qb, hd, kb, hd, rows, hd, k0, k1, hi_a - EXP_ALIGN, hi_b);
      for (int i = i0; i < i1; i++)
        {
          float *o = out + (gsize) (i - row0) * ld;   /* [n_cols] */
          float *row = scores + (gsize) (i - b0) * T; /* column c at row[c] */
          int lo, hi;
          as_softmax_row_span (i, T, r->causal, r->window, &lo, &hi);
          int s0 = MAX (col0, lo), s1 = MIN (col0 + n_cols, hi); /* the tile's visible keys */
          memset (o, 0, sizeof (float) * n_cols);
          if (s1 <= s0)
            continue;
          weights_of_row (t, layer, head, i, lo, hi, s0, s1, row);
          memcpy (o + (s0 - col0), row + s0, sizeof (float) * (s1 - s0));
        }
    }
}

const float *
as_trace_attention_head (const AsTrace *t, int layer, int head, float **owned)
{
  g_return_val_if_fail (owned != NULL, NULL);
  *owned = NULL;
  if (as_trace_attention_held (t))
    return as_trace_attn_matrices (t, layer, head);
  int T = t->n_tokens;
  *owned = g_new (float, (gsize) T *T);
  as_trace_attention_tile (t, layer, head, 0, T, 0, T, *owned, T);
  return *owned;
}

/* What AS_ATTENTION_AUTO means in this process (as_attention_set_process_default). */
static AsAttentionStorage process_default = AS_ATTENTION_AUTO;

void
as_attention_set_process_default (AsAttentionStorage storage)
{
  process_default = storage;
}

gboolean
as_attention_choice_automatic (AsAttentionStorage storage)
{
  if (storage == AS_ATTENTION_AUTO)
    storage = process_default;
  const char *env = g_getenv ("ATTNSCOPE_ATTENTION");
  return storage == AS_ATTENTION_AUTO && g_strcmp0 (env, "on-demand") != 0
         && g_strcmp0 (env, "matrices") != 0;
}

gboolean
as_forward_options_automatic (const AsForwardOptions *options)
{
  return as_attention_choice_automatic (options != NULL ? options->attention : AS_ATTENTION_AUTO);
}

AsForwardOptions
as_forward_options_on_demand (const AsForwardOptions *options)
{
  AsForwardOptions on_demand = options != NULL ? *options : (AsForwardOptions){ 0 };
  on_demand.attention = AS_ATTENTION_ON_DEMAND;
  return on_demand;
}

gboolean
as_attention_on_demand (AsAttentionStorage storage, const AsTraceShape *shape)
{
  if (storage == AS_ATTENTION_AUTO)
    storage = process_default;
  if (storage == AS_ATTENTION_AUTO)
    {
      const char *env = g_getenv ("ATTNSCOPE_ATTENTION");
      if (g_strcmp0 (env, "on-demand") == 0)
        storage = AS_ATTENTION_ON_DEMAND;
      else if (g_strcmp0 (env, "matrices") == 0)
        storage = AS_ATTENTION_MATRICES;
    }
  if (storage != AS_ATTENTION_AUTO)
    return storage == AS_ATTENTION_ON_DEMAND;
  guint64 T = shape->n_tokens;
  return (guint64) shape->n_layer * shape->n_head * T * T * sizeof (float)
         > as_attention_held_max ();
}

guint64
as_attention_held_max (void)
{
  const char *env = g_getenv ("ATTNSCOPE_ATTENTION_HELD_MAX");
  char *end = NULL;
  guint64 bytes = env != NULL ? g_ascii_strtoull (env, &end, 10) : 0;
  return env != NULL && end != env && *end == '\0' ? bytes : AS_ATTENTION_HELD_MAX;
}

const float *
as_trace_attention_layer (const AsTrace *t, int layer, float **owned)
{
  g_return_val_if_fail (owned != NULL, NULL);
  *owned = NULL;
  if (as_trace_attention_held (t))
    return as_trace_attn_matrices (t, layer, 0);
  gsize T = t->n_tokens, tt = T * T;
  *owned = g_new (float, t->n_head *tt);
  for (int h = 0; h < t->n_head; h++)
    as_trace_attention_tile (t, layer, h, 0, T, 0, T, *owned + h * tt, T);
  return *owned;
}
