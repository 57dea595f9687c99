/* axis-ticks.c — nice tick steps (1, 2, 2.5, 5 × 10^k). */
#include "axis-ticks.h"

#include <math.h>

static double
nice_step (double span, int target, int *decimals)
{
  static const double mantissas[] = { 1, 2, 2.5, 5, 10 };
  double raw = span / MAX (target - 1, 1);
  double magnitude = pow (10, floor (log10 (raw)));
  double step = magnitude * 10;
  for (gsize i = 0; i < G_N_ELEMENTS (mantissas); i++)
    if (mantissas[i] * magnitude >= raw * 0.999)
      {
        step = mantissas[i] * magnitude;
        break;
      }
  /* 2.5 × 10^k needs one more digit than 10^k itself. */
  int d = (int) -floor (log10 (step) + 1e-9);
  if (fabs (step / pow (10, -d) - round (step / pow (10, -d))) > 1e-6)
    d++;
  *decimals = MAX (d, 0);
  return step;
}

void
ar_ticks_compute (ArTicks *ticks, double lo, double hi, int target)
{
  g_return_if_fail (hi > lo && isfinite (lo) && isfinite (hi));
  ticks->step = nice_step (hi - lo, target, &ticks->decimals);
  double eps = ticks->step * 1e-6;
  double first = ceil ((lo - eps) / ticks->step);
  ticks->n = 0;
  for (double k = first; ticks->n < AR_TICKS_MAX; k++)
    {
      double v = k * ticks->step;
      if (v > hi + eps)
        break;
      ticks->values[ticks->n++] = fabs (v) < eps ? 0.0 : v;
    }
}

void
ar_ticks_nice_range (double *lo, double *hi, int target)
{
  if (!(*hi > *lo))
    {
      double pad = *lo != 0 ? fabs (*lo) * 0.1 : 1.0;
      *lo -= pad;
      *hi += pad;
    }
  int decimals;
  double step = nice_step (*hi - *lo, target, &decimals);
  *lo = floor (*lo / step + 1e-9) * step;
  *hi = ceil (*hi / step - 1e-9) * step;
}
