/* test-matmul-amx.c — products with BF16 and float32 weights on AMX tiles
 * (core/forward/matmul-amx.c): the split products must give float32's accuracy at shapes with every
 * kind of edge (a depth not a multiple of 32, a partial tile of rows or positions, more positions
 * than are packed at once), through the output head (and, for BF16, a projection with a bias), and
 * the same bits whatever the thread count and whichever rows share the product. Skipped, saying
 * so, where the CPU or Linux gives no AMX tiles. */
#include <math.h>
#include <string.h>

#include "dtype-private.h"
#include "kernels-private.h"
#include "matmul-amx-private.h"

typedef struct
{
  int n, in, out;
} Shape;

static const Shape SHAPES[] = {
  { 1, 64, 100 }, { 5, 40, 33 }, { 37, 96, 1030 }, { 300, 768, 2500 }, { 1100, 64, 70 },
};

static guint16
to_bf16 (float v)
{
  guint32 u;
  memcpy (&u, &v, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (guint16) (u >> 16);
}

static float *
random_floats (GRand *rand, gsize count, double scale)
{
  float *v = g_new (float, count);
  for (gsize i = 0; i < count; i++)
    v[i] = (float) (g_rand_double_range (rand, -1.0, 1.0) * scale);
  return v;
}

/* The worst error of OUT against x · Wᵀ in double, in units of float32's rounding of the sum of
 * |x_k w_k| (the standard bound of a float32 dot product is depth/2 + a few of these units). */
static double
worst_error_units (const float *out, const float *x, const float *w, const Shape *s)
{
  double worst = 0.0;
  for (int i = 0; i < s->n; i++)
    for (int o = 0; o < s->out; o++)
      {
        double sum = 0.0, size = 0.0;
        for (int k = 0; k < s->in; k++)
          {
            double p = (double) x[(gsize) i * s->in + k] * w[(gsize) o * s->in + k];
            sum += p;
            size += fabs (p);
          }
        double err = fabs (out[(gsize) i * s->out + o] - sum) / (size * ldexp (1.0, -24) + 1e-300);
        worst = MAX (worst, err);
      }
  return worst;
}

/* Rows of logits from which as_matmul_logits sends a float32 head to the tiles (matmul.c). */
#define AMX_F32_MIN_ROWS 32

static void
check_shape (const Shape *s, guint32 seed, AsDType dtype)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autofree float *x = random_floats (rand, (gsize) s->n * s->in, 3.0);
  g_autofree float *w = random_floats (rand, (gsize) s->out * s->in, 0.1);
  g_autofree guint16 *w16 = g_new (guint16, (gsize) s->out * s->in);
  const void *stored = w;
  if (dtype == AS_DTYPE_BF16)
    {
      for (gsize i = 0; i < (gsize) s->out * s->in; i++)
        w16[i] = to_bf16 (w[i]);
      as_dtype_widen (w, w16, AS_DTYPE_BF16, (gsize) s->out * s->in);
      stored = w16;
    }
  gsize size = (gsize) s->n * s->out;
  g_autofree float *out = g_new (float, size);
  g_autofree float *alone = g_new (float, size);
  g_autofree float *threaded = g_new (float, size);
  g_assert_true (as_amx_matmul_transposed (NULL, out, x, stored, dtype, s->n, s->in, s->out));
  double units = worst_error_units (out, x, w, s);
  g_test_message ("%s n %d in %d out %d: worst error %.2f units of 2^-24 sum |x w|",
                  as_dtype_name (dtype), s->n, s->in, s->out, units);
  /* float32's own bound for this depth is in/2 + 2 units; the products actually land near 1 */
  g_assert_cmpfloat (units, <=, 4.0);
  /* each row alone gives the same bits as among the others */
  for (int i = 0; i < s->n; i += MAX (1, s->n / 7))
    g_assert_true (as_amx_matmul_transposed (
        NULL, alone + (gsize) i * s->out, x + (gsize) i * s->in, stored, dtype, 1, s->in, s->out));
  for (int i = 0; i < s->n; i += MAX (1, s->n / 7))
    g_assert_cmpmem (alone + (gsize) i * s->out, sizeof (float) * s->out, out + (gsize) i * s->out,
                     sizeof (float) * s->out);
  /* and three threads the same bits as one */
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (3);
  g_assert_true (as_amx_matmul_transposed (team, threaded, x, stored, dtype, s->n, s->in, s->out));
  g_assert_cmpmem (threaded, sizeof (float) * size, out, sizeof (float) * size);
  /* the output head takes this path: a float32 head for many rows but the last, which OpenBLAS
   * computes alone (the bits of a pass keeping only its logits), within float32's accuracy */
  AsWeight weight = { stored, dtype };
  memset (threaded, 0, sizeof (float) * size);
  as_matmul_logits (team, threaded, x, &weight, s->n, s->in, s->out);
  if (dtype == AS_DTYPE_F32)
    {
      g_assert_cmpfloat (worst_error_units (threaded, x, w, s), <=, 4.0);
      if (s->n > AMX_F32_MIN_ROWS)
        g_assert_cmpmem (threaded, sizeof (float) * (s->n - 1) * s->out, out,
                         sizeof (float) * (s->n - 1) * s->out);
      return;
    }
  g_assert_cmpmem (threaded, sizeof (float) * size, out, sizeof (float) * size);
  /* a BF16 projection with a bias takes it in blocks of columns: the sums plus the bias */
  g_autofree float *bias = random_floats (rand, s->out, 1.0);
  as_matmul_weight (team, threaded, x, &weight, bias, s->n, s->in, s->out);
  for (gsize i = 0; i < size; i++)
    g_assert_cmpfloat (threaded[i], ==, out[i] + bias[i % s->out]);
}

static void
test_products (void)
{
  if (!as_amx_usable ())
    {
      g_test_skip ("no AMX tiles here (the CPU lacks AMX-BF16, Linux refused the tile state, or "
                   "ATTNSCOPE_AMX=0): weights go to OpenBLAS instead");
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (SHAPES); i++)
    {
      check_shape (&SHAPES[i], 7 + i, AS_DTYPE_BF16);
      check_shape (&SHAPES[i], 7 + i, AS_DTYPE_F32);
    }
}

static void
test_other_dtypes_refused (void)
{
  float out[4] = { 0 }, x[4] = { 1, 2, 3, 4 };
  guint16 w[4] = { 0 };
  g_assert_false (as_amx_matmul_transposed (NULL, out, x, w, AS_DTYPE_F16, 1, 4, 1));
  g_assert_cmpfloat (out[0], ==, 0.0f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/matmul-amx/products", test_products);
  g_test_add_func ("/matmul-amx/other-dtypes-refused", test_other_dtypes_refused);
  return g_test_run ();
}
