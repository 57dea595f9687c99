/* hf-pretokenizer-private.h — tokenizer.json's "pre_tokenizer": normalized text → pieces.
 *
 * Every pre-tokenizer of huggingface/tokenizers src/pre_tokenizers/: ByteLevel, Split,
 * Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, Digits,
 * CharDelimiterSplit, Sequence (core/tokenizers/README.md, "Tokenizers"). Immutable after reading.
 */
#pragma once

#include <glib.h>

#include "hf-json-private.h"

G_BEGIN_DECLS

typedef struct _AsHfPreTokenizer AsHfPreTokenizer;

AsHfPreTokenizer *as_hf_pretokenizer_read (const AsHfJson *json, GError **error);

/* BertPreTokenizer, for vocab.txt folders. */
AsHfPreTokenizer *as_hf_pretokenizer_new_bert (void);

void as_hf_pretokenizer_free (AsHfPreTokenizer *pretokenizer);

/* Cuts every piece of SPLITS (AsHfSplit) that has no token yet; replaces *SPLITS. */
gboolean as_hf_pretokenizer_apply (const AsHfPreTokenizer *pretokenizer, GArray **splits,
                                   GError **error);

/* Metaspace's replacement character and prepend scheme, for its decoder: *REPLACEMENT is 0
 * when PRETOKENIZER holds no Metaspace. */
void as_hf_pretokenizer_get_metaspace (const AsHfPreTokenizer *pretokenizer, gunichar *replacement,
                                       gboolean *prepend_never);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfPreTokenizer, as_hf_pretokenizer_free)

G_END_DECLS
