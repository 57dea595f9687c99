/* token-label.h — how a token is shown in figures and widgets.
 *
 * The core gives each token's text: the bytes it stands for (as_tokenizer_dup_token_text, e.g.
 * GPT-2's "Ġthe" → " the"). The label shows that text with the whitespace it holds made visible:
 * space '␣' (U+2423), newline '↵', tab '⇥', other control characters their Unicode control
 * pictures (U+2400 + c, DEL U+2421): "␣the", "↵", "é". A token whose text is not valid UTF-8 (one
 * piece of a character split by byte-level BPE) is shown as its vocabulary string ("raw"), as is
 * every token when RAW is asked for. ASCII words are the same either way. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* The label for a token with vocabulary string TOKEN and text TEXT (NULL: none); RAW returns a
 * copy of TOKEN. Newly allocated. */
char *ar_token_label (const char *token, const char *text, gboolean raw);

/* Labels for every token of TRACE ([T], NULL-terminated; free with g_strfreev). */
char **ar_token_labels_from_trace (const AsTrace *trace, gboolean raw);

G_END_DECLS
