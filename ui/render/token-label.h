/* token-label.h — how a token is shown in figures and widgets: readable (core's
 * as-readable-tokens.h, the rule `attnscope tokenize --readable` and the token strip follow too:
 * whitespace made visible as '␣', '↵', '⇥'; a character split over several byte-level tokens
 * shown once, on its first token, with '…' on the others — "猫…", "…", "…"), or, when RAW is
 * asked for, the vocabulary strings as they are. */
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
 * (NULL, or entries NULL: none): as_readable_tokens, or with RAW copies of TOKENS.
 * NULL-terminated, free with g_strfreev. */
char **ar_token_labels (const char *const *tokens, const char *const *texts, int n,
                        ArTokenLabelFlags flags);

/* Labels for every token of TRACE ([T], NULL-terminated; free with g_strfreev). */
char **ar_token_labels_from_trace (const AsTrace *trace, ArTokenLabelFlags flags);

G_END_DECLS
