/* as-ablation.h — switching heads and MLPs off (zero or mean ablation), a chosen logit or the
 * loss as the measure of what that changes, and the scan of every single head's effect.
 *
 * A head is switched off by replacing its context (its attention-weighted values, before the
 * output projection) with zeros or with its mean over a reference set of texts; an MLP by
 * replacing its output the same way (AsIntervention, as-forward.h). */
#pragma once

#include "as-forward.h"

G_BEGIN_DECLS

typedef enum
{
  AS_ABLATION_ZERO,
  AS_ABLATION_MEAN,
} AsAblationKind;

/* What was switched off, for a model of L layers and H heads. */
typedef struct
{
  int n_layer, n_head;
  guint8 *heads; /* [L][H] */
  guint8 *mlps;  /* [L] */
  int n_heads_off, n_mlps_off;
} AsAblationSet;

AsAblationSet *as_ablation_set_new (int n_layer, int n_head);
void as_ablation_set_free (AsAblationSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsAblationSet, as_ablation_set_free)

/* Adds the comma-separated SPEC ("0.3,2.5,mlp3": layer.head, or mlpLAYER; counted from 0) to
 * SET. Fails (AS_ERROR_INPUT) on an entry of another form, or a head or layer the model does not
 * have: the message names the entry and the model's L and H. */
gboolean as_ablation_set_parse (AsAblationSet *set, const char *spec, GError **error);

/* "zero" or "mean" into *KIND; fails naming VALUE and the two choices. */
gboolean as_ablation_kind_parse (const char *value, AsAblationKind *kind, GError **error);

/* The mean context of every head and the mean output of every MLP over all positions of TEXTS
 * [N_TEXTS] (each tokenized as as_forward_text does, a text longer than the context refused), in
 * double-precision sums: head_means [L][H][hd], mlp_means [L][D] (g_free both). Fails on no
 * texts (naming WHAT, e.g. the file), a text the pass refuses, or a translation model. */
gboolean as_ablation_means (AsModel *model, char *const *texts, int n_texts, const char *what,
                            float **head_means, float **mlp_means, GError **error);

/* The intervention that ablates SET as KIND (MEANS from as_ablation_means for AS_ABLATION_MEAN,
 * else NULL): points into SET and the means, which must outlive it. */
AsIntervention as_ablation_intervention (const AsAblationSet *set, AsAblationKind kind,
                                         const float *head_means, const float *mlp_means);

typedef enum
{
  AS_METRIC_LOGIT,      /* the logit of token_id at the last position */
  AS_METRIC_LOGIT_DIFF, /* logit(token_id) − logit(vs_id) at the last position */
  AS_METRIC_LOSS,       /* mean next-token cross-entropy (nats) over the tokens at positions
                         * loss_from.. (0 or 1: every predicted token) */
} AsMetricKind;

typedef struct
{
  AsMetricKind kind;
  int32_t token_id, vs_id;
  int loss_from;
} AsMetric;

/* Whether METRIC needs the logits of every position (the loss). */
gboolean as_metric_all_logits (const AsMetric *metric);

/* METRIC on TRACE (made with as_metric_all_logits' choice). */
double as_metric_value (const AsMetric *metric, const AsTrace *trace);

/* Statistics of a scan: passes run, and layers computed against the layers a pass from the
 * embeddings would have computed (the prefix reuse). */
typedef struct
{
  int passes;
  gint64 layers_computed, layers_full;
} AsScanStats;

/* effects [L][H]: METRIC with each single head of MODEL ablated as KIND (MEANS as
 * as_ablation_intervention) minus METRIC of the clean pass over IDS [N_IDS]; *CLEAN = the clean
 * value. Each ablated pass starts at the head's layer from the clean pass's residual stream (the
 * layers before are unchanged). STATS may be NULL. Fails as as_forward does, and for the loss on
 * fewer than 2 tokens or a model that does not predict the next token. */
gboolean as_ablation_scan (AsModel *model, const int32_t *ids, int n_ids, const AsMetric *metric,
                           AsAblationKind kind, const float *head_means, const float *mlp_means,
                           double *effects, double *clean, AsScanStats *stats, GError **error);

/* Called after each pass of a scan: DONE of TOTAL heads measured (0 after the clean pass). */
typedef void (*AsScanProgress) (int done, int total, gpointer user_data);

/* As as_ablation_scan, stopping (AS_ERROR cancelled, as as_forward does) when CANCELLABLE (may be
 * NULL) is cancelled, and calling PROGRESS (may be NULL) in the scan's thread after each pass. */
gboolean as_ablation_scan_full (AsModel *model, const int32_t *ids, int n_ids,
                                const AsMetric *metric, AsAblationKind kind,
                                const float *head_means, const float *mlp_means,
                                GCancellable *cancellable, AsScanProgress progress,
                                gpointer user_data, double *effects, double *clean,
                                AsScanStats *stats, GError **error);

/* What every pass of a scan or a patching run changes in the model and how the run is watched;
 * zeroed: the model as it is, not cancellable, not told.
 *   - base: heads and MLPs switched off in every pass (the window's switched-off heads, the
 *     command line's --ablate), as KIND with the means (the scan's own ablations are made the
 *     same way); the clean value is the base-ablated model's. A head of the scan that BASE
 *     already switches off has the effect 0 (no pass is run for it).
 *   - no_positions: every pass leaves out the positions (AsForwardOptions.no_positions).
 *   - cancellable: checked between layers and between passes (AS_ERROR cancelled, as as_forward
 *     fails: AS_ERROR_CANCELLED); progress: called in the run's thread after each pass. */
typedef struct
{
  AsAblationKind kind;
  const float *head_means; /* [L][H][hd] for AS_ABLATION_MEAN, else NULL */
  const float *mlp_means;  /* [L][D] for AS_ABLATION_MEAN, else NULL */
  const AsAblationSet *base;
  gboolean no_positions;
  GCancellable *cancellable;
  AsScanProgress progress;
  gpointer user_data;
} AsScanOptions;

/* As as_ablation_scan_full with OPTIONS (may be NULL: zero ablation of the model as it is). */
gboolean as_ablation_scan_with (AsModel *model, const int32_t *ids, int n_ids,
                                const AsMetric *metric, const AsScanOptions *options,
                                double *effects, double *clean, AsScanStats *stats, GError **error);

G_END_DECLS
