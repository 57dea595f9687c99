/* word-labels.h — the labels of a text's words (as-word-spans.h: the words as runs of tokens) on
 * the axes of the word-level heatmaps and tables: a word's label is the label (token-label.h) of
 * its tokens' texts joined, so the pieces of a split word or of a character split over several
 * tokens come back together ("Spring", "猫"). */
#pragma once

#include <glib.h>

#include "as-trace.h"
#include "as-word-spans.h"
#include "token-label.h"

G_BEGIN_DECLS

/* [n_words + 1] the labels of the words SPANS of TRACE made with FLAGS, NULL-terminated (free
 * with g_strfreev). */
char **ar_word_labels (const AsTrace *trace, const AsWordSpans *spans, ArTokenLabelFlags flags);

G_END_DECLS
