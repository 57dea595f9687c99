/* gui-export.c — writing a page's figure and its sidecar from the window (see gui-export.h). The
 * figure is built when the user accepts, not when the dialog opens, so a run that lands while the
 * dialog is up is what gets written. */
#include "gui-export.h"

#include <glib/gi18n.h>

#include "as-error.h"
#include "export-args.h"
#include "export-sidecar.h"

/* Why PAGE has no figure to export. */
static const char *
no_figure_message (AttnscopePage *page)
{
  return attnscope_page_get_analysis (page) != NULL
             ? _ ("The figure is still being computed; export it once it is shown.")
             : _ ("There is no figure to export yet.");
}

char **
gui_export_dup_command (AttnscopeWindow *window, AttnscopePage *page, const ArViewSelection *view,
                        const ArExportOptions *options, const char *file)
{
  AttnscopeSession *session = attnscope_window_get_session (window);
  AsModel *model = attnscope_session_get_model (session);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup ("attnscope"));
  g_ptr_array_add (argv, g_strdup ("export"));
  g_ptr_array_add (argv, g_strdup ("--model"));
  g_ptr_array_add (argv, g_strdup (model != NULL ? as_model_get_path (model) : ""));
  g_ptr_array_add (argv, g_strdup ("--text"));
  g_ptr_array_add (argv, g_strdup (analysis != NULL ? attnscope_analysis_get_text (analysis) : ""));
  if (analysis != NULL && attnscope_analysis_get_pair (analysis) != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--pair"));
      g_ptr_array_add (argv, g_strdup (attnscope_analysis_get_pair (analysis)));
    }
  attnscope_page_append_export_args (page, view, argv);
  /* the model as the window runs it: heads switched off (zero or mean ablation), positions left
   * out */
  AttnscopeWhatifState *whatif
      = attnscope_whatif_get_state (attnscope_session_get_whatif (session));
  if (whatif->n_heads_off > 0)
    {
      g_ptr_array_add (argv, g_strdup ("--ablate"));
      g_ptr_array_add (argv, attnscope_whatif_state_dup_spec (whatif));
    }
  if (attnscope_whatif_state_mean (whatif))
    {
      g_ptr_array_add (argv, g_strdup ("--ablation"));
      g_ptr_array_add (argv, g_strdup ("mean"));
      g_ptr_array_add (argv, g_strdup ("--mean-over"));
      g_ptr_array_add (argv, g_strdup (whatif->mean_over));
    }
  if (whatif->no_positions)
    g_ptr_array_add (argv, g_strdup ("--no-positions"));
  export_args_append (argv, view, options);
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (file));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
}

/* ---- the sidecar, in a task (hashing a weight file takes about a second) ---- */

typedef struct
{
  char *path;
  char **argv;
  AsModel *model;
  ArExportOptions options;
  char *title, *subtitle; /* the strings OPTIONS point at */
  ArExportGeometry geometry;
} SidecarJob;

static void
sidecar_job_free (SidecarJob *job)
{
  g_free (job->path);
  g_strfreev (job->argv);
  as_model_unref (job->model);
  g_free (job->title);
  g_free (job->subtitle);
  g_free (job);
}

static void
sidecar_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SidecarJob *job = task_data;
  GError *error = NULL;
  g_autofree char *sha256
      = export_sidecar_hash_file (as_model_get_weights_path (job->model), &error);
  if (sha256 == NULL
      || !export_sidecar_write (job->path, (const char *const *) job->argv, job->model, sha256,
                                &job->options, &job->geometry, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
sidecar_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (AttnscopeWindow) window = user_data;
  g_autoptr (GError) error = NULL;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    attnscope_window_show_error (window, _ ("The reproduction file could not be written"),
                                 error->message);
}

static void
write_sidecar (AttnscopeWindow *window, AttnscopePage *page, const char *path,
               const ArViewSelection *view, const ArExportOptions *options,
               const ArExportGeometry *geometry)
{
  SidecarJob *job = g_new0 (SidecarJob, 1);
  g_autofree char *base = g_path_get_basename (path);
  job->path = g_strdup (path);
  job->argv = gui_export_dup_command (window, page, view, options, base);
  job->model = as_model_ref (attnscope_session_get_model (attnscope_window_get_session (window)));
  job->options = *options;
  job->title = g_strdup (options->title);
  job->subtitle = g_strdup (options->subtitle);
  job->options.title = job->title;
  job->options.subtitle = job->subtitle;
  job->geometry = *geometry;
  g_autoptr (GTask) task = g_task_new (NULL, NULL, sidecar_done, g_object_ref (window));
  g_task_set_task_data (task, job, (GDestroyNotify) sidecar_job_free);
  g_task_run_in_thread (task, sidecar_thread);
}

gboolean
gui_export_write_full (AttnscopeWindow *window, AttnscopePage *page, const char *path,
                       const ArViewSelection *view, const ArExportOptions *options,
                       gboolean sidecar, GError **error)
{
  g_autoptr (ArBuiltFigure) built = attnscope_page_build_figure (page, view);
  if (built == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s", no_figure_message (page));
      attnscope_window_show_error (window, _ ("Export failed"), (*error)->message);
      return FALSE;
    }
  const ArFigure *figure = ar_built_figure_get (built);
  ArExportGeometry geometry;
  if (!ar_export_geometry (figure, options, &geometry, error)
      || !ar_figure_export_with_options (figure, path, options, AS_OUTPUT_DEFAULT, error))
    {
      attnscope_window_show_error (window, _ ("Export failed"), (*error)->message);
      return FALSE;
    }
  if (sidecar && attnscope_session_get_model (attnscope_window_get_session (window)) != NULL)
    write_sidecar (window, page, path, view, options, &geometry);
  attnscope_window_show_saved (window, path);
  return TRUE;
}

gboolean
gui_export_write (AttnscopeWindow *window, AttnscopePage *page, const char *path, double scale,
                  GError **error)
{
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  ArExportOptions options;
  ar_export_options_init (&options);
  options.dpi = AR_EXPORT_NATURAL_DPI * scale;
  return gui_export_write_full (window, page, path, &view, &options, FALSE, error);
}
