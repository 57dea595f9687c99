/* as-forward-dump.h — a trace of a model written to HDF5 as `attnscope run --dump` writes it
 * (as-trace-dump.h), with every position's logits whether or not the pass kept them. */
#pragma once

#include "as-model.h"
#include "as-trace-dump.h"

G_BEGIN_DECLS

/* Writes TRACE (one MODEL made; a pass without all_logits keeps the last position's logits only)
 * to PATH as as_trace_dump_h5_select does, with SELECTION (may be NULL: everything), MODEL's name
 * and model type as the root attributes, and `logits` [T][V] read out of hidden[L] through MODEL's
 * output head 64 rows at a time while the file is written (as_forward_read_out), never held
 * whole. Fails as as_trace_dump_h5_select and as_forward_read_out do; no file is left then. */
gboolean as_forward_dump_h5 (AsModel *model, const AsTrace *trace,
                             const AsTraceDumpSelection *selection, const char *path,
                             AsOutputFlags flags, GError **error);

G_END_DECLS
