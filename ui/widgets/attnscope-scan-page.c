/* attnscope-scan-page.c — the ablation scan page (see attnscope-scan-page.h). The scan runs in a
 * GTask thread over the main trace's ids; a timer on the UI thread shows its progress (the
 * thread only counts the heads done). Only the scan of the trace on screen lands. */
#include "attnscope-scan-page.h"

#include <glib/gi18n.h>

#include "as-error.h"
#include "attnscope-whatif.h"
#include "scan-figure.h"

struct _AttnscopeScanPage
{
  AttnscopePage parent_instance;

  GtkDropDown *measure_dropdown;
  GtkEntry *token_entry, *vs_entry;
  GtkButton *scan_button, *cancel_button;
  GtkProgressBar *progress;
  GtkLabel *status;
  AttnscopeHeatmapView *heatmap;

  gboolean wanted; /* a measure was asked for: every new text is scanned */
  AsMetric metric;
  char *token, *vs_token; /* the words of the measure (export arguments) */
  char *measure;          /* its label (ar_ablation_measure_label) */

  GTask *running;         /* the scan in flight (a reference), or NULL */
  AsTrace *running_trace; /* the trace it scans */
  guint progress_id;

  AsTrace *scanned; /* the trace the effects belong to, or NULL */
  double *effects;  /* [L][H] */
  int n_layer, n_head;
  double clean;
  AttnscopeWhatifState *whatif; /* the window's changes the effects were scanned with, or NULL */
};

G_DEFINE_FINAL_TYPE (AttnscopeScanPage, attnscope_scan_page, ATTNSCOPE_TYPE_PAGE)

typedef struct
{
  AsModel *model;
  AsTrace *trace;
  AsMetric metric;
  int n_layer, n_head;
  double *effects; /* [L][H], filled by the thread */
  double clean;
  int done, total;              /* atomic: heads measured */
  AttnscopeWhatifState *whatif; /* the window's changes, the scan's base (a reference) */
} ScanData;

static void
scan_data_free (ScanData *data)
{
  as_model_unref (data->model);
  as_trace_unref (data->trace);
  g_free (data->effects);
  g_clear_pointer (&data->whatif, attnscope_whatif_state_unref);
  g_free (data);
}

static void
on_progress (int done, int total, gpointer user_data)
{
  ScanData *data = user_data;
  g_atomic_int_set (&data->total, total);
  g_atomic_int_set (&data->done, done);
}

static void
scan_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  ScanData *data = task_data;
  GError *error = NULL;
  AsAblationSet base;
  AsScanOptions so = { .cancellable = cancellable, .progress = on_progress, .user_data = data };
  attnscope_whatif_state_scan_options (data->whatif, &base, &so);
  if (as_ablation_scan_with (data->model, data->trace->ids, data->trace->n_tokens, &data->metric,
                             &so, data->effects, &data->clean, NULL, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
set_status (AttnscopeScanPage *self, const char *text)
{
  gtk_label_set_text (self->status, text != NULL ? text : "");
}

static void
show_running (AttnscopeScanPage *self, gboolean running)
{
  gtk_widget_set_visible (GTK_WIDGET (self->progress), running);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);
  attnscope_page_set_busy (ATTNSCOPE_PAGE (self), running);
}

static gboolean
update_progress (gpointer user_data)
{
  AttnscopeScanPage *self = user_data;
  if (self->running == NULL)
    {
      self->progress_id = 0;
      return G_SOURCE_REMOVE;
    }
  ScanData *data = g_task_get_task_data (self->running);
  int done = g_atomic_int_get (&data->done), total = g_atomic_int_get (&data->total);
  gtk_progress_bar_set_fraction (self->progress, total > 0 ? (double) done / total : 0);
  /* Translators: the ablation scan's progress, heads measured of all heads */
  g_autofree char *text
      = g_strdup_printf (_ ("%d of %d heads"), done, data->n_layer * data->n_head);
  gtk_progress_bar_set_text (self->progress, text);
  return G_SOURCE_CONTINUE;
}

void
attnscope_scan_page_cancel (AttnscopeScanPage *self)
{
  g_return_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self));
  if (self->running == NULL)
    return;
  g_cancellable_cancel (g_task_get_cancellable (self->running));
  g_clear_object (&self->running);
  g_clear_pointer (&self->running_trace, as_trace_unref);
  g_clear_handle_id (&self->progress_id, g_source_remove);
  show_running (self, FALSE);
  set_status (self, _ ("Scan cancelled."));
}

