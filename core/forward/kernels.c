/* kernels.c — vectorisable float32 kernels for the forward passes.
 *
 * The transcendental functions are written as polynomial kernels that the compiler vectorises
 * (scalar libm expf/tanhf calls would dominate the run time at long inputs: a 1024-token
 * DistilGPT-2 pass needs ~40 million exponentials). Accuracy: as_exp is within ~2 ulp of expf,
 * far inside the 1e-5 / 1e-4 tolerances of the exactness contract. Hot loops are compiled for
 * AVX-512, AVX2 and the baseline and chosen at load time (target_clones). */
#include "kernels-private.h"

#include <math.h>
#include <string.h>

#include "simd-private.h"

/* Below this many multiply-adds a second thread costs more than it saves. */
#define PARALLEL_MIN_WORK 65536

/* Rows per block of the row-wise kernels shared between threads (norms, activations). */
#define ROW_BLOCK 16

gboolean
as_parallel_worth (gsize work)
{
  return work >= PARALLEL_MIN_WORK;
}

void
as_parallel_run (AsWorkerTeam *team, gsize work, AsWorkFunc func, gpointer data)
{
  if (!as_parallel_worth (work))
    func (data, 0, 1);
  else
    as_worker_team_run (team, func, data);
}

void
as_parallel_blocks (AsWorkerTeam *team, gsize work, int n_blocks, AsBlockFunc func, gpointer data)
{
  as_worker_team_run_blocks (as_parallel_worth (work) ? team : NULL, n_blocks, func, data);
}

AS_CLONES void
as_exp_inplace (float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = as_exp_kernel (x[i]);
}

AS_CLONES double
as_sum_exp_shifted (const float *x, gsize n, float shift)
{
  return as_sum_exp_shifted_inline (x, n, shift);
}

/* The largest of N ≥ 1 floats (NaN-free rows: the pass refuses non-finite values). */
AS_CLONES float
as_max_f32 (const float *x, gsize n)
{
  float lanes[AS_SUM_LANES];
  gsize i = 0;
  for (int j = 0; j < AS_SUM_LANES; j++)
    lanes[j] = x[0];
  for (; i + AS_SUM_LANES <= n; i += AS_SUM_LANES)
    for (int j = 0; j < AS_SUM_LANES; j++)
      lanes[j] = x[i + j] > lanes[j] ? x[i + j] : lanes[j];
  float max = x[0];
  for (; i < n; i++)
    max = x[i] > max ? x[i] : max;
  for (int j = 0; j < AS_SUM_LANES; j++)
    max = lanes[j] > max ? lanes[j] : max;
  return max;
}

AS_CLONES void
as_layernorm (float *out, const float *x, const float *gamma, const float *beta, float eps, int n,
              int d)
{
  for (int i = 0; i < n; i++)
    {
      const float *xi = x + (gsize) i * d;
      float *oi = out + (gsize) i * d;
      /* mean and biased variance in double, as the reference accumulates without drift */
      double sum = 0.0;
      for (int j = 0; j < d; j++)
        sum += xi[j];
      float mean = (float) (sum / d);
      double var = 0.0;
      for (int j = 0; j < d; j++)
        {
          double c = xi[j] - mean;
          var += c * c;
        }
      float rstd = (float) (1.0 / sqrt (var / d + eps));
      for (int j = 0; j < d; j++)
        oi[j] = (xi[j] - mean) * rstd * gamma[j] + beta[j];
    }
}

AS_CLONES void
as_gelu_new (float *x, gsize n)
{
  const float c = 0.7978845608028654f;
  for (gsize i = 0; i < n; i++)
    {
      float v = x[i];
      float u = c * (v + 0.044715f * v * v * v);
      /* tanh(u) = 1 - 2 / (e^{2u} + 1), saturating cleanly for large |u| */
      float t = 1.0f - 2.0f / (as_exp_kernel (2.0f * u) + 1.0f);
      x[i] = 0.5f * v * (1.0f + t);
    }
}

void
as_gelu_erf (float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = 0.5f * x[i] * (1.0f + erff (x[i] * (float) M_SQRT1_2));
}

void
as_relu (float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

AS_CLONES void
as_silu (float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = x[i] / (1.0f + as_exp_kernel (-x[i]));
}

void
as_activate (float *x, gsize n, AsActivation act)
{
  switch (act)
    {
    case AS_ACT_GELU_NEW:
      as_gelu_new (x, n);
      break;
    case AS_ACT_GELU:
      as_gelu_erf (x, n);
      break;
    case AS_ACT_RELU:
      as_relu (x, n);
      break;
    case AS_ACT_SILU:
      as_silu (x, n);
      break;
    }
}

typedef struct
{
  float *x; /* [rows][cols] */
  int rows, cols;
  AsActivation act;
} ActivateJob;

/* Rows [ROW_BLOCK·block, +ROW_BLOCK) as one range: a vectorised loop treats the elements of its
 * head and tail apart, so the range is the same whatever the thread count. */
static void
activate_block (gpointer data, int block)
{
  const ActivateJob *j = data;
  int i0 = block * ROW_BLOCK, rows = MIN (ROW_BLOCK, j->rows - i0);
  as_activate (j->x + (gsize) i0 * j->cols, (gsize) rows * j->cols, j->act);
}

void
as_activate_rows (AsWorkerTeam *team, float *x, int rows, int cols, AsActivation act)
{
  ActivateJob job = { x, rows, cols, act };
  as_parallel_blocks (team, (gsize) rows * cols * 16, (rows + ROW_BLOCK - 1) / ROW_BLOCK,
                      activate_block, &job);
}

AS_CLONES static void
multiply_inplace (float *out, const float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] *= x[i];
}

