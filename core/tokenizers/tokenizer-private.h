/* tokenizer-private.h — the inside of AsTokenizer: a vocabulary every kind shares and a table of
 * functions each kind fills in, as model families fill in AsFamily.
 *
 * A kind is one file: tokenizer-hf.c is a Hugging Face fast tokenizer (the pipeline of
 * hf-tokenizer-private.h) read from tokenizer.json (tokenizer-json.c) or built for a BERT
 * vocab.txt (vocab-txt.c); tokenizer-bpe.c is GPT-2's byte-level BPE from vocab.json + merges.txt;
 * tokenizer-marian.c the translation models' SentencePiece pair with vocab.json; tokenizer-words.c
 * the toy models' word-level vocabulary. Each kind's loader (as-tokenizer.h) builds an AsTokenizer
 * with as_tokenizer_new() and its own AsTokenizerClass; tokenizer.c holds what they share
 * (vocabulary queries, the encode entry points, the prefix that decides a text's first ids, the
 * memory budget) and calls a kind only through its class — it never
 * asks which kind it has. */
#pragma once

#include "as-tokenizer.h"

G_BEGIN_DECLS

typedef struct _AsTokenizerClass AsTokenizerClass;

struct _AsTokenizer
{
  const AsTokenizerClass *klass;
  char *source; /* the file the vocabulary came from, for messages */

  /* The vocabulary, every kind. */
  GPtrArray *id_to_token;  /* [vocab_size] owned char *; NULL where no token has that id */
  GHashTable *token_to_id; /* token (borrowed from id_to_token or extra_names) → GINT_TO_POINTER */
  GPtrArray *extra_names;  /* owned keys of token_to_id that id_to_token does not hold, or NULL */

  gpointer data; /* the kind's own state, freed by klass->clear */
  guint64 held;  /* bytes counted in the memory budget (memory-private.h) while it lives */
};

/* What a tokenizer kind does. Only encode is required; a NULL entry takes the default named. */
struct _AsTokenizerClass
{
  const char *name; /* "tokenizer.json", "GPT-2 BPE", ... for messages */

  /* Appends to IDS the ids of TEXT (LENGTH bytes of valid UTF-8), without the special tokens a
   * post-processor adds around a sequence; TARGET: as a translation model's target text. */
  gboolean (*encode) (AsTokenizer *tokenizer, const char *text, gsize length, gboolean target,
                      GArray *ids, GError **error);

  /* Combines A (and B when not NULL) into the encoding's arrays, adding the special tokens when
   * ADD_SPECIAL (as_hf_postprocessor_apply). Default: A then B, type ids 0 and 1, none special. */
  void (*post_process) (const AsTokenizer *tokenizer, const GArray *a, const GArray *b,
                        gboolean add_special, AsEncoding *encoding);

  /* as_tokenizer_decode; every id is in range. Required. */
  char *(*decode) (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

  /* as_tokenizer_dup_token_text for an id that has a token: owned, or NULL for the vocabulary
   * string (the default). */
  char *(*token_text) (const AsTokenizer *tokenizer, int32_t id);

  /* as_tokenizer_is_special for an id in range. Default: no special tokens. */
  gboolean (*is_special) (const AsTokenizer *tokenizer, int32_t id);

  /* The bytes DATA holds beside the vocabulary (an estimate, for the memory budget). */
  guint64 (*data_bytes) (const AsTokenizer *tokenizer);

  /* Frees DATA. */
  void (*clear) (gpointer data);
};

/* A new tokenizer of KLASS whose vocabulary comes from SOURCE (no vocabulary yet, DATA NULL). */
AsTokenizer *as_tokenizer_new (const AsTokenizerClass *klass, const char *source);

/* An empty vocabulary (id_to_token, token_to_id) for TOKENIZER. */
void as_tokenizer_init_vocabulary (AsTokenizer *tokenizer);

/* The end of every loader: counts what TOKENIZER holds (the vocabulary and klass->data_bytes) in
 * the memory budget, or fails naming its source when that does not fit. Returns TOKENIZER, or
 * NULL after freeing it. */
AsTokenizer *as_tokenizer_finish (AsTokenizer *tokenizer, GError **error);

/* The id of TOKEN (LENGTH bytes, not necessarily NUL-terminated), or -1. */
int32_t as_tokenizer_lookup_len (const AsTokenizer *tokenizer, const char *token, gsize length);

G_END_DECLS
