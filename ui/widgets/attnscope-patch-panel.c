/* attnscope-patch-panel.c — activation patching on the Compare page (see
 * attnscope-patch-panel.h). */
#include "attnscope-patch-panel.h"

#include <glib/gi18n.h>

#include "attnscope-whatif.h"
#include "patch-figure.h"
#include "scan-figure.h"

struct _AttnscopePatchPanel
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkEntry *token_entry, *vs_entry;
  GtkDropDown *what_dropdown, *direction_dropdown;
  GtkSpinner *spinner;
  GtkWidget *cancel_button; /* visible while patching */
  GtkLabel *status;
  guint progress_id; /* the status's "12 of 72 parts" while patching */
  GTask *task;       /* the run in flight (a reference), or NULL */
  AttnscopeHeatmapView *heatmap;

  AttnscopeSession *session; /* a reference, or NULL */
  gboolean wanted;           /* a patching was asked for: new texts are patched too */
  AsMetric metric;
  char *measure;
  AsPatchWhat what;
  gboolean reverse;

  GCancellable *running;    /* identifies the request in flight, NULL when idle */
  AsTrace *done_a, *done_b; /* the traces of the shown result */
  AsPatchWhat done_what;
  gboolean done_reverse;
  AsMetric done_metric;
  double *effects;
  int rows, cols;
  AsPatchResult result;
};

G_DEFINE_FINAL_TYPE (AttnscopePatchPanel, attnscope_patch_panel, GTK_TYPE_WIDGET)

typedef struct
{
  AsModel *model;
  AsTrace *a, *b;
  AsMetric metric;
  AsPatchWhat what;
  gboolean reverse;
  double *effects;
  AsPatchResult result;
  AttnscopeWhatifState *whatif; /* the window's changes, the patching's base (a reference) */
  int done, total;              /* atomic: parts patched */
} PatchData;

static void
patch_data_free (PatchData *data)
{
  as_model_unref (data->model);
  as_trace_unref (data->a);
  as_trace_unref (data->b);
  g_free (data->effects);
  g_clear_pointer (&data->whatif, attnscope_whatif_state_unref);
  g_free (data);
}

static void
on_progress (int done, int total, gpointer user_data)
{
  PatchData *data = user_data;
  g_atomic_int_set (&data->total, total);
  g_atomic_int_set (&data->done, done);
}

static void
patch_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  PatchData *data = task_data;
  const AsTrace *base = data->reverse ? data->b : data->a;
  const AsTrace *from = data->reverse ? data->a : data->b;
  GError *error = NULL;
  AsAblationSet set;
  AsScanOptions so = { .cancellable = cancellable, .progress = on_progress, .user_data = data };
  attnscope_whatif_state_scan_options (data->whatif, &set, &so);
  if (as_patch_with (data->model, base->ids, from->ids, base->n_tokens, &data->metric, data->what,
                     &so, data->effects, &data->result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
set_status (AttnscopePatchPanel *self, const char *text)
{
  gtk_label_set_text (self->status, text != NULL ? text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status),
                               text != NULL && *text != '\0' ? text : NULL);
}

/* The run stopped or is dropped: no spinner, no Cancel, no progress. */
static void
stop_running (AttnscopePatchPanel *self)
{
  if (self->running != NULL)
    g_cancellable_cancel (self->running);
  g_clear_object (&self->running);
  g_clear_object (&self->task);
  g_clear_handle_id (&self->progress_id, g_source_remove);
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_visible (self->cancel_button, FALSE);
}

static gboolean
update_progress (gpointer user_data)
{
  AttnscopePatchPanel *self = user_data;
  if (self->task == NULL)
    {
      self->progress_id = 0;
      return G_SOURCE_REMOVE;
    }
  PatchData *data = g_task_get_task_data (self->task);
  int done = g_atomic_int_get (&data->done), total = g_atomic_int_get (&data->total);
  if (total > 0)
    {
      /* Translators: patching's progress, parts patched of all */
      g_autofree char *text = g_strdup_printf (_ ("Patching… %d of %d parts"), done, total);
      set_status (self, text);
    }
  return G_SOURCE_CONTINUE;
}

void
attnscope_patch_panel_cancel (AttnscopePatchPanel *self)
{
  g_return_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self));
  if (self->running == NULL)
    return;
  stop_running (self);
  self->wanted = FALSE; /* until Patch is pressed again */
  set_status (self, _ ("Patching cancelled."));
}

