/* positional-private.h — fixed sinusoidal positional encodings (Vaswani et al. 2017, §3.5).
 *
 * Two layouts of the same numbers exist in the wild:
 * - AS_POSITIONAL_INTERLEAVED, the paper's formula and the seed 001's worked example:
 *   PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d));
 * - AS_POSITIONAL_SPLIT_HALVES, Hugging Face's MarianSinusoidalPositionalEmbedding: the sines of
 *   all frequencies in the first ceil(d/2) columns, then the cosines in the remaining floor(d/2):
 *   PE(pos, k) = sin(pos·w_k) for k < ceil(d/2), PE(pos, ceil(d/2) + k) = cos(pos·w_k),
 *   w_k = 10000^(-2k/d).
 * POS is the position exactly as given (the toy architecture uses pos = token index, from 0;
 * the seed's hand computation numbers its tokens from 1). Values are computed in double and
 * rounded once to float. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AS_POSITIONAL_INTERLEAVED,  /* sin in even columns, cos in odd columns (paper, seed 001) */
  AS_POSITIONAL_SPLIT_HALVES, /* first half sin, second half cos (Marian) */
} AsPositionalLayout;

/* Writes the encoding of position POS into OUT[0..D-1]. D >= 1, POS >= 0. */
void as_positional_encoding (float *out, int pos, int d, AsPositionalLayout layout);

/* Writes the encodings of positions FIRST_POS .. FIRST_POS + N_POS - 1 into OUT. */
void as_positional_encodings (float *out, int first_pos, int n_pos, int d,
                              AsPositionalLayout layout);

/* Adds the encodings of positions FIRST_POS .. FIRST_POS + N_POS - 1 to the rows of X in
 * place (X: [N_POS][D]). */
void as_positional_add (float *x, int first_pos, int n_pos, int d, AsPositionalLayout layout);

const char *as_positional_layout_to_string (AsPositionalLayout layout);

G_END_DECLS
