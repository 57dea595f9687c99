/* hf-normalizer-private.h — tokenizer.json's "normalizer": text → normalized text.
 *
 * Every normalizer of huggingface/tokenizers src/normalizers/ (core/README.md, "Tokenizers"
 * lists each with its semantics): NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip,
 * Replace, Prepend, BertNormalizer, Precompiled, Nmt, ByteLevel, Sequence. A normalizer is
 * immutable after reading and may be used by many threads. */
#pragma once

#include <glib.h>

#include "hf-json-private.h"

G_BEGIN_DECLS

typedef struct _AsHfNormalizer AsHfNormalizer;

/* Reads the normalizer at JSON (an object with "type"). */
AsHfNormalizer *as_hf_normalizer_read (const AsHfJson *json, GError **error);

/* A BertNormalizer built from settings (for vocab.txt folders). STRIP_ACCENTS: -1 follows
 * LOWERCASE, 0 no, 1 yes. */
AsHfNormalizer *as_hf_normalizer_new_bert (gboolean clean_text, gboolean handle_chinese_chars,
                                           int strip_accents, gboolean lowercase);

void as_hf_normalizer_free (AsHfNormalizer *normalizer);

/* Normalizes TEXT in place. */
void as_hf_normalizer_apply (const AsHfNormalizer *normalizer, GString *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfNormalizer, as_hf_normalizer_free)

G_END_DECLS
