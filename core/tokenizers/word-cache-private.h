/* word-cache-private.h — the ids of recently tokenized pieces, shared between threads.
 *
 * BPE and Unigram spend most of their time on words they have seen before; like Hugging Face
 * (src/utils/cache.rs) we remember the ids of pieces up to AS_WORD_CACHE_PIECE_MAX bytes. The
 * cache is the only state of a tokenizer that changes after loading, so it has its own mutex;
 * it is emptied when it reaches AS_WORD_CACHE_MAX entries. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define AS_WORD_CACHE_PIECE_MAX 64
#define AS_WORD_CACHE_MAX 100000

typedef struct _AsWordCache AsWordCache;

AsWordCache *as_word_cache_new (void);
void as_word_cache_free (AsWordCache *cache);

/* Appends the cached ids of PIECE (LENGTH bytes) to IDS and returns TRUE, or returns FALSE. */
gboolean as_word_cache_lookup (AsWordCache *cache, const char *piece, gsize length, GArray *ids);

/* Remembers that PIECE gives the N ids at IDS (ignored for long pieces or pieces holding NUL). */
void as_word_cache_insert (AsWordCache *cache, const char *piece, gsize length, const int32_t *ids,
                           guint n);

G_END_DECLS
