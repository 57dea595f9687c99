/* bench-sgemm.c — the throughput of one large OpenBLAS sgemm, the yardstick of
 * run-gemm-efficiency.sh.
 *
 * usage: bench-sgemm [N (2048)] [THREADS (2)] [REPEAT (5)]
 * Multiplies two N×N float32 matrices with cblas_sgemm, OpenBLAS running THREADS threads, once
 * to warm up and REPEAT times timed, and prints one JSON object:
 *   {"n":2048,"threads":2,"repeat":5,"median_ms":...,"min_ms":...,"gflops":...}
 * (gflops from the median: 2·N³ / time). Not a test: it asserts nothing. */
#include <cblas.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 2048;
  int threads = argc > 2 ? atoi (argv[2]) : 2;
  int repeat = argc > 3 ? atoi (argv[3]) : 5;
  if (n < 1 || threads < 1 || repeat < 1)
    {
      fprintf (stderr, "usage: bench-sgemm [N] [THREADS] [REPEAT]\n");
      return 2;
    }
  openblas_set_num_threads (threads);
  gsize nn = (gsize) n * n;
  float *a = g_new (float, nn), *b = g_new (float, nn), *c = g_new (float, nn); /* [n][n] */
  for (gsize i = 0; i < nn; i++)
    {
      a[i] = (float) (i % 7) * 0.1f;
      b[i] = (float) (i % 5) * 0.2f;
    }
  double *ms = g_new (double, repeat);
  for (int r = -1; r < repeat; r++) /* r = -1 warms up */
    {
      gint64 start = g_get_monotonic_time ();
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                   n);
      if (r >= 0)
        ms[r] = (g_get_monotonic_time () - start) / 1000.0;
    }
  qsort (ms, repeat, sizeof (double), compare_double);
  double median = repeat % 2 ? ms[repeat / 2] : 0.5 * (ms[repeat / 2 - 1] + ms[repeat / 2]);
  printf ("{\"n\":%d,\"threads\":%d,\"repeat\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f,"
          "\"gflops\":%.1f}\n",
          n, threads, repeat, median, ms[0], 2.0 * n * n * n / (median * 1e6));
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (ms);
  return 0;
}
