/* attnscope-analysis-private.h — the analysis cache's job (attnscope-analysis.c), and the jobs
 * of a long text's attention that attnscope-analysis-long.c computes. */
#pragma once

#include "attnscope-analysis.h"

G_BEGIN_DECLS

/* One computation: its kind, its key (the kind and its parameters as a string) and its inputs. */
typedef struct
{
  AttnscopeResult kind;
  char *key;
  AsTrace *trace;    /* owned */
  AsTrace *other;    /* owned, or NULL */
  GPtrArray *others; /* AsTrace, owned: the sentences after this trace's (projections), or NULL */
  AsVectorSource source;
  int layer, head, attention_head;
  gboolean words; /* similarity between words (as-word-spans.h) */
  AsProjectionMethod method;
  AsModel *model;     /* owned, or NULL: masked predictions read its tokenizer */
  int k;              /* masked predictions: how many per mask; an overview: the block side */
  gboolean pool_mean; /* an overview: block means, not maxima */
  GCancellable *cancellable;
  AttnscopeAnalysis *analysis; /* for progress messages; the task keeps it alive */
  GDestroyNotify free_value;   /* set by the thread with its result */
  gboolean one_layer;          /* a mean or rollout of LAYER alone (a long text's) */
  int done, total;             /* ... its steps so far (atomic) */
} Job;

/* A head pooled for the heatmap of a long text ([P][P], freed with g_free); NULL when
 * cancelled. */
gpointer attnscope_analysis_compute_overview (Job *job);

/* A long text's mean over heads (ATTNSCOPE_RESULT_MEAN_HEADS) or rollout of JOB's layer alone,
 * [T][T] as GBytes that figures share (ArAttention.layer_values; JOB->free_value set); NULL when
 * cancelled, or with ERROR when as_rollout_check refuses the rollout. */
GBytes *attnscope_analysis_compute_layer (Job *job, GError **error);

G_END_DECLS
