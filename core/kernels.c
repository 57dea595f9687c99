/* kernels.c — vectorisable float32 kernels for the forward passes.
 *
 * The transcendental functions are written as polynomial kernels that the compiler vectorises
 * (scalar libm expf/tanhf calls would dominate the run time at long inputs: a 1024-token
 * DistilGPT-2 pass needs ~40 million exponentials). Accuracy: as_exp is within ~2 ulp of expf,
 * far inside the 1e-5 / 1e-4 tolerances of the exactness contract. Hot loops are compiled for
 * AVX-512, AVX2 and the baseline and chosen at load time (target_clones). */
#include "kernels.h"

#include <cblas.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define AS_CLONES __attribute__ ((target_clones ("avx512f", "avx2,fma", "default")))
#else
#define AS_CLONES
#endif

/* Columns per thread are rounded to this, so every slice starts on a cache line. */
#define MATMUL_COLUMN_ALIGN 16

void
as_matmul (float *out, const float *x, const float *w, const float *bias, int n, int in,
           int out_dim)
{
  float beta = 0.0f;
  if (bias != NULL)
    {
      for (int i = 0; i < n; i++)
        memcpy (out + (gsize) i * out_dim, bias, sizeof (float) * out_dim);
      beta = 1.0f;
    }
  /* Each thread multiplies by its own slice of W's columns: it reads only its share of the
   * weights, which is what matters when few tokens make the product memory-bound. */
  int threads = as_threads_for (n * (gsize) in * out_dim);
  int slice = (out_dim + threads - 1) / threads;
  slice = (slice + MATMUL_COLUMN_ALIGN - 1) / MATMUL_COLUMN_ALIGN * MATMUL_COLUMN_ALIGN;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; t++)
    {
      int c0 = t * slice, cols = MIN (slice, out_dim - c0);
      if (cols > 0)
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, cols, in, 1.0f, x, in, w + c0,
                     out_dim, beta, out + c0, out_dim);
    }
}

void
as_matmul_transposed (float *out, const float *x, const float *w, int n, int in, int out_dim)
{
  /* W is [out][in]: each thread takes a block of W's rows (= output columns) */
  int threads = as_threads_for (n * (gsize) in * out_dim);
  int slice = (out_dim + threads - 1) / threads;
  slice = (slice + MATMUL_COLUMN_ALIGN - 1) / MATMUL_COLUMN_ALIGN * MATMUL_COLUMN_ALIGN;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; t++)
    {
      int c0 = t * slice, rows = MIN (slice, out_dim - c0);
      if (rows <= 0)
        continue;
      if (n == 1)
        cblas_sgemv (CblasRowMajor, CblasNoTrans, rows, in, 1.0f, w + (gsize) c0 * in, in, x, 1,
                     0.0f, out + c0, 1);
      else
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, n, rows, in, 1.0f, x, in,
                     w + (gsize) c0 * in, in, 0.0f, out + c0, out_dim);
    }
}

int
as_threads_for (gsize work)
{
#ifdef _OPENMP
  /* below ~64k multiply-adds a thread costs more than it saves */
  return work < 65536 ? 1 : omp_get_max_threads ();
#else
  (void) work;
  return 1;
#endif
}

void
as_blas_single_threaded_begin (int *saved)
{
  *saved = openblas_get_num_threads ();
  openblas_set_num_threads (1);
}

void
as_blas_single_threaded_end (int saved)
{
  openblas_set_num_threads (saved);
}

/* e^x by range reduction x = k·ln2 + r, |r| ≤ ln2/2, and a degree-6 polynomial for e^r
 * (Cephes expf coefficients). Branch-free so that it vectorises. */
static inline float
exp_kernel (float x)
{
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.7f ? 88.7f : x;
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
  return p * scale.f;
}

AS_CLONES void
as_exp_inplace (float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = exp_kernel (x[i]);
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
      float t = 1.0f - 2.0f / (exp_kernel (2.0f * u) + 1.0f);
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

/* Sum with eight independent accumulators, so the loop vectorises without -ffast-math. */
static inline float
sum_floats (const float *x, int n)
{
  float acc[8] = { 0 };
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; l++)
      acc[l] += x[j + l];
  float sum = 0.0f;
  for (; j < n; j++)
    sum += x[j];
  for (int l = 0; l < 8; l++)
    sum += acc[l];
  return sum;
}

AS_CLONES void
as_softmax_rows (float *s, int rows, int cols, int ld, float scale, gboolean causal, int row0)
{
  for (int i = 0; i < rows; i++)
    {
      float *row = s + (gsize) i * ld;
      int visible = causal ? MIN (cols, row0 + i + 1) : cols;
      float max = -INFINITY;
      for (int j = 0; j < visible; j++)
        max = row[j] > max ? row[j] : max;
      for (int j = 0; j < visible; j++)
        row[j] = exp_kernel ((row[j] - max) * scale);
      float inv = 1.0f / sum_floats (row, visible);
      for (int j = 0; j < visible; j++)
        row[j] *= inv;
      for (int j = visible; j < cols; j++)
        row[j] = 0.0f;
    }
}

AS_CLONES void
as_add_inplace (float *out, const float *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] += x[i];
}
