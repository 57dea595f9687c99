/* attnscope-whatif-means.c — the window's "Mean over…": the means of every head's context and
 * every MLP's output over a file of texts, computed in a thread and set on the AttnscopeWhatif
 * (attnscope-whatif.h). The file is read as the command line's --mean-over reads it (one text a
 * line, a trailing CR dropped, blank lines skipped), so the window's mean ablation is the command
 * line's bit for bit. */
#include "attnscope-whatif.h"

#include <glib/gi18n.h>
#include <string.h>

#include "as-error.h"

typedef struct
{
  AsModel *model;
  char *path;
  float *head_means, *mlp_means; /* the result */
} MeansJob;

static void
means_job_free (MeansJob *job)
{
  as_model_unref (job->model);
  g_free (job->path);
  g_free (job->head_means);
  g_free (job->mlp_means);
  g_free (job);
}

/* The texts of PATH (a NULL-terminated array), or NULL with ERROR naming the file. */
static GPtrArray *
read_texts (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &contents, &length, &local))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, _ ("Mean over %s: %s"), path, local->message);
      return NULL;
    }
  if (!g_utf8_validate (contents, length, NULL) || memchr (contents, '\0', length) != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   _ ("Mean over %s: not a text file (UTF-8, one text a line)"), path);
      return NULL;
    }
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    {
      char *line = lines[i];
      gsize len = strlen (line);
      if (len > 0 && line[len - 1] == '\r')
        line[len - 1] = '\0';
      g_autofree char *stripped = g_strstrip (g_strdup (line));
      if (*stripped != '\0')
        g_ptr_array_add (texts, g_strdup (line));
    }
  if (texts->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   _ ("Mean over %s: the file has no text (every line is empty or blank)"), path);
      g_ptr_array_unref (texts);
      return NULL;
    }
  g_ptr_array_add (texts, NULL);
  return texts;
}

static void
means_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  MeansJob *job = task_data;
  GError *error = NULL;
  g_autoptr (GPtrArray) texts = read_texts (job->path, &error);
  if (texts == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_autofree char *what = g_strdup_printf (_ ("Mean over %s:"), job->path);
  if (!as_ablation_means (job->model, (char *const *) texts->pdata, (int) texts->len - 1, what,
                          &job->head_means, &job->mlp_means, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
attnscope_whatif_mean_over_async (AttnscopeWhatif *self, AsModel *model, const char *path,
                                  GCancellable *cancellable, GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF (self));
  g_return_if_fail (model != NULL && path != NULL);
  MeansJob *job = g_new0 (MeansJob, 1);
  job->model = as_model_ref (model);
  job->path = g_strdup (path);
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, attnscope_whatif_mean_over_async);
  g_task_set_task_data (task, job, (GDestroyNotify) means_job_free);
  g_task_run_in_thread (task, means_thread);
}

gboolean
attnscope_whatif_mean_over_finish (AttnscopeWhatif *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  GTask *task = G_TASK (result);
  if (!g_task_propagate_boolean (task, error))
    return FALSE;
  MeansJob *job = g_task_get_task_data (task);
  attnscope_whatif_set_means (self, g_steal_pointer (&job->head_means),
                              g_steal_pointer (&job->mlp_means), job->path);
  return TRUE;
}
