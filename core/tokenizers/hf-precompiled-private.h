/* hf-precompiled-private.h — SentencePiece's precompiled character map (the "Precompiled"
 * normalizer of tokenizer.json, src/normalizers/precompiled.rs with the spm_precompiled crate).
 *
 * "precompiled_charsmap" is base64 of: a little-endian uint32 N, N bytes of a darts-clone double
 * array (uint32 units) whose keys are UTF-8 strings and whose values are offsets into the rest:
 * NUL-terminated replacement strings. Normalizing walks the text by grapheme cluster: a cluster
 * shorter than 6 bytes that has an entry (the shortest key that is a prefix of it — HF's rule) is
 * replaced whole; otherwise each character with an entry is replaced. Grapheme clusters follow
 * UAX #29 approximately (core/tokenizers/README.md, "Tokenizers"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AsHfPrecompiled AsHfPrecompiled;

/* Decodes CHARSMAP (base64); NULL with ERROR (no prefix) when it is malformed. */
AsHfPrecompiled *as_hf_precompiled_new (const char *charsmap, GError **error);
void as_hf_precompiled_free (AsHfPrecompiled *map);

/* Normalizes TEXT in place; FALSE (TEXT unchanged) when the result would pass MAX_LENGTH bytes
 * (a replacement string can be as long as the map). */
gboolean as_hf_precompiled_apply (const AsHfPrecompiled *map, GString *text, gsize max_length);

G_END_DECLS
