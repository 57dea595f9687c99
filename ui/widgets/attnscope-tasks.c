/* attnscope-tasks.c — GTask wrappers around model loading and the forward pass (see
 * attnscope-tasks.h). Every worker owns copies or references of its inputs, so
 * the caller may change or drop them while the thread runs. */
#include "attnscope-tasks.h"

#include "as-error.h"
#include "as-forward.h"
#include "as-translate.h"

/* ---- model loading ---- */

static void
model_load_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  AsModel *model = as_model_load (task_data, &error);
  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, (GDestroyNotify) as_model_unref);
}

void
attnscope_model_load_async (const char *spec, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_model_load_async);
  g_task_set_task_data (task, g_strdup (spec), g_free);
  g_task_run_in_thread (task, model_load_thread);
}

AsModel *
attnscope_model_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- progress of a pass ---- */

#define PROGRESS_KEY "attnscope-progress"

AttnscopeProgress *
attnscope_progress_new (void)
{
  return g_atomic_rc_box_new0 (AttnscopeProgress);
}

AttnscopeProgress *
attnscope_progress_ref (AttnscopeProgress *progress)
{
  return g_atomic_rc_box_acquire (progress);
}

void
attnscope_progress_unref (AttnscopeProgress *progress)
{
  g_atomic_rc_box_release (progress);
}

void
attnscope_progress_attach (AttnscopeProgress *progress, GCancellable *cancellable)
{
  g_object_set_data_full (G_OBJECT (cancellable), PROGRESS_KEY, attnscope_progress_ref (progress),
                          (GDestroyNotify) attnscope_progress_unref);
}

/* The progress attached to CANCELLABLE (a new reference), or NULL. */
static AttnscopeProgress *
progress_of (GCancellable *cancellable)
{
  AttnscopeProgress *p
      = cancellable != NULL ? g_object_get_data (G_OBJECT (cancellable), PROGRESS_KEY) : NULL;
  return p != NULL ? attnscope_progress_ref (p) : NULL;
}

/* AsForwardProgress: on the pass's thread. */
static void
tell_progress (int done, int total, gpointer user_data)
{
  AttnscopeProgress *p = user_data;
  g_atomic_int_set (&p->total, total);
  g_atomic_int_set (&p->done, done);
}

/* ---- forward pass ---- */

typedef struct
{
  AsModel *model;
  char *text, *pair;
  char *target; /* a translation model's target; NULL for other models */
  GArray *ids;  /* int32_t: run on these ids instead of tokenizing TEXT, or NULL */
  gboolean truncate;
  AttnscopeTokenCounts counts;  /* set by the thread when truncating or failing */
  AttnscopeCross *cross;        /* a translation's results, set by the thread */
  AttnscopeWhatifState *whatif; /* heads switched off, positions left out; or NULL */
  AttnscopeProgress *progress;  /* told layer by layer, or NULL */
} ForwardData;

static void
forward_data_free (ForwardData *data)
{
  g_clear_pointer (&data->model, as_model_unref);
  g_clear_pointer (&data->cross, attnscope_cross_unref);
  g_clear_pointer (&data->progress, attnscope_progress_unref);
  g_free (data->text);
  g_free (data->target);
  g_free (data->pair);
  g_clear_pointer (&data->ids, g_array_unref);
  g_clear_pointer (&data->whatif, attnscope_whatif_state_unref);
  g_free (data);
}

/* The tokens of TEXT alone, without special tokens; -1 when it cannot be tokenized. */
static int
count_own_tokens (AsTokenizer *tokenizer, const char *text)
{
  g_autoptr (AsEncoding) enc
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, NULL);
  return enc != NULL ? (int) enc->ids->len : -1;
}

static void
count_tokens (ForwardData *data)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (data->model);
  if (tokenizer == NULL)
    return;
  g_autoptr (AsEncoding) enc = as_tokenizer_encode_full (tokenizer, data->text, -1, data->pair, -1,
                                                         AS_ENCODE_DEFAULT, NULL);
  data->counts.n_tokens = enc != NULL ? (int) enc->ids->len : -1;
  if (data->pair != NULL)
    {
      data->counts.n_a = count_own_tokens (tokenizer, data->text);
      data->counts.n_b = count_own_tokens (tokenizer, data->pair);
    }
}

static void
forward_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ForwardData *data = task_data;
  AsForwardOptions options = {
    .all_logits = as_model_get_config (data->model)->masked_lm,
    .cancellable = cancellable,
    .progress = data->progress != NULL ? tell_progress : NULL,
    .progress_data = data->progress,
  };
  AsIntervention iv;
  attnscope_whatif_state_apply (data->whatif, &options, &iv);
  GError *error = NULL;
  if (data->target != NULL)
    {
      AsTrace *pair
          = as_forward_translation_text (data->model, data->text, data->target, &options, &error);
      if (pair == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      data->cross = attnscope_cross_new (pair);
      g_task_return_pointer (task, pair, (GDestroyNotify) as_trace_unref);
      return;
    }
  if (data->ids != NULL)
    {
      AsTrace *trace = as_forward (data->model, (const int32_t *) data->ids->data,
                                   (int) data->ids->len, &options, &error);
      data->counts.n_tokens = (int) data->ids->len;
      if (trace != NULL)
        g_task_return_pointer (task, trace, (GDestroyNotify) as_trace_unref);
      else
        g_task_return_error (task, error);
      return;
    }
  AsTrace *trace
      = as_forward_pair (data->model, data->text, data->pair, data->truncate, &options, &error);
  if (trace == NULL || data->truncate)
    count_tokens (data);
  if (trace != NULL)
    g_task_return_pointer (task, trace, (GDestroyNotify) as_trace_unref);
  else
    g_task_return_error (task, error);
}

