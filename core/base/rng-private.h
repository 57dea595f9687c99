/* rng-private.h — the seeded random numbers of the projections (t-SNE, UMAP).
 *
 * splitmix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators"): a
 * 64-bit state advanced by a constant and mixed; small, portable and the same on every machine,
 * so a seed gives the same layout everywhere. Doubles take the top 53 bits. as_rng_hash() mixes
 * any 64-bit value into an independent state, for streams that must not depend on the order in
 * which they are created (one stream per vertex in UMAP). Private to the core. */
#pragma once

#include <glib.h>
#include <math.h>

G_BEGIN_DECLS

/* The next 64 random bits of STATE. */
static inline guint64
as_rng_next (guint64 *state)
{
  guint64 z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* splitmix64's output function applied to V: a well-mixed state derived from V. */
static inline guint64
as_rng_hash (guint64 v)
{
  guint64 state = v;
  return as_rng_next (&state);
}

/* Uniform in [0, 1). */
static inline double
as_rng_uniform (guint64 *state)
{
  return (as_rng_next (state) >> 11) / 9007199254740992.0;
}

/* Two independent N(0, 1) deviates (Box-Muller on a pair of uniforms, the first in (0, 1]). */
static inline void
as_rng_normal_pair (guint64 *state, double *z0, double *z1)
{
  double u1 = ((as_rng_next (state) >> 11) + 1.0) / 9007199254740992.0;
  double u2 = (as_rng_next (state) >> 11) / 9007199254740992.0;
  double r = sqrt (-2.0 * log (u1));
  *z0 = r * cos (2 * G_PI * u2);
  *z1 = r * sin (2 * G_PI * u2);
}

/* An integer in 0..N-1 (N >= 1): the top 32 random bits scaled by N (Lemire's multiply-shift,
 * without its rejection step: the bias is below N / 2^32). */
static inline int
as_rng_below (guint64 *state, int n)
{
  return (int) (((as_rng_next (state) >> 32) * (guint64) n) >> 32);
}

G_END_DECLS
