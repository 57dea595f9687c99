/* trace.c — allocation, reference counting and memory sizing of forward-pass traces.
 *
 * A trace is sized before anything runs: L·H·T²·4 bytes of attention (or, computed on demand,
 * its queries, keys and row statistics) plus the per-head vectors, hidden states and logits (and
 * a T5 family's relative position bias, [H][2T−1] per block: never T²). A
 * request that would not fit in the memory budget is refused with a message naming both numbers
 * instead of letting the machine swap. */
#include "as-trace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-model.h"
#include "memory-private.h"
#include "trace-pool-private.h"

guint64
as_trace_shape_bytes (const AsTraceShape *s)
{
  guint64 L = s->n_layer, H = s->n_head, T = s->n_tokens, D = s->d_model, hd = s->head_dim;
  guint64 V = s->vocab_size;
  if (s->logits_only)
    return (guint64) ((L + 1) * T * D + T * D + (s->all_logits ? T : 1) * V) * sizeof (float)
           + T * (2 * sizeof (int32_t) + sizeof (char *));
  guint64 attention = s->attention_on_demand
                          ? (L * (H + s->n_kv_head) * T * hd + 2 * L * H * T) /* q, k, max, 1/sum */
                          : L * H * T * T;                                    /* the matrices */
  guint64 floats = attention + (s->capture_qkv ? 4 : 1) * L * H * T * hd      /* (q, k, v,) ctx */
                   + (s->attn_out_on_demand ? 0 : L * T * D)                  /* attn_out */
                   + (L + 1) * T * D                                          /* hidden */
                   + T * D                                                    /* residual */
                   + T * D /* token_embeddings, when the family provides them */
                   + (s->all_logits ? T : 1) * V
                   + (s->position_bias ? (s->position_bias_per_layer ? L : 1) * H * (2 * T - 1)
                                       : 0); /* the compact relative bias */
  return floats * sizeof (float) + L * sizeof (AsAttentionRecipe)
         + T * (2 * sizeof (int32_t) + sizeof (char *)) /* ids, type ids */;
}

static AsTraceShape
full_shape (int n_layer, int n_head, int n_tokens, int d_model, int head_dim, int vocab_size,
            gboolean all_logits)
{
  return (AsTraceShape){ n_layer,  n_head,     n_head,     n_tokens, d_model,
                         head_dim, vocab_size, all_logits, TRUE,     FALSE };
}

guint64
as_trace_bytes (int n_layer, int n_head, int n_tokens, int d_model, int head_dim, int vocab_size,
                gboolean all_logits)
{
  AsTraceShape s
      = full_shape (n_layer, n_head, n_tokens, d_model, head_dim, vocab_size, all_logits);
  return as_trace_shape_bytes (&s);
}

/* N zeroed floats, or NULL; a large array on huge pages where the system allows it
 * (as_memory_advise_huge_pages): the pass writes every page of the trace once. */
static float *
alloc_floats (guint64 n)
{
  if (n == 0)
    return NULL;
  float *p = as_trace_pool_take (n);
  if (p != NULL)
    return p;
  p = g_try_malloc0_n (n, sizeof (float));
  as_memory_advise_huge_pages (p, n * sizeof (float));
  return p;
}

