/* axis-ticks.h — "nice" tick values for colour bars and chart axes.
 *
 * Ticks are multiples of a step of 1, 2, 2.5 or 5 × 10^k chosen so that about TARGET of them
 * fall inside [lo, hi] (both ends included when they are multiples). The decimals needed to print
 * the step exactly come with them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define AR_TICKS_MAX 32

typedef struct
{
  int n;                       /* ticks inside [lo, hi] */
  double values[AR_TICKS_MAX]; /* increasing */
  double step;
  int decimals; /* digits after the point that print every tick exactly */
} ArTicks;

/* Fills TICKS for [LO, HI] (LO < HI, both finite) with about TARGET (>= 2) ticks. */
void ar_ticks_compute (ArTicks *ticks, double lo, double hi, int target);

/* Widens [*LO, *HI] outwards to the nearest multiples of a nice step for about TARGET ticks
 * (charts whose range comes from the data); a degenerate range is widened around its value. */
void ar_ticks_nice_range (double *lo, double *hi, int target);

G_END_DECLS
