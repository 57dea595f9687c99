/* output-pieces-private.h — a model's output as linear pieces (model/readout-private.h), as
 * direct logit attribution, the attention norms and the query–key view read them: the pieces
 * themselves, each head's slice of an output projection in float32, and rows of the output
 * matrix. Private to the core. */
#pragma once

#include "as-model.h"
#include "as-trace.h"
#include "readout-private.h"

G_BEGIN_DECLS

/* Fills OUT (clear with as_output_pieces_clear) from MODEL's stack. Fails (AS_ERROR_INPUT, naming
 * WHAT — "direct logit attribution") for a stack that offers no pieces, and with ADDITIVE for
 * one that renormalises the residual stream after every block (post-norm): the message says
 * why. */
gboolean as_output_pieces_get (AsModel *model, const char *what, gboolean additive, AsReadout *out,
                               GError **error);
void as_output_pieces_clear (AsReadout *pieces);

/* OUT [H][hd][D] = the output projection of LAYER per head, x·O_h for a head's context x [hd]. */
void as_output_pieces_heads (float *out, const AsReadout *pieces, int layer, int n_head,
                             int head_dim, int d_model);

/* OUT [H·hd] = O · E: the output projection of LAYER applied backwards to E [D], so that
 * ctx_h · O_h · E = Σ_k ctx_h[k] · OUT[h·hd + k] (N_IN = H·hd). */
void as_output_pieces_project (float *out, const AsReadout *pieces, int layer, const float *e,
                               int n_in, int d_model);

/* OUT [D] = row ID of the output matrix [V][D], widened to float32. */
void as_output_pieces_unembed_row (float *out, const AsReadout *pieces, int32_t id, int d_model);

G_END_DECLS