static void
clear_result (AttnscopePatchPanel *self)
{
  g_clear_pointer (&self->done_a, as_trace_unref);
  g_clear_pointer (&self->done_b, as_trace_unref);
  g_clear_pointer (&self->effects, g_free);
  attnscope_heatmap_view_set_figure (self->heatmap, NULL);
}

static void
texts_of (AttnscopePatchPanel *self, ArFigureTexts *texts)
{
  AttnscopeRun *a = attnscope_session_get_main (self->session);
  AttnscopeRun *b = attnscope_session_get_compare (self->session);
  *texts = (ArFigureTexts){
    .model_name = attnscope_session_get_model_name (self->session),
    .text = attnscope_run_get_trace_text (a),
    .n_tokens = self->done_a->n_tokens,
    .compare_text = attnscope_run_get_trace_text (b),
    .n_compare_tokens = self->done_b->n_tokens,
  };
}

static void
patch_finished (GObject *source, GAsyncResult *res, gpointer user_data)
{
  AttnscopePatchPanel *self = user_data;
  GTask *task = G_TASK (res);
  PatchData *data = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (task, &error);
  if (self->running != NULL && g_task_get_cancellable (task) == self->running
      && !g_cancellable_is_cancelled (self->running))
    {
      g_clear_object (&self->running);
      stop_running (self);
      if (!ok)
        {
          clear_result (self);
          set_status (self, error->message);
        }
      else
        {
          clear_result (self);
          self->done_a = as_trace_ref (data->a);
          self->done_b = as_trace_ref (data->b);
          self->done_what = data->what;
          self->done_reverse = data->reverse;
          self->done_metric = data->metric;
          self->effects = g_steal_pointer (&data->effects);
          const AsTrace *base = data->reverse ? data->b : data->a;
          self->rows = data->what == AS_PATCH_MLPS ? 1 : base->n_layer;
          self->cols = data->what == AS_PATCH_HEADS   ? base->n_head
                       : data->what == AS_PATCH_RESID ? base->n_tokens
                                                      : base->n_layer;
          self->result = data->result;
          ArFigureTexts texts;
          texts_of (self, &texts);
          g_autoptr (ArBuiltFigure) figure
              = ar_build_patch_figure (self->effects, data->what, base, data->reverse,
                                       &self->result, self->measure, &texts, AR_ANNOTATE_AUTO);
          attnscope_heatmap_view_set_figure (self->heatmap, figure);
          g_autofree char *model = attnscope_whatif_state_describe (data->whatif);
          /* Translators: %s: "the model as it is" or the heads switched off in the window */
          g_autofree char *text = g_strdup_printf (_ ("Patched on %s."), model);
          set_status (self, text);
        }
    }
  g_object_unref (self);
}

static gboolean
same_metric (const AsMetric *a, const AsMetric *b)
{
  return a->kind == b->kind && a->token_id == b->token_id && a->vs_id == b->vs_id;
}

/* Patches the texts on screen when asked and not done yet; says why not otherwise. */
static void
refresh (AttnscopePatchPanel *self)
{
  AsModel *model = self->session != NULL ? attnscope_session_get_model (self->session) : NULL;
  AsTrace *a
      = model != NULL ? attnscope_run_get_trace (attnscope_session_get_main (self->session)) : NULL;
  AsTrace *b = model != NULL
                   ? attnscope_run_get_trace (attnscope_session_get_compare (self->session))
                   : NULL;
  if (!self->wanted)
    return;
  if (a == NULL || b == NULL)
    {
      set_status (self, _ ("Type sentence B on this page to patch between A and B."));
      return;
    }
  if (a->n_tokens != b->n_tokens)
    {
      stop_running (self);
      clear_result (self);
      g_autofree char *text
          = g_strdup_printf (_ ("Patching needs texts of the same number of tokens: A has %d, B "
                                "has %d."),
                             a->n_tokens, b->n_tokens);
      set_status (self, text);
      return;
    }
  if (self->effects != NULL && a == self->done_a && b == self->done_b
      && self->what == self->done_what && self->reverse == self->done_reverse
      && same_metric (&self->metric, &self->done_metric))
    return;
  stop_running (self);
  self->running = g_cancellable_new ();
  PatchData *data = g_new0 (PatchData, 1);
  data->model = as_model_ref (model);
  data->a = as_trace_ref (a);
  data->b = as_trace_ref (b);
  data->metric = self->metric;
  data->what = self->what;
  data->reverse = self->reverse;
  data->effects = g_new0 (double, as_patch_n_effects (model, self->what, a->n_tokens));
  data->whatif = attnscope_whatif_state_ref (
      attnscope_whatif_get_state (attnscope_session_get_whatif (self->session)));
  GTask *task = g_task_new (NULL, self->running, patch_finished, g_object_ref (self));
  g_task_set_task_data (task, data, (GDestroyNotify) patch_data_free);
  self->task = g_object_ref (task);
  g_task_run_in_thread (task, patch_thread);
  g_object_unref (task);
  gtk_spinner_start (self->spinner);
  gtk_widget_set_visible (self->cancel_button, TRUE);
  set_status (self, _ ("Patching…"));
  self->progress_id = g_timeout_add (100, update_progress, self);
}

