/* as-sentence-pairs.h — whether a model reads a pair of texts: BERT, DistilBERT and RoBERTa run
 * "[CLS] A [SEP] B [SEP]" (as_forward_pair), and the window's second entry, `--pair` and
 * `stats --pairs` are offered for exactly these models. */
#pragma once

#include <glib.h>

#include "as-model.h"

G_BEGIN_DECLS

/* TRUE for a model whose input may be a pair of texts: an encoder-only model with a separator
 * token ([SEP], RoBERTa's </s>). */
gboolean as_model_takes_pairs (const AsModel *model);

G_END_DECLS
