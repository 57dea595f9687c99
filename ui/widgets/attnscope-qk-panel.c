/* attnscope-qk-panel.c — the query–key view of the Attribution page (see attnscope-qk-panel.h).
 * The pass with the queries and keys runs in a GTask thread once per analysis; the view of one
 * head and one query (as_qk_compute: a T × head_dim product) is computed on the UI thread from
 * it, as a figure is built from computed results. */
#include "attnscope-qk-panel.h"

#include "qk-figure.h"

struct _AttnscopeQkPanel
{
  GtkWidget parent_instance;

  AttnscopeHeatmapView *heatmap;
  /* the pass with q, k and v of CAPTURED_ANALYSIS's trace, or why there is none */
  AttnscopeAnalysis *captured_analysis;
  AsTrace *captured;
  char *capture_failure;
  GCancellable *cancellable;
  AttnscopeAnalysis *job_analysis;
  /* the view on screen and why there is none */
  AsQk *qk;
  char *failure;
  const AsTrace *qk_trace;
  ArViewSelection built_view;
  gboolean built;
  gboolean before_rope; /* the q the figure shows: before RoPE */
};

G_DEFINE_FINAL_TYPE (AttnscopeQkPanel, attnscope_qk_panel, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_READY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef struct
{
  AsModel *model;
  AsTrace *trace;
  AttnscopeAnalysis *analysis;
} CaptureJob;

static void
capture_job_free (CaptureJob *job)
{
  as_model_unref (job->model);
  as_trace_unref (job->trace);
  g_object_unref (job->analysis);
  g_free (job);
}

static void
capture_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  CaptureJob *job = task_data;
  GError *error = NULL;
  AsTrace *trace = as_qk_trace_with_qkv (job->model, job->trace, &error);
  if (trace == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, trace, (GDestroyNotify) as_trace_unref);
}

static void
cancel_job (AttnscopeQkPanel *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->job_analysis);
}

static void
clear_view (AttnscopeQkPanel *self)
{
  g_clear_pointer (&self->qk, as_qk_free);
  g_clear_pointer (&self->failure, g_free);
  self->qk_trace = NULL;
  self->built = FALSE;
}

static void
capture_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeQkPanel *self = ATTNSCOPE_QK_PANEL (source);
  GTask *task = G_TASK (result);
  CaptureJob *job = g_task_get_task_data (task);
  GError *error = NULL;
  AsTrace *trace = g_task_propagate_pointer (task, &error);
  if (g_task_get_cancellable (task) != self->cancellable)
    {
      g_clear_pointer (&trace, as_trace_unref);
      g_clear_error (&error);
      return;
    }
  g_clear_object (&self->cancellable);
  g_clear_object (&self->job_analysis);
  g_set_object (&self->captured_analysis, job->analysis);
  g_clear_pointer (&self->captured, as_trace_unref);
  g_clear_pointer (&self->capture_failure, g_free);
  self->captured = trace;
  self->capture_failure = error != NULL ? g_strdup (error->message) : NULL;
  g_clear_error (&error);
  clear_view (self);
  g_signal_emit (self, signals[SIGNAL_READY], 0);
}

static void
start_capture (AttnscopeQkPanel *self, AttnscopePage *page, AttnscopeAnalysis *analysis)
{
  if (self->cancellable != NULL && self->job_analysis == analysis)
    return;
  cancel_job (self);
  CaptureJob *job = g_new0 (CaptureJob, 1);
  job->model = as_model_ref (attnscope_session_get_model (attnscope_page_get_session (page)));
  job->trace = as_trace_ref (attnscope_analysis_get_trace (analysis));
  job->analysis = g_object_ref (analysis);
  self->cancellable = g_cancellable_new ();
  self->job_analysis = g_object_ref (analysis);
  g_autoptr (GTask) task = g_task_new (self, self->cancellable, capture_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) capture_job_free);
  g_task_run_in_thread (task, capture_thread);
}

/* The view of VIEW's head and query from the captured pass, into self->qk (or self->failure). */
static void
compute_view (AttnscopeQkPanel *self, AttnscopePage *page, const ArViewSelection *view)
{
  int T = self->captured->n_tokens;
  int query = view->selected_token >= 0 && view->selected_token < T ? view->selected_token : T - 1;
  if (self->qk != NULL && self->qk_trace == self->captured && self->qk->layer == view->layer
      && self->qk->head == view->head && self->qk->query == query)
    return;
  clear_view (self);
  GError *error = NULL;
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (page));
  self->qk = as_qk_compute (model, self->captured, view->layer, view->head, query, &error);
  self->qk_trace = self->captured;
  if (self->qk == NULL)
    {
      self->failure = g_strdup (error->message);
      g_error_free (error);
    }
}

