/* attnscope-analysis.c — the analysis cache of one trace (see attnscope-analysis.h).
 *
 * A job is one computation: its kind, its key (the kind and its parameters as a string) and its
 * inputs, owning references to the traces. Per kind at most one job runs (self->running) and one
 * waits (self->waiting, replaced by a newer request). A finished job's result, or its failure,
 * becomes an entry of the cache under its key, unless the job was cancelled. */
#include "attnscope-analysis.h"

#include "attnscope-analysis-private.h"

#include "attnscope-background.h"

#include "as-attention-ranges.h"
#include "as-rollout.h"
#include "attention-overview.h"
#include "as-similarity.h"
#include "pair-text.h"
#include "as-word-spans.h"
#include "attention-thumbnails.h"

typedef struct
{
  gpointer value; /* NULL when the computation failed */
  GDestroyNotify free_value;
  char *failure;
  AsTrace *other;    /* owned: keeps the key's trace address unique while the entry lives */
  GPtrArray *others; /* the same for the traces of a projection's other sentences */
} Entry;

struct _AttnscopeAnalysis
{
  GObject parent_instance;

  AsTrace *trace;
  char *text, *pair, *shown_text;
  gboolean truncated;                /* the trace holds the first tokens of the text only */
  GHashTable *entries;               /* key → Entry */
  GQueue order[ATTNSCOPE_N_RESULTS]; /* keys of the entries of each kind, oldest first */
  Job *running[ATTNSCOPE_N_RESULTS]; /* owned by its task */
  Job *waiting[ATTNSCOPE_N_RESULTS]; /* owned */
  gboolean busy;
};

G_DEFINE_FINAL_TYPE (AttnscopeAnalysis, attnscope_analysis, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BUSY,
  N_PROPS
};