/* Builds the figure of the effects for VIEW, or NULL without effects. */
static ArBuiltFigure *
build (AttnscopeScanPage *self, const ArViewSelection *view)
{
  if (self->effects == NULL)
    return NULL;
  ArFigureTexts texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &texts);
  gboolean mean = attnscope_whatif_state_mean (self->whatif);
  return ar_build_ablation_scan_figure (self->effects, self->n_layer, self->n_head, self->clean,
                                        self->measure, mean ? "mean" : "zero", &texts,
                                        view->annotate);
}

static void
show_result (AttnscopeScanPage *self)
{
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  g_autoptr (ArBuiltFigure) figure = build (self, &view);
  attnscope_heatmap_view_set_figure (self->heatmap, figure);
}

static void
scan_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeScanPage *self = user_data;
  GTask *task = G_TASK (result);
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (task, &error);
  if (task == self->running)
    {
      ScanData *data = g_task_get_task_data (task);
      g_clear_object (&self->running);
      g_clear_handle_id (&self->progress_id, g_source_remove);
      show_running (self, FALSE);
      if (ok)
        {
          g_clear_pointer (&self->scanned, as_trace_unref);
          self->scanned = g_steal_pointer (&self->running_trace);
          g_free (self->effects);
          self->effects = g_steal_pointer (&data->effects);
          self->n_layer = data->n_layer, self->n_head = data->n_head;
          self->clean = data->clean;
          g_clear_pointer (&self->whatif, attnscope_whatif_state_unref);
          self->whatif = g_steal_pointer (&data->whatif);
          gboolean mean = attnscope_whatif_state_mean (self->whatif);
          g_autofree char *model = attnscope_whatif_state_describe (self->whatif);
          g_autofree char *text = g_strdup_printf (
              /* Translators: %s: "zero" or "mean"; then "the model as it is" or the heads
                 switched off in the window */
              _ ("Each cell: the measure with that head switched off (%s ablation) minus the "
                 "clean measure; on %s."),
              mean ? _ ("mean") : _ ("zero"), model);
          set_status (self, text);
          show_result (self);
        }
      else
        {
          g_clear_pointer (&self->running_trace, as_trace_unref);
          set_status (self, error->message);
        }
    }
  g_object_unref (self);
}

/* Scans TRACE (the main trace) with the asked measure. */
static void
start (AttnscopeScanPage *self, AsTrace *trace)
{
  attnscope_scan_page_cancel (self);
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AsModel *model = session != NULL ? attnscope_session_get_model (session) : NULL;
  if (model == NULL)
    return;
  const AsConfig *c = as_model_get_config (model);
  ScanData *data = g_new0 (ScanData, 1);
  data->model = as_model_ref (model);
  data->trace = as_trace_ref (trace);
  data->metric = self->metric;
  data->n_layer = c->n_layer, data->n_head = c->n_head;
  data->effects = g_new0 (double, (gsize) c->n_layer * c->n_head);
  data->whatif = attnscope_whatif_state_ref (
      attnscope_whatif_get_state (attnscope_session_get_whatif (session)));
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  GTask *task = g_task_new (NULL, cancellable, scan_finished, g_object_ref (self));
  g_task_set_task_data (task, data, (GDestroyNotify) scan_data_free);
  self->running = task; /* the reference g_task_new gave */
  self->running_trace = as_trace_ref (trace);
  g_task_run_in_thread (task, scan_thread);
  show_running (self, TRUE);
  update_progress (self);
  self->progress_id = g_timeout_add (100, update_progress, self);
  set_status (self, _ ("Switching off each head in turn…"));
}

