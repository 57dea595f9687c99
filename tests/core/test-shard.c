/* test-shard.c — the exact sums that make sharded corpus runs merge bit for bit
 * (as-shard-sum.h), and the K/N shard option (as-shard.h): sums independent of order and
 * grouping and correctly rounded (checked against exact 128-bit integer sums), cancellation,
 * non-finite summands, the JSON round trip; K/N parsing and the round-robin selection. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-shard-sum.h"
#include "as-shard.h"

static double
sum_of (const double *x, int n)
{
  AsShardSum s = { 0 };
  for (int i = 0; i < n; i++)
    as_shard_sum_add (&s, x[i]);
  return as_shard_sum_value (&s);
}

static void
test_small_cases (void)
{
  const double cancel[] = { 1e100, 1.0, -1e100 };
  g_assert_cmpfloat (sum_of (cancel, 3), ==, 1.0);
  double tenth[10];
  for (int i = 0; i < 10; i++)
    tenth[i] = 0.1;
  /* the exact sum of ten 0.1 rounds to 1.0 (plain summation gives 0.9999999999999999) */
  g_assert_cmpfloat (sum_of (tenth, 10), ==, 1.0);
  const double tie[] = { 1.0, 0x1p-53, 0x1p-106 };
  /* just above the halfway point between 1 and 1 + 2^-52: rounds up */
  g_assert_cmpfloat (sum_of (tie, 3), ==, 1.0 + 0x1p-52);
  const double half[] = { 1.0, 0x1p-53 };
  g_assert_cmpfloat (sum_of (half, 2), ==, 1.0); /* the tie goes to even */
  AsShardSum empty = { 0 };
  g_assert_cmpfloat (as_shard_sum_value (&empty), ==, 0.0);

  const double inf[] = { 1.0, INFINITY, 2.0 };
  g_assert_cmpfloat (sum_of (inf, 3), ==, INFINITY);
  const double both[] = { INFINITY, 1.0, -INFINITY };
  g_assert_true (isnan (sum_of (both, 3)));
  const double nan[] = { 1.0, NAN };
  g_assert_true (isnan (sum_of (nan, 2)));
}

/* N random doubles k·2^-60 with |k| < 2^52 (so their exact sum fits a 128-bit integer). */
static void
random_values (double *x, __int128 *exact, int n, GRand *rand)
{
  *exact = 0;
  for (int i = 0; i < n; i++)
    {
      gint64 k = (gint64) g_rand_int (rand) << 20 | (g_rand_int (rand) & 0xfffff);
      k >>= g_rand_int_range (rand, 0, 50); /* magnitudes from 2^2 down to 2^52 times smaller */
      if (g_rand_boolean (rand))
        k = -k;
      x[i] = ldexp ((double) k, -60);
      *exact += k;
    }
}

static void
test_order_and_grouping (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (27);
  enum
  {
    N = 5000
  };
  static double x[N], shuffled[N];
  for (int round = 0; round < 20; round++)
    {
      __int128 exact;
      random_values (x, &exact, N, rand);
      /* (double) of a 128-bit integer rounds to nearest, ties to even */
      double want = ldexp ((double) exact, -60);
      double forward = sum_of (x, N);
      g_assert_cmpfloat (forward, ==, want);
      memcpy (shuffled, x, sizeof x);
      for (int i = N - 1; i > 0; i--)
        {
          int j = g_rand_int_range (rand, 0, i + 1);
          double t = shuffled[i];
          shuffled[i] = shuffled[j];
          shuffled[j] = t;
        }
      g_assert_cmpfloat (sum_of (shuffled, N), ==, want);
      /* 7 round-robin shards, each through JSON, merged in reverse order */
      AsShardSum parts[7] = { 0 };
      for (int i = 0; i < N; i++)
        as_shard_sum_add (&parts[i % 7], x[i]);
      AsShardSum merged = { 0 };
      for (int k = 6; k >= 0; k--)
        {
          g_autoptr (JsonBuilder) b = json_builder_new ();
          as_shard_sum_to_json (b, &parts[k]);
          g_autoptr (JsonNode) node = json_builder_get_root (b);
          g_autofree char *text = json_to_string (node, FALSE);
          g_autoptr (JsonNode) back = json_from_string (text, NULL);
          AsShardSum read;
          g_assert_true (as_shard_sum_from_json (&read, back, "test", NULL));
          g_assert_cmpfloat (as_shard_sum_value (&read), ==, as_shard_sum_value (&parts[k]));
          as_shard_sum_merge (&merged, &read);
        }
      g_assert_cmpfloat (as_shard_sum_value (&merged), ==, want);
    }
}

static void
test_json_specials_and_errors (void)
{
  AsShardSum s = { 0 };
  as_shard_sum_add (&s, 0.5);
  as_shard_sum_add (&s, -INFINITY);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  as_shard_sum_to_json (b, &s);
  g_autoptr (JsonNode) node = json_builder_get_root (b);
  g_autofree char *text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==, "[\"-inf\",0.5]");
  AsShardSum read;
  g_assert_true (as_shard_sum_from_json (&read, node, "x", NULL));
  g_assert_cmpfloat (as_shard_sum_value (&read), ==, -INFINITY);

  g_autoptr (JsonNode) bad = json_from_string ("[1.0, \"two\"]", NULL);
  GError *error = NULL;
  g_assert_false (as_shard_sum_from_json (&read, bad, "part.json: sum 3", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "part.json: sum 3"));
  g_clear_error (&error);
  g_autoptr (JsonNode) obj = json_from_string ("{}", NULL);
  g_assert_false (as_shard_sum_from_json (&read, obj, "x", &error));
  g_clear_error (&error);
}

static void
test_spec (void)
{
  AsShardSpec spec;
  g_assert_true (as_shard_spec_parse (&spec, "3/16", "--shard", NULL));
  g_assert_cmpint (spec.index, ==, 3);
  g_assert_cmpint (spec.count, ==, 16);
  g_assert_true (as_shard_spec_takes (&spec, 3));
  g_assert_true (as_shard_spec_takes (&spec, 19));
  g_assert_false (as_shard_spec_takes (&spec, 4));
  g_assert_true (as_shard_spec_parse (&spec, "0/1", "--shard", NULL));
  for (gint64 i = 0; i < 10; i++)
    g_assert_true (as_shard_spec_takes (&spec, i));
  const char *bad[] = { "4/4", "0/0", "1/0",   "-1/2", "1/-2", "",     "/",     "1/",
                        "/2",  "a/2", "1/2/3", " 1/2", "1/2 ", "+1/2", "0x1/2", "12345678901/2" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      g_assert_false (as_shard_spec_parse (&spec, bad[i], "--shard", &error));
      g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
      g_assert_nonnull (strstr (error->message, "--shard"));
      g_error_free (error);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shard/sum/small-cases", test_small_cases);
  g_test_add_func ("/shard/sum/order-and-grouping", test_order_and_grouping);
  g_test_add_func ("/shard/sum/json", test_json_specials_and_errors);
  g_test_add_func ("/shard/spec", test_spec);
  return g_test_run ();
}
