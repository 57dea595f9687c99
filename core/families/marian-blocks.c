/* marian-blocks.c — the pieces both Marian passes are built from (marian-private.h): embedding
 * with positions (and BART's embedding LayerNorm), projections in either weight layout, residuals
 * with their LayerNorm after the sum (Marian, BART) or before the block (mBART), and the MLP.
 * Attention is the shared kernel's (attention-private.h: as_attend, scale hd^-½ as
 * modeling_marian.py). */
#include "marian-private.h"

#include <string.h>

#include "kernels-private.h"

void
as_marian_embed (float *out, const AsMarianWeights *w, const AsMarianStack *stack,
                 float embed_scale, const int32_t *ids, int n, int pos0, int d, gboolean positions)
{
  for (int t = 0; t < n; t++)
    {
      const float *e = w->shared + (gsize) ids[t] * d;             /* [D] */
      const float *pe = stack->positions + (gsize) (pos0 + t) * d; /* [D] */
      float *o = out + (gsize) t * d;                              /* [D] */
      if (!positions) /* the sinusoids (BART: the learned table) left out */
        for (int i = 0; i < d; i++)
          o[i] = e[i] * embed_scale;
      else
        for (int i = 0; i < d; i++)
          o[i] = e[i] * embed_scale + pe[i];
    }
  if (stack->embed_norm.g != NULL)
    as_layernorm (out, out, stack->embed_norm.g, stack->embed_norm.b, AS_MARIAN_LN_EPS, n, d);
}

void
as_marian_linear (AsWorkerTeam *team, float *out, const float *x, const AsMarianLinear *lin, int n,
                  int in, int out_dim)
{
  if (!lin->transposed)
    {
      as_matmul (team, out, x, lin->w, lin->b, n, in, out_dim);
      return;
    }
  as_matmul_transposed (team, out, x, lin->w, n, in, out_dim);
  for (int i = 0; i < n; i++)
    as_add_inplace (out + (gsize) i * out_dim, lin->b, out_dim);
}

const float *
as_marian_block_input (const AsMarianSettings *s, float *buf, const float *x,
                       const AsMarianNorm *norm, int n, int d)
{
  if (s->norm_place == AS_MARIAN_POST_NORM)
    return x;
  as_layernorm (buf, x, norm->g, norm->b, AS_MARIAN_LN_EPS, n, d);
  return buf;
}

void
as_marian_block_output (const AsMarianSettings *s, float *x, const float *delta,
                        const AsMarianNorm *norm, int n, int d)
{
  as_add_inplace (x, delta, (gsize) n * d);
  if (s->norm_place == AS_MARIAN_POST_NORM)
    as_layernorm (x, x, norm->g, norm->b, AS_MARIAN_LN_EPS, n, d);
}

void
as_marian_final_norm (float *out, const float *x, const AsMarianStack *stack, int n, int d)
{
  if (stack->final_norm.g != NULL)
    as_layernorm (out, x, stack->final_norm.g, stack->final_norm.b, AS_MARIAN_LN_EPS, n, d);
  else if (out != x)
    memcpy (out, x, sizeof (float) * n * d);
}

void
as_marian_mlp (AsWorkerTeam *team, float *x, float *ff, float *tmp, const AsMarianLayer *y,
               const AsMarianSettings *s, AsActivation act, int n, int d, int f)
{
  const float *in = as_marian_block_input (s, tmp, x, &y->final_norm, n, d);
  as_marian_linear (team, ff, in, &y->fc1, n, d, f); /* ff [n][F] */
  as_activate_rows (team, ff, n, f, act);
  as_marian_linear (team, tmp, ff, &y->fc2, n, f, d); /* tmp [n][D] */
  as_marian_block_output (s, x, tmp, &y->final_norm, n, d);
}
