/* cli-export-long.h — `attnscope export --mean L | --rollout L` of a long text: when the trace
 * computes its attention on demand and the figure would be a pooled overview (more than
 * AR_OVERVIEW_CELLS tokens: attention-overview.h), the layer's mean over heads is pooled from
 * strips of tiles (as_trace_mean_heads_pool) and the rollout computed for that one layer
 * (as_trace_rollout_layer, after as_rollout_check), never the [L][T][T] arrays of every layer. The
 * figure is the head overview's, titled and labelled as the aggregate. */
#pragma once

#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* Seconds a rollout may be estimated to take before `export` refuses it (as_rollout_check);
 * $ATTNSCOPE_ROLLOUT_MAX_SECONDS overrides it (tests). */
#define CLI_ROLLOUT_MAX_SECONDS 300.0

/* Whether VIEW's attention figure of TRACE is a long text's mean or rollout drawn pooled: the
 * trace computes its attention on demand, holds more than AR_OVERVIEW_CELLS tokens, tokens (not
 * words), no sentence filter, the mean or the rollout of its self-attention. */
gboolean cli_export_long_aggregate (const AsTrace *trace, const ArViewSelection *view);

/* VIEW's mean or rollout of TRACE pooled as the heatmap's overview pools a head (max, or mean with
 * VIEW's pool_mean; not norm-weighted: the overview reads the weights' tiles). NULL with
 * AS_ERROR_INPUT (as_rollout_check's message) when the rollout would take longer than
 * CLI_ROLLOUT_MAX_SECONDS, or AS_ERROR_MEMORY. */
ArBuiltFigure *cli_export_long_figure (const AsTrace *trace, const ArViewSelection *view,
                                       const ArFigureTexts *texts, GError **error);

G_END_DECLS