AsTrace *
as_trace_new_shape (const AsTraceShape *s, GError **error)
{
  g_return_val_if_fail (s->n_layer > 0 && s->n_head > 0 && s->n_tokens > 0, NULL);
  g_return_val_if_fail (s->n_kv_head > 0 && s->n_head % s->n_kv_head == 0, NULL);
  g_return_val_if_fail (s->d_model > 0 && s->head_dim > 0 && s->vocab_size >= 0, NULL);

  guint64 bytes = as_trace_shape_bytes (s);
  {
    /* a freed trace's arrays this one cannot use go before the budget is checked */
    guint64 L = s->n_layer, H = s->n_head, T = s->n_tokens, D = s->d_model, hd = s->head_dim;
    guint64 V = s->vocab_size, rows = s->all_logits ? T : 1;
    guint64 sizes[] = { L * H * T * hd, L * s->n_kv_head * T * hd, L * H * T * T,
                        L * T * D,      (L + 1) * T * D,           rows * V };
    as_trace_pool_keep (sizes, G_N_ELEMENTS (sizes));
  }
  char what[96];
  g_snprintf (what, sizeof what, "A trace of %d tokens", s->n_tokens);
  if (!as_memory_check (bytes, what, error))
    return NULL;

  guint64 L = s->n_layer, H = s->n_head, T = s->n_tokens, D = s->d_model, hd = s->head_dim;
  AsTrace *t = g_new0 (AsTrace, 1);
  t->ref_count = 1;
  t->n_layer = s->n_layer;
  t->n_head = s->n_head;
  t->n_kv_head = s->n_kv_head;
  t->n_tokens = s->n_tokens;
  t->d_model = s->d_model;
  t->head_dim = s->head_dim;
  t->vocab_size = s->vocab_size;
  t->logits_rows = s->vocab_size == 0 ? 0 : (s->all_logits ? s->n_tokens : 1);
  t->segment_b_start = -1;
  for (int i = 0; i < AS_N_SPECIAL; i++)
    t->special_ids[i] = -1;
  t->held_bytes = bytes;
  as_memory_hold (bytes); /* released by as_trace_unref, even on failure below */
  t->ids = g_new0 (int32_t, T);
  t->tokens = g_new0 (char *, T + 1);
  t->token_texts = g_new0 (char *, T + 1);
  gboolean attention_ok;
  t->attn_recipe = g_new0 (AsAttentionRecipe, L);
  t->logits_only = s->logits_only;
  if (s->logits_only)
    attention_ok = TRUE;
  else if (s->attention_on_demand)
    {
      t->attn_q = alloc_floats (L * H * T * hd);
      t->attn_k = alloc_floats (L * s->n_kv_head * T * hd);
      t->attn_row_max = alloc_floats (L * H * T);
      t->attn_row_inv = alloc_floats (L * H * T);
      attention_ok = t->attn_q != NULL && t->attn_k != NULL && t->attn_row_max != NULL
                     && t->attn_row_inv != NULL;
    }
  else
    {
      t->attn = alloc_floats (L * H * T * T);
      attention_ok = t->attn != NULL;
    }
  if (s->capture_qkv)
    {
      t->q = alloc_floats (L * H * T * hd);
      t->k = alloc_floats (L * H * T * hd);
      t->v = alloc_floats (L * H * T * hd);
    }
  if (!s->logits_only)
    t->ctx = alloc_floats (L * H * T * hd);
  if (!s->attn_out_on_demand && !s->logits_only)
    t->attn_out = alloc_floats (L * T * D);
  else
    t->attn_out_layers = g_new0 (float *, L);
  g_mutex_init (&t->attn_out_lock);
  t->hidden = alloc_floats ((L + 1) * T * D);
  t->residual = alloc_floats (T * D);
  t->logits = alloc_floats ((guint64) t->logits_rows * s->vocab_size);
  if (s->position_bias)
    {
      t->n_position_bias = s->position_bias_per_layer ? (int) L : 1;
      t->position_bias_relative = alloc_floats ((guint64) t->n_position_bias * H * (2 * T - 1));
    }
  if ((s->position_bias && t->position_bias_relative == NULL) || !attention_ok
      || (s->capture_qkv && (t->q == NULL || t->k == NULL || t->v == NULL))
      || (t->ctx == NULL && !s->logits_only)
      || (t->attn_out == NULL && !s->attn_out_on_demand && !s->logits_only) || t->hidden == NULL
      || t->residual == NULL || (t->logits_rows > 0 && t->logits == NULL))
    {
      g_autofree char *need = g_format_size (bytes);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate %s for a trace of %d tokens", need, s->n_tokens);
      as_trace_unref (t);
      return NULL;
    }
  return t;
}

AsTrace *
as_trace_new (int n_layer, int n_head, int n_tokens, int d_model, int head_dim, int vocab_size,
              gboolean all_logits, GError **error)
{
  AsTraceShape s
      = full_shape (n_layer, n_head, n_tokens, d_model, head_dim, vocab_size, all_logits);
  return as_trace_new_shape (&s, error);
}

void
as_trace_set_tokens (AsTrace *trace, const AsTokenizer *tokenizer, const int32_t *ids)
{
  for (int i = 0; i < trace->n_tokens; i++)
    {
      trace->ids[i] = ids[i];
      const char *token = tokenizer != NULL ? as_tokenizer_get_token (tokenizer, ids[i]) : NULL;
      char *text = tokenizer != NULL ? as_tokenizer_dup_token_text (tokenizer, ids[i]) : NULL;
      g_free (trace->tokens[i]);
      g_free (trace->token_texts[i]);
      trace->tokens[i] = token != NULL ? g_strdup (token) : g_strdup_printf ("<%d>", ids[i]);
      trace->token_texts[i] = text != NULL ? text : g_strdup (trace->tokens[i]);
    }
}

