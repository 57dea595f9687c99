/* step-decoder-private.h — an encoder–decoder model's decoder, one token at a time, for
 * generation (as-translate.h).
 *
 * Generation (greedy and beam search, forward/generate.c) never sees the model: it asks the
 * family (AsFamily.step_decoder_new) for a decoder over one source, then feeds it one token per
 * sequence and step and reads the next-token logits. Beam search reorders its sequences between
 * steps: sequence b continues the sequence PARENTS[b] had before the step, so the family copies
 * what it caches per sequence (the keys and values of the decoder's self-attention) from the
 * parent. The maths is the family's full forward pass restricted to the new position: the
 * logits equal the last row of a full pass over the whole sequence (up to float rounding). */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct _AsStepDecoder AsStepDecoder;

typedef struct
{
  /* Sequence b becomes sequence PARENTS[b] (PARENTS NULL: b) followed by TOKENS[b]; then
   * LOGITS [n_seqs][V] receives the next-token logits of every sequence. */
  gboolean (*step) (AsStepDecoder *decoder, const int *parents, const int32_t *tokens,
                    float *logits, GError **error);
  void (*free) (AsStepDecoder *decoder);
} AsStepDecoderFuncs;

/* The family's decoder struct starts with this. */
struct _AsStepDecoder
{
  const AsStepDecoderFuncs *funcs;
  int n_seqs;     /* sequences advanced together (the beams) */
  int vocab_size; /* V */
  int max_steps;  /* tokens each sequence may hold */
  int n_steps;    /* tokens each sequence holds now */
};

static inline gboolean
as_step_decoder_step (AsStepDecoder *decoder, const int *parents, const int32_t *tokens,
                      float *logits, GError **error)
{
  return decoder->funcs->step (decoder, parents, tokens, logits, error);
}

static inline void
as_step_decoder_free (AsStepDecoder *decoder)
{
  if (decoder != NULL)
    decoder->funcs->free (decoder);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsStepDecoder, as_step_decoder_free)

G_END_DECLS
