/* marian-blocks.c — the pieces both Marian passes are built from (marian-private.h): embedding
 * with positions, projections in either weight layout, post-LN residuals, the MLP, and
 * multi-head attention over queries and keys of any two lengths (self-attention, causal or not,
 * and cross-attention with target queries and source keys).
 *
 * Attention as modeling_marian.py computes it, per head: S = q·kᵀ·hd^-½ (the mask adds −inf
 * above the diagonal for causal self-attention), P = softmax(S) (masked weights exactly 0),
 * context = P·v. Heads are shared out between the team's members; causal heads compute only the
 * lower triangle, in blocks of rows. */
#include "marian-private.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#include "kernels-private.h"

/* Rows per block of the causal attention: each block multiplies only by the keys it can see. */
#define ATTN_ROW_BLOCK 64

void
as_marian_embed (float *out, const AsMarianWeights *w, const AsMarianStack *stack,
                 float embed_scale, const int32_t *ids, int n, int pos0, int d)
{
  for (int t = 0; t < n; t++)
    {
      const float *e = w->shared + (gsize) ids[t] * d;             /* [D] */
      const float *pe = stack->positions + (gsize) (pos0 + t) * d; /* [D] */
      float *o = out + (gsize) t * d;                              /* [D] */
      for (int i = 0; i < d; i++)
        o[i] = e[i] * embed_scale + pe[i];
    }
}

void
as_marian_linear (AsWorkerTeam *team, float *out, const float *x, const AsMarianLinear *lin, int n,
                  int in, int out_dim)
{
  if (!lin->transposed)
    {
      as_matmul (team, out, x, lin->w, lin->b, n, in, out_dim);
      return;
    }
  as_matmul_transposed (team, out, x, lin->w, n, in, out_dim);
  for (int i = 0; i < n; i++)
    as_add_inplace (out + (gsize) i * out_dim, lin->b, out_dim);
}

void
as_marian_add_norm (float *x, const float *delta, const AsMarianNorm *norm, int n, int d)
{
  as_add_inplace (x, delta, (gsize) n * d);
  as_layernorm (x, x, norm->g, norm->b, AS_MARIAN_LN_EPS, n, d);
}

void
as_marian_mlp (AsWorkerTeam *team, float *x, float *ff, float *tmp, const AsMarianLayer *y,
               AsActivation act, int n, int d, int f)
{
  as_marian_linear (team, ff, x, &y->fc1, n, d, f); /* ff [n][F] */
  as_activate_rows (team, ff, n, f, act);
  as_marian_linear (team, tmp, ff, &y->fc2, n, f, d); /* tmp [n][D] */
  as_marian_add_norm (x, tmp, &y->final_norm, n, d);
}

/* One head H of JOB. */
static void
attend_head (const AsMarianAttention *j, int h)
{
  int hd = j->head_dim, nk = j->n_k;
  const float *q = j->q + h * j->q_head; /* [n_q][hd] with row stride ldq */
  const float *k = j->k + h * j->k_head; /* [n_k][hd] with row stride ldk */
  const float *v = j->v + h * j->v_head; /* [n_k][hd] with row stride ldv */
  float *P = j->p + h * j->p_head;       /* [n_q][n_k] */
  float *cc = j->cc + (gsize) h * hd;    /* [n_q][hd] with row stride ldcc */
  float scale = 1.0f / sqrtf ((float) hd);
  int block = j->causal ? ATTN_ROW_BLOCK : j->n_q;
  for (int r0 = 0; r0 < j->n_q; r0 += block)
    {
      int rows = MIN (block, j->n_q - r0);
      int keys = j->causal ? r0 + rows : nk; /* causal: rows r0.. see keys 0..r0+rows-1 */
      float *Pb = P + (gsize) r0 * nk;
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, rows, keys, hd, 1.0f,
                   q + (gsize) r0 * j->ldq, j->ldq, k, j->ldk, 0.0f, Pb, nk);
      as_softmax_rows (Pb, rows, nk, nk, scale, j->causal, r0);
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, keys, 1.0f, Pb, nk, v,
                   j->ldv, 0.0f, cc + (gsize) r0 * j->ldcc, j->ldcc);
    }
}

static void
attend_slice (gpointer data, int index, int n_workers)
{
  const AsMarianAttention *j = data;
  int h0, h1;
  as_worker_split (j->n_heads, index, n_workers, &h0, &h1);
  for (int h = h0; h < h1; h++)
    attend_head (j, h);
}

void
as_marian_attend (AsWorkerTeam *team, const AsMarianAttention *job)
{
  gsize work = (gsize) job->n_heads * job->n_q * job->n_k * job->head_dim;
  as_parallel_run (team, work, attend_slice, (gpointer) job);
}
