/* output-pieces.c — a model's output as linear pieces for the analyses that split it
 * (output-pieces-private.h): the stack's readout hook, and its matrices in float32. */
#include "output-pieces-private.h"

#include <cblas.h>
#include <string.h>

#include "as-error.h"
#include "blas-threads-private.h"
#include "family-private.h"
#include "model-private.h"

gboolean
as_output_pieces_get (AsModel *model, const char *what, gboolean additive, AsReadout *out,
                      GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  const AsStack *stack = c->ops->stack;
  memset (out, 0, sizeof *out);
  if (stack->readout == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is not available for %s (%s): its family does not lay out its attention's "
                   "output projections and output head for this analysis",
                   what, as_model_get_name (model), c->ops->name);
      return FALSE;
    }
  stack->readout (c, as_model_get_weights (model), out);
  if (additive && out->post_norm)
    {
      as_output_pieces_clear (out);
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s does not apply to %s (%s): its layers renormalise the residual stream "
                   "after every block (post-norm), so the output is not a sum of the blocks' "
                   "writes",
                   what, as_model_get_name (model), c->ops->name);
      return FALSE;
    }
  return TRUE;
}

void
as_output_pieces_clear (AsReadout *pieces)
{
  g_clear_pointer (&pieces->layers, g_free);
}

void
as_output_pieces_heads (float *out, const AsReadout *pieces, int layer, int n_head, int head_dim,
                        int d_model)
{
  const AsReadoutLayer *l = &pieces->layers[layer];
  gsize in = (gsize) n_head * head_dim, D = d_model;
  if (l->o_in_out)
    {
      /* [H·hd][D] float32 rows: already head by head */
      memcpy (out, l->o.data, sizeof (float) * in * D);
      return;
    }
  /* [D][H·hd] stored rows: out[j][i] = O[i][j], one stored row widened at a time */
  gsize size = as_dtype_size (l->o.dtype);
  g_autofree float *row = g_new (float, in); /* [H·hd] */
  for (gsize i = 0; i < D; i++)
    {
      as_dtype_widen (row, (const char *) l->o.data + i * in * size, l->o.dtype, in);
      for (gsize j = 0; j < in; j++)
        out[j * D + i] = row[j];
    }
}

void
as_output_pieces_unembed_row (float *out, const AsReadout *pieces, int32_t id, int d_model)
{
  gsize size = as_dtype_size (pieces->unembed.dtype);
  as_dtype_widen (out, (const char *) pieces->unembed.data + (gsize) id * d_model * size,
                  pieces->unembed.dtype, d_model);
}

void
as_output_pieces_project (float *out, const AsReadout *pieces, int layer, const float *e, int n_in,
                          int d_model)
{
  const AsReadoutLayer *l = &pieces->layers[layer];
  as_blas_single_threaded ();
  if (l->o_in_out) /* [in][D] float32 */
    {
      cblas_sgemv (CblasRowMajor, CblasNoTrans, n_in, d_model, 1.0f, l->o.data, d_model, e, 1, 0.0f,
                   out, 1);
      return;
    }
  if (l->o.dtype == AS_DTYPE_F32) /* [D][in] */
    {
      cblas_sgemv (CblasRowMajor, CblasTrans, d_model, n_in, 1.0f, l->o.data, n_in, e, 1, 0.0f, out,
                   1);
      return;
    }
  /* 16-bit [D][in]: one stored row widened at a time */
  gsize size = as_dtype_size (l->o.dtype);
  g_autofree float *row = g_new (float, n_in); /* [in] */
  memset (out, 0, sizeof (float) * n_in);
  for (int i = 0; i < d_model; i++)
    {
      as_dtype_widen (row, (const char *) l->o.data + (gsize) i * n_in * size, l->o.dtype, n_in);
      cblas_saxpy (n_in, e[i], row, 1, out, 1);
    }
}
