/* attention.c — multi-head attention (attention-private.h).
 *
 * The work is cut into units of one head and AS_ATTENTION_ROW_BLOCK query rows, each computed by
 * the same BLAS calls whichever member runs it, so the result is the same bits for every thread
 * count; members take the units round robin, which evens out the causal mask's growing rows. */
#include "attention-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "blas-threads-private.h"
#include "kernels-private.h"

void
as_attention_block_keys (gboolean causal, int window, int r0, int rows, int n_k, int *k0, int *k1)
{
  *k0 = 0, *k1 = n_k;
  if (causal)
    {
      *k0 = window > 0 ? MAX (0, r0 - window + 1) : 0;
      *k1 = r0 + rows;
    }
}

void
as_attention_scores (float *s, int lds, const float *q, int ldq, const float *k, int ldk, int rows,
                     int hd, int k0, int k1, int c0, int c1)
{
  c0 = MAX (c0, k0), c1 = MIN (c1, k1);
  if (c1 <= c0)
    return;
  int first = k0 + (c0 - k0) / AS_ATTENTION_COL_BLOCK * AS_ATTENTION_COL_BLOCK;
  for (int b = first; b < c1; b += AS_ATTENTION_COL_BLOCK)
    cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows,
                 MIN (AS_ATTENTION_COL_BLOCK, k1 - b), hd, 1.0f, q, ldq, k + (gsize) (b - k0) * ldk,
                 ldk, 0.0f, s + b, lds);
}

/* Query rows r0..r0+rows-1 of head H: P = softmax(q·kᵀ·scale) over the keys they can see,
 * ctx = P·v, into P (the job's weights, or SCRATCH [rows][n_k] when it keeps none), CTX (when
 * given) and CC; each row's maximum and 1/sum into the job's row statistics when it keeps them. */
static void
attention_block (const AsAttention *j, int h, int r0, int rows, float *scratch)
{
  int hd = j->head_dim, nk = j->n_k, g = h / j->group, k0, k1;
  as_attention_block_keys (j->causal, j->window, r0, rows, nk, &k0, &k1);
  const float *q = j->q + h * j->q_head + (gsize) r0 * j->ldq; /* [rows][hd], stride ldq */
  const float *k = j->k + g * j->k_head + (gsize) k0 * j->ldk; /* [k1-k0][hd], stride ldk */
  const float *v = j->v + g * j->v_head + (gsize) k0 * j->ldv; /* [k1-k0][hd], stride ldv */
  float *P = j->p != NULL ? j->p + h * j->p_head + (gsize) r0 * nk : scratch; /* [rows][n_k] */
  float *cc = j->cc + (gsize) h * hd + (gsize) r0 * j->ldcc; /* [rows][hd], stride ldcc */
  float *ctx = j->ctx != NULL ? j->ctx + h * j->ctx_head + (gsize) r0 * hd : NULL; /* [rows][hd] */

  as_attention_scores (P, nk, q, j->ldq, k, j->ldk, rows, hd, k0, k1, k0, k1);
  float scale = j->scale;
  if (j->bias != NULL)
    {
      /* HF T5: scores (unscaled there: scale 1) += position_bias, in float32 */
      /* row i at b + i·ldbias: ldbias n_k, or −1 for a relative bias (attention-private.h) */
      const float *b = j->bias + h * j->bias_head + (gssize) r0 * j->ldbias;
      for (int i = 0; i < rows; i++)
        for (int c = k0; c < k1; c++)
          P[(gsize) i * nk + c] = P[(gsize) i * nk + c] * scale + b[(gssize) i * j->ldbias + c];
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
  gsize stats = (gsize) h * j->n_q + r0;
  as_softmax_rows_stats (P, rows, nk, nk, scale, r0, j->causal, j->window,
                         j->row_max != NULL ? j->row_max + stats : NULL,
                         j->row_inv != NULL ? j->row_inv + stats : NULL);
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
  int blocks = (j->n_q + AS_ATTENTION_ROW_BLOCK - 1) / AS_ATTENTION_ROW_BLOCK;
  int units = j->n_heads * blocks;
  g_autofree float *scratch
      = j->p == NULL ? g_new (float, (gsize) AS_ATTENTION_ROW_BLOCK * j->n_k) : NULL;
  for (int u = index; u < units; u += n_workers)
    {
      int h = u / blocks, r0 = (u % blocks) * AS_ATTENTION_ROW_BLOCK;
      attention_block (j, h, r0, MIN (AS_ATTENTION_ROW_BLOCK, j->n_q - r0), scratch);
    }
}

void
as_attend (AsWorkerTeam *team, const AsAttention *job)
{
  gsize work = (gsize) job->n_heads * job->n_q * job->n_k * job->head_dim;
  as_blas_single_threaded ();
  as_parallel_run (team, work, attention_slice, (gpointer) job);
}

/* Copies the heads of X [T][ld] (head h at columns h·hd, or HEAD_STRIDE apart when not 0) into
 * OUT [n_heads][T][hd]. */
static void
copy_heads (float *out, const float *x, int ld, gsize head_stride, int n_heads, int T, int hd)
{
  for (int h = 0; h < n_heads; h++)
    for (int i = 0; i < T; i++)
      memcpy (out + ((gsize) h * T + i) * hd,
              x + (head_stride != 0 ? h * head_stride : (gsize) h * hd) + (gsize) i * ld,
              sizeof (float) * hd);
}

void
as_attention_layer (AsWorkerTeam *team, AsTrace *t, int layer, const AsAttentionInput *in)
{
  int T = t->n_tokens, hd = t->head_dim, H = t->n_head, K = t->n_kv_head;
  gboolean held = as_trace_attention_held (t), none = t->logits_only;
  t->attn_recipe[layer] = (AsAttentionRecipe){
    .causal = !in->bidirectional,
    .window = in->bidirectional ? 0 : in->window,
    .scale = in->scale,
    .softcap = in->softcap,
  };
  if (!held && !none)
    {
      copy_heads (t->attn_q + (gsize) layer * H * T * hd, in->q, in->ldq, in->q_head, H, T, hd);
      copy_heads (t->attn_k + (gsize) layer * K * T * hd, in->k, in->ldk, in->k_head, K, T, hd);
    }
  AsAttention job = {
    .q = in->q,
    .k = in->k,
    .v = in->v,
    .q_head = in->q_head != 0 ? in->q_head : (gsize) hd,
    .k_head = in->k_head != 0 ? in->k_head : (gsize) hd,
    .v_head = in->v_head != 0 ? in->v_head : (gsize) hd,
    .ldq = in->ldq,
    .ldk = in->ldk,
    .ldv = in->ldv,
    .p = held ? as_trace_attn_matrices (t, layer, 0) : NULL,
    .p_head = (gsize) T * T,
    .row_max = held || none ? NULL : t->attn_row_max + (gsize) layer * H * T,
    .row_inv = held || none ? NULL : t->attn_row_inv + (gsize) layer * H * T,
    .ctx = none ? NULL : as_trace_head_vectors (t, t->ctx, layer, 0),
    .ctx_head = (gsize) T * hd,
    .cc = in->cc,
    .ldcc = in->ldc,
    .n_heads = H,
    .group = H / K,
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
