/* step-shared.c — what the step decoders share (step-shared-private.h). */
#include "step-shared-private.h"

#include <string.h>

#include "as-error.h"
#include "attention-private.h"
#include "as-trace.h"
#include "pass-private.h"

guint64
as_step_cache_floats (int L, int B, int N, int width)
{
  return 4 * (guint64) L * B * N * width;
}

float *
as_step_cache_place (AsStepCache *cache, float *mem, int L, int B, int N, int width)
{
  gsize size = (gsize) L * B * N * width;
  *cache = (AsStepCache){ mem, mem + size, mem + 2 * size, mem + 3 * size, L, B, N, width };
  return mem + 4 * size;
}

static float *
cache_row (const AsStepCache *cache, float *base, int layer, int seq, int pos)
{
  return base + (((gsize) layer * cache->B + seq) * cache->N + pos) * cache->width;
}

float *
as_step_cache_keys (const AsStepCache *cache, int layer, int seq)
{
  return cache_row (cache, cache->k, layer, seq, 0);
}

float *
as_step_cache_values (const AsStepCache *cache, int layer, int seq)
{
  return cache_row (cache, cache->v, layer, seq, 0);
}

void
as_step_cache_append (AsStepCache *cache, int layer, int pos, const float *k, const float *v)
{
  gsize row = sizeof (float) * cache->width;
  for (int b = 0; b < cache->B; b++)
    {
      memcpy (cache_row (cache, cache->k, layer, b, pos), k + (gsize) b * cache->width, row);
      memcpy (cache_row (cache, cache->v, layer, b, pos), v + (gsize) b * cache->width, row);
    }
}

void
as_step_cache_reorder (AsStepCache *cache, const int *parents, int n_steps)
{
  gboolean identity = TRUE;
  for (int b = 0; b < cache->B; b++)
    identity = identity && parents[b] == b;
  if (identity || n_steps == 0)
    return;
  gsize rows = sizeof (float) * n_steps * cache->width;
  for (int l = 0; l < cache->L; l++)
    for (int b = 0; b < cache->B; b++)
      {
        memcpy (cache_row (cache, cache->spare_k, l, b, 0),
                cache_row (cache, cache->k, l, parents[b], 0), rows);
        memcpy (cache_row (cache, cache->spare_v, l, b, 0),
                cache_row (cache, cache->v, l, parents[b], 0), rows);
      }
  float *t = cache->k;
  cache->k = cache->spare_k, cache->spare_k = t;
  t = cache->v;
  cache->v = cache->spare_v, cache->spare_v = t;
}

gboolean
as_step_check_input (const AsStepDecoder *decoder, const int32_t *tokens, GError **error)
{
  if (decoder->n_steps >= decoder->max_steps)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the decoder holds %d tokens per sequence, no room for another",
                   decoder->max_steps);
      return FALSE;
    }
  int V = decoder->vocab_size;
  for (int b = 0; b < decoder->n_seqs; b++)
    if (tokens[b] < 0 || tokens[b] >= V)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d is outside the vocabulary (0..%d)", tokens[b], V - 1);
        return FALSE;
      }
  return TRUE;
}

gboolean
as_step_check_finite (const float *x, int B, int D, const char *part, int layer, int pos,
                      GError **error)
{
  if (as_find_non_finite (x, (gsize) B * D) < 0)
    return TRUE;
  g_autofree char *what
      = part != NULL ? g_strdup_printf ("the decoder's %s (generating token %d)", part, pos + 1)
                     : g_strdup_printf ("decoder layer %d (generating token %d)", layer, pos + 1);
  return as_check_finite (x, B, D, 0, what, "sequence", NULL, error);
}

float *
as_step_alloc (guint64 n_floats, int B, int N, GError **error)
{
  char what[96];
  g_snprintf (what, sizeof what, "Generating %d sequence%s of up to %d tokens", B,
              B == 1 ? "" : "s", N);
  if (!as_memory_check (n_floats * sizeof (float), what, error))
    return NULL;
  float *mem = g_try_malloc0_n (n_floats, sizeof (float));
  if (mem == NULL)
    g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate the memory for %s", what);
  return mem;
}

void
as_step_attend_row (const AsStepAttention *a, float *cc, const float *q, const float *k,
                    const float *v, int n_k, const float *bias)
{
  int hd = a->width / a->n_heads;
  AsAttention job = {
    .q = q,
    .k = k,
    .v = v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = a->width,
    .ldk = a->width,
    .ldv = a->width,
    .p = a->p,
    .p_head = n_k,
    .cc = cc,
    .ldcc = a->width,
    .n_heads = a->n_heads,
    .n_q = 1,
    .n_k = n_k,
    .head_dim = hd,
    .group = 1,
    .scale = a->scale,
    .bias = bias,
    .bias_head = n_k,
    .ldbias = n_k,
  };
  as_attend (a->team, &job);
}
