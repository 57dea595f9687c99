/* byte-unicode-private.h — GPT-2's reversible byte ⇄ printable-character table.
 *
 * GPT-2's BPE works on strings in which every byte is shown as one printable Unicode character
 * (core/tokenizers/README.md, "GPT-2 byte-level BPE"): bytes 33–126, 161–172 and 174–255 stand for
 * themselves; every other byte b, in increasing order, becomes U+0100 + n (n = 0, 1, 2, ...). So
 * space is 'Ġ' (U+0120) and newline 'Ċ' (U+010A). Vocabulary and merge strings are written in these
 * characters.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The character that stands for BYTE. */
gunichar as_byte_unicode_from_byte (guint8 byte);

/* The byte that CH stands for, or -1 when CH is not one of the 256 table characters. */
int as_byte_unicode_to_byte (gunichar ch);

/* The bytes TOKEN (a string of table characters, valid UTF-8) stands for, NUL-terminated and
 * not necessarily valid UTF-8 (a token may hold part of a character); NULL when a character is
 * outside the table or stands for byte 0. */
char *as_byte_level_token_text (const char *token);

/* Replaces every byte of TEXT by the UTF-8 of its character (Hugging Face's ByteLevel
 * normalizer and pre-tokenizer). */
void as_byte_level_encode (GString *text);

G_END_DECLS
