/* read-out-ranked-unit.c — one unit of the vocabulary's summary of each row, on the AMX tiles'
 * sums while they are in the core's cache (read-out-ranked-private.h). Compiled for AVX-512 with
 * the AMX kernel, 512-bit vectors preferred (core/meson.build): this runs on ~900 rows × ~200
 * units per logit lens of GPT-2, ~256 logits each. */
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
#include "predict-private.h"

static inline __mmask16
first_lanes (int count)
{
  return count >= 16 ? (__mmask16) 0xFFFF : (__mmask16) ((1u << count) - 1);
}

/* Puts (L, ID) into the sorted list BEST, BEST_LOGITS [*N] of at most K when it ranks there;
 * FALSE when it does not (nor does anything ranked after it). */
static inline gboolean
consider (int32_t *best, float *best_logits, int *n, int k, float l, int32_t id)
{
  if (*n == k && !as_predict_ranks_before (l, id, best_logits[k - 1], best[k - 1]))
    return FALSE;
  int pos = *n < k ? (*n)++ : k - 1;
  while (pos > 0 && as_predict_ranks_before (l, id, best_logits[pos - 1], best[pos - 1]))
    {
      best[pos] = best[pos - 1];
      best_logits[pos] = best_logits[pos - 1];
      pos--;
    }
  best[pos] = id;
  best_logits[pos] = l;
  return TRUE;
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
          if (consider (best, best_logits, n_best, k, row[j], v_begin + j) && *n_best == k)
            floor = MAX (floor, best_logits[k - 1]);
        }
    }
}

/* The row's best so far with the unit's IDS, LOGITS [N] merged in (sorted, all of them not below
 * the floor the unit was read against). */
static void
merge_best (AsRankBest *best, int k, const int32_t *ids, const float *logits, int n)
{
  while (__atomic_exchange_n (&best->lock, 1, __ATOMIC_ACQUIRE))
    _mm_pause ();
  for (int i = 0; i < n; i++)
    if (!consider (best->ids, best->logits, &best->n, k, logits[i], ids[i]))
      break; /* the unit's next are worse still */
  float floor = best->n == k ? best->logits[k - 1] : -INFINITY;
  __atomic_store (&best->floor, &floor, __ATOMIC_RELAXED);
  __atomic_store_n (&best->lock, 0, __ATOMIC_RELEASE);
}

/* A row's floor is the K-th best of the tokens its units merged so far: no token below it can be
 * in the row's top K, so a unit's tokens below it are not kept, and most units keep none. The
 * threads merge in any order; the best K of all the tokens merged are the same whatever it was,
 * and every token of the row's top K is merged (it is never below a floor). */
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
      AsUnitSummary *s = &job->summaries[(gsize) r * job->units + unit];
      as_head_finish_row (job->head, row, v_begin, rows);
      s->max = row_max (row, rows);
      s->sum = as_sum_exp_shifted_inline (row, rows, s->max);
      AsRankBest *best = &job->best[r];
      float floor;
      __atomic_load (&best->floor, &floor, __ATOMIC_RELAXED);
      if (s->max >= floor)
        {
          int32_t ids[AS_FORWARD_RANK_MAX_K];
          float logits[AS_FORWARD_RANK_MAX_K];
          int n = 0;
          keep_best (row, rows, v_begin, floor, k, ids, logits, &n);
          if (n > 0)
            merge_best (best, k, ids, logits, n);
        }
      s->before = job->target_id >= 0
                      ? count_before (row, rows, v_begin, job->target_logits[r], job->target_id)
                      : 0;
    }
}