void
as_gate (float *gate, const float *up, gsize n, AsActivation act)
{
  as_activate (gate, n, act);
  multiply_inplace (gate, up, n);
}

typedef struct
{
  float *out;
  const float *x, *weight, *bias;
  float eps;
  int n, d;
} NormJob;

static void
norm_block (gpointer data, int block)
{
  const NormJob *j = data;
  int i0 = block * ROW_BLOCK, rows = MIN (ROW_BLOCK, j->n - i0);
  gsize at = (gsize) i0 * j->d;
  if (j->bias != NULL)
    as_layernorm (j->out + at, j->x + at, j->weight, j->bias, j->eps, rows, j->d);
  else
    as_rmsnorm (j->out + at, j->x + at, j->weight, j->eps, rows, j->d);
}

void
as_norm_rows (AsWorkerTeam *team, float *out, const float *x, const float *weight,
              const float *bias, float eps, int n, int d)
{
  NormJob job = { out, x, weight, bias, eps, n, d };
  as_parallel_blocks (team, (gsize) n * d * 8, (n + ROW_BLOCK - 1) / ROW_BLOCK, norm_block, &job);
}

AS_CLONES double
as_sum_squares (const float *x, int n)
{
  double acc[16] = { 0 };
  int j = 0;
  for (; j + 16 <= n; j += 16)
    for (int l = 0; l < 16; l++)
      acc[l] += (double) x[j + l] * x[j + l];
  double sum = 0.0;
  for (int l = 0; l < 16; l++)
    sum += acc[l];
  for (; j < n; j++)
    sum += (double) x[j] * x[j];
  return sum;
}

AS_CLONES void
as_rmsnorm (float *out, const float *x, const float *weight, float eps, int n, int d)
{
  for (int i = 0; i < n; i++)
    {
      const float *xi = x + (gsize) i * d;
      float *oi = out + (gsize) i * d;
      /* mean of squares in double, as the reference accumulates without drift */
      double sum = as_sum_squares (xi, d);
      float r = (float) (1.0 / sqrt (sum / d + eps));
      for (int j = 0; j < d; j++)
        oi[j] = weight[j] * (xi[j] * r);
    }
}

/* Sum and maximum with sixteen independent accumulators, so that the loops vectorise without
 * -ffast-math (which would allow reordering everywhere). */
#define ACC 16

static inline float
sum_floats (const float *x, int n)
{
  float acc[ACC] = { 0 };
  int j = 0;
  for (; j + ACC <= n; j += ACC)
    for (int l = 0; l < ACC; l++)
      acc[l] += x[j + l];
  float sum = 0.0f;
  for (; j < n; j++)
    sum += x[j];
  for (int l = 0; l < ACC; l++)
    sum += acc[l];
  return sum;
}

static inline float
max_floats (const float *x, int n)
{
  float acc[ACC];
  for (int l = 0; l < ACC; l++)
    acc[l] = -INFINITY;
  int j = 0;
  for (; j + ACC <= n; j += ACC)
    for (int l = 0; l < ACC; l++)
      acc[l] = x[j + l] > acc[l] ? x[j + l] : acc[l];
  float max = -INFINITY;
  for (; j < n; j++)
    max = x[j] > max ? x[j] : max;
  for (int l = 0; l < ACC; l++)
    max = acc[l] > max ? acc[l] : max;
  return max;
}

/* Softmax of SCALE·row[lo..hi) in place; the rest of row [cols] becomes exactly 0. The row's
 * largest score and 1/sum go to *MAX_OUT and *INV_OUT when they are not NULL. */
AS_CLONES static void
softmax_span (float *row, int cols, int lo, int hi, float scale, float *max_out, float *inv_out)
{
  float *v = row + lo;
  int n = hi - lo;
  float max = max_floats (v, n);
  for (int j = 0; j < n; j++)
    v[j] = as_exp_kernel ((v[j] - max) * scale);
  float inv = 1.0f / sum_floats (v, n);
  for (int j = 0; j < n; j++)
    v[j] *= inv;
  memset (row, 0, sizeof (float) * lo);
  memset (row + hi, 0, sizeof (float) * (cols - hi));
  if (max_out != NULL)
    *max_out = max;
  if (inv_out != NULL)
    *inv_out = inv;
}

void
as_softmax_rows (float *s, int rows, int cols, int ld, float scale, gboolean causal, int row0)
{
  for (int i = 0; i < rows; i++)
    softmax_span (s + (gsize) i * ld, cols, 0, causal ? MIN (cols, row0 + i + 1) : cols, scale,
                  NULL, NULL);
}

void
as_softmax_rows_stats (float *s, int rows, int cols, int ld, float scale, int row0, gboolean causal,
                       int window, float *row_max, float *row_inv)
{
  for (int i = 0; i < rows; i++)
    {
      int lo, hi;
      as_softmax_row_span (row0 + i, cols, causal, window, &lo, &hi);
      softmax_span (s + (gsize) i * ld, cols, lo, hi, scale, row_max != NULL ? row_max + i : NULL,
                    row_inv != NULL ? row_inv + i : NULL);
    }
}

void
as_softmax_row_span (int row, int cols, gboolean causal, int window, int *lo, int *hi)
{
  *hi = causal ? MIN (cols, row + 1) : cols;
  *lo = causal && window > 0 ? MAX (0, row - window + 1) : 0;
}

AS_CLONES void
as_softmax_entries (float *s, int n, float max, float inv, float scale)
{
  for (int j = 0; j < n; j++)
    {
      s[j] = as_exp_kernel ((s[j] - max) * scale);
      s[j] *= inv;
    }
}

AS_CLONES void
as_add_inplace (float *out, const float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] += x[i];
}
