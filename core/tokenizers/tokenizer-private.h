/* tokenizer-private.h — the inside of AsTokenizer, shared by the tokenizer kinds.
 *
 * Every kind keeps the whole vocabulary (id_to_token / token_to_id) here; tokenizer.c holds what
 * they share (vocabulary queries, freeing, the encode entry points) and dispatches on the kind:
 * tokenizer-bpe.c is GPT-2's byte-level BPE from vocab.json + merges.txt, tokenizer-words.c the
 * toy models' word-level vocabulary, AS_TOKENIZER_MARIAN the translation models' SentencePiece
 * pair with vocab.json (tokenizer-marian.c), and AS_TOKENIZER_HF a Hugging Face fast tokenizer
 * (hf-tokenizer-private.h) read from tokenizer.json (tokenizer-json.c) or built for a BERT
 * vocab.txt (vocab-txt.c). */
#pragma once

#include "as-tokenizer.h"
#include "bpe-merges-private.h"
#include "hf-tokenizer-private.h"
#include "pretokenize-gpt2-private.h"
#include "word-cache-private.h"

G_BEGIN_DECLS

typedef enum
{
  AS_TOKENIZER_BPE,
  AS_TOKENIZER_WORDS,
  AS_TOKENIZER_HF,
  AS_TOKENIZER_MARIAN,
} AsTokenizerKind;

typedef struct _AsMarianVocab AsMarianVocab; /* tokenizer-marian-private.h */

/* The special-token roles of tokenizer_config.json / special_tokens_map.json. */
typedef enum
{
  AS_TOKENIZER_ROLE_BOS,
  AS_TOKENIZER_ROLE_EOS,
  AS_TOKENIZER_ROLE_UNK,
  AS_TOKENIZER_ROLE_SEP,
  AS_TOKENIZER_ROLE_PAD,
  AS_TOKENIZER_ROLE_CLS,
  AS_TOKENIZER_ROLE_MASK,
  AS_TOKENIZER_N_ROLES,
} AsTokenizerRole;

/* "bos_token", "eos_token", ... in AsTokenizerRole order. */
extern const char *const as_tokenizer_role_names[AS_TOKENIZER_N_ROLES];

struct _AsTokenizer
{
  AsTokenizerKind kind;
  char *source; /* the file the vocabulary came from, for messages */

  /* The vocabulary, every kind. */
  GPtrArray *id_to_token;  /* [vocab_size] owned char *; NULL where no token has that id */
  GHashTable *token_to_id; /* token (borrowed from id_to_token) → GINT_TO_POINTER (id) */
  GPtrArray *extra_names;  /* owned keys of token_to_id that id_to_token does not hold */

  /* AS_TOKENIZER_BPE only. */
  AsGpt2Pretokenizer *pretokenizer;
  AsBpeMerges *merges;
  int32_t end_of_text_id; /* id of <|endoftext|>, or -1 when the vocabulary lacks it */
  AsWordCache *cache;

  /* AS_TOKENIZER_HF only. */
  AsHfTokenizer *hf;
  /* tokenizer_config.json (with special_tokens_map.json): -1 when a flag is absent. */
  int config_add_bos, config_add_eos, config_lowercase, config_strip_accents, config_chinese;
  char *role_tokens[AS_TOKENIZER_N_ROLES]; /* owned, NULL when not given */

  /* AS_TOKENIZER_MARIAN only (tokenizer-marian.c). */
  AsMarianVocab *marian;
};

/* A new tokenizer of KIND whose vocabulary comes from SOURCE (flags -1, no vocabulary yet). */
AsTokenizer *as_tokenizer_new_kind (AsTokenizerKind kind, const char *source);

/* Reads vocab.json (an object mapping token strings to distinct non-negative integer ids) into
 * TOKENIZER's id_to_token and token_to_id. */
gboolean as_tokenizer_load_vocab_json (AsTokenizer *tokenizer, const char *path, GError **error);

/* Reads FOLDER's tokenizer_config.json and special_tokens_map.json (when present) into
 * TOKENIZER's config fields. */
gboolean as_tokenizer_read_config (AsTokenizer *tokenizer, const char *folder, GError **error);

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
