/* bench-head.c — the output head alone: as_matmul_logits of ROWS random rows through a random
 * float32 head of GPT-2's shape (50,257 × 768), the product the logit lens repeats. Prints the
 * median and minimum of REPEAT runs after a warm-up as one JSON line. Run it twice, with and
 * without ATTNSCOPE_AMX=0, to compare the AMX tiles with OpenBLAS (README.md, "Benchmarks").
 *
 * usage: bench-head ROWS REPEAT */
#include <stdio.h>
#include <stdlib.h>

#include "as-forward.h"
#include "bench-median.h"
#include "kernels-private.h"
#include "matmul-amx-private.h"

#define VOCAB 50257
#define DEPTH 768

int
main (int argc, char **argv)
{
  int rows = argc == 3 ? atoi (argv[1]) : 0, repeat = argc == 3 ? atoi (argv[2]) : 0;
  if (rows < 1 || repeat < 1)
    {
      fprintf (stderr, "usage: bench-head ROWS REPEAT\n");
      return 2;
    }
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autofree float *w = g_new (float, (gsize) VOCAB *DEPTH);
  g_autofree float *x = g_new (float, (gsize) rows *DEPTH);
  g_autofree float *out = g_new (float, (gsize) rows *VOCAB);
  for (gsize i = 0; i < (gsize) VOCAB * DEPTH; i++)
    w[i] = (float) g_rand_double_range (rand, -0.1, 0.1);
  for (gsize i = 0; i < (gsize) rows * DEPTH; i++)
    x[i] = (float) g_rand_double_range (rand, -3.0, 3.0);
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (as_forward_threads ());
  AsWeight head = { w, AS_DTYPE_F32 };
  g_autofree double *ms = g_new (double, repeat);
  for (int r = 0; r <= repeat; r++) /* the first is a warm-up */
    {
      gint64 t0 = g_get_monotonic_time ();
      as_matmul_logits (team, out, x, &head, rows, DEPTH, VOCAB);
      if (r > 0)
        ms[r - 1] = (g_get_monotonic_time () - t0) / 1000.0;
    }
  double median = bench_sort_median (ms, repeat);
  printf ("{\"rows\":%d,\"amx_usable\":%s,\"threads\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f,"
          "\"gflops\":%.1f}\n",
          rows, as_amx_usable () ? "true" : "false", as_forward_threads (), median, ms[0],
          2.0 * rows * DEPTH * VOCAB / (ms[0] * 1e6));
  return 0;
}
