/* as-translate.h — translation with an encoder–decoder model: greedy and beam search exactly as
 * Hugging Face's generate() runs them with the model's generation settings (core/README.md,
 * "Generation").
 *
 * The settings come from generation_config.json when the folder has one, else from the legacy
 * keys of config.json, with transformers' defaults for the rest; they are read when the model is
 * loaded (as_model_get_generation_config). The result's ids are the target sequence the
 * attention views show: decoder start token first, </s> last (unless max_length cut it short). */
#pragma once

#include <gio/gio.h>

#include "as-model.h"

G_BEGIN_DECLS

/* What generate() reads from generation_config.json (or config.json). Token ids are -1 when
 * absent. */
typedef struct _AsGenerationConfig
{
  int num_beams;              /* 1: greedy search */
  int max_length;             /* decoder tokens, the start token included */
  int min_length;             /* </s> is forbidden while the sequence is shorter */
  int decoder_start_token_id; /* else config.json's */
  int eos_token_id;
  int pad_token_id;
  int forced_eos_token_id;     /* the only token allowed at max_length − 1 */
  int forced_bos_token_id;     /* the only token allowed right after the start token */
  int no_repeat_ngram_size;    /* 0: off; else no n-gram of this size occurs twice */
  GPtrArray *bad_words;        /* GArray of int32 each: bad_words_ids, never generated */
  double length_penalty;       /* beam scores are divided by length^length_penalty */
  gboolean early_stopping;     /* beam search stops as soon as num_beams hypotheses are done */
  gboolean renormalize_logits; /* log-softmax again after the processors */
  char *source;                /* the file read, for messages */
} AsGenerationConfig;

typedef struct
{
  int num_beams;             /* 0: the model's (generation config) */
  int max_length;            /* 0: the model's */
  GCancellable *cancellable; /* checked between steps; may be NULL */
  gboolean no_positions;     /* leave out the position embeddings of both stacks (Marian, BART;
                              * T5 is refused: as_translation_positions_removable) */
} AsTranslateOptions;

typedef struct
{
  GArray *source_ids;        /* int32 [S], </s> last */
  GArray *ids;               /* int32: the generated decoder sequence, start token first */
  char *text;                /* ids decoded with special tokens skipped (tokenizer.decode(ids,
                              * skip_special_tokens=True)); NULL when the model was loaded
                              * without a tokenizer (token ids only) */
  double score;              /* beam search: the best hypothesis' length-normalised log-probability;
                              * NAN for greedy search */
  int num_beams, max_length; /* what was used */
} AsTranslation;

/* The model's generation settings; NULL for a model that is not encoder–decoder. */
const AsGenerationConfig *as_model_get_generation_config (const AsModel *model);

/* Translates source ids SRC [N_SRC] (exactly as given: the tokenizer appends </s>). Fails on a
 * model that is not encoder–decoder, empty or out-of-vocabulary ids, a source longer than the
 * model's positions, a max_length the decoder's positions cannot hold, cancellation, memory, and
 * activations that overflow float32 (a step names the decoder layer and the sequence). */
AsTranslation *as_translate (AsModel *model, const int32_t *src, int n_src,
                             const AsTranslateOptions *options, GError **error);

/* Tokenizes TEXT as source text and translates it. Fails on empty text too. */
AsTranslation *as_translate_text (AsModel *model, const char *text,
                                  const AsTranslateOptions *options, GError **error);

void as_translation_free (AsTranslation *translation);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTranslation, as_translation_free)

G_END_DECLS
