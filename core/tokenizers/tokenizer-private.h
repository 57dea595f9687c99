/* tokenizer-private.h — the inside of AsTokenizer, shared by the tokenizer kinds.
 *
 * Both kinds keep their vocabulary (vocab.json) the same way; tokenizer.c holds what they
 * share (vocabulary queries, freeing) and dispatches encode/decode on the kind. tokenizer-bpe.c
 * is GPT-2's byte-level BPE, tokenizer-words.c the toy models' word-level vocabulary,
 * tokenizer-marian.c the translation models' SentencePiece pair with vocab.json. */
#pragma once

#include "as-tokenizer.h"
#include "bpe-merges-private.h"
#include "pretokenize-gpt2-private.h"

G_BEGIN_DECLS

typedef enum
{
  AS_TOKENIZER_BPE,
  AS_TOKENIZER_WORDS,
  AS_TOKENIZER_MARIAN,
} AsTokenizerKind;

typedef struct _AsMarianVocab AsMarianVocab; /* tokenizer-marian-private.h */

struct _AsTokenizer
{
  AsTokenizerKind kind;
  char *source; /* the file the vocabulary came from, for messages */

  /* The vocabulary, both kinds. */
  GPtrArray *id_to_token;  /* [vocab_size] owned char *; NULL where no token has that id */
  GHashTable *token_to_id; /* token (borrowed from id_to_token) → GINT_TO_POINTER (id) */

  /* AS_TOKENIZER_BPE only. */
  AsGpt2Pretokenizer *pretokenizer;
  AsBpeMerges *merges;
  int32_t end_of_text_id; /* id of <|endoftext|>, or -1 when the vocabulary lacks it */
  GMutex cache_lock;      /* guards cache: encode may run in several threads at once */
  GHashTable *cache;      /* piece bytes (char *) → int32_t[1 + n]: n, then the n ids */

  /* AS_TOKENIZER_MARIAN only (tokenizer-marian.c). */
  AsMarianVocab *marian;
};

/* Reads vocab.json (an object mapping token strings to distinct non-negative integer ids) into
 * TOKENIZER's id_to_token and token_to_id. */
gboolean as_tokenizer_load_vocab_json (AsTokenizer *tokenizer, const char *path, GError **error);

/* The id of TOKEN (LENGTH bytes, not necessarily NUL-terminated), or -1. */
int32_t as_tokenizer_lookup_len (const AsTokenizer *tokenizer, const char *token, gsize length);

/* Sets an AS_ERROR_INPUT error and returns FALSE when TEXT is not valid UTF-8. */
gboolean as_tokenizer_check_utf8 (const char *text, gsize length, GError **error);

/* The kinds' own parts, called by tokenizer.c's dispatch. */
gboolean as_tokenizer_bpe_encode (AsTokenizer *tokenizer, const char *text, gsize length,
                                  GArray *ids, GError **error);
char *as_tokenizer_bpe_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);
void as_tokenizer_bpe_clear (AsTokenizer *tokenizer);

gboolean as_tokenizer_words_encode (AsTokenizer *tokenizer, const char *text, gsize length,
                                    GArray *ids, GError **error);
char *as_tokenizer_words_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

G_END_DECLS
