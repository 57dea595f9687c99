/* attnscope-tasks.c — GTask wrappers around model loading, the forward pass and the
 * projections (see attnscope-tasks.h). Every worker owns copies or references of its inputs, so
 * the caller may change or drop them while the thread runs. */
#include "attnscope-tasks.h"

#include "as-error.h"
#include "as-forward.h"
#include "as-pca.h"

#include <math.h>

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

/* ---- forward pass ---- */

typedef struct
{
  AsModel *model;
  char *text;
  gboolean truncate;
  int n_tokens; /* set by the thread when the run fails */
} ForwardData;

static void
forward_data_free (ForwardData *data)
{
  g_clear_pointer (&data->model, as_model_unref);
  g_free (data->text);
  g_free (data);
}

static void
forward_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ForwardData *data = task_data;
  AsForwardOptions options = { .all_logits = FALSE, .cancellable = cancellable };
  GError *error = NULL;
  AsTrace *trace = as_forward_text (data->model, data->text, data->truncate, &options, &error);
  if (trace != NULL)
    {
      g_task_return_pointer (task, trace, (GDestroyNotify) as_trace_unref);
      return;
    }
  g_autoptr (GArray) ids
      = as_tokenizer_encode (as_model_get_tokenizer (data->model), data->text, -1, NULL);
  data->n_tokens = ids != NULL ? (int) ids->len : -1;
  g_task_return_error (task, error);
}

void
attnscope_forward_text_async (AsModel *model, const char *text, gboolean truncate,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_return_if_fail (model != NULL && text != NULL);
  ForwardData *data = g_new0 (ForwardData, 1);
  data->model = as_model_ref (model);
  data->text = g_strdup (text);
  data->truncate = truncate;
  data->n_tokens = -1;
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_forward_text_async);
  g_task_set_task_data (task, data, (GDestroyNotify) forward_data_free);
  g_task_run_in_thread (task, forward_thread);
}

AsTrace *
attnscope_forward_text_finish (GAsyncResult *result, int *n_tokens, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  ForwardData *data = g_task_get_task_data (G_TASK (result));
  AsTrace *trace = g_task_propagate_pointer (G_TASK (result), error);
  if (n_tokens != NULL)
    *n_tokens = trace != NULL ? trace->n_tokens : data->n_tokens;
  return trace;
}

/* ---- projections ---- */

typedef struct
{
  float *x; /* [n][d] */
  int n, d;
  AsTsneOptions tsne;
  AttnscopeProgressFunc progress;
  gpointer progress_data;
  GMainContext *context;
  GCancellable *cancellable;
  double ratio[2]; /* explained variance ratio (PCA), NaN otherwise */
} ProjectData;

static void
project_data_free (ProjectData *data)
{
  g_free (data->x);
  g_clear_pointer (&data->context, g_main_context_unref);
  g_clear_object (&data->cancellable);
  g_free (data);
}

static ProjectData *
project_data_new (const float *x, int n, int d, GCancellable *cancellable)
{
  ProjectData *data = g_new0 (ProjectData, 1);
  data->x = g_memdup2 (x, sizeof (float) * (gsize) n * d);
  data->n = n;
  data->d = d;
  data->context = g_main_context_ref_thread_default ();
  data->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  data->ratio[0] = data->ratio[1] = NAN;
  return data;
}

static void
pca_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ProjectData *data = task_data;
  int k = MIN (2, MIN (data->n, data->d));
  GError *error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (data->x, data->n, data->d, k, &error);
  if (pca == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  float *y = g_new0 (float, (gsize) data->n * 2); /* [n][2]; a rank-1 input leaves y[i][1] = 0 */
  for (int i = 0; i < data->n; i++)
    for (int c = 0; c < k; c++)
      y[i * 2 + c] = (float) pca->coords[i * k + c];
  for (int c = 0; c < 2; c++)
    data->ratio[c] = c < k ? pca->explained_variance_ratio[c] : 0;
  g_task_return_pointer (task, y, g_free);
}

typedef struct
{
  AttnscopeProgressFunc func;
  gpointer user_data;
  GCancellable *cancellable;
  int done, total;
} ProgressMessage;

static gboolean
progress_deliver (gpointer user_data)
{
  ProgressMessage *msg = user_data;
  /* A cancelled run's owner may be gone: only live runs report. */
  if (!g_cancellable_is_cancelled (msg->cancellable))
    msg->func (msg->done, msg->total, msg->user_data);
  return G_SOURCE_REMOVE;
}

static void
progress_message_free (ProgressMessage *msg)
{
  g_clear_object (&msg->cancellable);
  g_free (msg);
}

static void
tsne_progress (int iteration, int n_iter, double kl, const float *y, int n, gpointer user_data)
{
  ProjectData *data = user_data;
  if (data->progress == NULL || data->cancellable == NULL)
    return;
  ProgressMessage *msg = g_new0 (ProgressMessage, 1);
  msg->func = data->progress;
  msg->user_data = data->progress_data;
  msg->cancellable = g_object_ref (data->cancellable);
  msg->done = iteration;
  msg->total = n_iter;
  g_main_context_invoke_full (data->context, G_PRIORITY_DEFAULT, progress_deliver, msg,
                              (GDestroyNotify) progress_message_free);
}

static void
tsne_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ProjectData *data = task_data;
  AsTsneOptions options = data->tsne;
  options.progress = tsne_progress;
  options.user_data = data;
  options.cancellable = cancellable;
  g_autofree float *y = g_new0 (float, (gsize) data->n * 2); /* [n][2] */
  GError *error = NULL;
  if (!as_tsne_run (y, NULL, data->x, data->n, data->d, &options, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_steal_pointer (&y), g_free);
}

static void
project_run (ProjectData *data, GTaskThreadFunc thread, gpointer tag, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, data, (GDestroyNotify) project_data_free);
  g_task_run_in_thread (task, thread);
}

void
attnscope_project_pca_async (const float *x, int n, int d, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  ProjectData *data = project_data_new (x, n, d, cancellable);
  project_run (data, pca_thread, attnscope_project_pca_async, cancellable, callback, user_data);
}

void
attnscope_project_tsne_async (const float *x, int n, int d, const AsTsneOptions *options,
                              AttnscopeProgressFunc progress, gpointer progress_data,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  ProjectData *data = project_data_new (x, n, d, cancellable);
  if (options != NULL)
    data->tsne = *options;
  else
    as_tsne_options_init (&data->tsne);
  data->progress = progress;
  data->progress_data = progress_data;
  project_run (data, tsne_thread, attnscope_project_tsne_async, cancellable, callback, user_data);
}

float *
attnscope_project_finish (GAsyncResult *result, int *n, double ratio[2], GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  ProjectData *data = g_task_get_task_data (G_TASK (result));
  float *y = g_task_propagate_pointer (G_TASK (result), error);
  if (n != NULL)
    *n = y != NULL ? data->n : 0;
  if (ratio != NULL)
    {
      ratio[0] = data->ratio[0];
      ratio[1] = data->ratio[1];
    }
  return y;
}
