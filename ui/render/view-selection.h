/* view-selection.h — what a figure builder is told besides the data: the view selection the
 * window's pages share (and the command line's export options spell out), the texts a figure is
 * about, the attention of a trace with its aggregates, and the rules every builder follows for
 * titles and colour ranges (ui/README.md, "Figure builders").
 *
 * Colour ranges — one rule: values that cannot be negative (attention weights, rollout, cosine
 * similarities that are all ≥ 0) span [0, 1], or with autoscale the data's [min, max] (seaborn's
 * default); values with both signs (cosine similarities with a negative one) are drawn in the
 * diverging map on [−1, 1], or with autoscale on ±max|v|; differences always on ±max|d| rounded
 * up to 2 decimals (at least ±0.01). */
#pragma once

#include <glib.h>

#include "as-trace.h"
#include "heatmap-render.h"

G_BEGIN_DECLS

/* What the attention views show for a layer (same values as the GUI's AttnscopeAggregate). */
typedef enum
{
  AR_AGGREGATE_HEAD,    /* one head */
  AR_AGGREGATE_MEAN,    /* mean over the heads of the layer */
  AR_AGGREGATE_ROLLOUT, /* attention rollout through the layer */
} ArAggregate;

typedef struct
{
  int layer, head; /* 0-based, as everywhere */
  ArAggregate aggregate;
  int selected_token;  /* outlined in the figures; -1 for none */
  ArColormap colormap; /* the sequential map */
  ArAnnotate annotate; /* cell values */
  gboolean raw_tokens; /* vocabulary strings instead of readable labels */
  gboolean autoscale;  /* colours span the data's range (see above) */
} ArViewSelection;

/* Layer 0, head 0, one head, nothing selected, YlGnBu, AUTO annotation, readable labels, no
 * autoscale (the command line's defaults). */
void ar_view_selection_init (ArViewSelection *view);

gboolean ar_view_selection_equal (const ArViewSelection *a, const ArViewSelection *b);

/* What a figure is about, for its title block: the model's name and the texts (NULL: none). */
typedef struct
{
  const char *model_name;
  const char *text;
  const char *compare_text;
} ArFigureTexts;

/* The attention of one trace and what is computed from it (NULL until computed). */
typedef struct
{
  const AsTrace *trace;
  const float *mean_heads; /* [L][T][T] */
  const float *rollout;    /* [L][T][T] */
  const double *range;     /* [2] min and max of all of the trace's attention weights */
} ArAttention;

/* RANGE [2] = min and max of every attention weight of TRACE (what ArAttention.range holds). */
void ar_attention_range (double range[2], const AsTrace *trace);

/* The [T][T] matrix VIEW names in ATTENTION: head (layer, head) of the trace, or the layer's slice
 * of the mean or the rollout; NULL when that aggregate is missing. Borrowed. */
const float *ar_attention_matrix (const ArAttention *attention, const ArViewSelection *view);

/* The title of VIEW's attention figure for a model with N_HEADS query heads sharing N_KV_HEADS
 * key/value heads: "Layer 1 · head 0", with grouped-query attention "Layer 1 · head 5 · key/value
 * head 1"; "Layer 1 · mean over 12 heads", "Attention rollout through layer 1". Newly
 * allocated. */
char *ar_attention_title (const ArViewSelection *view, int n_heads, int n_kv_heads);

/* The key/value head query head HEAD shares when N_HEADS query heads share N_KV_HEADS (< N_HEADS):
 * HEAD / (N_HEADS / N_KV_HEADS), as HF's repeat_kv; -1 without grouped-query attention. */
int ar_kv_head_of (int head, int n_heads, int n_kv_heads);

/* "model · “text”", or the model's name alone when TEXT is NULL. Newly allocated. */
char *ar_figure_subtitle (const char *model_name, const char *text);

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

/* The symmetric range ±R of a difference: R = max|d| rounded up to 2 decimals, at least 0.01. */
double ar_difference_range (const float *diff, gsize n);

G_END_DECLS
