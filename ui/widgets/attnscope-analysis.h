/* attnscope-analysis.h — a trace and everything the pages compute from it, computed off the UI
 * thread and cached: the analysis cache (one per trace; the session makes a new one when a trace
 * lands).
 *
 * The want_ functions never compute: they return a result that is there, and otherwise start
 * computing it in a GTask thread (once: asking again while it runs changes nothing) and return
 * NULL. When a result arrives "ready" is emitted with its kind; the page asks again and finds
 * it. Each kind computes one thing at a time: a request for another key while one runs waits,
 * and only the newest waiting request starts when the running one ends, so stepping through
 * layers never piles up work. Results are kept for the life of the trace (the similarity
 * matrices, the largest, the last ATTNSCOPE_ANALYSIS_KEEP_SIMILARITY of them). A computation that
 * fails is remembered with its message (*FAILURE). attnscope_analysis_cancel() drops what runs
 * and waits; a cancelled computation never lands. "busy" is TRUE while anything runs. */
#pragma once

#include <gio/gio.h>

#include "as-attention-norms.h"
#include "as-compare.h"
#include "as-head-stats.h"
#include "as-predict.h"
#include "attnscope-types.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_ANALYSIS (attnscope_analysis_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeAnalysis, attnscope_analysis, ATTNSCOPE, ANALYSIS, GObject)

/* What is computed. */
typedef enum
{
  ATTNSCOPE_RESULT_MEAN_HEADS,      /* [L][T][T] mean over each layer's heads */
  ATTNSCOPE_RESULT_ROLLOUT,         /* [L][T][T] attention rollout */
  ATTNSCOPE_RESULT_ATTENTION_RANGE, /* min and max of all attention weights, and of each head's */
  ATTNSCOPE_RESULT_HEAD_STATS,      /* entropy, shares and pattern of every head */
  ATTNSCOPE_RESULT_SIMILARITY,      /* per vectors, layer and head: AttnscopeSimilarity */
  ATTNSCOPE_RESULT_COMPARISON,      /* per second trace: AsComparison */
  ATTNSCOPE_RESULT_PROJECTION,      /* per other traces, vectors, layer, head, method */
  ATTNSCOPE_RESULT_MASKED,          /* the predictions at the mask tokens: AttnscopeMasked */
  ATTNSCOPE_RESULT_THUMBNAILS,      /* [L][H][P][P] the heads pooled, of a trace on demand */
  ATTNSCOPE_RESULT_OVERVIEW, /* per head, block side, pooling: [P][P] (attention-overview.h) */
  ATTNSCOPE_RESULT_NORMS,    /* what each key writes: AsAttentionNorms */
  ATTNSCOPE_N_RESULTS,
} AttnscopeResult;

#define ATTNSCOPE_ANALYSIS_KEEP_SIMILARITY 8

/* The similarity of one vector set and the attention that belongs with it
 * (as_trace_vectors_attention); of the words when asked (as-word-spans.h: mean vectors, pooled
 * attention). */
typedef struct
{
  const float *similarity; /* [T][T], or [W][W]: the data of values */
  GBytes *values;          /* the similarity, shared with the figures that show it */
  double range[2];         /* its smallest and largest finite value */
  float *attention;        /* [T][T] rows = queries, or [W][W] */
} AttnscopeSimilarity;

/* The predictions at the mask tokens of a trace (as_predict_masked). */
typedef struct
{
  AsMaskedPrediction *masks; /* [n_masks] */
  int n_masks;
} AttnscopeMasked;

/* An analysis of TRACE, which came from TEXT (and PAIR, the second text of a sentence pair, or
 * NULL); TRUNCATED: the trace holds only the first tokens of the text. */
AttnscopeAnalysis *attnscope_analysis_new (AsTrace *trace, const char *text, const char *pair,
                                           gboolean truncated);

AsTrace *attnscope_analysis_get_trace (AttnscopeAnalysis *self);
const char *attnscope_analysis_get_text (AttnscopeAnalysis *self);
const char *attnscope_analysis_get_pair (AttnscopeAnalysis *self);
/* What figures quote: the text, or for a pair "TEXT ‖ PAIR", and of a truncated text the part
 * the trace's tokens stand for (ar_shown_text). */
const char *attnscope_analysis_get_shown_text (AttnscopeAnalysis *self);
gboolean attnscope_analysis_get_truncated (AttnscopeAnalysis *self);

