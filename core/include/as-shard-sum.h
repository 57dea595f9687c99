/* as-shard-sum.h — a sum of doubles that is exact until it is read, so that adding the same
 * numbers in any order, or in several pieces (the shards of a corpus run on a cluster) that are
 * then merged, gives the same bits.
 *
 * The sum is held as Shewchuk's non-overlapping partials (the algorithm of Python's math.fsum):
 * each addition is exact (no rounding error is lost, it becomes a smaller partial), and
 * as_shard_sum_value rounds the exact total once, correctly (round half to even). The value
 * therefore depends only on the multiset of numbers added, never on their order or grouping —
 * with two documented limits: an intermediate overflow (a finite total beyond ±1.8e308) reads as
 * ±inf, and a sum that would need more than AS_SHARD_SUM_MAX partials (it takes summands spread
 * over more than about 2,500 binary orders of magnitude, i.e. never for probabilities, entropies
 * or log-likelihoods) rounds its two smallest partials together and is then exact only to
 * 2^-100 of the total. Non-finite summands (inf, NaN) are summed apart: the value is then their
 * IEEE sum (+inf, -inf or NaN), again whatever the order.
 *
 * A zero-filled AsShardSum is the empty sum (0), so it can sit in zero-initialised structs. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define AS_SHARD_SUM_MAX 40

typedef struct
{
  int n;                             /* partials in use */
  double special;                    /* IEEE sum of the non-finite summands (0 when none) */
  gboolean has_special;              /* a non-finite summand was added */
  double partials[AS_SHARD_SUM_MAX]; /* non-overlapping, increasing magnitude */
} AsShardSum;

/* Adds X exactly. */
void as_shard_sum_add (AsShardSum *sum, double x);

/* Adds everything OTHER holds (exactly, as if its summands had been added one by one). */
void as_shard_sum_merge (AsShardSum *sum, const AsShardSum *other);

/* The exact total rounded to the nearest double (see above for the non-finite cases). */
double as_shard_sum_value (const AsShardSum *sum);

/* Adds SUM to the array or member being built as its exact state: a JSON array of the partials
 * (numbers written with 17 significant digits, which read back to the same doubles), preceded by
 * the string "inf", "-inf" or "nan" when a non-finite summand was added. */
void as_shard_sum_to_json (JsonBuilder *builder, const AsShardSum *sum);

/* Reads what as_shard_sum_to_json wrote into *SUM; fails with AS_ERROR_FORMAT naming WHAT. */
gboolean as_shard_sum_from_json (AsShardSum *sum, JsonNode *node, const char *what, GError **error);

G_END_DECLS
