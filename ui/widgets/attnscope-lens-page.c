/* attnscope-lens-page.c — the Lens page (see attnscope-lens-page.h). One lens job runs at a time
 * in a GTask thread (as_lens_compute, cancelled between hidden states): the table's lens of the
 * session's trace (every position, the top five tokens), then the followed token's lens (its
 * position, with the token as target). A new trace or a new token cancels the job that runs; the
 * figures on screen stay until the new lens lands. */
#include "attnscope-lens-page.h"

#include <glib/gi18n.h>

#include "as-lens.h"
#include "lens-figure.h"
#include "render-text.h"
#include "token-label.h"

/* Tokens per cell: the tooltip lists them. */
#define LENS_PAGE_TOP 5

struct _AttnscopeLensPage
{
  AttnscopePage parent_instance;

  GtkToggleButton *table_button, *chart_button;
  GtkLabel *status;
  GtkStack *stack;
  AttnscopeHeatmapView *heatmap;
  AttnscopeLinesView *chart;

  /* the table's lens of LENS_ANALYSIS's trace, or why there is none (FAILURE) */
  AttnscopeAnalysis *lens_analysis;
  AsLens *lens;
  char *failure;
  /* the followed token (FOLLOW_ID -1: none) and its lens of FOLLOW_ANALYSIS's trace */
  int follow_position;
  int32_t follow_id;
  AttnscopeAnalysis *follow_analysis;
  AsLens *follow_lens;
  char *follow_failure;
  /* the job that runs: of JOB_ANALYSIS, the followed token's when JOB_FOLLOW */
  GCancellable *cancellable;
  AttnscopeAnalysis *job_analysis;
  gboolean job_follow;
  int job_position;
  int32_t job_id;
  /* what the figures on screen were built from */
  const AsLens *built_lens, *built_follow;
  ArViewSelection built_view;
  int built_cols;
};

G_DEFINE_FINAL_TYPE (AttnscopeLensPage, attnscope_lens_page, ATTNSCOPE_TYPE_PAGE)

typedef struct
{
  AsModel *model;
  AsTrace *trace;
  AttnscopeAnalysis *analysis;
  gboolean follow;
  int *positions; /* [n] */
  int n, k;
  int32_t target;
} LensJob;

static void
lens_job_free (LensJob *job)
{
  as_model_unref (job->model);
  as_trace_unref (job->trace);
  g_object_unref (job->analysis);
  g_free (job->positions);
  g_free (job);
}

static void
lens_job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LensJob *job = task_data;
  GError *error = NULL;
  AsLens *lens = as_lens_compute (job->model, job->trace, job->positions, job->n, job->k,
                                  job->target, cancellable, &error);
  if (lens == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, lens, (GDestroyNotify) as_lens_free);
}

static void
cancel_job (AttnscopeLensPage *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->job_analysis);
}

static void attnscope_lens_page_update (AttnscopePage *page);

static void
lens_job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (source);
  GTask *task = G_TASK (result);
  LensJob *job = g_task_get_task_data (task);
  GError *error = NULL;
  AsLens *lens = g_task_propagate_pointer (task, &error);
  if (g_task_get_cancellable (task) != self->cancellable)
    {
      /* cancelled, or replaced by a newer job */
      g_clear_pointer (&lens, as_lens_free);
      g_clear_error (&error);
      return;
    }
  g_clear_object (&self->cancellable);
  g_clear_object (&self->job_analysis);
  if (job->follow)
    {
      g_set_object (&self->follow_analysis, job->analysis);
      g_clear_pointer (&self->follow_lens, as_lens_free);
      g_clear_pointer (&self->follow_failure, g_free);
      self->follow_lens = lens;
      self->follow_failure = error != NULL ? g_strdup (error->message) : NULL;
    }
  else
    {
      g_set_object (&self->lens_analysis, job->analysis);
      g_clear_pointer (&self->lens, as_lens_free);
      g_clear_pointer (&self->failure, g_free);
      self->lens = lens;
      self->failure = error != NULL ? g_strdup (error->message) : NULL;
    }
  g_clear_error (&error);
  attnscope_lens_page_update (ATTNSCOPE_PAGE (self));
}

