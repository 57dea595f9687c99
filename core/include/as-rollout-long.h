/* as-rollout-long.h — mean over heads and attention rollout of a long text, from the trace's
 * tiles: no [L][H][T][T] or [L][T][T] array (core/README.md, "Attention on demand").
 *
 * The definitions are as-rollout.h's, and so are the bits: the mean of a tile sums the heads in
 * double in the same order, a rollout layer matrix and its products are the same dgemm panels.
 * A rollout of layer l multiplies l matrices of T × T (2·T³ operations each: 1.1·10¹² at 8,192
 * tokens), so it reports progress, can be cancelled, and as_rollout_check() refuses one that
 * would take longer than a limit with a message naming the length and the time. */
#pragma once

#include <gio/gio.h>

#include "as-attention-pool.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* OUT [N_ROWS][LD] = mean over the heads of LAYER of the attention tile rows ROW0.., columns
 * COL0.. (as_trace_attention_tile), each entry (float) (Σ_h in double / H): as
 * as_attention_mean_heads gives the whole matrix. */
void as_trace_mean_heads_tile (const AsTrace *t, int layer, int row0, int n_rows, int col0,
                               int n_cols, float *out, int ld);

/* OUT [⌈T/K⌉][⌈T/K⌉] = the mean over the heads of LAYER pooled in blocks of K × K (as
 * as_matrix_pool of as_trace_mean_heads's layer, to the bit), from strips of K rows: working
 * memory K·T floats, never the layer's [T][T]. */
void as_trace_mean_heads_pool (float *out, const AsTrace *t, int layer, int k, AsPool pool);

/* Told DONE of TOTAL steps of a rollout (rows of a layer matrix, panels of a product). */
typedef void (*AsRolloutProgress) (int done, int total, gpointer user_data);

typedef struct
{
  GCancellable *cancellable; /* checked between steps; may be NULL */
  AsRolloutProgress progress;
  gpointer progress_data;
} AsRolloutOptions;

/* OUT [T][T] = the rollout R_LAYER of TRACE (as_trace_rollout's layer LAYER, to the bit), built a
 * block of rows at a time from tiles: working memory 3·T² doubles. FALSE with AS_ERROR_CANCELLED
 * (OUT partly written) when OPTIONS' cancellable was cancelled. OPTIONS may be NULL. */
gboolean as_trace_rollout_layer (const AsTrace *trace, int layer, const AsRolloutOptions *options,
                                 float *out, GError **error);

/* Seconds a rollout of N_PRODUCTS products of N_TOKENS × N_TOKENS matrices would take on this
 * machine: N_PRODUCTS · 2·T³ over the double-precision rate measured once per process on a
 * 256 × 256 product, times the threads. */
double as_rollout_estimate_seconds (int n_tokens, int n_products);

/* FALSE with AS_ERROR_INPUT when the rollout of LAYER of a trace of N_TOKENS tokens would take
 * longer than MAX_SECONDS (as_rollout_estimate_seconds): the message names the tokens, the layers
 * and the estimate. */
gboolean as_rollout_check (int n_tokens, int layer, double max_seconds, GError **error);

G_END_DECLS
