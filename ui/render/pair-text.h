/* pair-text.h — sentence pairs as the window and the command line quote them (which models take a
 * pair is core's as-sentence-pairs.h): the one text a figure's subtitle quotes for a pair, so
 * that the window's export and `attnscope export --pair` write the same title block. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* TEXT alone when PAIR is NULL or empty, else "TEXT ‖ PAIR". Newly allocated. */
char *ar_pair_text_join (const char *text, const char *pair);

/* The text a figure of TRACE quotes (figure-subtitle.h): ar_pair_text_join (TEXT, PAIR), and when
 * TRUNCATED (the trace holds only the first tokens of a single text) only the part of TEXT up to
 * the end of its last token (as_token_spans). Newly allocated. */
char *ar_shown_text (const AsTrace *trace, const char *text, const char *pair, gboolean truncated);

G_END_DECLS