gboolean
attnscope_patch_panel_patch (AttnscopePatchPanel *self, const char *token, const char *vs_token,
                             AsPatchWhat what, gboolean reverse)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self), FALSE);
  AsModel *model = self->session != NULL ? attnscope_session_get_model (self->session) : NULL;
  AsTokenizer *tokenizer = model != NULL ? as_model_get_tokenizer (model) : NULL;
  g_autoptr (GError) error = NULL;
  AsMetric metric = { .kind = AS_METRIC_LOGIT_DIFF };
  if (tokenizer == NULL)
    {
      set_status (self, _ ("The model has no tokenizer."));
      return FALSE;
    }
  if (!as_tokenizer_word_id (tokenizer, token, &metric.token_id, &error)
      || !as_tokenizer_word_id (tokenizer, vs_token, &metric.vs_id, &error))
    {
      set_status (self, error->message);
      return FALSE;
    }
  self->metric = metric;
  /* the toolbar says what is patched, however it was asked for */
  if (token != gtk_editable_get_text (GTK_EDITABLE (self->token_entry)))
    gtk_editable_set_text (GTK_EDITABLE (self->token_entry), token);
  if (vs_token != gtk_editable_get_text (GTK_EDITABLE (self->vs_entry)))
    gtk_editable_set_text (GTK_EDITABLE (self->vs_entry), vs_token);
  gtk_drop_down_set_selected (self->what_dropdown, what);
  gtk_drop_down_set_selected (self->direction_dropdown, reverse ? 1 : 0);
  self->what = what;
  self->reverse = reverse;
  g_free (self->measure);
  self->measure = ar_ablation_measure_label (tokenizer, &metric);
  self->wanted = TRUE;
  refresh (self);
  return TRUE;
}

static void
on_patch_clicked (AttnscopePatchPanel *self)
{
  attnscope_patch_panel_patch (self, gtk_editable_get_text (GTK_EDITABLE (self->token_entry)),
                               gtk_editable_get_text (GTK_EDITABLE (self->vs_entry)),
                               (AsPatchWhat) gtk_drop_down_get_selected (self->what_dropdown),
                               gtk_drop_down_get_selected (self->direction_dropdown) == 1);
}

void
attnscope_patch_panel_set_session (AttnscopePatchPanel *self, AttnscopeSession *session)
{
  g_return_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self));
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (attnscope_session_get_main (self->session), self);
      g_signal_handlers_disconnect_by_data (attnscope_session_get_compare (self->session), self);
    }
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_swapped (attnscope_session_get_main (session), "notify::trace",
                                G_CALLBACK (refresh), self);
      g_signal_connect_swapped (attnscope_session_get_compare (session), "notify::trace",
                                G_CALLBACK (refresh), self);
    }
  refresh (self);
}

gboolean
attnscope_patch_panel_get_running (AttnscopePatchPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self), FALSE);
  return self->running != NULL;
}

const double *
attnscope_patch_panel_get_effects (AttnscopePatchPanel *self, int *rows, int *cols,
                                   AsPatchResult *result)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self), NULL);
  *rows = self->rows, *cols = self->cols, *result = self->result;
  return self->effects;
}

const char *
attnscope_patch_panel_get_status (AttnscopePatchPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self), NULL);
  return gtk_label_get_text (self->status);
}

ArBuiltFigure *
attnscope_patch_panel_get_figure (AttnscopePatchPanel *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PATCH_PANEL (self), NULL);
  return attnscope_heatmap_view_get_figure (self->heatmap);
}

static void
attnscope_patch_panel_dispose (GObject *object)
{
  AttnscopePatchPanel *self = ATTNSCOPE_PATCH_PANEL (object);
  attnscope_patch_panel_set_session (self, NULL);
  if (self->box != NULL)
    stop_running (self);
  g_clear_pointer (&self->done_a, as_trace_unref);
  g_clear_pointer (&self->done_b, as_trace_unref);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (attnscope_patch_panel_parent_class)->dispose (object);
}

