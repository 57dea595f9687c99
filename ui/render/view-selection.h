/* view-selection.h — what a figure builder is told besides the data: the view selection the
 * window's pages share (and the command line's export options spell out), the texts a figure is
 * about, the attention of a trace with its aggregates, and the rules every builder follows for
 * titles and colour ranges (ui/README.md, "Figure builders").
 *
 * Colour ranges — one rule: values that cannot be negative (attention weights, rollout, cosine
 * similarities that are all ≥ 0) span [0, 1], or with autoscale the data's [min, max] (seaborn's
 * default; of attention over the cells that hold a value, without a causal model's first row);
 * values with both signs (cosine similarities with a negative one) are drawn in the diverging map
 * on [−1, 1], or with autoscale on ±max|v|; differences always on ±max|d| rounded up to 2
 * decimals (at least ±0.01). */
#pragma once

#include <glib.h>

#include "as-compare.h"
#include "as-trace.h"
#include "figure-subtitle.h"
#include "heatmap-render.h"
#include "segments.h"
#include "token-label.h"

G_BEGIN_DECLS

/* What the attention views show for a layer (same values as the GUI's AttnscopeAggregate). */
typedef enum
{
  AR_AGGREGATE_HEAD,    /* one head */
  AR_AGGREGATE_MEAN,    /* mean over the heads of the layer */
  AR_AGGREGATE_ROLLOUT, /* attention rollout through the layer */
} ArAggregate;

/* Which attention of a translation (encoder–decoder) trace a view shows; decoder-only and
 * encoder-only models have only AR_ATTENTION_SELF. */
typedef enum
{
  AR_ATTENTION_SELF,    /* the trace's own self-attention: a translation model's decoder */
  AR_ATTENTION_ENCODER, /* a translation model's encoder self-attention (trace->source) */
  AR_ATTENTION_CROSS,   /* the decoder's attention to the source (trace->cross_attn) */
} ArAttentionKind;

typedef struct
{
  int layer, head; /* 0-based, as everywhere */
  ArAggregate aggregate;
  int selected_token;  /* outlined in the figures; -1 for none */
  ArColormap colormap; /* the sequential map */
  ArAnnotate annotate; /* cell values */
  gboolean raw_tokens; /* vocabulary strings instead of readable labels */
  gboolean autoscale;  /* colours span the data's range (see above) */
  /* With autoscale, each panel of a comparison and each thumbnail of the heads grid gets its own
   * range instead of one shared range. */
  gboolean autoscale_each;
  gboolean normalize_rows; /* attention: each query's row divided by its largest weight */
  gboolean log_colors;     /* colours on a log scale (heatmap-render.h) */
  gboolean pool_words;     /* attention and similarity between words (as-word-spans.h) */
  gboolean no_space_marks; /* token labels without '␣' (token-label.h) */
  ArLabelMode labels;      /* tick labels: thinned, all, or one per word */
  AsAlign alignment;       /* of a comparison (as-compare.h): by token or by position */
  ArAttentionKind kind;    /* translation models: encoder, decoder or cross-attention */
  ArSegments segments;     /* attention of a pair: the sentence filter (segments.h) */
  gboolean pool_mean;      /* a long text's pooled blocks: their mean, not their maximum */
  /* attention weighted by what each key writes, α_ij · ‖f_h(x_j)‖ (as-attention-norms.h), where
   * the attention's key_norms are there: one head and the mean over heads, not the rollout */
  gboolean norm_weighted;
  /* the query–key view's q row: the query before RoPE (RoPE families), not as the scores use it */
  gboolean qk_before_rope;
} ArViewSelection;

/* Layer 0, head 0, one head, nothing selected, YlGnBu, AUTO annotation, readable labels, no
 * autoscale, linear colours, tokens, thinned labels, token alignment, both sentences of a pair
 * (the command line's defaults). */
void ar_view_selection_init (ArViewSelection *view);

gboolean ar_view_selection_equal (const ArViewSelection *a, const ArViewSelection *b);

/* The token-label flags VIEW asks for (raw tokens, space marks). */
ArTokenLabelFlags ar_view_selection_label_flags (const ArViewSelection *view);

/* The attention of one trace and what core computed from it (NULL until computed): the mean over
 * heads and rollout (as-rollout.h), the ranges (as_trace_attention_ranges, as-attention-ranges.h:
 * RANGE points at its first two values, HEAD_RANGES at the rest). */
typedef struct
{
  const AsTrace *trace;
  const float *mean_heads;   /* [L][T][T] */
  const float *rollout;      /* [L][T][T] */
  const double *range;       /* [2] min and max of all of the trace's attention weights */
  const double *head_ranges; /* [L][H][2] min and max of each head's, or NULL */
  /* [L][H][P][P] every head pooled for the heads grid when the trace computes its attention on
   * demand (attention-thumbnails.h), or NULL */
  const float *thumbnails;
  /* [P][P] the view's head pooled for a long text's heatmap (attention-overview.h), computed off
   * the UI thread, or NULL: computed in line */
  const float *overview;
  /* [L][H][T] ‖f_h(x_j)‖, each key's value through head h's output projection
   * (as-attention-norms.h), or NULL: a view with norm_weighted scales head h's column j by it */
  const float *key_norms;
  /* [L][H] each head's share of its layer's attention output (as-attention-norms.h), or NULL:
   * a norm-weighted head's title says it */
  const float *head_shares;
  /* TRUE: MEAN_HEADS and ROLLOUT hold the view's layer alone, [T][T] (a long text's trace on
   * demand gets one layer at a time, computed from tiles: as-rollout-long.h) */
  gboolean one_layer;
  /* with one_layer: the bytes MEAN_HEADS or ROLLOUT point into, or NULL; a figure keeps them
   * instead of copying the [T][T] floats (67 MB at 4,096 tokens) */
  GBytes *layer_values;
} ArAttention;

