/* unique-rows.c — distinct rows by hashing their bytes (as-unique-rows.h). */
#include "as-unique-rows.h"

#include <string.h>

typedef struct
{
  const float *row; /* [d] */
  int d;
  int index; /* the distinct row's index */
} RowKey;

static guint
row_hash (gconstpointer key)
{
  const RowKey *k = key;
  const guint8 *bytes = (const guint8 *) k->row;
  guint h = 2166136261u; /* FNV-1a */
  for (gsize b = 0; b < sizeof (float) * k->d; b++)
    h = (h ^ bytes[b]) * 16777619u;
  return h;
}

static gboolean
row_equal (gconstpointer a, gconstpointer b)
{
  const RowKey *x = a, *y = b;
  return memcmp (x->row, y->row, sizeof (float) * x->d) == 0;
}

float *
as_unique_rows (const float *x, int n, int d, int *inverse, int *n_unique)
{
  g_autofree RowKey *keys = g_new (RowKey, MAX (n, 1));
  g_autoptr (GHashTable) seen = g_hash_table_new (row_hash, row_equal);
  float *out = g_new (float, (gsize) MAX (n, 1) * MAX (d, 1)); /* [n_unique][d], trimmed below */
  int count = 0;
  for (int i = 0; i < n; i++)
    {
      keys[i] = (RowKey){ x + (gsize) i * d, d, count };
      RowKey *found = g_hash_table_lookup (seen, &keys[i]);
      if (found != NULL)
        {
          inverse[i] = found->index;
          continue;
        }
      g_hash_table_add (seen, &keys[i]);
      memcpy (out + (gsize) count * d, keys[i].row, sizeof (float) * d);
      inverse[i] = count++;
    }
  *n_unique = count;
  return g_renew (float, out, (gsize) MAX (count, 1) * MAX (d, 1));
}
