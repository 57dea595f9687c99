/* bench-median.h — the median of a benchmark's timings (bench-attribution, bench-head). */
#pragma once

#include <stdlib.h>

static int
bench_by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Sorts the N ≥ 1 values of V (V[0] is then the minimum) and returns their median. */
static inline double
bench_sort_median (double *v, int n)
{
  qsort (v, n, sizeof (double), bench_by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