/* Starts the table's lens of ANALYSIS, or with FOLLOW the followed token's; cancels the job that
 * runs. Does nothing when that job is the one asked for. */
static void
want_lens (AttnscopeLensPage *self, AttnscopeAnalysis *analysis, gboolean follow)
{
  if (self->cancellable != NULL && self->job_analysis == analysis && self->job_follow == follow
      && (!follow
          || (self->job_position == self->follow_position && self->job_id == self->follow_id)))
    return;
  cancel_job (self);
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  LensJob *job = g_new0 (LensJob, 1);
  job->model = as_model_ref (model);
  job->trace = as_trace_ref (trace);
  job->analysis = g_object_ref (analysis);
  job->follow = follow;
  job->n = follow ? 1 : trace->n_tokens;
  job->positions = g_new (int, job->n);
  for (int t = 0; t < job->n; t++)
    job->positions[t] = follow ? self->follow_position : t;
  job->k = follow ? 1 : LENS_PAGE_TOP;
  job->target = follow ? self->follow_id : -1;
  self->cancellable = g_cancellable_new ();
  self->job_analysis = g_object_ref (analysis);
  self->job_follow = follow;
  self->job_position = self->follow_position;
  self->job_id = self->follow_id;
  g_autoptr (GTask) task = g_task_new (self, self->cancellable, lens_job_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) lens_job_free);
  g_task_run_in_thread (task, lens_job_thread);
}

static gboolean
chart_shown (AttnscopeLensPage *self)
{
  return g_str_equal (gtk_stack_get_visible_child_name (self->stack), "chart");
}

static ArBuiltFigure *
build_chart (AttnscopeLensPage *self, AttnscopeAnalysis *analysis)
{
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
  g_autofree char *token
      = as_predict_dup_ids_text (as_model_get_tokenizer (model), &self->follow_id, 1);
  ArFigureTexts texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &texts);
  return ar_build_lens_chart_figure (self->follow_lens, attnscope_analysis_get_trace (analysis),
                                     token, &texts);
}

static void
show_table (AttnscopeLensPage *self, AttnscopeAnalysis *analysis, const ArViewSelection *view)
{
  if (self->built_lens == self->lens && ar_view_selection_equal (view, &self->built_view))
    return;
  ArFigureTexts texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &texts);
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  g_autoptr (ArBuiltFigure) figure = ar_build_lens_figure (self->lens, trace, view, &texts);
  attnscope_heatmap_view_set_figure (self->heatmap, figure);
  self->built_lens = self->lens;
  self->built_view = *view;
  /* A long text: the first positions, readable; zooming out shows them all. */
  if (trace->n_tokens != self->built_cols && trace->n_tokens > LENS_PAGE_COLUMNS)
    attnscope_heatmap_view_set_view (self->heatmap, 0, 0, LENS_PAGE_COLUMNS);
  self->built_cols = trace->n_tokens;
}

static void
set_status (AttnscopeLensPage *self)
{
  g_autofree char *text = NULL;
  if (self->failure != NULL)
    text = g_strdup (self->failure);
  else if (self->follow_failure != NULL)
    text = g_strdup (self->follow_failure);
  else if (self->follow_id >= 0 && self->follow_lens != NULL)
    {
      AsModel *model
          = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
      g_autofree char *token
          = as_predict_dup_ids_text (as_model_get_tokenizer (model), &self->follow_id, 1);
      g_autofree char *label = ar_token_label (token, token, FALSE);
      text = g_strdup_printf (_ ("Following “%s” at position %d: click another cell to follow "
                                 "its token"),
                              label, self->follow_position);
    }
  else
    text = g_strdup (_ ("Each cell: the top token read from that hidden state. Click a cell to "
                        "follow its token through the layers."));
  gtk_label_set_text (self->status, text);
}