enum
{
  READY,
  PROGRESS,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* ---- jobs ---- */

static Job *
job_new (AttnscopeAnalysis *self, AttnscopeResult kind, AsTrace *other, char *key)
{
  Job *job = g_new0 (Job, 1);
  job->kind = kind;
  job->key = key;
  job->trace = as_trace_ref (self->trace);
  job->other = other != NULL ? as_trace_ref (other) : NULL;
  job->cancellable = g_cancellable_new ();
  job->analysis = self;
  return job;
}

static void
job_free (Job *job)
{
  if (job == NULL)
    return;
  g_free (job->key);
  g_clear_pointer (&job->trace, as_trace_unref);
  g_clear_pointer (&job->other, as_trace_unref);
  g_clear_pointer (&job->others, g_ptr_array_unref);
  g_clear_pointer (&job->model, as_model_unref);
  g_clear_object (&job->cancellable);
  g_free (job);
}

static void
entry_free (Entry *entry)
{
  if (entry->value != NULL)
    entry->free_value (entry->value);
  g_free (entry->failure);
  g_clear_pointer (&entry->other, as_trace_unref);
  g_clear_pointer (&entry->others, g_ptr_array_unref);
  g_free (entry);
}

static void
similarity_free (AttnscopeSimilarity *s)
{
  g_bytes_unref (s->values);
  g_free (s->attention);
  g_free (s);
}

static AttnscopeSimilarity *
compute_similarity (const Job *job, GError **error)
{
  const AsTrace *t = job->trace;
  g_autofree float *attention = g_new (float, (gsize) t->n_tokens * t->n_tokens); /* [T][T] */
  if (!as_trace_vectors_attention (attention, t, job->source, job->layer, job->attention_head,
                                   error))
    return NULL;
  g_autofree float *similarity = NULL;
  int n = t->n_tokens; /* the similarity's side */
  if (job->words)
    {
      g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (t);
      n = spans->n_words;
      similarity = as_word_similarity (t, job->source, job->layer, job->head, spans, error);
      if (similarity == NULL)
        return NULL;
      float *pooled = g_new (float, (gsize) spans->n_words * spans->n_words); /* [W][W] */
      as_word_pool_attention (pooled, attention, spans);
      g_free (attention);
      attention = pooled;
    }
  else if ((similarity = as_trace_similarity (t, job->source, job->layer, job->head, error))
           == NULL)
    return NULL;
  AttnscopeSimilarity *s = g_new (AttnscopeSimilarity, 1);
  gsize nn = (gsize) n * n;
  as_finite_range (similarity, nn, &s->range[0], &s->range[1]);
  s->values = g_bytes_new_take (g_steal_pointer (&similarity), nn * sizeof (float));
  s->similarity = g_bytes_get_data (s->values, NULL);
  s->attention = g_steal_pointer (&attention);
  return s;
}

typedef struct
{
  AttnscopeAnalysis *analysis; /* owned */
  GCancellable *cancellable;   /* owned */
  int done, total;
} ProgressMessage;

static gboolean
progress_deliver (gpointer user_data)
{
  ProgressMessage *msg = user_data;
  if (!g_cancellable_is_cancelled (msg->cancellable))
    g_signal_emit (msg->analysis, signals[PROGRESS], 0, msg->done, msg->total);
  return G_SOURCE_REMOVE;
}

static void
progress_message_free (ProgressMessage *msg)
{
  g_object_unref (msg->analysis);
  g_object_unref (msg->cancellable);
  g_free (msg);
}

/* t-SNE's and UMAP's progress, on the worker thread: passed to the main loop. Always through an
 * idle source: g_main_context_invoke runs the function at once, in the calling thread, whenever
 * that thread can acquire the default context — which a worker can while the main thread is not
 * iterating it — and the progress handler then touched widgets off the main thread (a crash in
 * gtk_widget_set_tooltip_markup on a pool thread). */
static void
projection_progress (int done, int total, gpointer user_data)
{
  const Job *job = user_data;
  ProgressMessage *msg = g_new0 (ProgressMessage, 1);
  msg->analysis = g_object_ref (job->analysis);
  msg->cancellable = g_object_ref (job->cancellable);
  msg->done = done;
  msg->total = total;
  g_idle_add_full (G_PRIORITY_DEFAULT, progress_deliver, msg,
                   (GDestroyNotify) progress_message_free);
}

static void
masked_free (AttnscopeMasked *m)
{
  as_masked_predictions_free (m->masks, m->n_masks);
  g_free (m);
}

static AttnscopeMasked *
compute_masked (const Job *job, GError **error)
{
  int n = 0;
  AsMaskedPrediction *masks
      = as_predict_masked (job->trace, as_model_get_tokenizer (job->model), job->k, &n, error);
  if (masks == NULL)
    return NULL;
  AttnscopeMasked *m = g_new (AttnscopeMasked, 1);
  m->masks = masks;
  m->n_masks = n;
  return m;
}

static AsProjection *
compute_projection (Job *job, GError **error)
{
  int n = 0, dim = 0, n_others = job->others != NULL ? (int) job->others->len : 0;
  g_autofree const AsTrace **traces = g_new (const AsTrace *, 1 + n_others);
  traces[0] = job->trace;
  for (int s = 0; s < n_others; s++)
    traces[1 + s] = job->others->pdata[s];
  ArSentences sentences = { 1 + n_others, traces, NULL };
  ArVectorChoice choice = { job->source, job->layer, job->head };
  g_autofree float *x = ar_projection_vectors (&sentences, &choice, &n, &dim, error);
  if (x == NULL)
    return NULL;
  AsProjectionOptions options;
  as_projection_options_init (&options, job->method);
  options.progress = projection_progress;
  options.user_data = job;
  options.cancellable = job->cancellable;
  return as_projection_run (x, n, dim, &options, error);
}

/* The job's result (JOB->free_value frees it), or NULL with ERROR. */
static gpointer
compute (Job *job, GError **error)
{
  job->free_value = g_free;
  switch (job->kind)
    {
    case ATTNSCOPE_RESULT_MEAN_HEADS:
      if (job->one_layer)
        return attnscope_analysis_compute_layer (job, error);
      return as_trace_mean_heads (job->trace);
    case ATTNSCOPE_RESULT_ROLLOUT:
      if (job->one_layer)
        return attnscope_analysis_compute_layer (job, error);
      return as_trace_rollout (job->trace);
    case ATTNSCOPE_RESULT_ATTENTION_RANGE:
      return as_trace_attention_ranges (job->trace);
    case ATTNSCOPE_RESULT_HEAD_STATS:
      job->free_value = (GDestroyNotify) as_head_stats_free;
      return as_head_stats_compute_cancellable (job->trace, job->cancellable);
    case ATTNSCOPE_RESULT_SIMILARITY:
      job->free_value = (GDestroyNotify) similarity_free;
      return compute_similarity (job, error);
    case ATTNSCOPE_RESULT_COMPARISON:
      job->free_value = (GDestroyNotify) as_comparison_free;
      return as_compare_traces (job->trace, job->other, error);
    case ATTNSCOPE_RESULT_PROJECTION:
      job->free_value = (GDestroyNotify) as_projection_free;
      return compute_projection (job, error);
    case ATTNSCOPE_RESULT_MASKED:
      job->free_value = (GDestroyNotify) masked_free;
      return compute_masked (job, error);
    case ATTNSCOPE_RESULT_THUMBNAILS:
      return ar_attention_thumbnails_new (job->trace, job->cancellable);
    case ATTNSCOPE_RESULT_OVERVIEW:
      return attnscope_analysis_compute_overview (job);
    case ATTNSCOPE_RESULT_NORMS:
      job->free_value = (GDestroyNotify) as_attention_norms_free;
      return as_attention_norms_of_trace (job->model, job->trace, job->cancellable, error);
    case ATTNSCOPE_N_RESULTS:
    default:
      g_assert_not_reached ();
    }
}

static void
job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  attnscope_background_thread ();
  /* A job cancelled before it got a thread is not computed at all. */
  gpointer value = g_cancellable_is_cancelled (cancellable) ? NULL : compute (job, &error);
  if (value != NULL)
    g_task_return_pointer (task, value, job->free_value);
  else if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
  attnscope_background_end ();
}

