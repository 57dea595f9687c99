/* attention.c — multi-head attention (attention-private.h).
 *
 * The work is cut into units of one head and ATTN_ROW_BLOCK query rows, each computed by the
 * same BLAS calls whichever member runs it, so the result is the same bits for every thread
 * count; members take the units round robin, which evens out the causal mask's growing rows. */
#include "attention-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "blas-threads-private.h"
#include "kernels-private.h"

/* Query rows per block: each block multiplies only by the keys it can see. */
#define ATTN_ROW_BLOCK 64

/* Query rows r0..r0+rows-1 of head H: P = softmax(q·kᵀ·scale) over the keys they can see,
 * ctx = P·v, into P, CTX (when given) and CC. */
static void
attention_block (const AsAttention *j, int h, int r0, int rows)
{
  int hd = j->head_dim, nk = j->n_k, g = h / j->group;
  int k0 = 0, k1 = nk;
  if (j->causal)
    {
      k0 = j->window > 0 ? MAX (0, r0 - j->window + 1) : 0;
      k1 = r0 + rows;
    }
  const float *q = j->q + h * j->q_head + (gsize) r0 * j->ldq; /* [rows][hd], stride ldq */
  const float *k = j->k + g * j->k_head + (gsize) k0 * j->ldk; /* [k1-k0][hd], stride ldk */
  const float *v = j->v + g * j->v_head + (gsize) k0 * j->ldv; /* [k1-k0][hd], stride ldv */
  float *P = j->p + h * j->p_head + (gsize) r0 * nk;           /* [rows][n_k] */
  float *cc = j->cc + (gsize) h * hd + (gsize) r0 * j->ldcc;   /* [rows][hd], stride ldcc */
  float *ctx = j->ctx != NULL ? j->ctx + h * j->ctx_head + (gsize) r0 * hd : NULL; /* [rows][hd] */

  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, k1 - k0, hd, 1.0f, q, j->ldq, k,
               j->ldk, 0.0f, P + k0, nk);
  float scale = j->scale;
  if (j->bias != NULL)
    {
      /* HF T5: scores (unscaled there: scale 1) += position_bias, in float32 */
      const float *b = j->bias + h * j->bias_head + (gsize) r0 * j->ldbias; /* [rows][ldbias] */
      for (int i = 0; i < rows; i++)
        for (int c = k0; c < k1; c++)
          P[(gsize) i * nk + c] = P[(gsize) i * nk + c] * scale + b[(gsize) i * j->ldbias + c];
      scale = 1.0f;
    }
  if (j->softcap > 0.0f)
    {
      /* HF: (q·kᵀ · scaling) / cap, tanh, · cap, each rounded to float32; then the mask */
      for (int i = 0; i < rows; i++)
        for (int c = k0; c < k1; c++)
          {
            float *s = P + (gsize) i * nk + c;
            *s = (float) tanh ((double) ((*s * scale) / j->softcap)) * j->softcap;
          }
      scale = 1.0f;
    }
  if (j->causal)
    as_softmax_rows_window (P, rows, nk, nk, scale, r0, j->window);
  else
    as_softmax_rows (P, rows, nk, nk, scale, FALSE, r0);
  if (ctx == NULL)
    {
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, k1 - k0, 1.0f, P + k0, nk,
                   v, j->ldv, 0.0f, cc, j->ldcc);
      return;
    }
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, k1 - k0, 1.0f, P + k0, nk, v,
               j->ldv, 0.0f, ctx, hd);
  for (int i = 0; i < rows; i++)
    memcpy (cc + (gsize) i * j->ldcc, ctx + (gsize) i * hd, sizeof (float) * hd);
}

static void
attention_slice (gpointer data, int index, int n_workers)
{
  const AsAttention *j = data;
  int blocks = (j->n_q + ATTN_ROW_BLOCK - 1) / ATTN_ROW_BLOCK;
  int units = j->n_heads * blocks;
  for (int u = index; u < units; u += n_workers)
    {
      int h = u / blocks, r0 = (u % blocks) * ATTN_ROW_BLOCK;
      attention_block (j, h, r0, MIN (ATTN_ROW_BLOCK, j->n_q - r0));
    }
}

void
as_attend (AsWorkerTeam *team, const AsAttention *job)
{
  gsize work = (gsize) job->n_heads * job->n_q * job->n_k * job->head_dim;
  as_blas_single_threaded ();
  as_parallel_run (team, work, attention_slice, (gpointer) job);
}

void
as_attention_layer (AsWorkerTeam *team, AsTrace *t, int layer, const AsAttentionInput *in)
{
  int T = t->n_tokens, hd = t->head_dim;
  AsAttention job = {
    .q = in->q,
    .k = in->k,
    .v = in->v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = in->ldq,
    .ldk = in->ldk,
    .ldv = in->ldv,
    .p = as_trace_attn (t, layer, 0),
    .p_head = (gsize) T * T,
    .ctx = as_trace_head_vectors (t, t->ctx, layer, 0),
    .ctx_head = (gsize) T * hd,
    .cc = in->cc,
    .ldcc = in->ldc,
    .n_heads = t->n_head,
    .group = t->n_head / t->n_kv_head,
    .n_q = T,
    .n_k = T,
    .head_dim = hd,
    .causal = !in->bidirectional,
    .window = in->window,
    .scale = in->scale,
    .softcap = in->softcap,
  };
  as_attend (team, &job);
}
