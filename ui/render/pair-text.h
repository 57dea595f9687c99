/* pair-text.h — sentence pairs as the window and the command line show them: which models take a
 * pair (encoders: BERT, DistilBERT, RoBERTa), and the one text a figure's subtitle quotes for a
 * pair, so that the window's export and `attnscope export --pair` write the same title block. */
#pragma once

#include <glib.h>

#include "as-model.h"

G_BEGIN_DECLS

/* TRUE for a model whose input may be a pair of texts: an encoder-only model with a separator
 * token ([SEP], RoBERTa's </s>). */
gboolean ar_model_takes_pairs (const AsModel *model);

/* TEXT alone when PAIR is NULL or empty, else "TEXT ‖ PAIR". Newly allocated. */
char *ar_pair_text_join (const char *text, const char *pair);

G_END_DECLS