/* ---- the cache ---- */

static void
update_busy (AttnscopeAnalysis *self)
{
  gboolean busy = FALSE;
  for (int k = 0; k < ATTNSCOPE_N_RESULTS && !busy; k++)
    busy = self->running[k] != NULL || self->waiting[k] != NULL;
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static guint
keep_count (AttnscopeResult kind)
{
  switch (kind)
    {
    case ATTNSCOPE_RESULT_SIMILARITY:
      return ATTNSCOPE_ANALYSIS_KEEP_SIMILARITY;
    case ATTNSCOPE_RESULT_PROJECTION:
      return 16;
    case ATTNSCOPE_RESULT_COMPARISON:
      return 4;
    case ATTNSCOPE_RESULT_OVERVIEW:
      return 8;
    case ATTNSCOPE_RESULT_MEAN_HEADS:
    case ATTNSCOPE_RESULT_ROLLOUT:
      return 2; /* a long text's: the layer shown and the one before */
    default:
      return 1;
    }
}

static void
store (AttnscopeAnalysis *self, Job *job, gpointer value, const char *failure)
{
  if (g_hash_table_contains (self->entries, job->key))
    {
      /* Computed twice (asked again after a cancellation): the first result stays. */
      if (value != NULL)
        job->free_value (value);
      return;
    }
  Entry *entry = g_new0 (Entry, 1);
  entry->value = value;
  entry->free_value = job->free_value;
  entry->failure = g_strdup (failure);
  entry->other = job->other != NULL ? as_trace_ref (job->other) : NULL;
  entry->others = job->others != NULL ? g_ptr_array_ref (job->others) : NULL;
  char *key = g_strdup (job->key);
  g_hash_table_replace (self->entries, key, entry);
  GQueue *order = &self->order[job->kind];
  g_queue_push_tail (order, key);
  while (g_queue_get_length (order) > keep_count (job->kind))
    g_hash_table_remove (self->entries, g_queue_pop_head (order));
}

static void job_done (GObject *source, GAsyncResult *result, gpointer user_data);

static void
start (AttnscopeAnalysis *self, Job *job)
{
  self->running[job->kind] = job;
  g_autoptr (GTask) task = g_task_new (self, job->cancellable, job_done, NULL);
  g_task_set_source_tag (task, start);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  attnscope_background_begin ();
  g_task_run_in_thread (task, job_thread);
}

static void
job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeAnalysis *self = ATTNSCOPE_ANALYSIS (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  gpointer value = g_task_propagate_pointer (G_TASK (result), &error);
  gboolean landed = !g_cancellable_is_cancelled (job->cancellable);
  if (self->running[job->kind] == job)
    self->running[job->kind] = NULL;
  if (landed)
    store (self, job, value, error != NULL ? error->message : NULL);
  else if (value != NULL)
    job->free_value (value);
  Job *next = g_steal_pointer (&self->waiting[job->kind]);
  if (next != NULL && self->running[job->kind] == NULL
      && !g_hash_table_contains (self->entries, next->key))
    start (self, next);
  else
    job_free (next);
  update_busy (self);
  if (landed)
    g_signal_emit (self, signals[READY], 0, (int) job->kind);
}

/* The result under JOB's key (JOB is taken), or NULL after starting or queueing JOB. */
static gconstpointer
want (AttnscopeAnalysis *self, Job *job, const char **failure)
{
  AttnscopeResult kind = job->kind;
  Entry *entry = g_hash_table_lookup (self->entries, job->key);
  if (failure != NULL)
    *failure = entry != NULL ? entry->failure : NULL;
  if (entry != NULL)
    {
      job_free (job);
      return entry->value;
    }
  Job *running = self->running[kind];
  if (running != NULL && g_str_equal (running->key, job->key))
    {
      /* Back to what runs: what waited is no longer wanted. */
      g_clear_pointer (&self->waiting[kind], job_free);
      job_free (job);
    }
  else if (running != NULL)
    {
      job_free (self->waiting[kind]);
      self->waiting[kind] = job;
    }
  else
    start (self, job);
  update_busy (self);
  return NULL;
}

/* ---- the results ---- */

void
attnscope_analysis_want_attention (AttnscopeAnalysis *self, ArAggregate aggregate, gboolean range,
                                   ArAttention *attention)
{
  g_return_if_fail (ATTNSCOPE_IS_ANALYSIS (self));
  *attention = (ArAttention){ .trace = self->trace };
  if (aggregate == AR_AGGREGATE_MEAN)
    attention->mean_heads
        = want (self, job_new (self, ATTNSCOPE_RESULT_MEAN_HEADS, NULL, g_strdup ("mean")), NULL);
  if (aggregate == AR_AGGREGATE_ROLLOUT)
    attention->rollout
        = want (self, job_new (self, ATTNSCOPE_RESULT_ROLLOUT, NULL, g_strdup ("rollout")), NULL);
  if (range)
    {
      attention->range = want (
          self, job_new (self, ATTNSCOPE_RESULT_ATTENTION_RANGE, NULL, g_strdup ("range")), NULL);
      attention->head_ranges = attention->range != NULL ? attention->range + 2 : NULL;
    }
}

gboolean
attnscope_analysis_layer_aggregates (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), FALSE);
  return !as_trace_attention_held (self->trace) && self->trace->n_tokens > AR_OVERVIEW_CELLS;
}

