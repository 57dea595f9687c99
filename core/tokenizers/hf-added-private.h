/* hf-added-private.h — tokenizer.json's "added_tokens": tokens found in the text before the
 * normalizer and the pre-tokenizer see it (src/tokenizer/added_vocabulary.rs).
 *
 * Tokens with "normalized": false are searched in the raw text; the pieces between them are
 * normalized, and tokens with "normalized": true are searched in those, in their own normalized
 * form. Each search takes the leftmost match, the longest at that position, then goes on after
 * it; a single_word token needs no word character (Rust regex \w) right before and after it;
 * lstrip/rstrip take the White_Space next to it into the token. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hf-json-private.h"
#include "hf-model-private.h"
#include "hf-normalizer-private.h"

G_BEGIN_DECLS

typedef struct _AsHfAdded AsHfAdded;

typedef struct
{
  char *content;    /* as written in tokenizer.json */
  char *normalized; /* CONTENT through the normalizer ("normalized": true), else NULL */
  int32_t id;
  gboolean special, lstrip, rstrip, single_word, is_normalized;
} AsHfAddedToken;

AsHfAdded *as_hf_added_new (void);
void as_hf_added_free (AsHfAdded *added);

/* The bytes ADDED holds (an estimate, for the memory budget). */
guint64 as_hf_added_bytes (const AsHfAdded *added);

/* Reads the "added_tokens" array at JSON; NORMALIZER (may be NULL) gives the normalized form of
 * the tokens with "normalized": true. Ids are given as HF gives them (a token's model id, else
 * the next id after the model's vocabulary), not taken from the file. */
gboolean as_hf_added_read (AsHfAdded *added, const AsHfJson *json, const AsHfNormalizer *normalizer,
                           const AsHfModel *model, GError **error);

/* Adds one token (vocab.txt folders). */
void as_hf_added_add (AsHfAdded *added, const char *content, int32_t id, gboolean special);

/* Builds the search index; call after the last as_hf_added_read/as_hf_added_add. */
void as_hf_added_index (AsHfAdded *added);

/* The tokens, in file order (AsHfAddedToken). Borrowed. */
const GArray *as_hf_added_get_tokens (const AsHfAdded *added);

/* The token with ID, or NULL. */
const AsHfAddedToken *as_hf_added_find_id (const AsHfAdded *added, int32_t id);

/* Splits TEXT into pieces (AsHfSplit) and normalizes the pieces between added tokens, as
 * extract_and_normalize does. Returns a new GArray, or NULL when the normalizer refuses a piece
 * (as_hf_normalizer_apply). */
GArray *as_hf_added_extract_and_normalize (const AsHfAdded *added, const AsHfNormalizer *normalizer,
                                           const char *text, gsize length, GError **error);

G_END_DECLS
