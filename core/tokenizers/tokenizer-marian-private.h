/* tokenizer-marian-private.h — the Marian translation models' tokenizer (Hugging Face's
 * MarianTokenizer, transformers v4): two SentencePiece models and one joint vocabulary.
 *
 * Folder files: source.spm (source text), target.spm (target text), vocab.json (piece → id, the
 * ids the model uses; not the SentencePiece ids), tokenizer_config.json and
 * special_tokens_map.json (the special token strings, default </s>, <unk>, <pad>). The rules are
 * in core/README.md ("Marian tokenizer"). */
#pragma once

#include "spm-processor-private.h"
#include "tokenizer-private.h"

G_BEGIN_DECLS

typedef enum
{
  AS_MARIAN_EOS,
  AS_MARIAN_UNK,
  AS_MARIAN_PAD,
  AS_MARIAN_N_SPECIAL,
} AsMarianSpecial;

struct _AsMarianVocab
{
  AsSpmProcessor *source;                  /* source.spm */
  AsSpmProcessor *target;                  /* target.spm */
  char *special[AS_MARIAN_N_SPECIAL];      /* the special tokens' strings */
  int32_t special_id[AS_MARIAN_N_SPECIAL]; /* their ids in vocab.json; pad -1 when absent */
};

/* The ids of TEXT (LENGTH bytes of valid UTF-8) as source text, or as target text (target.spm)
 * when TARGET, with </s> appended; appended to IDS. */
gboolean as_tokenizer_marian_encode (AsTokenizer *tokenizer, const char *text, gsize length,
                                     gboolean target, GArray *ids, GError **error);

/* MarianTokenizer.decode (IDS, skip_special_tokens=False) with the target model: special tokens
 * written as they are, clean-up of tokenization spaces. */
char *as_tokenizer_marian_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

/* The text piece ID stands for ("▁Haus" → " Haus"); a special token's string; NULL when ID has
 * no token. */
char *as_tokenizer_marian_token_text (const AsTokenizer *tokenizer, int32_t id);

/* Whether ID is one of the special tokens (</s>, <unk>, <pad>). */
gboolean as_tokenizer_marian_is_special (const AsTokenizer *tokenizer, int32_t id);

void as_tokenizer_marian_clear (AsTokenizer *tokenizer);

G_END_DECLS