void
attnscope_analysis_want_layer_attention (AttnscopeAnalysis *self, const ArViewSelection *view,
                                         ArAttention *attention, const char **failure)
{
  g_return_if_fail (ATTNSCOPE_IS_ANALYSIS (self));
  if (failure != NULL)
    *failure = NULL;
  if (!attnscope_analysis_layer_aggregates (self) || view->aggregate == AR_AGGREGATE_HEAD
      || view->layer < 0 || view->layer >= self->trace->n_layer)
    {
      attnscope_analysis_want_attention (self, view->aggregate, FALSE, attention);
      return;
    }
  *attention = (ArAttention){ .trace = self->trace, .one_layer = TRUE };
  gboolean mean = view->aggregate == AR_AGGREGATE_MEAN;
  Job *job = job_new (self, mean ? ATTNSCOPE_RESULT_MEAN_HEADS : ATTNSCOPE_RESULT_ROLLOUT, NULL,
                      g_strdup_printf ("%s %d", mean ? "mean" : "rollout", view->layer));
  job->layer = view->layer;
  job->one_layer = TRUE;
  /* another layer's computation in flight is no longer wanted: a rollout can take minutes */
  Job *running = self->running[job->kind];
  if (running != NULL && running->one_layer && !g_str_equal (running->key, job->key)
      && !g_hash_table_contains (self->entries, job->key))
    g_cancellable_cancel (running->cancellable);
  GBytes *value = (GBytes *) want (self, job, failure);
  attention->layer_values = value;
  const float *matrix = value != NULL ? g_bytes_get_data (value, NULL) : NULL;
  if (mean)
    attention->mean_heads = matrix;
  else
    attention->rollout = matrix;
}

