/* qk.c — the query–key view (as-qk.h): one head's query against every key, dimension by
 * dimension, from the trace's q and k and the model's scale (output-pieces-private.h). */
#include "as-qk.h"

#include <math.h>

#include "as-error.h"
#include "as-forward.h"
#include "output-pieces-private.h"

static gboolean
check_range (const AsTrace *t, int layer, int head, int query, GError **error)
{
  const char *what[] = { "--layer", "--head", "--token" };
  int value[] = { layer, head, query };
  int limit[] = { t->n_layer, t->n_head, t->n_tokens };
  const char *owner[] = { "the model", "the model", "the text" };
  const char *of[] = { "layers", "heads", "tokens" };
  for (int i = 0; i < 3; i++)
    if (value[i] < 0 || value[i] >= limit[i])
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s %d is out of range: %s has %d %s (0..%d)",
                     what[i], value[i], owner[i], limit[i], of[i], limit[i] - 1);
        return FALSE;
      }
  if (t->q == NULL || t->k == NULL)
    {
      g_set_error_literal (error, AS_ERROR, AS_ERROR_INPUT,
                           "the query–key view needs every head's queries and keys: run the "
                           "forward pass with q, k and v captured");
      return FALSE;
    }
  return TRUE;
}

/* Whether query I of a head sees key J: causal and sliding-window masks. */
static gboolean
sees (const AsTrace *t, int window, int i, int j)
{
  if (!t->causal)
    return TRUE;
  return j <= i && (window <= 0 || j > i - window);
}

/* ORDER [n] = 0..n-1 sorted by |KEY| descending, ties by index (insertion sort: n = hd). */
static void
order_by_size (int *order, const float *key, int n)
{
  for (int i = 0; i < n; i++)
    {
      int d = i, at = i;
      while (at > 0 && fabsf (key[order[at - 1]]) < fabsf (key[d]))
        {
          order[at] = order[at - 1];
          at--;
        }
      order[at] = d;
    }
}

/* The products, scores and per-dimension contributions of QK (q and keys set). */
static void
fill_scores (AsQk *qk, const AsTrace *t, int window)
{
  int S = qk->n_keys, hd = qk->head_dim;
  for (int j = 0; j < S; j++)
    {
      double s = 0.0;
      for (int d = 0; d < hd; d++)
        {
          float p = qk->q[d] * qk->keys[(gsize) j * hd + d];
          qk->products[(gsize) j * hd + d] = p;
          s += p;
        }
      float score = (float) s * qk->scale;
      if (qk->bias != NULL)
        score += qk->bias[j];
      if (qk->softcap > 0.0f)
        score = tanhf (score / qk->softcap) * qk->softcap;
      qk->scores[j] = sees (t, window, qk->query, j) ? score : -INFINITY;
    }
  for (int d = 0; d < hd; d++)
    {
      double s = 0.0;
      for (int j = 0; j < S; j++)
        s += (double) qk->probs[j] * qk->products[(gsize) j * hd + d];
      qk->dims[d] = (float) (s * qk->scale);
    }
  order_by_size (qk->top_dims, qk->dims, hd);
}

/* Q [hd] at position P of a text of T tokens with ROPE's rotation undone (newly allocated): for
 * each pair (i, i + r/2) of the first r dims, x' = c·x − s·y, y' = c·y + s·x gives
 * x = (c·x' + s·y')/(c² + s²), y = (c·y' − s·x')/(c² + s²) (c² + s² is not 1 where LongRoPE
 * scales cos and sin); the dims past r were not rotated. */
static float *
unrotate (const float *q, const AsRope *rope, int T, int p, int hd)
{
  int r = rope->rotary_dim, half = r / 2;
  g_autofree float *cos_table = g_new (float, (gsize) T *half); /* [T][r/2] */
  g_autofree float *sin_table = g_new (float, (gsize) T *half); /* [T][r/2] */
  as_rope_tables (cos_table, sin_table, rope, T);
  float *out = g_memdup2 (q, sizeof (float) * hd);
  for (int i = 0; i < half; i++)
    {
      double c = cos_table[(gsize) p * half + i], s = sin_table[(gsize) p * half + i];
      double x = q[i], y = q[i + half], n = c * c + s * s;
      out[i] = (float) ((c * x + s * y) / n);
      out[i + half] = (float) ((c * y - s * x) / n);
    }
  return out;
}

AsQk *
as_qk_compute (AsModel *model, const AsTrace *trace, int layer, int head, int query, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, NULL);
  if (!check_range (trace, layer, head, query, error))
    return NULL;
  AsReadout pieces;
  if (!as_output_pieces_get (model, "the query–key view", FALSE, &pieces, error))
    return NULL;
  int S = trace->n_tokens, hd = trace->head_dim;
  AsQk *qk = g_new0 (AsQk, 1);
  qk->layer = layer;
  qk->head = head;
  qk->kv_head = as_trace_kv_head (trace, head);
  qk->query = query;
  qk->n_keys = S;
  qk->head_dim = hd;
  qk->scale = pieces.attn_scale;
  qk->softcap = pieces.attn_softcap;
  int window = pieces.layers[layer].window;
  qk->q = g_memdup2 (as_trace_head_vectors (trace, trace->q, layer, head) + (gsize) query * hd,
                     sizeof (float) * hd);
  if (pieces.layers[layer].rope != NULL && pieces.layers[layer].rope->rotary_dim > 0)
    qk->q_before_rope = unrotate (qk->q, pieces.layers[layer].rope, S, query, hd);
  as_output_pieces_clear (&pieces);
  qk->keys
      = g_memdup2 (as_trace_head_vectors (trace, trace->k, layer, head), sizeof (float) * S * hd);
  if (as_trace_has_position_bias (trace)) /* T5: the query's row of the head's bias */
    {
      qk->bias = g_new (float, S);
      as_trace_position_bias_row (trace, layer, head, query, 0, S, qk->bias);
    }
  qk->probs = g_new (float, S);
  as_trace_attention_tile (trace, layer, head, query, 1, 0, S, qk->probs, S);
  qk->products = g_new (float, (gsize) S *hd);
  qk->scores = g_new (float, S);
  qk->dims = g_new (float, hd);
  qk->top_dims = g_new (int, hd);
  fill_scores (qk, trace, window);
  return qk;
}

void
as_qk_free (AsQk *qk)
{
  if (qk == NULL)
    return;
  g_free (qk->q);
  g_free (qk->q_before_rope);
  g_free (qk->keys);
  g_free (qk->products);
  g_free (qk->bias);
  g_free (qk->scores);
  g_free (qk->probs);
  g_free (qk->dims);
  g_free (qk->top_dims);
  g_free (qk);
}

AsTrace *
as_qk_trace_with_qkv (AsModel *model, AsTrace *trace, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, NULL);
  if (trace->q != NULL && trace->k != NULL)
    return as_trace_ref (trace);
  gboolean pair = FALSE;
  for (int t = 0; trace->type_ids != NULL && t < trace->n_tokens; t++)
    pair = pair || trace->type_ids[t] != 0;
  if (trace->source != NULL || pair)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the query–key view of %s is on the command line only: `attnscope qk`",
                   trace->source != NULL ? "a translation" : "a sentence pair");
      return NULL;
    }
  /* the weights on demand: the pass keeps q, k, v and the contexts, not [L][H][T][T] matrices
   * (the view reads one row) */
  AsForwardOptions options = { .capture_qkv = TRUE, .attention = AS_ATTENTION_ON_DEMAND };
  return as_forward (model, trace->ids, trace->n_tokens, &options, error);
}
