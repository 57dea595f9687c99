/* as-attention-pool.h — one head's attention pooled in blocks of K × K entries: what a view of a
 * long text shows zoomed out, where a screen cell covers many entries (ui/README.md, "Attention at
 * long lengths").
 *
 * Pooled block (I, J) covers queries I·K .. I·K+K−1 and keys J·K .. J·K+K−1 (the last row and
 * column of blocks cover what is left of T). Its value is the largest entry it covers
 * (AS_POOL_MAX, the default: a sharp one-token pattern stays visible however far one zooms out)
 * or the mean of the entries it covers, masked entries (0) included (AS_POOL_MEAN). The pooling
 * reads the attention through as_trace_attention_tile() in the pass's blocks of 64 query rows, so
 * a trace on demand never expands a whole head; the result does not depend on the number of
 * threads. */
#pragma once

#include <gio/gio.h>

#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  AS_POOL_MAX,  /* the largest entry of the block */
  AS_POOL_MEAN, /* the mean of the block's entries */
} AsPool;

/* Blocks along each side when N entries are pooled K at a time: ⌈N / K⌉. */
static inline int
as_pool_size (int n, int k)
{
  return (n + k - 1) / k;
}

/* The smallest block side K that pools N entries into at most MAX_CELLS blocks a side (1 when N
 * fits). */
int as_pool_factor (int n, int max_cells);

/* Pooled rows PROW0 .. PROW0+N_PROWS−1 of head HEAD of LAYER of T, blocks of K × K, into OUT
 * [N_PROWS][⌈T/K⌉], on the calling thread. */
void as_trace_attention_pool_rows (float *out, const AsTrace *t, int layer, int head, int k,
                                   AsPool pool, int prow0, int n_prows);

/* The whole head pooled: OUT [⌈T/K⌉][⌈T/K⌉], shared between N_THREADS threads (0:
 * as_forward_threads ()). FALSE (OUT partly written) when CANCELLABLE was cancelled. */
gboolean as_trace_attention_pool (float *out, const AsTrace *t, int layer, int head, int k,
                                  AsPool pool, int n_threads, GCancellable *cancellable);

/* MATRIX [N_ROWS][N_COLS] (a mean over heads, a rollout) pooled in blocks of K × K into OUT
 * [⌈N_ROWS/K⌉][⌈N_COLS/K⌉]. */
void as_matrix_pool (float *out, const float *matrix, int n_rows, int n_cols, int k, AsPool pool);

G_END_DECLS