double
attnscope_analysis_get_layer_progress (AttnscopeAnalysis *self, ArAggregate aggregate)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), -1.0);
  AttnscopeResult kind = aggregate == AR_AGGREGATE_MEAN      ? ATTNSCOPE_RESULT_MEAN_HEADS
                         : aggregate == AR_AGGREGATE_ROLLOUT ? ATTNSCOPE_RESULT_ROLLOUT
                                                             : ATTNSCOPE_N_RESULTS;
  Job *job = kind != ATTNSCOPE_N_RESULTS ? self->running[kind] : NULL;
  int total = job != NULL && job->one_layer ? g_atomic_int_get (&job->total) : 0;
  return total > 0 ? (double) g_atomic_int_get (&job->done) / total : -1.0;
}

void
attnscope_analysis_want_thumbnails (AttnscopeAnalysis *self, ArAttention *attention)
{
  g_return_if_fail (ATTNSCOPE_IS_ANALYSIS (self));
  if (!as_trace_attention_held (self->trace))
    attention->thumbnails = want (
        self, job_new (self, ATTNSCOPE_RESULT_THUMBNAILS, NULL, g_strdup ("thumbnails")), NULL);
}

void
attnscope_analysis_want_overview (AttnscopeAnalysis *self, const ArViewSelection *view, int k,
                                  ArAttention *attention)
{
  g_return_if_fail (ATTNSCOPE_IS_ANALYSIS (self));
  Job *job = job_new (
      self, ATTNSCOPE_RESULT_OVERVIEW, NULL,
      g_strdup_printf ("overview %d %d %d %d", view->layer, view->head, k, view->pool_mean));
  job->layer = view->layer, job->head = view->head, job->k = k;
  job->pool_mean = view->pool_mean;
  attention->overview = want (self, job, NULL);
}

const AsHeadStats *
attnscope_analysis_want_head_stats (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  return want (self, job_new (self, ATTNSCOPE_RESULT_HEAD_STATS, NULL, g_strdup ("stats")), NULL);
}

const AttnscopeSimilarity *
attnscope_analysis_want_similarity (AttnscopeAnalysis *self, AsVectorSource source, int layer,
                                    int head, int attention_head, gboolean words,
                                    const char **failure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  Job *job = job_new (
      self, ATTNSCOPE_RESULT_SIMILARITY, NULL,
      g_strdup_printf ("similarity %d %d %d %d %d", source, layer, head, attention_head, words));
  job->words = words;
  job->source = source;
  job->layer = layer;
  job->head = head;
  job->attention_head = attention_head;
  return want (self, job, failure);
}

const AsComparison *
attnscope_analysis_want_comparison (AttnscopeAnalysis *self, AsTrace *other, const char **failure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (other != NULL, NULL);
  return want (self,
               job_new (self, ATTNSCOPE_RESULT_COMPARISON, other,
                        g_strdup_printf ("comparison %p", (void *) other)),
               failure);
}

const AsProjection *
attnscope_analysis_want_projection (AttnscopeAnalysis *self, AsTrace *const *others, int n_others,
                                    AsVectorSource source, int layer, int head,
                                    AsProjectionMethod method, const char **failure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  GString *key = g_string_new (NULL);
  g_string_printf (key, "projection %d %d %d %d", source, layer, head, method);
  GPtrArray *traces = g_ptr_array_new_with_free_func ((GDestroyNotify) as_trace_unref);
  for (int s = 0; s < n_others; s++)
    {
      g_string_append_printf (key, " %p", (void *) others[s]);
      g_ptr_array_add (traces, as_trace_ref (others[s]));
    }
  Job *job = job_new (self, ATTNSCOPE_RESULT_PROJECTION, NULL, g_string_free (key, FALSE));
  job->others = traces;
  job->source = source;
  job->layer = layer;
  job->head = head;
  job->method = method;
  return want (self, job, failure);
}

const AttnscopeMasked *
attnscope_analysis_want_masked (AttnscopeAnalysis *self, AsModel *model, int k,
                                const char **failure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (model != NULL, NULL);
  Job *job = job_new (self, ATTNSCOPE_RESULT_MASKED, NULL,
                      g_strdup_printf ("masked %p %d", (void *) model, k));
  job->model = as_model_ref (model);
  job->k = k;
  return want (self, job, failure);
}

