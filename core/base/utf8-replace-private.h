/* utf8-replace-private.h — strict UTF-8 checking and Python's errors="replace" decoding.
 *
 * Both follow the Unicode standard's definition of well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing above U+10FFFF; U+0000 is allowed). Decoding replaces each *maximal
 * subpart* of an ill-formed sequence with one U+FFFD (Unicode §3.9, "best practice"), which is
 * exactly what CPython's bytes.decode("utf-8", errors="replace") does, and therefore what
 * Hugging Face's GPT-2 tokenizer returns for ids whose bytes do not form whole characters. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Looks at the bytes at S (N > 0 of them). Returns the length of the well-formed character
 * there (1–4) and sets *VALID to TRUE, or returns the length of the maximal subpart of an
 * ill-formed sequence (1–3: the bytes that could still have started a character) and sets
 * *VALID to FALSE. */
gsize as_utf8_next_sequence (const guint8 *s, gsize n, gboolean *valid);

/* The length of the longest well-formed prefix of BYTES: LENGTH when all of it is valid UTF-8,
 * otherwise the byte offset of the first ill-formed sequence. */
gsize as_utf8_valid_prefix (const char *bytes, gsize length);

/* BYTES decoded like Python's bytes.decode("utf-8", errors="replace"): a NUL-terminated, owned,
 * valid UTF-8 string. (A U+0000 in the input ends the C string early.) */
char *as_utf8_replace_invalid (const char *bytes, gsize length);

G_END_DECLS
