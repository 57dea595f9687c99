/* attention.c — multi-head attention of one layer (attention-private.h). */
#include "attention-private.h"

#include <cblas.h>
#include <string.h>

#include "kernels-private.h"

/* Query rows per block: each block multiplies only by the keys it can see. */
#define ATTN_ROW_BLOCK 64

typedef struct
{
  AsTrace *t;
  int layer;
  const AsAttentionInput *in;
} AttentionJob;

/* Query rows r0..r0+rows-1 of head H: P = softmax(q·kᵀ·scale) over the keys they can see,
 * ctx = P·v, into the trace and into cc. */
static void
attention_block (const AttentionJob *j, int h, int r0, int rows)
{
  AsTrace *t = j->t;
  const AsAttentionInput *in = j->in;
  int T = t->n_tokens, hd = t->head_dim;
  int g = as_trace_kv_head (t, h);
  int k0 = 0, k1 = T;
  if (!in->bidirectional)
    {
      k0 = in->window > 0 ? MAX (0, r0 - in->window + 1) : 0;
      k1 = r0 + rows;
    }
  const float *q = in->q + (gsize) r0 * in->ldq + (gsize) h * hd; /* [rows][hd], stride ldq */
  const float *k = in->k + (gsize) k0 * in->ldk + (gsize) g * hd; /* [k1-k0][hd], stride ldk */
  const float *v = in->v + (gsize) k0 * in->ldv + (gsize) g * hd; /* [k1-k0][hd], stride ldv */
  float *P = as_trace_attn (t, j->layer, h) + (gsize) r0 * T;     /* [rows][T] */
  float *ctx = as_trace_head_vectors (t, t->ctx, j->layer, h) + (gsize) r0 * hd; /* [rows][hd] */

  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, k1 - k0, hd, 1.0f, q, in->ldq, k,
               in->ldk, 0.0f, P + k0, T);
  if (in->bidirectional)
    as_softmax_rows (P, rows, T, T, in->scale, FALSE, r0);
  else
    as_softmax_rows_window (P, rows, T, T, in->scale, r0, in->window);
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, k1 - k0, 1.0f, P + k0, T, v,
               in->ldv, 0.0f, ctx, hd);
  for (int i = 0; i < rows; i++)
    memcpy (in->cc + (gsize) (r0 + i) * in->ldc + (gsize) h * hd, ctx + (gsize) i * hd,
            sizeof (float) * hd);
}

static void
attention_slice (gpointer data, int index, int n_workers)
{
  const AttentionJob *j = data;
  int T = j->t->n_tokens;
  int blocks = (T + ATTN_ROW_BLOCK - 1) / ATTN_ROW_BLOCK;
  int units = j->t->n_head * blocks;
  for (int u = index; u < units; u += n_workers)
    {
      int h = u / blocks, r0 = (u % blocks) * ATTN_ROW_BLOCK;
      attention_block (j, h, r0, MIN (ATTN_ROW_BLOCK, T - r0));
    }
}

void
as_attention_layer (AsWorkerTeam *team, AsTrace *t, int layer, const AsAttentionInput *in)
{
  AttentionJob job = { t, layer, in };
  gsize T = t->n_tokens;
  as_parallel_run (team, t->n_head * T * T * t->head_dim, attention_slice, &job);
}