/* The top-K predictions at every mask token of a masked-LM encoder's trace (as_predict_masked
 * with MODEL's tokenizer; the computation holds a reference to MODEL, the trace's model);
 * *FAILURE says why there are none (no mask in the text, no masked-LM head). */
/* The attention norms of the trace (as_attention_norms_of_trace with MODEL, the trace's model,
 * which the computation holds a reference to: a pass with q, k and v captured, then dropped);
 * *FAILURE says why there are none (a translation model, no output projection). */
const AsAttentionNorms *attnscope_analysis_want_norms (AttnscopeAnalysis *self, AsModel *model,
                                                       const char **failure);

const AttnscopeMasked *attnscope_analysis_want_masked (AttnscopeAnalysis *self, AsModel *model,
                                                       int k, const char **failure);
gboolean attnscope_analysis_get_busy (AttnscopeAnalysis *self);

/* ATTENTION = the trace with what is computed of it; asks for the mean over heads or the rollout
 * when AGGREGATE needs one, and for the attention ranges (all weights' and each head's) when
 * RANGE. */
void attnscope_analysis_want_attention (AttnscopeAnalysis *self, ArAggregate aggregate,
                                        gboolean range, ArAttention *attention);

const AsHeadStats *attnscope_analysis_want_head_stats (AttnscopeAnalysis *self);

/* TRUE when the trace computes its attention on demand and has more than AR_OVERVIEW_CELLS
 * tokens: its mean over heads and rollout are computed one layer at a time. */
gboolean attnscope_analysis_layer_aggregates (AttnscopeAnalysis *self);

/* As attnscope_analysis_want_attention (VIEW's aggregate, no ranges), at VIEW's layer: when
 * attnscope_analysis_layer_aggregates, only that layer's mean over heads or rollout, [T][T],
 * computed from tiles off the UI thread (as-rollout-long.h; ATTENTION's one_layer set), the
 * rollout after as_rollout_check, whose refusal (naming the tokens and the time) is *FAILURE
 * (may be NULL; NULL when nothing failed). Otherwise want_attention's whole [L][T][T] arrays. */
void attnscope_analysis_want_layer_attention (AttnscopeAnalysis *self, const ArViewSelection *view,
                                              ArAttention *attention, const char **failure);

/* How far the running layer mean or rollout of AGGREGATE is, 0 to 1, or -1 when none runs. */
double attnscope_analysis_get_layer_progress (AttnscopeAnalysis *self, ArAggregate aggregate);

/* Sets ATTENTION's thumbnails for the heads grid when the trace computes its attention on demand
 * (attention-thumbnails.h; NULL while they are computed, off the UI thread); nothing when it holds
 * the matrices. */
void attnscope_analysis_want_thumbnails (AttnscopeAnalysis *self, ArAttention *attention);

/* Sets ATTENTION's overview: VIEW's head pooled in blocks of K × K (attention-overview.h),
 * computed off the UI thread (NULL meanwhile). */
void attnscope_analysis_want_overview (AttnscopeAnalysis *self, const ArViewSelection *view, int k,
                                       ArAttention *attention);

/* The similarity of SOURCE at LAYER/HEAD (core numbering) with the attention of ATTENTION_HEAD
 * (-1: the mean over heads; see as_trace_vectors_attention); between WORDS when asked. */
const AttnscopeSimilarity *attnscope_analysis_want_similarity (AttnscopeAnalysis *self,
                                                               AsVectorSource source, int layer,
                                                               int head, int attention_head,
                                                               gboolean words,
                                                               const char **failure);

/* The comparison of this trace (A) with OTHER (B). */
const AsComparison *attnscope_analysis_want_comparison (AttnscopeAnalysis *self, AsTrace *other,
                                                        const char **failure);

/* The projection of the vectors of this trace's tokens followed by those of OTHERS [N_OTHERS]
 * (the other sentences of the embeddings page; projection-figure.h). "progress" reports t-SNE's
 * iterations and UMAP's epochs. */
const AsProjection *attnscope_analysis_want_projection (AttnscopeAnalysis *self,
                                                        AsTrace *const *others, int n_others,
                                                        AsVectorSource source, int layer, int head,
                                                        AsProjectionMethod method,
                                                        const char **failure);

/* TRUE while a computation of KIND runs or waits. */
gboolean attnscope_analysis_get_pending (AttnscopeAnalysis *self, AttnscopeResult kind);

/* Stops the computations of KIND (ATTNSCOPE_N_RESULTS: of every kind). */
void attnscope_analysis_cancel (AttnscopeAnalysis *self, AttnscopeResult kind);

G_END_DECLS