static ArBuiltFigure *
build (AttnscopeQkPanel *self, AttnscopePage *page, const ArViewSelection *view)
{
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  ArViewSelection rope = *view;
  rope.qk_before_rope = self->before_rope;
  return ar_build_qk_figure (self->qk, self->captured, &texts, &rope);
}

gboolean
attnscope_qk_panel_update (AttnscopeQkPanel *self, AttnscopePage *page)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), FALSE);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  if (analysis == NULL)
    {
      cancel_job (self);
      g_clear_object (&self->captured_analysis);
      g_clear_pointer (&self->captured, as_trace_unref);
      g_clear_pointer (&self->capture_failure, g_free);
      clear_view (self);
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      return FALSE;
    }
  if (analysis != self->captured_analysis)
    {
      start_capture (self, page, analysis);
      return TRUE;
    }
  if (self->capture_failure != NULL)
    {
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      return FALSE;
    }
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  view.qk_before_rope = self->before_rope;
  compute_view (self, page, &view);
  if (self->qk == NULL)
    attnscope_heatmap_view_set_figure (self->heatmap, NULL);
  else if (!self->built || !ar_view_selection_equal (&view, &self->built_view))
    {
      g_autoptr (ArBuiltFigure) figure = build (self, page, &view);
      attnscope_heatmap_view_set_figure (self->heatmap, figure);
      /* many keys: the ones nearest the query, readable; zooming out shows them all */
      int n = attnscope_heatmap_view_get_n_rows (self->heatmap);
      if (n > QK_PANEL_ROWS)
        attnscope_heatmap_view_set_view (self->heatmap, n - QK_PANEL_ROWS, 0, QK_PANEL_ROWS);
      self->built_view = view;
      self->built = TRUE;
    }
  return FALSE;
}

ArBuiltFigure *
attnscope_qk_panel_build_figure (AttnscopeQkPanel *self, AttnscopePage *page,
                                 const ArViewSelection *view)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), NULL);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  if (analysis == NULL || analysis != self->captured_analysis || self->captured == NULL)
    return NULL;
  compute_view (self, page, view);
  return self->qk != NULL ? build (self, page, view) : NULL;
}

void
attnscope_qk_panel_set_before_rope (AttnscopeQkPanel *self, gboolean before)
{
  g_return_if_fail (ATTNSCOPE_IS_QK_PANEL (self));
  self->before_rope = before;
}

gboolean
attnscope_qk_panel_get_before_rope (AttnscopeQkPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), FALSE);
  return self->before_rope;
}

AttnscopeHeatmapView *
attnscope_qk_panel_get_heatmap (AttnscopeQkPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), NULL);
  return self->heatmap;
}

const AsQk *
attnscope_qk_panel_get_qk (AttnscopeQkPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), NULL);
  return self->qk;
}

const char *
attnscope_qk_panel_get_failure (AttnscopeQkPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_QK_PANEL (self), NULL);
  return self->capture_failure != NULL ? self->capture_failure : self->failure;
}

static void
attnscope_qk_panel_dispose (GObject *object)
{
  AttnscopeQkPanel *self = ATTNSCOPE_QK_PANEL (object);
  cancel_job (self);
  g_clear_object (&self->captured_analysis);
  g_clear_pointer (&self->captured, as_trace_unref);
  g_clear_pointer (&self->capture_failure, g_free);
  clear_view (self);
  if (self->heatmap != NULL)
    {
      gtk_widget_unparent (GTK_WIDGET (self->heatmap));
      self->heatmap = NULL;
    }
  G_OBJECT_CLASS (attnscope_qk_panel_parent_class)->dispose (object);
}

static void
attnscope_qk_panel_class_init (AttnscopeQkPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = attnscope_qk_panel_dispose;
  /* the pass with the queries and keys landed: update the page */
  signals[SIGNAL_READY] = g_signal_new ("ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static void
attnscope_qk_panel_init (AttnscopeQkPanel *self)
{
  self->heatmap = ATTNSCOPE_HEATMAP_VIEW (attnscope_heatmap_view_new ());
  gtk_widget_set_hexpand (GTK_WIDGET (self->heatmap), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->heatmap), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->heatmap), "figure");
  gtk_widget_set_parent (GTK_WIDGET (self->heatmap), GTK_WIDGET (self));
}
