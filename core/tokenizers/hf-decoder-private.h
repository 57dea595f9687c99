/* hf-decoder-private.h — tokenizer.json's "decoder": token strings → text (src/decoders/).
 *
 * ByteLevel, Metaspace, WordPiece, ByteFallback, Fuse, Strip, Replace, BPEDecoder, CTC,
 * Sequence. Two uses: decoding a whole sequence as HF's Tokenizer::decode does, and the text
 * ONE token stands for in the views (token mode, core/README.md "Token texts"): the bytes it
 * adds to the decoded text when it follows another token — so Metaspace and WordPiece treat it
 * as not the first token, Strip (which trims the ends of the whole text) is skipped, and
 * ByteLevel and ByteFallback give raw bytes, not U+FFFD, for part of a character. */
#pragma once

#include <glib.h>

#include "hf-json-private.h"

G_BEGIN_DECLS

typedef struct _AsHfDecoder AsHfDecoder;

AsHfDecoder *as_hf_decoder_read (const AsHfJson *json, GError **error);

/* WordPiece's decoder with "##" and cleanup (vocab.txt folders). */
AsHfDecoder *as_hf_decoder_new_wordpiece (void);

void as_hf_decoder_free (AsHfDecoder *decoder);

/* Decodes TOKENS (char *). DECODER may be NULL (tokens joined by spaces, as HF). TOKEN_MODE:
 * TOKENS holds one token and the result is its text (above). Returns the bytes (owned,
 * NUL-terminated, *LENGTH without the NUL): valid UTF-8 unless TOKEN_MODE. */
char *as_hf_decoder_decode (const AsHfDecoder *decoder, GPtrArray *tokens, gboolean token_mode,
                            gsize *length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfDecoder, as_hf_decoder_free)

G_END_DECLS