gboolean
attnscope_scan_page_scan (AttnscopeScanPage *self, int kind, const char *token,
                          const char *vs_token)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self), FALSE);
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AsModel *model = session != NULL ? attnscope_session_get_model (session) : NULL;
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (model == NULL || analysis == NULL)
    {
      set_status (self, _ ("Type a text first."));
      return FALSE;
    }
  g_autoptr (GError) error = NULL;
  AsMetric metric = { .kind = kind, .token_id = -1, .vs_id = -1 };
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (kind != AS_METRIC_LOSS
      && (tokenizer == NULL || !as_tokenizer_word_id (tokenizer, token, &metric.token_id, &error)
          || (kind == AS_METRIC_LOGIT_DIFF
              && !as_tokenizer_word_id (tokenizer, vs_token, &metric.vs_id, &error))))
    {
      set_status (self, error != NULL ? error->message : _ ("The model has no tokenizer."));
      return FALSE;
    }
  self->metric = metric;
  /* the toolbar says what is scanned, however the scan was asked for */
  gtk_drop_down_set_selected (self->measure_dropdown, kind == AS_METRIC_LOGIT        ? 0
                                                      : kind == AS_METRIC_LOGIT_DIFF ? 1
                                                                                     : 2);
  if (token != NULL && token != gtk_editable_get_text (GTK_EDITABLE (self->token_entry)))
    gtk_editable_set_text (GTK_EDITABLE (self->token_entry), token);
  if (vs_token != NULL && vs_token != gtk_editable_get_text (GTK_EDITABLE (self->vs_entry)))
    gtk_editable_set_text (GTK_EDITABLE (self->vs_entry), vs_token);
  g_free (self->token);
  g_free (self->vs_token);
  self->token = kind != AS_METRIC_LOSS ? g_strdup (token) : NULL;
  self->vs_token = kind == AS_METRIC_LOGIT_DIFF ? g_strdup (vs_token) : NULL;
  g_free (self->measure);
  self->measure = ar_ablation_measure_label (tokenizer, &metric);
  self->wanted = TRUE;
  start (self, attnscope_analysis_get_trace (analysis));
  return TRUE;
}

static void
on_scan_clicked (AttnscopeScanPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->measure_dropdown);
  int kind = selected == 0   ? AS_METRIC_LOGIT
             : selected == 1 ? AS_METRIC_LOGIT_DIFF
                             : AS_METRIC_LOSS;
  attnscope_scan_page_scan (self, kind, gtk_editable_get_text (GTK_EDITABLE (self->token_entry)),
                            gtk_editable_get_text (GTK_EDITABLE (self->vs_entry)));
}

static void
on_measure_changed (AttnscopeScanPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->measure_dropdown);
  gtk_widget_set_sensitive (GTK_WIDGET (self->token_entry), selected != 2);
  gtk_widget_set_sensitive (GTK_WIDGET (self->vs_entry), selected == 1);
}

static void
attnscope_scan_page_update (AttnscopePage *page)
{
  AttnscopeScanPage *self = ATTNSCOPE_SCAN_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  AsTrace *trace = analysis != NULL ? attnscope_analysis_get_trace (analysis) : NULL;
  if (trace == NULL || (self->running_trace != NULL && self->running_trace != trace))
    attnscope_scan_page_cancel (self);
  if (trace == NULL)
    {
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      g_clear_pointer (&self->scanned, as_trace_unref);
      g_clear_pointer (&self->effects, g_free);
      set_status (self, NULL);
      return;
    }
  /* a new text: scan it with the measure asked for (the old figure stays meanwhile) */
  if (self->wanted && trace != self->scanned && self->running == NULL)
    start (self, trace);
  else if (!self->wanted && self->effects == NULL)
    set_status (self, _ ("Choose a measure and press Scan: each head is switched off in turn."));
}

static ArBuiltFigure *
attnscope_scan_page_get_figure (AttnscopePage *page)
{
  return attnscope_heatmap_view_get_figure (ATTNSCOPE_SCAN_PAGE (page)->heatmap);
}

