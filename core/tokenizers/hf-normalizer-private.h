/* hf-normalizer-private.h — tokenizer.json's "normalizer": text → normalized text.
 *
 * Every normalizer of huggingface/tokenizers src/normalizers/ (core/tokenizers/README.md,
 * "Tokenizers" lists each with its semantics): NFC, NFD, NFKC, NFKD, Lowercase, StripAccents,
 * Strip, Replace, Prepend, BertNormalizer, Precompiled, Nmt, ByteLevel, Sequence. A normalizer is
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

/* The normalized text may grow to AS_HF_NORMALIZED_GROWTH times its input plus
 * AS_HF_NORMALIZED_SLACK bytes. The largest growth a real normalizer gives is NFKC's 11 times
 * (U+FDFA, 3 bytes, becomes 18 characters, 33 bytes), twice that after a ByteLevel normalizer;
 * without a bound, a Sequence of eight Replace "a" → "aaaaaaaaaa" turned one byte into 10^8. */
#define AS_HF_NORMALIZED_GROWTH 32
#define AS_HF_NORMALIZED_SLACK 4096

/* Normalizes TEXT in place. Fails (AS_ERROR_INPUT, naming the file, the JSON path and the type
 * of the step that crosses the bound) when the text would grow beyond the bound above, or beyond
 * the memory budget. */
gboolean as_hf_normalizer_apply (const AsHfNormalizer *normalizer, GString *text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfNormalizer, as_hf_normalizer_free)

G_END_DECLS
