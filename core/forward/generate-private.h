/* generate-private.h — greedy and beam search over a step decoder (step-decoder-private.h), as
 * transformers' generate() runs them (v4.40: generation/utils.py _greedy_search and
 * _beam_search, generation/beam_search.py BeamSearchScorer and BeamHypotheses,
 * generation/logits_process.py); the rules are in core/families/README.md ("Generation"). */
#pragma once

#include <gio/gio.h>

#include "step-decoder-private.h"

G_BEGIN_DECLS

typedef struct
{
  int num_beams;  /* 1: greedy; the decoder advances this many sequences */
  int max_length; /* tokens of the result, the start token included */
  int min_length;
  int32_t start;              /* decoder_start_token_id */
  int eos;                    /* eos_token_id, -1 when none */
  int forced_eos;             /* forced_eos_token_id, -1 when none */
  int forced_bos;             /* forced_bos_token_id, -1 when none */
  int no_repeat_ngram;        /* no_repeat_ngram_size, 0 when off */
  const GPtrArray *bad_words; /* GArray of int32 each, or NULL */
  double length_penalty;
  gboolean early_stopping;
  gboolean renormalize;
  GCancellable *cancellable;
} AsSearchSettings;

/* Runs the search; returns the generated ids (start token first; </s> last unless max_length cut
 * it) and *SCORE: the best hypothesis' length-normalised score for beam search, NAN for greedy. */
GArray *as_generate_search (AsStepDecoder *decoder, const AsSearchSettings *settings, double *score,
                            GError **error);

G_END_DECLS
