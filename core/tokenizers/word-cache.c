/* word-cache.c — ids of recently tokenized pieces (word-cache-private.h). */
#include "word-cache-private.h"

#include <string.h>

struct _AsWordCache
{
  GMutex lock;
  GHashTable *table; /* piece bytes (char *) → int32_t[1 + n]: n, then the n ids */
};

AsWordCache *
as_word_cache_new (void)
{
  AsWordCache *cache = g_new0 (AsWordCache, 1);
  g_mutex_init (&cache->lock);
  cache->table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return cache;
}

void
as_word_cache_free (AsWordCache *cache)
{
  if (cache == NULL)
    return;
  g_hash_table_unref (cache->table);
  g_mutex_clear (&cache->lock);
  g_free (cache);
}

/* Copies PIECE into KEY (AS_WORD_CACHE_PIECE_MAX + 1 bytes); FALSE when it cannot be a key. */
static gboolean
make_key (char *key, const char *piece, gsize length)
{
  if (length > AS_WORD_CACHE_PIECE_MAX || memchr (piece, '\0', length) != NULL)
    return FALSE;
  memcpy (key, piece, length);
  key[length] = '\0';
  return TRUE;
}

gboolean
as_word_cache_lookup (AsWordCache *cache, const char *piece, gsize length, GArray *ids)
{
  char key[AS_WORD_CACHE_PIECE_MAX + 1];
  if (!make_key (key, piece, length))
    return FALSE;
  g_mutex_lock (&cache->lock);
  const int32_t *hit = g_hash_table_lookup (cache->table, key); /* [1 + n]: n, ids */
  if (hit != NULL)
    g_array_append_vals (ids, hit + 1, (guint) hit[0]);
  g_mutex_unlock (&cache->lock);
  return hit != NULL;
}

void
as_word_cache_insert (AsWordCache *cache, const char *piece, gsize length, const int32_t *ids,
                      guint n)
{
  char key[AS_WORD_CACHE_PIECE_MAX + 1];
  if (!make_key (key, piece, length))
    return;
  int32_t *entry = g_new (int32_t, 1 + n); /* [1 + n] */
  entry[0] = (int32_t) n;
  if (n > 0)
    memcpy (entry + 1, ids, n * sizeof (int32_t));
  g_mutex_lock (&cache->lock);
  if (g_hash_table_size (cache->table) >= AS_WORD_CACHE_MAX)
    g_hash_table_remove_all (cache->table);
  g_hash_table_replace (cache->table, g_strdup (key), entry);
  g_mutex_unlock (&cache->lock);
}
