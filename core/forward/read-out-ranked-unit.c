/* read-out-ranked-unit.c — one unit of the vocabulary's summary of each row, on the AMX tiles'
 * sums while they are in the core's cache (read-out-ranked-private.h). Compiled for AVX-512 with
 * the AMX kernel, 512-bit vectors preferred (core/meson.build): this runs on ~900 rows × 400
 * units per logit lens of GPT-2, ~128 logits each. */
/* GCC 12's AVX-512 headers start some intrinsics from undefined vectors, which its own
 * -Wmaybe-uninitialized then reports at every inlined use (as in matmul-amx.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "read-out-ranked-private.h"

#include <immintrin.h>
#include <math.h>

#include "kernels-private.h"
#include "stack-private.h"

static inline __mmask16
first_lanes (int count)
{
  return count >= 16 ? (__mmask16) 0xFFFF : (__mmask16) ((1u << count) - 1);
}

/* The largest of ROW [N]. */
static inline float
row_max (const float *row, int n)
{
  __m512 m = _mm512_set1_ps (-INFINITY);
  int i = 0;
  for (; i + 16 <= n; i += 16)
    m = _mm512_max_ps (m, _mm512_loadu_ps (row + i));
  if (i < n)
    m = _mm512_mask_max_ps (m, first_lanes (n - i), m,
                            _mm512_maskz_loadu_ps (first_lanes (n - i), row + i));
  return _mm512_reduce_max_ps (m);
}

/* How many of ROW [N] (ids from V_BEGIN) rank before the target (logit TARGET, id TARGET_ID):
 * a larger logit, or the same with a smaller id. */
static inline int
count_before (const float *row, int n, int v_begin, float target, int32_t target_id)
{
  __m512 t = _mm512_set1_ps (target);
  int count = 0;
  for (int i = 0; i < n; i += 16)
    {
      __mmask16 lanes = first_lanes (n - i);
      __m512 v = _mm512_maskz_loadu_ps (lanes, row + i);
      count += __builtin_popcount (_mm512_mask_cmp_ps_mask (lanes, v, t, _CMP_GT_OQ));
      __mmask16 ties = _mm512_mask_cmp_ps_mask (lanes, v, t, _CMP_EQ_OQ);
      for (; ties != 0; ties &= ties - 1)
        count += v_begin + i + __builtin_ctz (ties) < target_id;
    }
  return count;
}

/* The tokens of ROW [N] (ids from V_BEGIN) not below FLOOR into the best K, BEST and
 * BEST_LOGITS [*N_BEST]: sixteen compared at once, the few that pass considered one by one. */
static inline void
keep_best (const float *row, int n, int v_begin, float floor, int k, int32_t *best,
           float *best_logits, int *n_best)
{
  for (int i = 0; i < n; i += 16)
    {
      __mmask16 lanes = first_lanes (n - i);
      __m512 f = _mm512_set1_ps (floor);
      __mmask16 pass
          = _mm512_mask_cmp_ps_mask (lanes, _mm512_maskz_loadu_ps (lanes, row + i), f, _CMP_GE_OQ);
      for (; pass != 0; pass &= pass - 1)
        {
          int j = i + __builtin_ctz (pass);
          if (as_rank_consider (best, best_logits, n_best, k, row[j], v_begin + j) && *n_best == k)
            floor = MAX (floor, best_logits[k - 1]);
        }
    }
}

/* A row's FLOOR is the K-th best of some unit's: no token below it can be in the row's top K, so
 * a unit's tokens below it are not kept (most units keep none). Floors are shared by the threads
 * without order: any value one reads is a K-th best of some unit, so the top K that the join
 * finds is the same whatever it was. */
void
as_rank_unit (gpointer data, int unit, int v_begin, int rows, int p0, int positions, float *sums,
              int ld)
{
  AsRankJob *job = data;
  int k = job->k;
  for (int c = 0; c < positions; c++)
    {
      float *row = sums + (gsize) c * ld;
      int r = p0 + c;
      gsize at = (gsize) r * job->units + unit;
      AsUnitSummary *s = &job->summaries[at];
      as_head_finish_row (job->head, row, v_begin, rows);
      s->max = row_max (row, rows);
      s->sum = as_sum_exp_shifted_inline (row, rows, s->max);
      int32_t *ids = job->ids + at * k;
      float *logits = job->logits + at * k;
      float floor;
      __atomic_load (&job->floors[r], &floor, __ATOMIC_RELAXED);
      s->n = 0;
      if (s->max >= floor)
        keep_best (row, rows, v_begin, floor, k, ids, logits, &s->n);
      if (s->n == k && logits[k - 1] > floor)
        __atomic_store (&job->floors[r], &logits[k - 1], __ATOMIC_RELAXED);
      s->before = job->target_id >= 0
                      ? count_before (row, rows, v_begin, job->target_logits[r], job->target_id)
                      : 0;
    }
}