static void
attnscope_patch_panel_finalize (GObject *object)
{
  AttnscopePatchPanel *self = ATTNSCOPE_PATCH_PANEL (object);
  g_free (self->effects);
  g_free (self->measure);
  G_OBJECT_CLASS (attnscope_patch_panel_parent_class)->finalize (object);
}

static void
attnscope_patch_panel_class_init (AttnscopePatchPanelClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = attnscope_patch_panel_dispose;
  G_OBJECT_CLASS (klass)->finalize = attnscope_patch_panel_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "patchpanel");
}

static GtkDropDown *
drop_down (const char *tooltip, const char *const *items)
{
  GtkDropDown *d = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (items));
  gtk_widget_set_tooltip_text (GTK_WIDGET (d), tooltip);
  return d;
}

static GtkEntry *
entry (const char *placeholder, const char *tooltip)
{
  GtkEntry *e = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (e, placeholder);
  gtk_widget_set_tooltip_text (GTK_WIDGET (e), tooltip);
  gtk_editable_set_width_chars (GTK_EDITABLE (e), 10);
  return e;
}

static void
attnscope_patch_panel_init (AttnscopePatchPanel *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (row, "toolbar");
  GtkWidget *caption = gtk_label_new (_ ("Patching"));
  gtk_widget_add_css_class (caption, "heading");
  gtk_box_append (GTK_BOX (row), caption);
  self->token_entry = entry (_ ("Token, e.g. “ car”"),
                             _ ("The logit difference measured: this token's logit at the last "
                                "position …"));
  self->vs_entry = entry (_ ("vs. token, e.g. “ man”"), _ ("The token whose logit is subtracted"));
  const char *what[] = { _ ("Heads"), _ ("MLPs"), _ ("Residual stream"), NULL };
  self->what_dropdown = drop_down (_ ("What is patched, one at a time"), what);
  const char *direction[] = { _ ("B into A"), _ ("A into B"), NULL };
  self->direction_dropdown = drop_down (_ ("Whose activations go into whose pass"), direction);
  GtkWidget *button = gtk_button_new_with_label (_ ("Patch"));
  gtk_widget_set_tooltip_text (button, _ ("Patch each part from one text's pass into the other's "
                                          "and measure the logit difference"));
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_patch_clicked), self);
  g_signal_connect_swapped (self->token_entry, "activate", G_CALLBACK (on_patch_clicked), self);
  g_signal_connect_swapped (self->vs_entry, "activate", G_CALLBACK (on_patch_clicked), self);
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  self->cancel_button = gtk_button_new_with_label (_ ("Cancel"));
  gtk_widget_set_tooltip_text (self->cancel_button, _ ("Stop patching"));
  gtk_widget_set_visible (self->cancel_button, FALSE);
  g_signal_connect_swapped (self->cancel_button, "clicked",
                            G_CALLBACK (attnscope_patch_panel_cancel), self);
  self->status = GTK_LABEL (gtk_label_new (NULL));
  /* one line, ellipsized (the whole message in its tooltip): a wrapped label in the row made the
   * panel's height depend on its width, which the divider above it measures at any width */
  gtk_label_set_ellipsize (self->status, PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (self->status, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->status), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "dim-label");
  GtkWidget *parts[] = { GTK_WIDGET (self->token_entry),
                         GTK_WIDGET (self->vs_entry),
                         GTK_WIDGET (self->what_dropdown),
                         GTK_WIDGET (self->direction_dropdown),
                         button,
                         GTK_WIDGET (self->spinner),
                         self->cancel_button,
                         GTK_WIDGET (self->status) };
  for (gsize i = 0; i < G_N_ELEMENTS (parts); i++)
    gtk_box_append (GTK_BOX (row), parts[i]);
  gtk_box_append (GTK_BOX (self->box), row);
  self->heatmap = ATTNSCOPE_HEATMAP_VIEW (g_object_new (ATTNSCOPE_TYPE_HEATMAP_VIEW, NULL));
  gtk_widget_set_size_request (GTK_WIDGET (self->heatmap), -1, 220);
  gtk_widget_add_css_class (GTK_WIDGET (self->heatmap), "figure");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->heatmap));
}

GtkWidget *
attnscope_patch_panel_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_PATCH_PANEL, NULL);
}
