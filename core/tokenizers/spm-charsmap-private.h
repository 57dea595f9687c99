/* spm-charsmap-private.h — checking the character maps of a SentencePiece model file before
 * libsentencepiece sees them (spm-charsmap.c).
 *
 * A .spm file (a ModelProto) carries its normalisation rule as normalizer_spec.
 * precompiled_charsmap (and a denormalizer_spec with one, used when decoding): a little-endian
 * uint32 trie size, a darts-clone double array of that many bytes, then NUL-separated replacement
 * strings (hf-precompiled-private.h reads the same format from tokenizer.json). The library walks
 * that array without a single bound check (Normalizer::NormalizePrefix, darts.h
 * commonPrefixSearch): a root offset past the array made it read far outside (SIGSEGV in
 * `tokenize`), a value past the strings or a string without its NUL gave junk tokens. So every
 * map is walked here first, from the root through every unit any input can reach, and refused
 * unless:
 *   - every reachable node's 256 child slots lie inside the array (the library reads the slot of
 *     whatever byte comes next);
 *   - every value points inside the strings, at a NUL-terminated string;
 *   - no path loops, and none passes more than 32 values (the library keeps the matches of one
 *     prefix search in a 32-entry array on the stack and reads as many as it found).
 * Maps written by SentencePiece's builder always pass (their arrays are whole 256-unit blocks). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The most values a prefix search may meet: Normalizer::kMaxTrieResultsSize. */
#define AS_SPM_MAX_TRIE_RESULTS 32

/* Checks every precompiled_charsmap of the SentencePiece model file BYTES (LENGTH bytes). Fails
 * (AS_ERROR_FORMAT, naming PATH and the map) when one is unsafe, or when the protobuf framing
 * around them is broken. */
gboolean as_spm_check_charsmaps (const char *path, const guint8 *bytes, gsize length,
                                 GError **error);

/* Checks one charsmap BLOB (SIZE bytes); the error says what is wrong, without a prefix. */
gboolean as_spm_charsmap_check (const guint8 *blob, gsize size, GError **error);

G_END_DECLS
