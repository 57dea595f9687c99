/* attention-figure.h — the builders of the attention figures: one layer's attention as a heatmap
 * (a head, the mean over the heads, or the rollout: what the attention page shows and
 * `attnscope export --layer/--head|--mean|--rollout` writes), and every head of the model as a
 * grid (the heads page, `export --grid`).
 *
 * Builders take results already computed (the mean and rollout of ArAttention, the head
 * statistics), so the window computes them off its UI thread and the command line in line; a
 * builder only arranges them. Titles and colour ranges follow view-selection.h. */
#pragma once

#include "as-head-stats.h"
#include "built-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The heatmap of VIEW's layer in ATTENTION: queries as rows, keys as columns, token labels on
 * both axes, the selected token's row and column outlined, the future of a causal model greyed (a
 * bidirectional trace, an encoder's, is a full square). For a pair, VIEW's segments keep the
 * block of one sentence's queries and one sentence's keys (segments.h; the title says
 * "· sentences A → B"; with pool_words the block of those words).
 * With VIEW's pool_words the words instead of the tokens (as-word-spans.h: key tokens summed, query
 * tokens averaged; the title says "· words"); with normalize_rows each row divided by its largest
 * weight; log colours as VIEW says (view-selection.h, ar_heatmap_view_range). NULL when the
 * aggregate VIEW needs is not in ATTENTION yet. VIEW's layer and head must be in range. */
ArBuiltFigure *ar_build_attention_figure (const ArAttention *attention, const ArViewSelection *view,
                                          const ArFigureTexts *texts);

/* Every head of ATTENTION's trace as thumbnails labelled with its pattern from STATS (of that
 * trace), one colour range for all (with autoscale ATTENTION's range; with autoscale_each each
 * head its own range), the view's head outlined when it shows one head. NULL when autoscale needs
 * the ranges and ATTENTION has none yet. */
ArBuiltFigure *ar_build_grid_figure (const ArAttention *attention, const AsHeadStats *stats,
                                     const ArViewSelection *view, const ArFigureTexts *texts);

/* What a heads grid shows: ATTN [L][H][T][n_keys] of TRACE (its self-attention, or its
 * cross-attention with N_KEYS source tokens; 0: T), the causal mask or not, the colour ranges of
 * autoscale (RANGE [2], HEAD_RANGES [L][H][2]) and the title. */
typedef struct
{
  const AsTrace *trace;
  const float *attn;
  int n_keys, n_kv_heads;
  gboolean causal;
  const double *range, *head_ranges;
  const char *title;        /* static */
  const int *layer_windows; /* [L] each layer's causal sliding window (0: none), or NULL */
} ArHeadsGridSource;

/* The grid both heads-grid builders draw (ar_build_grid_figure, ar_build_cross_grid_figure)
 * without its labels: thumbnails, colours and ranges as VIEW says, the view's head outlined, the
 * colour-bar label. The caller adds the labels, then sets the built figure's `figure` with
 * ar_figure_from_grid. NULL when autoscale needs the ranges and SOURCE has none yet. */
ArBuiltFigure *ar_build_heads_grid (const ArHeadsGridSource *source, const ArViewSelection *view,
                                    const ArFigureTexts *texts);

/* The title of a heads grid: "All heads", or for a translation model (TRANSLATION, or VIEW's
 * kind not AR_ATTENTION_SELF) the stack first: "Cross-attention · all heads". Static. */
const char *ar_all_heads_title (const ArViewSelection *view, gboolean translation);

G_END_DECLS