static ArBuiltFigure *
attnscope_scan_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  return build (ATTNSCOPE_SCAN_PAGE (page), view);
}

static char *
attnscope_scan_page_dup_figure_name (AttnscopePage *page)
{
  return g_strdup ("ablation-scan");
}

static void
attnscope_scan_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                        GPtrArray *argv)
{
  AttnscopeScanPage *self = ATTNSCOPE_SCAN_PAGE (page);
  g_ptr_array_add (argv, g_strdup ("--ablation-scan"));
  if (self->metric.kind == AS_METRIC_LOSS)
    g_ptr_array_add (argv, g_strdup ("--scan-loss"));
  if (self->token != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--scan-token"));
      g_ptr_array_add (argv, g_strdup (self->token));
    }
  if (self->vs_token != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--scan-vs-token"));
      g_ptr_array_add (argv, g_strdup (self->vs_token));
    }
}

gboolean
attnscope_scan_page_get_scanning (AttnscopeScanPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self), FALSE);
  return self->running != NULL;
}

const double *
attnscope_scan_page_get_effects (AttnscopeScanPage *self, int *n_layer, int *n_head, double *clean)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self), NULL);
  *n_layer = self->n_layer, *n_head = self->n_head, *clean = self->clean;
  return self->effects;
}

const char *
attnscope_scan_page_get_status (AttnscopeScanPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self), NULL);
  return gtk_label_get_text (self->status);
}

AttnscopeHeatmapView *
attnscope_scan_page_get_heatmap (AttnscopeScanPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SCAN_PAGE (self), NULL);
  return self->heatmap;
}

static void
attnscope_scan_page_dispose (GObject *object)
{
  AttnscopeScanPage *self = ATTNSCOPE_SCAN_PAGE (object);
  if (self->running != NULL)
    g_cancellable_cancel (g_task_get_cancellable (self->running));
  g_clear_object (&self->running);
  g_clear_pointer (&self->running_trace, as_trace_unref);
  g_clear_handle_id (&self->progress_id, g_source_remove);
  g_clear_pointer (&self->scanned, as_trace_unref);
  G_OBJECT_CLASS (attnscope_scan_page_parent_class)->dispose (object);
}

static void
attnscope_scan_page_finalize (GObject *object)
{
  AttnscopeScanPage *self = ATTNSCOPE_SCAN_PAGE (object);
  g_free (self->effects);
  g_free (self->token);
  g_free (self->vs_token);
  g_free (self->measure);
  g_clear_pointer (&self->whatif, attnscope_whatif_state_unref);
  G_OBJECT_CLASS (attnscope_scan_page_parent_class)->finalize (object);
}

static void
attnscope_scan_page_class_init (AttnscopeScanPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = attnscope_scan_page_dispose;
  G_OBJECT_CLASS (klass)->finalize = attnscope_scan_page_finalize;
  page_class->update = attnscope_scan_page_update;
  page_class->get_figure = attnscope_scan_page_get_figure;
  page_class->build_figure = attnscope_scan_page_build_figure;
  page_class->dup_figure_name = attnscope_scan_page_dup_figure_name;
  page_class->append_export_args = attnscope_scan_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-scan-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, measure_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, token_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, vs_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, scan_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, progress);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, status);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeScanPage, heatmap);
}

static void
attnscope_scan_page_init (AttnscopeScanPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect_swapped (self->scan_button, "clicked", G_CALLBACK (on_scan_clicked), self);
  g_signal_connect_swapped (self->token_entry, "activate", G_CALLBACK (on_scan_clicked), self);
  g_signal_connect_swapped (self->vs_entry, "activate", G_CALLBACK (on_scan_clicked), self);
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (attnscope_scan_page_cancel),
                            self);
  g_signal_connect_swapped (self->measure_dropdown, "notify::selected",
                            G_CALLBACK (on_measure_changed), self);
  on_measure_changed (self);
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->heatmap));
}
