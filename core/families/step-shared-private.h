/* step-shared-private.h — what the encoder–decoder step decoders share (marian-step.c,
 * t5-step.c; the interface is model/step-decoder-private.h): the self-attention's key/value
 * cache that follows beam search's reordering, the checks of a step's input and of its values,
 * the decoder's one block of memory, and the attention of one new query row. */
#pragma once

#include "kernels-private.h"
#include "step-decoder-private.h"

G_BEGIN_DECLS

/* The keys and values of every layer, sequence and step so far: [L][B][N][width] each, with a
 * spare pair of the same size that reordering copies into and swaps with. */
typedef struct
{
  float *k, *v, *spare_k, *spare_v;
  int L, B, N, width;
} AsStepCache;

/* Floats the cache of L layers, B sequences and N steps of WIDTH needs. */
guint64 as_step_cache_floats (int L, int B, int N, int width);

/* Lays CACHE out at MEM (as_step_cache_floats of them); returns the float after it. */
float *as_step_cache_place (AsStepCache *cache, float *mem, int L, int B, int N, int width);

/* Sequence SEQ's keys (values) of LAYER from step 0: [N][width]. */
float *as_step_cache_keys (const AsStepCache *cache, int layer, int seq);
float *as_step_cache_values (const AsStepCache *cache, int layer, int seq);

/* Stores row b of K and V [B][width] as sequence b's step POS of LAYER. */
void as_step_cache_append (AsStepCache *cache, int layer, int pos, const float *k, const float *v);

/* Sequence b's first N_STEPS rows become sequence PARENTS[b]'s (nothing when PARENTS is the
 * identity). */
void as_step_cache_reorder (AsStepCache *cache, const int *parents, int n_steps);

/* Fails, naming the problem, when DECODER has no room for another token or a token of TOKENS
 * [n_seqs] is outside its vocabulary. */
gboolean as_step_check_input (const AsStepDecoder *decoder, const int32_t *tokens, GError **error);

/* Fails when x [B][D] of decoder layer LAYER, or of PART ("embeddings", "output layer") when not
 * NULL, is not finite at step POS, naming the first sequence that is not. */
gboolean as_step_check_finite (const float *x, int B, int D, const char *part, int layer, int pos,
                               GError **error);

/* N_FLOATS zeroed floats for B sequences of up to N tokens, within the memory budget; NULL with
 * AS_ERROR_MEMORY otherwise. */
float *as_step_alloc (guint64 n_floats, int B, int N, GError **error);

/* One new query row: CC [H·hd] = softmax(SCALE · q·kᵀ (+ BIAS [H][n_k])) · v over N_K keys and
 * values K, V [n_k][width] (width = H·hd, the heads side by side), P [H][n_k] the weights. */
typedef struct
{
  AsWorkerTeam *team;
  int width, n_heads;
  float scale;
  float *p;
} AsStepAttention;

void as_step_attend_row (const AsStepAttention *a, float *cc, const float *q, const float *k,
                         const float *v, int n_k, const float *bias);

G_END_DECLS
