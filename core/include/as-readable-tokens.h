/* as-readable-tokens.h — tokens as a reader reads them: the one rule the token strip, the figures'
 * tick labels and `attnscope tokenize --readable` follow.
 *
 * The tokenizer gives each token's text: the bytes it stands for (as_tokenizer_dup_token_text,
 * e.g. GPT-2's "Ġthe" → " the", SentencePiece's "<0x0A>" → "\n"). The readable token shows that
 * text with the whitespace it holds made visible: space '␣' (U+2423; SentencePiece's '▁' U+2581
 * is a space too), newline '↵', tab '⇥', other control characters their Unicode control pictures
 * (U+2400 + c, DEL U+2421): "␣the", "↵", "é".
 *
 * Byte-level tokenizers split a character of several UTF-8 bytes over several tokens (GPT-2
 * writes 猫 as three one-byte tokens, 👍 as four; SentencePiece's byte fallback "<0xE7>" "<0x8C>"
 * "<0xAB>" likewise). The tokens of a whole text are read from the bytes of all of them: a
 * character is shown once, on the token where its first byte is, followed by '…' (U+2026) when
 * its bytes go on in the next token; a token that starts with the rest of a character begins with
 * '…' ("猫…", "…", "…"). A token whose bytes are not valid UTF-8 even with its neighbours (a text
 * cut in the middle of a character), or that stands for no text, is shown as its vocabulary
 * string. ASCII words read the same either way.
 *
 * Without space marks (AS_READABLE_NO_SPACE_MARKS, an export option) spaces are ordinary spaces
 * and dropped at both ends ("the" for " the"); a token that is nothing but white space keeps its
 * marks, so that no label is blank. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-tokenizer.h"

G_BEGIN_DECLS

typedef enum
{
  AS_READABLE_DEFAULT = 0,
  AS_READABLE_NO_SPACE_MARKS = 1 << 0, /* plain spaces, trimmed */
} AsReadableFlags;

/* The N tokens of one text read as above, from their vocabulary strings TOKENS [N] and texts
 * TEXTS [N] (NULL, or entries NULL: none). NULL-terminated, free with g_strfreev. */
char **as_readable_tokens (const char *const *tokens, const char *const *texts, int n,
                           AsReadableFlags flags);

/* The same for the ids IDS [N] of TOKENIZER (an id it lacks reads "<id>"). */
char **as_readable_tokens_of_ids (const AsTokenizer *tokenizer, const int32_t *ids, int n,
                                  AsReadableFlags flags);

/* Where token I of TEXTS [N] stands in a character split over tokens: *PART (1-based) of *N_PARTS
 * tokens holding the bytes of character *C. FALSE when token I holds no piece of a split
 * character. */
gboolean as_readable_split_part (const char *const *texts, int n, int i, int *part, int *n_parts,
                                 gunichar *c);

G_END_DECLS
