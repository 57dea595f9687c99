/* hf-model-private.h — tokenizer.json's "model": a piece of normalized, pre-tokenized text →
 * token ids (hf-model.c).
 *
 * The model types (hf-vocab-private.h) — BPE, WordPiece, WordLevel, Unigram — are found by
 * tokenizer.json's "type" in one table; their semantics, with their source files in
 * huggingface/tokenizers, are in core/tokenizers/README.md ("Tokenizers"). */
#pragma once

#include "hf-vocab-private.h"

G_BEGIN_DECLS

/* Reads the model at JSON. */
AsHfModel *as_hf_model_read (const AsHfJson *json, GError **error);

/* Appends the ids of PIECE (LENGTH bytes) to IDS. Fails only where HF fails (Unigram without
 * an unknown token meeting an unknown character). */
gboolean as_hf_model_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids,
                               GError **error);

/* HF's model.get_vocab_size(): where the ids of added tokens outside the vocabulary start. */
int32_t as_hf_model_vocab_size (const AsHfModel *model);

G_END_DECLS