static void
clear (AttnscopeLensPage *self)
{
  cancel_job (self);
  g_clear_object (&self->lens_analysis);
  g_clear_object (&self->follow_analysis);
  g_clear_pointer (&self->lens, as_lens_free);
  g_clear_pointer (&self->follow_lens, as_lens_free);
  g_clear_pointer (&self->failure, g_free);
  g_clear_pointer (&self->follow_failure, g_free);
  self->follow_id = -1;
  self->built_lens = self->built_follow = NULL;
  self->built_cols = 0;
  attnscope_heatmap_view_set_figure (self->heatmap, NULL);
  attnscope_lines_view_set_figure (self->chart, NULL);
}

static void
attnscope_lens_page_update (AttnscopePage *page)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  if (analysis == NULL)
    {
      clear (self);
      set_status (self);
      attnscope_page_set_busy (page, FALSE);
      return;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->chart_button), self->follow_id >= 0);
  if (analysis != self->lens_analysis)
    {
      want_lens (self, analysis, FALSE);
      attnscope_page_set_busy (page, TRUE);
      return;
    }
  set_status (self);
  if (self->failure != NULL)
    {
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      attnscope_lines_view_set_figure (self->chart, NULL);
      self->built_lens = self->built_follow = NULL;
      attnscope_page_set_busy (page, FALSE);
      return;
    }
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  show_table (self, analysis, &view);
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  if (self->follow_id >= 0 && self->follow_position >= trace->n_tokens)
    self->follow_id = -1; /* the new text is shorter: nothing to follow there */
  if (self->follow_id >= 0 && analysis != self->follow_analysis)
    {
      want_lens (self, analysis, TRUE);
      attnscope_page_set_busy (page, TRUE);
      return;
    }
  if (self->follow_id >= 0 && self->follow_lens != NULL && self->built_follow != self->follow_lens)
    {
      g_autoptr (ArBuiltFigure) chart = build_chart (self, analysis);
      attnscope_lines_view_set_figure (self->chart, chart);
      self->built_follow = self->follow_lens;
    }
  if (self->follow_id < 0 && chart_shown (self))
    gtk_toggle_button_set_active (self->table_button, TRUE);
  attnscope_page_set_busy (page, FALSE);
}

/* Whether the page's lens for its figure is there (the analysis's, up to date). */
static gboolean
lens_ready (AttnscopeLensPage *self, AttnscopeAnalysis *analysis, gboolean chart)
{
  if (analysis == NULL)
    return FALSE;
  if (chart)
    return analysis == self->follow_analysis && self->follow_lens != NULL
           && self->follow_lens->target_id == self->follow_id
           && self->follow_lens->positions[0] == self->follow_position;
  return analysis == self->lens_analysis && self->lens != NULL;
}

static ArBuiltFigure *
attnscope_lens_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  gboolean chart = chart_shown (self) && self->follow_id >= 0;
  if (!lens_ready (self, analysis, chart))
    return NULL;
  if (chart)
    return build_chart (self, analysis);
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_lens_figure (self->lens, attnscope_analysis_get_trace (analysis), view, &texts);
}

static void
attnscope_lens_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                        GPtrArray *argv)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (page);
  g_ptr_array_add (argv, g_strdup ("--lens"));
  if (chart_shown (self) && self->follow_id >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("--follow-id"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", self->follow_id));
      g_ptr_array_add (argv, g_strdup ("--position"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", self->follow_position));
    }
}

static ArBuiltFigure *
attnscope_lens_page_get_figure (AttnscopePage *page)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (page);
  if (chart_shown (self))
    return attnscope_lines_view_get_figure (self->chart);
  return attnscope_heatmap_view_get_figure (self->heatmap);
}

static char *
attnscope_lens_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (page);
  if (chart_shown (self) && self->follow_id >= 0)
    return g_strdup_printf ("lens-token%d-position%d", self->follow_id, self->follow_position);
  return g_strdup ("lens");
}

/* The tooltip's text of cell (ROW, COL): its top five tokens and their probabilities. */
static char *
describe_cell (int row, int col, gpointer data)
{
  AttnscopeLensPage *self = data;
  const AsLens *lens = self->built_lens;
  if (lens == NULL || row >= lens->n_hidden || col >= lens->n_positions)
    return NULL;
  const AsLensCell *cell = as_lens_cell (lens, row, col);
  GString *text = g_string_new (NULL);
  for (int k = 0; k < cell->n_top; k++)
    {
      g_autofree char *label = ar_token_label (cell->top[k].token, cell->top[k].token, FALSE);
      g_autofree char *p = ar_format_number (cell->top[k].probability, 4);
      g_string_append_printf (text, "%s%d. “%s” %s", k > 0 ? "\n" : "", k + 1, label, p);
    }
  return g_string_free (text, FALSE);
}

