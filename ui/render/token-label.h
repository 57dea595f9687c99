/* token-label.h — how a token is shown in figures and widgets.
 *
 * The core gives each token's text: the bytes it stands for (as_tokenizer_dup_token_text, e.g.
 * GPT-2's "Ġthe" → " the"). The label shows that text with the whitespace it holds made visible:
 * space '␣' (U+2423; SentencePiece's '▁' U+2581 is a space too), newline '↵', tab '⇥', other
 * control characters their Unicode control pictures (U+2400 + c, DEL U+2421): "␣the", "↵", "é".
 *
 * Byte-level tokenizers split a character of several UTF-8 bytes over several tokens (GPT-2 writes
 * 猫 as three one-byte tokens, 👍 as four). Labels of a whole text are made from the bytes of all
 * its tokens: a character is shown once, on the token where its first byte is, followed by '…'
 * (U+2026) when its bytes go on in the next token; a token that starts with the rest of a
 * character begins with '…' ("猫…", "…", "…"). A token whose bytes are not valid UTF-8 even with
 * its neighbours (a text cut in the middle of a character) is shown as its vocabulary string
 * ("raw"), as is every token when RAW is asked for. ASCII words are the same either way.
 *
 * Without space marks (AR_TOKEN_LABEL_NO_SPACE_MARKS, an export option) spaces are ordinary
 * spaces and dropped at both ends of a label ("the" for " the"); a token that is nothing but
 * white space keeps its marks, so that no tick label is blank. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AR_TOKEN_LABEL_DEFAULT = 0,
  AR_TOKEN_LABEL_RAW = 1 << 0,            /* vocabulary strings as they are */
  AR_TOKEN_LABEL_NO_SPACE_MARKS = 1 << 1, /* plain spaces, trimmed */
} ArTokenLabelFlags;

/* The label of one token seen alone, with vocabulary string TOKEN and text TEXT (NULL: none);
 * RAW returns a copy of TOKEN. Newly allocated. */
char *ar_token_label (const char *token, const char *text, gboolean raw);

/* Labels of the N tokens of one text, with vocabulary strings TOKENS [N] and texts TEXTS [N]
 * (NULL, or entries NULL: none), by the rules above. NULL-terminated, free with g_strfreev. */
char **ar_token_labels (const char *const *tokens, const char *const *texts, int n,
                        ArTokenLabelFlags flags);

/* Labels for every token of TRACE ([T], NULL-terminated; free with g_strfreev). */
char **ar_token_labels_from_trace (const AsTrace *trace, ArTokenLabelFlags flags);

/* Where token I of TEXTS [N] stands in a character split over tokens: *PART (1-based) of *N_PARTS
 * tokens holding the bytes of character *C. FALSE when token I holds no piece of a split
 * character. */
gboolean ar_token_split_part (const char *const *texts, int n, int i, int *part, int *n_parts,
                              gunichar *c);

G_END_DECLS
