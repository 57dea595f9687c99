/* compare.c — two traces of the same model side by side: tokens paired by string, hidden-state
 * similarity of the pairs per layer, attention differences per head (by position and aligned by
 * token), and rankings of what changes most. The rules are in as-compare.h. */
#include "as-compare.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-rank.h"
#include "as-similarity.h"

AsTokenPair *
as_compare_pair_tokens (char *const *tokens_a, int n_a, char *const *tokens_b, int n_b,
                        int *n_pairs, int **unmatched_a, int *n_unmatched_a, int **unmatched_b,
                        int *n_unmatched_b)
{
  /* string -> GQueue of B positions not yet taken, in increasing order */
  g_autoptr (GHashTable) free_b
      = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_queue_free);
  for (int j = 0; j < n_b; j++)
    {
      GQueue *queue = g_hash_table_lookup (free_b, tokens_b[j]);
      if (queue == NULL)
        {
          queue = g_queue_new ();
          g_hash_table_insert (free_b, tokens_b[j], queue);
        }
      g_queue_push_tail (queue, GINT_TO_POINTER (j));
    }

  AsTokenPair *pairs = g_new0 (AsTokenPair, MAX (MIN (n_a, n_b), 1));
  gboolean *taken_b = g_new0 (gboolean, MAX (n_b, 1)); /* [T_B] */
  *unmatched_a = g_new0 (int, MAX (n_a, 1));
  *unmatched_b = g_new0 (int, MAX (n_b, 1));
  *n_pairs = *n_unmatched_a = *n_unmatched_b = 0;

  for (int i = 0; i < n_a; i++)
    {
      GQueue *queue = g_hash_table_lookup (free_b, tokens_a[i]);
      if (queue == NULL || g_queue_is_empty (queue))
        {
          (*unmatched_a)[(*n_unmatched_a)++] = i;
          continue;
        }
      int j = GPOINTER_TO_INT (g_queue_pop_head (queue));
      taken_b[j] = TRUE;
      pairs[*n_pairs].a = i;
      pairs[*n_pairs].b = j;
      (*n_pairs)++;
    }
  for (int j = 0; j < n_b; j++)
    if (!taken_b[j])
      (*unmatched_b)[(*n_unmatched_b)++] = j;
  g_free (taken_b);
  return pairs;
}

/* Per hidden-state index: similarity of every pair, their mean, and the matched-row change. */
static void
compare_hidden (AsComparison *c, const AsTrace *a, const AsTrace *b)
{
  int n_hidden = c->n_layer + 1;
  int dim = a->d_model;
  c->hidden_similarity = g_new0 (float, MAX ((gsize) n_hidden * c->n_pairs, 1));
  c->hidden_mean_similarity = g_new0 (double, n_hidden);
  c->hidden_change = g_new0 (double, n_hidden);
  for (int l = 0; l < n_hidden; l++)
    {
      const float *ha = as_trace_hidden (a, l); /* [T_A][D] */
      const float *hb = as_trace_hidden (b, l); /* [T_B][D] */
      double sim_sum = 0, change = 0;
      for (int p = 0; p < c->n_pairs; p++)
        {
          const float *va = ha + (gsize) c->pairs[p].a * dim;
          const float *vb = hb + (gsize) c->pairs[p].b * dim;
          double s = as_cosine_similarity (va, vb, dim);
          c->hidden_similarity[(gsize) l * c->n_pairs + p] = (float) s;
          sim_sum += s;
          for (int d = 0; d < dim; d++)
            {
              double diff = (double) vb[d] - (double) va[d];
              change += diff * diff;
            }
        }
      c->hidden_mean_similarity[l] = c->n_pairs > 0 ? sim_sum / c->n_pairs : NAN;
      c->hidden_change[l] = sqrt (change);
    }
  c->hidden_ranking = as_rank_descending (c->hidden_change, n_hidden);
}

/* Rows of a head read a block at a time: never the whole [T][T] of a trace on demand. */
#define COMPARE_ROWS 64

/* Per head: P_B - P_A and its Frobenius norm, summed row by row in order (the same bits whether
 * the rows come a block at a time or all at once); per layer: the norm over all heads. The
 * differences themselves are kept ([L][H][T][T]) only when both traces hold their matrices:
 * otherwise as_comparison_head_difference computes a head's when asked. */