void
attnscope_lens_page_follow (AttnscopeLensPage *self, int position, int32_t id)
{
  g_return_if_fail (ATTNSCOPE_IS_LENS_PAGE (self));
  self->follow_position = position;
  self->follow_id = id;
  g_clear_object (&self->follow_analysis); /* asks for the new token's lens */
  gtk_widget_set_sensitive (GTK_WIDGET (self->chart_button), TRUE);
  gtk_toggle_button_set_active (self->chart_button, TRUE);
  attnscope_lens_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_lens_page_show_chart (AttnscopeLensPage *self, gboolean chart)
{
  g_return_if_fail (ATTNSCOPE_IS_LENS_PAGE (self));
  gtk_toggle_button_set_active (
      chart && self->follow_id >= 0 ? self->chart_button : self->table_button, TRUE);
}

static void
on_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col, AttnscopeLensPage *self)
{
  const AsLens *lens = self->built_lens;
  if (lens == NULL || row >= lens->n_hidden || col >= lens->n_positions)
    return;
  const AsLensCell *cell = as_lens_cell (lens, row, col);
  if (cell->n_top > 0)
    attnscope_lens_page_follow (self, lens->positions[col], cell->top[0].id);
}

static void
on_chart_toggled (GtkToggleButton *button, AttnscopeLensPage *self)
{
  gtk_stack_set_visible_child_name (self->stack,
                                    gtk_toggle_button_get_active (button) ? "chart" : "table");
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), gtk_toggle_button_get_active (button)
                                                              ? GTK_WIDGET (self->chart)
                                                              : GTK_WIDGET (self->heatmap));
}

AttnscopeHeatmapView *
attnscope_lens_page_get_heatmap (AttnscopeLensPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LENS_PAGE (self), NULL);
  return self->heatmap;
}

AttnscopeLinesView *
attnscope_lens_page_get_chart (AttnscopeLensPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LENS_PAGE (self), NULL);
  return self->chart;
}

const char *
attnscope_lens_page_get_status (AttnscopeLensPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_LENS_PAGE (self), NULL);
  return gtk_label_get_text (self->status);
}

static void
attnscope_lens_page_dispose (GObject *object)
{
  AttnscopeLensPage *self = ATTNSCOPE_LENS_PAGE (object);
  cancel_job (self);
  G_OBJECT_CLASS (attnscope_lens_page_parent_class)->dispose (object);
  g_clear_object (&self->lens_analysis);
  g_clear_object (&self->follow_analysis);
  g_clear_pointer (&self->lens, as_lens_free);
  g_clear_pointer (&self->follow_lens, as_lens_free);
  g_clear_pointer (&self->failure, g_free);
  g_clear_pointer (&self->follow_failure, g_free);
}

static void
attnscope_lens_page_class_init (AttnscopeLensPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_lens_page_dispose;
  page_class->update = attnscope_lens_page_update;
  page_class->get_figure = attnscope_lens_page_get_figure;
  page_class->dup_figure_name = attnscope_lens_page_dup_figure_name;
  page_class->build_figure = attnscope_lens_page_build_figure;
  page_class->append_export_args = attnscope_lens_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LINES_VIEW);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-lens-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, table_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, chart_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, status);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, heatmap);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeLensPage, chart);
}

static void
attnscope_lens_page_init (AttnscopeLensPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->follow_id = -1;
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->heatmap));
  attnscope_heatmap_view_set_cell_describe (self->heatmap, describe_cell, self);
  g_signal_connect (self->heatmap, "cell-activated", G_CALLBACK (on_cell_activated), self);
  g_signal_connect (self->chart_button, "toggled", G_CALLBACK (on_chart_toggled), self);
  gtk_widget_set_sensitive (GTK_WIDGET (self->chart_button), FALSE);
  set_status (self);
}
