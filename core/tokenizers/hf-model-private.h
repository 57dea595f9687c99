/* hf-model-private.h — tokenizer.json's "model": a piece of normalized, pre-tokenized text →
 * token ids.
 *
 * BPE (hf-bpe.c), WordPiece and WordLevel (hf-wordpiece.c), Unigram (hf-unigram.c); the
 * semantics of each, with its source file in huggingface/tokenizers, are in core/README.md
 * ("Tokenizers"). A model owns its vocabulary (id_to_token / token_to_id, the model's own, without
 * the added tokens) and is immutable after reading except for its word cache, which is
 * thread-safe. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "bpe-merges-private.h"
#include "hf-json-private.h"
#include "word-cache-private.h"

G_BEGIN_DECLS

typedef enum
{
  AS_HF_MODEL_BPE,
  AS_HF_MODEL_WORDPIECE,
  AS_HF_MODEL_WORDLEVEL,
  AS_HF_MODEL_UNIGRAM,
} AsHfModelKind;

typedef struct
{
  AsHfModelKind kind;
  GPtrArray *id_to_token;  /* [size] owned char *; NULL where no token has that id */
  GHashTable *token_to_id; /* token (borrowed from id_to_token) → GINT_TO_POINTER (id) */
  AsWordCache *cache;

  /* BPE */
  AsBpeMerges *merges;
  int32_t unk_id;                  /* BPE, WordPiece, WordLevel, Unigram: -1 when there is none */
  char *continuing_subword_prefix; /* BPE, WordPiece */
  char *end_of_word_suffix;        /* BPE */
  gboolean fuse_unk, byte_fallback, ignore_merges;
  int32_t byte_ids[256]; /* byte fallback: the id of "<0xXX>", or -1 */

  /* WordPiece */
  gint64 max_input_chars_per_word;

  /* Unigram */
  double *scores; /* [size] */
  double min_score;
  gsize max_piece_bytes; /* the longest piece, in bytes */
} AsHfModel;

/* Reads the model at JSON. */
AsHfModel *as_hf_model_read (const AsHfJson *json, GError **error);

/* A WordPiece model over VOCAB (tokens in id order; vocab.txt), for BERT folders. */
AsHfModel *as_hf_model_new_wordpiece (GPtrArray *vocab, const char *unk_token, const char *source,
                                      GError **error);

void as_hf_model_free (AsHfModel *model);

/* Appends the ids of PIECE (LENGTH > 0 bytes) to IDS. Fails only where HF fails (Unigram without
 * an unknown token meeting an unknown character). */
gboolean as_hf_model_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids,
                               GError **error);

/* ---- the parts, for hf-model.c ---- */

/* Enters TOKEN with ID into MODEL's vocabulary; fails naming both tokens when the id is taken. */
gboolean as_hf_model_add_token (AsHfModel *model, const char *token, gint64 id,
                                const AsHfJson *json, GError **error);
int32_t as_hf_model_lookup (const AsHfModel *model, const char *token, gsize length);
/* Fills MODEL->byte_ids with the ids of "<0x00>" … "<0xFF>" (byte fallback). */
void as_hf_model_find_byte_tokens (AsHfModel *model);
/* Reads the "vocab" object (token → id) of JSON into MODEL. */
gboolean as_hf_model_read_vocab (AsHfModel *model, const AsHfJson *json, GError **error);
/* Sets MODEL->unk_id from the string member "unk_token" (FALLBACK when absent); a named token
 * missing from the vocabulary is an error. */
gboolean as_hf_model_read_unk (AsHfModel *model, const AsHfJson *json, const char *fallback,
                               GError **error);

gboolean as_hf_bpe_read (AsHfModel *model, const AsHfJson *json, GError **error);
void as_hf_bpe_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids);

gboolean as_hf_wordpiece_read (AsHfModel *model, const AsHfJson *json, GError **error);
void as_hf_wordpiece_tokenize (const AsHfModel *model, const char *piece, gsize length,
                               GArray *ids);
gboolean as_hf_wordlevel_read (AsHfModel *model, const AsHfJson *json, GError **error);

gboolean as_hf_unigram_read (AsHfModel *model, const AsHfJson *json, GError **error);
gboolean as_hf_unigram_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids,
                                 GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfModel, as_hf_model_free)

G_END_DECLS