static void
compare_attention (AsComparison *c, const AsTrace *a, const AsTrace *b)
{
  int n_heads = c->n_layer * c->n_head, T = a->n_tokens;
  gsize tt = (gsize) T * T;
  gboolean keep = as_trace_attention_held (a) && as_trace_attention_held (b);
  if (keep)
    c->attention_diff = g_new (float, MAX (n_heads * tt, 1));      /* [L][H][T][T] */
  c->head_change = g_new0 (double, MAX (n_heads, 1));              /* [L][H] */
  c->layer_change = g_new0 (double, MAX (c->n_layer, 1));          /* [L] */
  g_autofree float *ta = g_new (float, (gsize) COMPARE_ROWS *T);   /* [64][T] */
  g_autofree float *tb = g_new (float, (gsize) COMPARE_ROWS *T);   /* [64][T] */
  g_autofree float *diff = g_new (float, (gsize) COMPARE_ROWS *T); /* [64][T] */
  for (int e = 0; e < n_heads; e++)
    {
      int layer = e / c->n_head, head = e % c->n_head;
      double sq = 0;
      for (int r0 = 0; r0 < T; r0 += COMPARE_ROWS)
        {
          int rows = MIN (COMPARE_ROWS, T - r0);
          gsize n = (gsize) rows * T;
          as_trace_attention_tile (a, layer, head, r0, rows, 0, T, ta, T);
          as_trace_attention_tile (b, layer, head, r0, rows, 0, T, tb, T);
          float *d = keep ? c->attention_diff + (gsize) e * tt + (gsize) r0 * T : diff;
          for (gsize x = 0; x < n; x++)
            {
              d[x] = tb[x] - ta[x];
              sq += (double) d[x] * d[x];
            }
        }
      c->head_change[e] = sqrt (sq);
      c->layer_change[e / c->n_head] += sq;
    }
  for (int l = 0; l < c->n_layer; l++)
    c->layer_change[l] = sqrt (c->layer_change[l]);
  c->head_ranking = as_rank_descending (c->head_change, n_heads);
  c->layer_ranking = as_rank_descending (c->layer_change, c->n_layer);
}

/* A block of COMPARE_ROWS rows of one head of a trace, refilled when a row outside it is asked. */
typedef struct
{
  const AsTrace *t;
  int layer, head, row0, rows;
  float *data; /* [COMPARE_ROWS][T] */
} RowCache;

static const float *
cached_row (RowCache *c, int row)
{
  int T = c->t->n_tokens;
  if (row < c->row0 || row >= c->row0 + c->rows)
    {
      c->row0 = row / COMPARE_ROWS * COMPARE_ROWS;
      c->rows = MIN (COMPARE_ROWS, T - c->row0);
      as_trace_attention_tile (c->t, c->layer, c->head, c->row0, c->rows, 0, T, c->data, T);
    }
  return c->data + (gsize) (row - c->row0) * T;
}

void
as_compare_align (float *out, const AsComparison *c, const float *b)
{
  int ta = c->n_tokens_a, tb = c->n_tokens_b;
  for (int i = 0; i < ta; i++)
    for (int j = 0; j < ta; j++)
      {
        int pi = c->partner_a[i], pj = c->partner_a[j];
        out[(gsize) i * ta + j] = pi >= 0 && pj >= 0 ? b[(gsize) pi * tb + pj] : NAN;
      }
}

/* Per head: the Frobenius norm of B aligned to A minus A, over the paired cells; per layer: the
 * norm over all heads. */
static void
compare_aligned (AsComparison *c, const AsTrace *a, const AsTrace *b)
{
  int n_heads = c->n_layer * c->n_head, ta = a->n_tokens, tb = b->n_tokens;
  c->aligned_head_change = g_new0 (double, MAX (n_heads, 1));          /* [L][H] */
  c->aligned_layer_change = g_new0 (double, MAX (c->n_layer, 1));      /* [L] */
  g_autofree float *block_a = g_new (float, (gsize) COMPARE_ROWS *ta); /* [64][T_A] */
  g_autofree float *block_b = g_new (float, (gsize) COMPARE_ROWS *tb); /* [64][T_B] */
  for (int e = 0; e < n_heads; e++)
    {
      /* rows of A and B a block at a time (the pairs run down both texts in order) */
      RowCache ca = { a, e / c->n_head, e % c->n_head, 0, 0, block_a };
      RowCache cb = { b, e / c->n_head, e % c->n_head, 0, 0, block_b };
      double sq = 0;
      for (int p = 0; p < c->n_pairs; p++)
        {
          const float *ra = cached_row (&ca, c->pairs[p].a); /* [T_A] */
          const float *rb = cached_row (&cb, c->pairs[p].b); /* [T_B] */
          for (int q = 0; q < c->n_pairs; q++)
            {
              const AsTokenPair *y = &c->pairs[q];
              double d = (double) rb[y->b] - ra[y->a];
              sq += d * d;
            }
        }
      c->aligned_head_change[e] = sqrt (sq);
      c->aligned_layer_change[e / c->n_head] += sq;
    }
  for (int l = 0; l < c->n_layer; l++)
    c->aligned_layer_change[l] = sqrt (c->aligned_layer_change[l]);
  c->aligned_head_ranking = as_rank_descending (c->aligned_head_change, n_heads);
  c->aligned_layer_ranking = as_rank_descending (c->aligned_layer_change, c->n_layer);
}

static const char *const align_names[] = { "tokens", "positions" };

const char *
as_align_to_string (AsAlign align)
{
  return align_names[CLAMP ((int) align, 0, (int) G_N_ELEMENTS (align_names) - 1)];
}

