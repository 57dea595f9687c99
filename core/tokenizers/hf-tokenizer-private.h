/* hf-tokenizer-private.h — a Hugging Face fast tokenizer: the pipeline tokenizer.json describes.
 *
 * added tokens → normalizer → pre-tokenizer → model → post-processor (src/tokenizer/mod.rs,
 * encode_single_sequence and post_process); the decoder turns tokens back into text. Built from
 * tokenizer.json (tokenizer-json.c) or from a BERT vocab.txt (vocab-txt.c). Immutable after
 * loading (the models' word caches are thread-safe). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hf-added-private.h"
#include "hf-decoder-private.h"
#include "hf-model-private.h"
#include "hf-normalizer-private.h"
#include "hf-postprocessor-private.h"
#include "hf-pretokenizer-private.h"

G_BEGIN_DECLS

typedef struct
{
  AsHfNormalizer *normalizer;     /* may be NULL */
  AsHfPreTokenizer *pretokenizer; /* may be NULL */
  AsHfModel *model;
  AsHfAdded *added;
  AsHfPostProcessor *postprocessor; /* may be NULL */
  AsHfDecoder *decoder;             /* may be NULL */
} AsHfTokenizer;

void as_hf_tokenizer_free (AsHfTokenizer *hf);

/* The bytes HF's model and added tokens hold (an estimate, for the memory budget; the other
 * components are small beside them). */
guint64 as_hf_tokenizer_bytes (const AsHfTokenizer *hf);

/* Encodes one sequence (valid UTF-8) into IDS without post-processing. */
gboolean as_hf_tokenizer_encode_sequence (const AsHfTokenizer *hf, const char *text, gsize length,
                                          GArray *ids, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfTokenizer, as_hf_tokenizer_free)

G_END_DECLS
