/* hf-wordpiece-private.h — a WordPiece model built from a token list rather than read from
 * tokenizer.json (hf-wordpiece.c), for BERT's vocab.txt. */
#pragma once

#include "hf-vocab-private.h"

G_BEGIN_DECLS

/* A WordPiece model over VOCAB (tokens in id order; a repeated token keeps its later id, as
 * BertTokenizer's dict) with "##" continuations, 100 characters per word and UNK_TOKEN, which
 * must be in VOCAB; SOURCE names the file in messages. */
AsHfModel *as_hf_wordpiece_new_vocab (GPtrArray *vocab, const char *unk_token, const char *source,
                                      GError **error);

G_END_DECLS
