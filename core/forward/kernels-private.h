/* kernels-private.h — the numeric building blocks of the forward passes (private to the core).
 *
 * One small function per operation, in the llm.c style: outputs first, then inputs, then sizes;
 * every buffer's shape in a comment. Row vectors throughout (x · W), matrices row-major. */
#pragma once

#include <glib.h>

#include "as-config.h"
#include "dtype-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* Is WORK (multiply-adds or element operations) large enough to share between threads? */
gboolean as_parallel_worth (gsize work);

/* Runs FUNC on every member of TEAM (see worker-team-private.h), or only on the calling thread when
 * TEAM is NULL or WORK (multiply-adds or element operations) is too small to share. */
void as_parallel_run (AsWorkerTeam *team, gsize work, AsWorkFunc func, gpointer data);

/* Runs FUNC (DATA, b) for every block b of 0..N_BLOCKS-1, contiguous runs of blocks on TEAM's
 * members (as_worker_team_run_blocks), or all on the calling thread when TEAM is NULL or WORK is
 * too small to share. What block b computes depends on b alone, so the result is the same bits
 * for every thread count. */
void as_parallel_blocks (AsWorkerTeam *team, gsize work, int n_blocks, AsBlockFunc func,
                         gpointer data);

/* out = x · w (+ bias broadcast over rows). x [n][in], w [in][out], bias [out] or NULL,
 * out [n][out]. Single-threaded cblas_sgemm on blocks of a fixed number of columns, contiguous
 * runs of blocks per team member (matmul.c); TEAM may be NULL. */
void as_matmul (AsWorkerTeam *team, float *out, const float *x, const float *w, const float *bias,
                int n, int in, int out_dim);

/* as_matmul, then out = ACT(out), each member on the columns it computed (no second round). */
void as_matmul_activate (AsWorkerTeam *team, float *out, const float *x, const float *w,
                         const float *bias, int n, int in, int out_dim, AsActivation act);

/* out = x · wᵀ. x [n][in], w [out][in] (e.g. the tied embedding matrix), out [n][out]. */
void as_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const float *w, int n,
                           int in, int out_dim);

/* out = x · Wᵀ (+ bias broadcast over rows). x [n][in], W [out][in] (nn.Linear's layout) stored
 * as F32, BF16 or F16 — 16-bit weights are widened exactly, tile by tile, never whole (matmul.c);
 * bias [out] or NULL; out [n][out]. */
void as_matmul_weight (AsWorkerTeam *team, float *out, const float *x, const AsWeight *w,
                       const float *bias, int n, int in, int out_dim);

/* The logits of a pass: as_matmul_weight (W an AsWeight) or as_matmul_transposed (W float32
 * [out][in]) without bias, but the last row of x is multiplied by a product of its own, block by
 * block after the other rows, exactly as when N is 1. OpenBLAS rounds a row differently with the
 * number of rows in the product; this way a pass that computes only the last position's logits
 * (the window, predict) and one that computes every position's (run --dump, perplexity) agree on
 * the last row to the bit. A BF16 W on AMX tiles needs no row apart: there a row's logits are
 * the same bits alone or among others (matmul-amx-private.h). */
void as_matmul_logits (AsWorkerTeam *team, float *out, const float *x, const AsWeight *w, int n,
                       int in, int out_dim);
void as_matmul_logits_transposed (AsWorkerTeam *team, float *out, const float *x, const float *w,
                                  int n, int in, int out_dim);

/* LayerNorm over the last dimension with biased variance (as PyTorch): out [n][d], x [n][d],
 * gamma/beta [d]. OUT may equal X. */
void as_layernorm (float *out, const float *x, const float *gamma, const float *beta, float eps,
                   int n, int d);

/* One projection of a batch: out [n][out_dim] = x · Wᵀ (+ bias), as as_matmul_weight. */
typedef struct
{
  float *out;
  const AsWeight *w;
  const float *bias; /* [out_dim] or NULL */
  int out_dim;
} AsProjection;

/* What each member does to its own columns of a batch's first output once it has computed them. */
typedef enum
{
  AS_EPILOGUE_NONE,
  AS_EPILOGUE_ACTIVATE, /* out0 = act(out0) */
  AS_EPILOGUE_GATE,     /* out0 = act(out0) · out1 (SwiGLU with silu); out0, out1 of one width */
} AsEpilogue;

/* Up to four projections of the same x [n][in] (q, k, v; gate, up) in one round of TEAM: each is
 * shared out by columns as in as_matmul_weight, then the EPILOGUE with ACT, and the members wait
 * for each other once. */
void as_matmul_weights (AsWorkerTeam *team, const float *x, int n, int in, const AsProjection *p,
                        int n_projections, AsEpilogue epilogue, AsActivation act);

/* RMSNorm (Llama): out = weight · (x · 1/√(mean(x²) + eps)) per row, in that order of roundings.
 * out [n][d], x [n][d], weight [d]. OUT may equal X. */
void as_rmsnorm (float *out, const float *x, const float *weight, float eps, int n, int d);

/* Σ x² of X [n] in double (each square exact) with sixteen independent accumulators, so that the
 * loop vectorises: through one dependent sum a row of Gemma's 640 took 4 cycles an element. */
double as_sum_squares (const float *x, int n);

/* In-place x·sigmoid(x) = x / (1 + e^-x). x [n]. */
void as_silu (float *x, gsize n);

/* In-place ACT over x [n]. */
void as_activate (float *x, gsize n, AsActivation act);