void
attnscope_forward_ids_async (AsModel *model, const GArray *ids, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  attnscope_forward_ids_whatif_async (model, ids, NULL, cancellable, callback, user_data);
}

void
attnscope_forward_ids_whatif_async (AsModel *model, const GArray *ids, AttnscopeWhatifState *whatif,
                                    GCancellable *cancellable, GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_return_if_fail (model != NULL && ids != NULL);
  ForwardData *data = g_new0 (ForwardData, 1);
  data->model = as_model_ref (model);
  data->ids = g_array_copy ((GArray *) ids);
  data->whatif = whatif != NULL ? attnscope_whatif_state_ref (whatif) : NULL;
  data->counts = (AttnscopeTokenCounts){ -1, -1, -1 };
  data->progress = progress_of (cancellable);
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_forward_text_async);
  g_task_set_task_data (task, data, (GDestroyNotify) forward_data_free);
  g_task_run_in_thread (task, forward_thread);
}

void
attnscope_forward_text_async (AsModel *model, const char *text, const char *pair, gboolean truncate,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  attnscope_forward_text_whatif_async (model, text, pair, truncate, NULL, cancellable, callback,
                                       user_data);
}

void
attnscope_forward_text_whatif_async (AsModel *model, const char *text, const char *pair,
                                     gboolean truncate, AttnscopeWhatifState *whatif,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  g_return_if_fail (model != NULL && text != NULL);
  ForwardData *data = g_new0 (ForwardData, 1);
  data->model = as_model_ref (model);
  data->whatif = whatif != NULL ? attnscope_whatif_state_ref (whatif) : NULL;
  data->text = g_strdup (text);
  data->pair = g_strdup (pair);
  data->truncate = truncate;
  data->counts = (AttnscopeTokenCounts){ -1, -1, -1 };
  data->progress = progress_of (cancellable);
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_forward_text_async);
  g_task_set_task_data (task, data, (GDestroyNotify) forward_data_free);
  g_task_run_in_thread (task, forward_thread);
}

void
attnscope_forward_translation_async (AsModel *model, const char *source, const char *target,
                                     GCancellable *cancellable, GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  g_return_if_fail (model != NULL && source != NULL && target != NULL);
  ForwardData *data = g_new0 (ForwardData, 1);
  data->model = as_model_ref (model);
  data->text = g_strdup (source);
  data->target = g_strdup (target);
  data->counts = (AttnscopeTokenCounts){ -1, -1, -1 };
  data->progress = progress_of (cancellable);
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_forward_text_async);
  g_task_set_task_data (task, data, (GDestroyNotify) forward_data_free);
  g_task_run_in_thread (task, forward_thread);
}

AttnscopeCross *
attnscope_forward_dup_cross (GAsyncResult *result)
{
  ForwardData *data = g_task_get_task_data (G_TASK (result));
  return data->cross != NULL && !g_task_had_error (G_TASK (result))
             ? attnscope_cross_ref (data->cross)
             : NULL;
}

/* ---- translation ---- */

typedef struct
{
  AsModel *model;
  char *text;
} TranslateData;

static void
translate_data_free (TranslateData *data)
{
  g_clear_pointer (&data->model, as_model_unref);
  g_free (data->text);
  g_free (data);
}

static void
translate_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  TranslateData *data = task_data;
  AsTranslateOptions options = { .cancellable = cancellable };
  GError *error = NULL;
  g_autoptr (AsTranslation) translation
      = as_translate_text (data->model, data->text, &options, &error);
  if (translation == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_strdup (translation->text), g_free);
}

void
attnscope_translate_text_async (AsModel *model, const char *text, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (model != NULL && text != NULL);
  TranslateData *data = g_new0 (TranslateData, 1);
  data->model = as_model_ref (model);
  data->text = g_strdup (text);
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_translate_text_async);
  g_task_set_task_data (task, data, (GDestroyNotify) translate_data_free);
  g_task_run_in_thread (task, translate_thread);
}

char *
attnscope_translate_text_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

AsTrace *
attnscope_forward_text_finish (GAsyncResult *result, AttnscopeTokenCounts *counts, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  ForwardData *data = g_task_get_task_data (G_TASK (result));
  AsTrace *trace = g_task_propagate_pointer (G_TASK (result), error);
  if (counts != NULL)
    {
      *counts = data->counts;
      if (trace != NULL && !data->truncate)
        *counts = (AttnscopeTokenCounts){ trace->n_tokens, -1, -1 };
    }
  return trace;
}
