/* rank.c — as_rank_descending: a stable sort of indices by decreasing score, NaN last. */
#include "as-rank.h"

#include <math.h>

static int
compare_descending (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const double *values = user_data;
  int ia = *(const int *) a, ib = *(const int *) b;
  double va = values[ia], vb = values[ib];
  gboolean na = isnan (va), nb = isnan (vb);
  if (na != nb)
    return na ? 1 : -1;
  if (!na && va != vb)
    return va > vb ? -1 : 1;
  return ia - ib;
}

int *
as_rank_descending (const double *values, int n)
{
  int *order = g_new (int, MAX (n, 1)); /* [N] */
  for (int i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (int), compare_descending, (gpointer) values);
  return order;
}
