/* shard-sum.c — exact sums of doubles (as-shard-sum.h): Shewchuk's partials as in Python's
 * math.fsum (Modules/mathmodule.c), with the final correctly rounded read-out. */
#include "as-shard-sum.h"

#include <math.h>

#include "as-error.h"

static void
add_special (AsShardSum *sum, double x)
{
  sum->special = sum->has_special ? sum->special + x : x;
  sum->has_special = TRUE;
}

/* Rounds the two smallest partials into one: only when AS_SHARD_SUM_MAX would be exceeded. */
static void
squeeze (AsShardSum *sum)
{
  double merged = sum->partials[0] + sum->partials[1];
  for (int i = 1; i < sum->n; i++)
    sum->partials[i - 1] = sum->partials[i];
  sum->n--;
  sum->partials[0] = merged;
}

void
as_shard_sum_add (AsShardSum *sum, double x)
{
  if (!isfinite (x))
    {
      add_special (sum, x);
      return;
    }
  int i = 0;
  for (int j = 0; j < sum->n; j++)
    {
      double y = sum->partials[j];
      if (fabs (x) < fabs (y))
        {
          double t = x;
          x = y;
          y = t;
        }
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0)
        sum->partials[i++] = lo;
      x = hi;
    }
  sum->n = i;
  if (x == 0.0)
    return;
  if (!isfinite (x))
    {
      /* the finite total overflowed: it reads as that infinity from now on */
      add_special (sum, x);
      sum->n = 0;
      return;
    }
  if (sum->n == AS_SHARD_SUM_MAX)
    squeeze (sum);
  sum->partials[sum->n++] = x;
}

void
as_shard_sum_merge (AsShardSum *sum, const AsShardSum *other)
{
  for (int i = 0; i < other->n; i++)
    as_shard_sum_add (sum, other->partials[i]);
  if (other->has_special)
    add_special (sum, other->special);
}

double
as_shard_sum_value (const AsShardSum *sum)
{
  if (sum->has_special)
    return sum->special;
  int n = sum->n;
  if (n == 0)
    return 0.0;
  double hi = sum->partials[--n];
  double lo = 0.0;
  while (n > 0)
    {
      double x = hi;
      double y = sum->partials[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0)
        break;
    }
  /* round half to even across the partials below: when the rest has the sign of lo, the exact
   * total is beyond the halfway point that hi + lo rounded to even */
  if (n > 0
      && ((lo < 0.0 && sum->partials[n - 1] < 0.0) || (lo > 0.0 && sum->partials[n - 1] > 0.0)))
    {
      double y = lo * 2.0;
      double x = hi + y;
      double yr = x - hi;
      if (y == yr)
        hi = x;
    }
  return hi;
}

void
as_shard_sum_to_json (JsonBuilder *builder, const AsShardSum *sum)
{
  json_builder_begin_array (builder);
  if (sum->has_special)
    json_builder_add_string_value (builder, isnan (sum->special) ? "nan"
                                            : sum->special > 0   ? "inf"
                                                                 : "-inf");
  for (int i = 0; i < sum->n; i++)
    json_builder_add_double_value (builder, sum->partials[i]);
  json_builder_end_array (builder);
}

static gboolean
special_from_string (double *out, const char *s)
{
  if (g_strcmp0 (s, "inf") == 0)
    *out = INFINITY;
  else if (g_strcmp0 (s, "-inf") == 0)
    *out = -INFINITY;
  else if (g_strcmp0 (s, "nan") == 0)
    *out = NAN;
  else
    return FALSE;
  return TRUE;
}

gboolean
as_shard_sum_from_json (AsShardSum *sum, JsonNode *node, const char *what, GError **error)
{
  *sum = (AsShardSum){ 0 };
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: expected an array of partial sums", what);
      return FALSE;
    }
  JsonArray *array = json_node_get_array (node);
  guint length = json_array_get_length (array);
  for (guint i = 0; i < length; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      double special;
      if (i == 0 && JSON_NODE_HOLDS_VALUE (element)
          && json_node_get_value_type (element) == G_TYPE_STRING
          && special_from_string (&special, json_node_get_string (element)))
        {
          add_special (sum, special);
          continue;
        }
      GType type = JSON_NODE_HOLDS_VALUE (element) ? json_node_get_value_type (element) : 0;
      if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: element %u of the partial sums is not a number", what, i);
          return FALSE;
        }
      as_shard_sum_add (sum, json_node_get_double (element));
    }
  return TRUE;
}