int
as_segment_b_start (const int32_t *ids, const int32_t *type_ids, int n, int32_t sep_id)
{
  for (int i = 0; type_ids != NULL && i < n; i++)
    if (type_ids[i] == 1)
      return i;
  for (int i = 0; sep_id >= 0 && i < n - 1; i++)
    if (ids[i] == sep_id)
      return i + 1;
  return -1;
}

void
as_trace_set_segments (AsTrace *trace, const int32_t *type_ids, gboolean with_types,
                       const int32_t *special_ids)
{
  int T = trace->n_tokens;
  g_clear_pointer (&trace->type_ids, g_free);
  if (type_ids != NULL)
    trace->type_ids = g_memdup2 (type_ids, sizeof (int32_t) * T);
  else if (with_types)
    trace->type_ids = g_new0 (int32_t, T);
  memcpy (trace->special_ids, special_ids, sizeof trace->special_ids);
  trace->segment_b_start
      = as_segment_b_start (trace->ids, trace->type_ids, T, special_ids[AS_SPECIAL_SEP]);
}

gboolean
as_trace_set_token_embeddings (AsTrace *trace, const float *table, GError **error)
{
  gsize T = trace->n_tokens, D = trace->d_model;
  g_clear_pointer (&trace->token_embeddings, g_free);
  trace->token_embeddings = g_try_new (float, T *D);
  if (trace->token_embeddings == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the token embeddings of %d tokens", trace->n_tokens);
      return FALSE;
    }
  for (gsize t = 0; t < T; t++)
    memcpy (trace->token_embeddings + t * D, table + (gsize) trace->ids[t] * D, sizeof (float) * D);
  return TRUE;
}

gboolean
as_trace_set_source (AsTrace *trace, AsTrace *source, GError **error)
{
  g_return_val_if_fail (trace != NULL && source != NULL && trace->source == NULL, FALSE);
  trace->source = source;
  guint64 n = (guint64) trace->n_layer * trace->n_head * trace->n_tokens * source->n_tokens;
  char what[96];
  g_snprintf (what, sizeof what, "The cross-attention of %d × %d tokens", trace->n_tokens,
              source->n_tokens);
  if (!as_memory_check (n * sizeof (float), what, error))
    return FALSE;
  trace->cross_attn = alloc_floats (n);
  if (trace->cross_attn == NULL)
    {
      g_autofree char *need = g_format_size (n * sizeof (float));
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %s for %s", need, what);
      return FALSE;
    }
  return TRUE;
}

AsTrace *
as_trace_ref (AsTrace *trace)
{
  g_return_val_if_fail (trace != NULL, NULL);
  g_atomic_int_inc (&trace->ref_count);
  return trace;
}

void
as_trace_unref (AsTrace *trace)
{
  if (trace == NULL || !g_atomic_int_dec_and_test (&trace->ref_count))
    return;
  as_memory_release (trace->held_bytes);
  g_free (trace->ids);
  g_free (trace->type_ids);
  g_strfreev (trace->tokens);
  g_strfreev (trace->token_texts);
  /* the large arrays go to the next trace of this shape (trace-pool-private.h) */
  guint64 L = trace->n_layer, H = trace->n_head, T = trace->n_tokens, D = trace->d_model;
  guint64 heads = L * H * T * trace->head_dim; /* floats of [L][H][T][hd] */
  as_trace_pool_give (trace->attn, L * H * T * T);
  as_trace_pool_give (trace->attn_q, heads);
  as_trace_pool_give (trace->attn_k, L * trace->n_kv_head * T * trace->head_dim);
  g_free (trace->attn_row_max);
  g_free (trace->attn_row_inv);
  g_free (trace->attn_recipe);
  as_trace_pool_give (trace->q, heads);
  as_trace_pool_give (trace->k, heads);
  as_trace_pool_give (trace->v, heads);
  as_trace_pool_give (trace->ctx, heads);
  as_trace_pool_give (trace->attn_out, L * T * D);
  for (int l = 0; trace->attn_out_layers != NULL && l < trace->n_layer; l++)
    g_free (trace->attn_out_layers[l]);
  g_free (trace->attn_out_layers);
  g_clear_pointer (&trace->attn_out_model, as_model_unref);
  g_mutex_clear (&trace->attn_out_lock);
  as_trace_pool_give (trace->hidden, (L + 1) * T * D);
  g_free (trace->residual);
  g_free (trace->token_embeddings);
  as_trace_pool_give (trace->logits, (guint64) trace->logits_rows * trace->vocab_size);
  g_clear_pointer (&trace->source, as_trace_unref);
  g_free (trace->cross_attn);
  g_free (trace->position_bias_relative);
  g_free (trace);
}
