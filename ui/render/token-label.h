/* token-label.h — how a token's vocabulary string is shown in figures and widgets.
 *
 * GPT-2's byte-level vocabulary writes every byte as a printable character (core/byte-unicode.h):
 * a leading space is 'Ġ', a newline 'Ċ'. Shown as is ("raw") that is hard to read, so by default
 * a token whose characters all stand for bytes and whose bytes form valid UTF-8 is decoded, and
 * the whitespace it holds made visible: space '␣' (U+2423), newline '↵', tab '⇥', other control
 * characters their Unicode control pictures (U+2400 + c, DEL U+2421). "Ġthe" → "␣the",
 * "Ċ" → "↵", "Ã©" → "é". A token that is not byte-level text (a word-level toy vocabulary with
 * characters outside the byte table), or whose bytes are an incomplete UTF-8 sequence (one piece
 * of a character split by BPE), is shown raw. ASCII words are the same either way. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* The label for TOKEN; RAW returns a copy of the vocabulary string. Newly allocated. */
char *as_token_label (const char *token, gboolean raw);

/* Labels for every token of TRACE ([T], NULL-terminated; free with g_strfreev). */
char **as_token_labels_from_trace (const AsTrace *trace, gboolean raw);

G_END_DECLS