/* The [T][T] matrix VIEW names in ATTENTION: head (layer, head) of the trace, or the layer's slice
 * of the mean or the rollout; NULL when that aggregate is missing. With VIEW's norm_weighted and
 * ATTENTION's key_norms, a head's key column j is scaled by ‖f_h(x_j)‖ and the mean is the mean of
 * the heads so weighted (always a new array); the rollout stays the weights'. Borrowed from the
 * trace or ATTENTION, or — a head of a trace that computes its attention on demand — computed into
 * a new array stored in *OWNED (g_free it; NULL when nothing was allocated). */
const float *ar_attention_matrix (const ArAttention *attention, const ArViewSelection *view,
                                  float **owned);

/* What VIEW's matrix in ATTENTION is made of, without computing anything: the aggregate's array
 * (mean, rollout) or the trace (a head); NULL when ar_attention_matrix would give NULL. Two views
 * of the same layer and head with the same key show the same values. */
gconstpointer ar_attention_key (const ArAttention *attention, const ArViewSelection *view);

/* Whether VIEW's matrix of ATTENTION is norm-weighted (ar_attention_matrix): VIEW asks for it,
 * ATTENTION has the key norms, and the aggregate is one head or the mean. */
gboolean ar_attention_norm_weighted (const ArAttention *attention, const ArViewSelection *view);

/* The title of VIEW's attention figure for a model with N_HEADS query heads sharing N_KV_HEADS
 * key/value heads: "Layer 1 · head 0", with grouped-query attention "Layer 1 · head 5 · key/value
 * head 1"; "Layer 1 · mean over 12 heads", "Attention rollout through layer 1". Newly
 * allocated. */
char *ar_attention_title (const ArViewSelection *view, int n_heads, int n_kv_heads);

/* The key/value head query head HEAD shares when N_HEADS query heads share N_KV_HEADS (< N_HEADS):
 * HEAD / (N_HEADS / N_KV_HEADS), as HF's repeat_kv; -1 without grouped-query attention. */
int ar_kv_head_of (int head, int n_heads, int n_kv_heads);

/* The title of VIEW's attention figure of a trace with N_HEADS query heads sharing N_KV_HEADS
 * for a translation model (TRANSLATION, or VIEW's kind not AR_ATTENTION_SELF): the stack first,
 * "Encoder self-attention · layer 1 · head 0", "Decoder self-attention · layer 1 · mean over 4
 * heads", "Cross-attention · layer 2 · head 3", "Encoder self-attention · rollout through layer
 * 1"; otherwise ar_attention_title. Newly allocated. */
char *ar_attention_kind_title (const ArViewSelection *view, int n_heads, int n_kv_heads,
                               gboolean translation);

/* “TEXT” (typographic quotes). Newly allocated. */
char *ar_quote_text (const char *text);

/* The colour range of VALUES [N] that cannot be negative: [0, 1], or with AUTOSCALE their
 * [min, max] (read only then). */
void ar_sequential_range (const float *values, gsize n, gboolean autoscale, double *vmin,
                          double *vmax);

/* The colour range of VALUES [N] that may have both signs: sequential as above when none is
 * negative, else diverging (*DIVERGING) on [−1, 1] or with AUTOSCALE ±max|v|. */
void ar_signed_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax,
                      gboolean *diverging);

/* As ar_signed_range, from the values' smallest and largest finite value FINITE_RANGE [2]
 * (as_finite_range) computed beforehand. */
void ar_signed_range_of (const double *finite_range, gboolean autoscale, double *vmin, double *vmax,
                         gboolean *diverging);

/* The symmetric range ±R of a difference: R = max|d| rounded up to 2 significant digits (0.0034
 * → 0.0034, 0.047 → 0.047, 0.3 → 0.3), at least 1e-4; NaN entries are skipped. */
double ar_difference_range (const float *diff, gsize n);

/* The colour range of FIG's values (that cannot be negative) under VIEW: [0, 1], or with
 * autoscale their [min, max]; for log colours a lower end above 0 (the smallest positive value,
 * at least 1e-4 of the upper end; 1e-3 on the fixed range [0, 1]). Over the cells that hold a
 * value (masked cells and NaN left out) — and without rows that hold only one value (a causal
 * model's first token can only attend to itself: its weight is 1 and says nothing about the
 * head), unless every row is such a row. */
void ar_heatmap_view_range (const ArViewSelection *view, const ArHeatmapFigure *fig, double *vmin,
                            double *vmax);

/* OUT [ROWS][COLS] = VALUES with each row divided by its largest entry (rows of zeros stay 0). */
void ar_normalize_rows (float *out, const float *values, int rows, int cols);

G_END_DECLS