const AsAttentionNorms *
attnscope_analysis_want_norms (AttnscopeAnalysis *self, AsModel *model, const char **failure)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (model != NULL, NULL);
  Job *job
      = job_new (self, ATTNSCOPE_RESULT_NORMS, NULL, g_strdup_printf ("norms %p", (void *) model));
  job->model = as_model_ref (model);
  return want (self, job, failure);
}

gboolean
attnscope_analysis_get_pending (AttnscopeAnalysis *self, AttnscopeResult kind)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), FALSE);
  g_return_val_if_fail (kind < ATTNSCOPE_N_RESULTS, FALSE);
  return self->running[kind] != NULL || self->waiting[kind] != NULL;
}

void
attnscope_analysis_cancel (AttnscopeAnalysis *self, AttnscopeResult kind)
{
  g_return_if_fail (ATTNSCOPE_IS_ANALYSIS (self));
  for (int k = 0; k < ATTNSCOPE_N_RESULTS; k++)
    if (kind == ATTNSCOPE_N_RESULTS || (int) kind == k)
      {
        if (self->running[k] != NULL)
          g_cancellable_cancel (self->running[k]->cancellable);
        self->running[k] = NULL;
        g_clear_pointer (&self->waiting[k], job_free);
      }
  update_busy (self);
}

AsTrace *
attnscope_analysis_get_trace (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  return self->trace;
}

const char *
attnscope_analysis_get_text (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  return self->text;
}

const char *
attnscope_analysis_get_pair (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  return self->pair;
}

const char *
attnscope_analysis_get_shown_text (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), NULL);
  return self->shown_text;
}

gboolean
attnscope_analysis_get_truncated (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), FALSE);
  return self->truncated;
}

gboolean
attnscope_analysis_get_busy (AttnscopeAnalysis *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ANALYSIS (self), FALSE);
  return self->busy;
}

/* ---- GObject ---- */

static void
attnscope_analysis_dispose (GObject *object)
{
  AttnscopeAnalysis *self = ATTNSCOPE_ANALYSIS (object);
  /* Running tasks hold a reference: nothing runs when the last one goes. */
  for (int k = 0; k < ATTNSCOPE_N_RESULTS; k++)
    {
      g_clear_pointer (&self->waiting[k], job_free);
      g_queue_clear (&self->order[k]);
    }
  g_clear_pointer (&self->entries, g_hash_table_unref);
  G_OBJECT_CLASS (attnscope_analysis_parent_class)->dispose (object);
}

static void
attnscope_analysis_finalize (GObject *object)
{
  AttnscopeAnalysis *self = ATTNSCOPE_ANALYSIS (object);
  g_clear_pointer (&self->trace, as_trace_unref);
  g_free (self->text);
  g_free (self->pair);
  g_free (self->shown_text);
  G_OBJECT_CLASS (attnscope_analysis_parent_class)->finalize (object);
}

static void
attnscope_analysis_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_BUSY:
      g_value_set_boolean (value, ATTNSCOPE_ANALYSIS (object)->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_analysis_class_init (AttnscopeAnalysisClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = attnscope_analysis_dispose;
  object_class->finalize = attnscope_analysis_finalize;
  object_class->get_property = attnscope_analysis_get_property;

  properties[PROP_BUSY]
      = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A result of the kind (an AttnscopeResult) arrived. */
  signals[READY] = g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  /* A projection in progress: iterations done, of the total. */
  signals[PROGRESS] = g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_INT);
}

static void
attnscope_analysis_init (AttnscopeAnalysis *self)
{
  self->entries
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) entry_free);
}

AttnscopeAnalysis *
attnscope_analysis_new (AsTrace *trace, const char *text, const char *pair, gboolean truncated)
{
  g_return_val_if_fail (trace != NULL, NULL);
  AttnscopeAnalysis *self = g_object_new (ATTNSCOPE_TYPE_ANALYSIS, NULL);
  self->trace = as_trace_ref (trace);
  self->text = g_strdup (text);
  self->pair = g_strdup (pair);
  self->truncated = truncated;
  self->shown_text = text != NULL ? ar_shown_text (trace, text, pair, truncated) : NULL;
  return self;
}