/* In-place ACT over x [rows][cols], rows shared between TEAM's members (TEAM may be NULL). */
void as_activate_rows (AsWorkerTeam *team, float *x, int rows, int cols, AsActivation act);

/* The gated MLP's middle (SwiGLU when ACT is silu): gate [n] = ACT(gate) · up [n], each rounded as
 * torch does (act(gate) first). */
void as_gate (float *gate, const float *up, gsize n, AsActivation act);

/* LayerNorm (BIAS non-NULL) or RMSNorm (BIAS NULL) of x [n][d] into out [n][d], rows shared
 * between TEAM's members (TEAM may be NULL). */
void as_norm_rows (AsWorkerTeam *team, float *out, const float *x, const float *weight,
                   const float *bias, float eps, int n, int d);

/* In-place gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). x [n]. */
void as_gelu_new (float *x, gsize n);

/* In-place exact gelu: 0.5·x·(1 + erf(x/√2)). x [n]. */
void as_gelu_erf (float *x, gsize n);

/* In-place relu. x [n]. */
void as_relu (float *x, gsize n);

/* Row-wise softmax of SCALE·s in place. s [rows][cols] with row stride LD. When CAUSAL, row i
 * only sees columns 0..ROW0+i (ROW0 is the absolute index of the first row) and the entries to
 * the right are set to exactly 0. */
void as_softmax_rows (float *s, int rows, int cols, int ld, float scale, gboolean causal, int row0);

/* Row-wise softmax of SCALE·s in place over the keys each row sees (as_softmax_row_span; row i
 * is absolute row ROW0 + i), every other entry exactly 0; each row's largest score and 1/sum go
 * to ROW_MAX [rows] and ROW_INV [rows] when they are not NULL. s [rows][cols] with stride LD. */
void as_softmax_rows_stats (float *s, int rows, int cols, int ld, float scale, int row0,
                            gboolean causal, int window, float *row_max, float *row_inv);

/* The keys LO .. HI−1 query ROW of COLS keys sees: all when not CAUSAL; else up to ROW, and with
 * WINDOW > 0 only the last WINDOW of them. */
void as_softmax_row_span (int row, int cols, gboolean causal, int window, int *lo, int *hi);

/* S [n] ← exp((S − MAX)·SCALE) · INV: the weights of scores S of a row whose largest score is MAX
 * and whose 1/sum is INV, with the same operations as the softmax above (the same bits). */
void as_softmax_entries (float *s, int n, float max, float inv, float scale);

/* out += x, elementwise over n. */
void as_add_inplace (float *out, const float *x, gsize n);

/* e^x for a whole array, vectorised (max relative error ~2e-7 over the float range). */
void as_exp_inplace (float *x, gsize n);

/* e^x by range reduction x = k·ln2 + r, |r| ≤ ln2/2, and a degree-6 polynomial for e^r
 * (Cephes expf coefficients). Branch-free so that it vectorises. The input is clamped to
 * [-87.3, 88.7] so that k stays within the exponent's range: written so that NaN compares false
 * and becomes -87.3 (a NaN k would make the exponent's shift undefined behaviour), then the NaN
 * is given back as the result; ±Inf clamp like any large value. */
static inline float
as_exp_kernel (float x_in)
{
  float x = x_in > -87.3f ? x_in : -87.3f;
  x = x < 88.7f ? x : 88.7f;
  /* round to nearest by the 1.5·2^23 trick: vectorises on every x86-64 level */
  float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - k * 0.693359375f;
  r = r - k * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  union
  {
    float f;
    gint32 i;
  } scale;
  scale.i = ((gint32) k + 127) << 23;
  return x_in == x_in ? p * scale.f : x_in; /* NaN in, NaN out */
}

/* Σ exp(X[i] − SHIFT) over N floats, in double: the softmax normaliser of a row of logits whose
 * largest is SHIFT. Each term is as_exp_kernel's (float, ~2e-7 relative), the terms are summed in
 * AS_SUM_LANES double lanes in a fixed order, so the sum depends on the row alone; the loop
 * vectorises (a libm exp per logit was a third of the logit lens). */
#define AS_SUM_LANES 16

static inline double
as_sum_exp_shifted_inline (const float *x, gsize n, float shift)
{
  /* the lanes as two halves of eight: GCC 12 vectorises these sums, where through one array of
   * sixteen it summed lane by lane (2.3× the time of a row, the same bits) */
  double lo[AS_SUM_LANES / 2] = { 0 }, hi[AS_SUM_LANES / 2] = { 0 };
  gsize i = 0;
  for (; i + AS_SUM_LANES <= n; i += AS_SUM_LANES)
    {
      for (int j = 0; j < AS_SUM_LANES / 2; j++)
        lo[j] += (double) as_exp_kernel (x[i + j] - shift);
      for (int j = 0; j < AS_SUM_LANES / 2; j++)
        hi[j] += (double) as_exp_kernel (x[i + AS_SUM_LANES / 2 + j] - shift);
    }
  double sum = 0.0;
  for (; i < n; i++)
    sum += (double) as_exp_kernel (x[i] - shift);
  for (int j = 0; j < AS_SUM_LANES / 2; j++)
    sum += lo[j];
  for (int j = 0; j < AS_SUM_LANES / 2; j++)
    sum += hi[j];
  return sum;
}

/* The same, compiled for each x86-64 level (AS_CLONES). */
double as_sum_exp_shifted (const float *x, gsize n, float shift);

/* The largest of N ≥ 1 floats, none of them NaN. */
float as_max_f32 (const float *x, gsize n);

G_END_DECLS
