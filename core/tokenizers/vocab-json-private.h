/* vocab-json-private.h — reading vocab.json, the token → id map of GPT-2's BPE, of Marian's joint
 * vocabulary and of the toy models' word-level tokenizer (vocab-json.c). */
#pragma once

#include "tokenizer-private.h"

G_BEGIN_DECLS

/* Reads vocab.json at PATH (an object mapping token strings to distinct ids, 0 <= id < 2^24) into
 * TOKENIZER's id_to_token and token_to_id, which must be empty; PATH becomes its source. */
gboolean as_tokenizer_load_vocab_json (AsTokenizer *tokenizer, const char *path, GError **error);

G_END_DECLS
