/* hf-vocab-private.h — what tokenizer.json's models share: the model struct, the table of
 * functions a model type fills in, and the vocabulary (hf-vocab.c).
 *
 * A model type is one file: BPE (hf-bpe.c), WordPiece and WordLevel (hf-wordpiece.c), Unigram
 * (hf-unigram.c); each defines a constant AsHfModelClass, and hf-model.c lists them. A model owns
 * its vocabulary (id_to_token / token_to_id, the model's own, without the added tokens) and is
 * immutable after reading except for its word cache, which is thread-safe. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "bpe-merges-private.h"
#include "byte-trie-private.h"
#include "hf-json-private.h"
#include "word-cache-private.h"

G_BEGIN_DECLS

typedef struct _AsHfModelClass AsHfModelClass;

typedef struct
{
  const AsHfModelClass *klass;
  GPtrArray *id_to_token;  /* [size] owned char *; NULL where no token has that id */
  GHashTable *token_to_id; /* token (borrowed from id_to_token) → GINT_TO_POINTER (id) */
  AsWordCache *cache;
  int32_t unk_id;        /* BPE, WordPiece, WordLevel, Unigram: -1 when there is none */
  int32_t byte_ids[256]; /* byte fallback: the id of "<0xXX>", or -1 */

  /* BPE */
  AsBpeMerges *merges;
  char *continuing_subword_prefix; /* BPE, WordPiece */
  char *end_of_word_suffix;        /* BPE */
  gboolean fuse_unk, byte_fallback, ignore_merges;

  /* WordPiece */
  gint64 max_input_chars_per_word;
  AsByteTrie *trie;     /* the tokens, each under its id */
  guint32 continuation; /* the trie's node of continuing_subword_prefix, or AS_BYTE_TRIE_NONE */

  /* Unigram */
  double *scores; /* [size] */
  double min_score;
  gsize max_piece_bytes; /* the longest piece, in bytes */
} AsHfModel;

struct _AsHfModelClass
{
  const char *type; /* tokenizer.json's model.type: "BPE", ... */
  /* Files older than the "type" key: the member that marks this type (HF tries the types in the
   * order of hf-model.c's table), or NULL for the type taken when no other matches. */
  const char *marker;
  /* Reads the model's members at JSON into MODEL (a new model of this class). */
  gboolean (*read) (AsHfModel *model, const AsHfJson *json, GError **error);
  /* Appends the ids of PIECE (LENGTH > 0 bytes) to IDS. */
  gboolean (*tokenize) (AsHfModel *model, const char *piece, gsize length, GArray *ids,
                        GError **error);
  /* HF's Model::get_vocab_size: the first id an added token that is not in the vocabulary
   * gets. Default: the number of distinct tokens. */
  int32_t (*vocab_size) (const AsHfModel *model);
};

/* A new empty model of KLASS (no unknown token, no byte tokens). */
AsHfModel *as_hf_model_new (const AsHfModelClass *klass);
void as_hf_model_free (AsHfModel *model);

/* Enters TOKEN with ID into MODEL's vocabulary; fails naming both tokens when the id is taken. */
gboolean as_hf_model_add_token (AsHfModel *model, const char *token, gint64 id,
                                const AsHfJson *json, GError **error);
/* The bytes MODEL holds (an estimate, for the memory budget). */
guint64 as_hf_model_bytes (const AsHfModel *model);

/* The id of TOKEN (LENGTH bytes), or -1. */
int32_t as_hf_model_lookup (const AsHfModel *model, const char *token, gsize length);
/* Fills MODEL->byte_ids with the ids of "<0x00>" … "<0xFF>" (byte fallback). */
void as_hf_model_find_byte_tokens (AsHfModel *model);
/* Reads the "vocab" object (token → id) of JSON into MODEL. */
gboolean as_hf_model_read_vocab (AsHfModel *model, const AsHfJson *json, GError **error);
/* Sets MODEL->unk_id from the string member "unk_token" (FALLBACK when absent); a named token
 * missing from the vocabulary is an error. */
gboolean as_hf_model_read_unk (AsHfModel *model, const AsHfJson *json, const char *fallback,
                               GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfModel, as_hf_model_free)

G_END_DECLS