gboolean
as_align_from_string (const char *name, AsAlign *align)
{
  for (guint k = 0; k < G_N_ELEMENTS (align_names); k++)
    if (g_strcmp0 (name, align_names[k]) == 0)
      {
        *align = (AsAlign) k;
        return TRUE;
      }
  return FALSE;
}

gboolean
as_comparison_attention_change (const AsComparison *c, AsAlign align, AsAttentionChange *change)
{
  if (align == AS_ALIGN_TOKENS)
    {
      *change = (AsAttentionChange){ c->aligned_head_change, c->aligned_head_ranking,
                                     c->aligned_layer_change, c->aligned_layer_ranking };
      return TRUE;
    }
  if (!c->attention_available)
    return FALSE;
  *change
      = (AsAttentionChange){ c->head_change, c->head_ranking, c->layer_change, c->layer_ranking };
  return TRUE;
}

gboolean
as_comparison_head_difference (float *out, const AsComparison *c, const AsTrace *a,
                               const AsTrace *b, int layer, int head, AsAlign align)
{
  g_return_val_if_fail (a->n_tokens == c->n_tokens_a && b->n_tokens == c->n_tokens_b, FALSE);
  int t = c->n_tokens_a;
  gsize tt = (gsize) t * t;
  if (align == AS_ALIGN_POSITIONS)
    {
      if (!c->attention_available)
        return FALSE;
      if (c->attention_diff != NULL)
        memcpy (out, c->attention_diff + ((gsize) layer * c->n_head + head) * tt,
                tt * sizeof (float));
      else
        {
          /* computed as compare_attention did: P_B − P_A in float */
          g_autofree float *pa = g_new (float, tt); /* [T][T] */
          as_trace_attention_tile (a, layer, head, 0, t, 0, t, pa, t);
          as_trace_attention_tile (b, layer, head, 0, t, 0, t, out, t);
          for (gsize x = 0; x < tt; x++)
            out[x] = out[x] - pa[x];
        }
      return TRUE;
    }
  g_autofree float *owned_a = NULL, *owned_b = NULL;
  const float *pa = as_trace_attention_head (a, layer, head, &owned_a); /* [T_A][T_A] */
  as_compare_align (out, c, as_trace_attention_head (b, layer, head, &owned_b));
  for (gsize x = 0; x < tt; x++)
    out[x] -= pa[x]; /* NaN stays NaN */
  return TRUE;
}

AsComparison *
as_compare_traces (const AsTrace *a, const AsTrace *b, GError **error)
{
  if (a->n_layer != b->n_layer || a->n_head != b->n_head || a->d_model != b->d_model)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_SHAPE,
                   "compare: the two traces come from different models (A: %d layers, %d heads, "
                   "width %d; B: %d layers, %d heads, width %d)",
                   a->n_layer, a->n_head, a->d_model, b->n_layer, b->n_head, b->d_model);
      return NULL;
    }
  if (a->n_tokens == b->n_tokens && as_trace_attention_held (a) && as_trace_attention_held (b)
      && !as_memory_check ((guint64) a->n_layer * a->n_head * a->n_tokens * a->n_tokens
                               * sizeof (float),
                           "the attention difference of the two texts", error))
    return NULL;
  AsComparison *c = g_new0 (AsComparison, 1);
  c->n_layer = a->n_layer;
  c->n_head = a->n_head;
  c->n_tokens_a = a->n_tokens;
  c->n_tokens_b = b->n_tokens;
  c->pairs = as_compare_pair_tokens (a->tokens, a->n_tokens, b->tokens, b->n_tokens, &c->n_pairs,
                                     &c->unmatched_a, &c->n_unmatched_a, &c->unmatched_b,
                                     &c->n_unmatched_b);
  c->partner_a = g_new (int, MAX (a->n_tokens, 1));
  for (int i = 0; i < a->n_tokens; i++)
    c->partner_a[i] = -1;
  for (int p = 0; p < c->n_pairs; p++)
    c->partner_a[c->pairs[p].a] = c->pairs[p].b;
  compare_hidden (c, a, b);
  compare_aligned (c, a, b);
  c->attention_available = a->n_tokens == b->n_tokens;
  if (c->attention_available)
    compare_attention (c, a, b);
  return c;
}

void
as_comparison_free (AsComparison *c)
{
  if (c == NULL)
    return;
  g_free (c->pairs);
  g_free (c->unmatched_a);
  g_free (c->unmatched_b);
  g_free (c->partner_a);
  g_free (c->aligned_head_change);
  g_free (c->aligned_head_ranking);
  g_free (c->aligned_layer_change);
  g_free (c->aligned_layer_ranking);
  g_free (c->hidden_similarity);
  g_free (c->hidden_mean_similarity);
  g_free (c->hidden_change);
  g_free (c->hidden_ranking);
  g_free (c->attention_diff);
  g_free (c->head_change);
  g_free (c->head_ranking);
  g_free (c->layer_change);
  g_free (c->layer_ranking);
  g_free (c);
}
