/* umap-curve.c — the a, b of UMAP's low-dimensional similarity 1 / (1 + a·x^(2b)).
 *
 * umap-learn's find_ab_params fits that curve with scipy's curve_fit (Levenberg-Marquardt,
 * starting at a = b = 1) to the offset exponential ψ(x) = 1 for x < min_dist,
 * exp(−(x − min_dist)/spread) above, sampled at 300 evenly spaced x in [0, 3·spread]. This is the
 * same least-squares problem solved by Levenberg-Marquardt with the analytic Jacobian
 *   ∂f/∂a = −x^(2b) / (1 + a·x^(2b))²,   ∂f/∂b = −2·a·ln(x)·x^(2b) / (1 + a·x^(2b))²,
 * in double precision, until the step changes neither parameter by more than 1e-12 relative. The
 * minimum is unique for every valid (spread, min_dist), so both reach the same a and b. */
#include <math.h>

#include "as-error.h"
#include "umap-private.h"

#define N_SAMPLES 300
#define MAX_STEPS 500

/* Residual sum of squares at (A, B); with JTJ [3] (the packed symmetric JᵀJ) and JTR [2] (Jᵀr)
 * when they are not NULL. */
static double
sum_squares (double a, double b, const double *x, const double *y, double *jtj, double *jtr)
{
  double s = 0.0;
  if (jtj != NULL)
    jtj[0] = jtj[1] = jtj[2] = jtr[0] = jtr[1] = 0.0;
  for (int i = 0; i < N_SAMPLES; i++)
    {
      double p = x[i] > 0 ? pow (x[i], 2 * b) : 0.0; /* x^(2b) */
      double den = 1.0 + a * p;
      double r = 1.0 / den - y[i];
      s += r * r;
      if (jtj == NULL)
        continue;
      double ja = -p / (den * den);
      double jb = x[i] > 0 ? -2.0 * a * log (x[i]) * p / (den * den) : 0.0;
      jtj[0] += ja * ja;
      jtj[1] += ja * jb;
      jtj[2] += jb * jb;
      jtr[0] += ja * r;
      jtr[1] += jb * r;
    }
  return s;
}

gboolean
as_umap_find_ab (double spread, double min_dist, double *a_out, double *b_out, GError **error)
{
  if (!(spread > 0) || !isfinite (spread))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "UMAP: spread must be a positive number (got %g)", spread);
      return FALSE;
    }
  if (!(min_dist >= 0 && min_dist <= spread))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "UMAP: min_dist must be in [0, spread] = [0, %g] (got %g)", spread, min_dist);
      return FALSE;
    }
  double x[N_SAMPLES], y[N_SAMPLES];
  for (int i = 0; i < N_SAMPLES; i++)
    {
      x[i] = 3.0 * spread * i / (N_SAMPLES - 1); /* numpy.linspace(0, 3·spread, 300) */
      y[i] = x[i] < min_dist ? 1.0 : exp (-(x[i] - min_dist) / spread);
    }

  double a = 1.0, b = 1.0, lambda = 1e-3, jtj[3], jtr[2];
  double s = sum_squares (a, b, x, y, jtj, jtr);
  for (int step = 0; step < MAX_STEPS; step++)
    {
      /* (JᵀJ + λ·diag(JᵀJ))·δ = −Jᵀr */
      double m00 = jtj[0] * (1 + lambda), m11 = jtj[2] * (1 + lambda), m01 = jtj[1];
      double det = m00 * m11 - m01 * m01;
      if (!(det > 0) || !isfinite (det))
        {
          lambda *= 10;
          continue;
        }
      double da = -(m11 * jtr[0] - m01 * jtr[1]) / det;
      double db = -(m00 * jtr[1] - m01 * jtr[0]) / det;
      double na = a + da, nb = b + db;
      double ns = na > 0 && nb > 0 ? sum_squares (na, nb, x, y, NULL, NULL) : INFINITY;
      if (ns <= s)
        {
          gboolean done = fabs (da) <= 1e-12 * fabs (na) && fabs (db) <= 1e-12 * fabs (nb);
          a = na;
          b = nb;
          s = sum_squares (a, b, x, y, jtj, jtr);
          lambda = fmax (lambda / 10, 1e-12);
          if (done)
            {
              *a_out = a;
              *b_out = b;
              return TRUE;
            }
        }
      else
        lambda *= 10;
      if (lambda > 1e12)
        break;
    }
  /* no progress possible: accept a stationary point */
  if (isfinite (s) && a > 0 && b > 0 && hypot (jtr[0], jtr[1]) <= 1e-10)
    {
      *a_out = a;
      *b_out = b;
      return TRUE;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
               "UMAP: fitting the curve for spread %g and min_dist %g did not converge", spread,
               min_dist);
  return FALSE;
}
