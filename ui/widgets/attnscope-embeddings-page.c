/* attnscope-embeddings-page.c — the embeddings view (see attnscope-embeddings-page.h).
 *
 * The sentences are text A (the session's main trace) and the page's further sentences
 * (attnscope-sentences.h). A projection is asked of text A's analysis for (the other sentences'
 * traces, vectors, layer, head, method), and with "Static beside" a second one of the token
 * embeddings; the analysis computes them off the UI thread once and keeps them, so going back to
 * a projection shown before is immediate. While one is computed the page keeps its last plot and
 * shows t-SNE's or UMAP's progress. While a sentence runs through the model, or when one failed,
 * no projection is asked for and the last plot stays (a failure is named in the sentence panel).
 * A projection the user cancelled is not asked for again until the request changes or "Run
 * Again" is pressed. */
#include "attnscope-embeddings-page-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "as-word-marks.h"
#include "attnscope-layer-controls.h"

G_DEFINE_FINAL_TYPE (AttnscopeEmbeddingsPage, attnscope_embeddings_page, ATTNSCOPE_TYPE_PAGE)

static gboolean
request_equal (const Request *x, const Request *y)
{
  return x->analysis == y->analysis && x->others_hash == y->others_hash
         && x->n_others == y->n_others && x->source == y->source && x->layer == y->layer
         && x->head == y->head && x->method == y->method && x->beside == y->beside;
}

/* The highlighted word, or NULL when the entry holds none that can be marked. */
static const char *
highlight_word (AttnscopeEmbeddingsPage *self)
{
  const char *word = gtk_editable_get_text (GTK_EDITABLE (self->highlight_entry));
  return word != NULL && as_word_check (word, NULL) ? word : NULL;
}

/* The core's layer: hidden[l + 1] is the output of layer l; the embeddings have none. */
static void
set_layer (AttnscopeEmbeddingsPage *self, const ArViewSelection *view, Request *r)
{
  r->layer = self->source == AS_VECTORS_HIDDEN ? view->layer + 1
             : self->source == AS_VECTORS_EMBEDDINGS || self->source == AS_VECTORS_TOKEN_EMBEDDINGS
                 ? 0
                 : view->layer;
  r->head = self->source == AS_VECTORS_CONTEXTS ? view->head : -1;
}

/* What the page asks for for VIEW; FALSE without a trace. Uses the sentences as last read
 * (read_sentences). */
static gboolean
request_for (AttnscopeEmbeddingsPage *self, const ArViewSelection *view, Request *r)
{
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (analysis == NULL)
    return FALSE;
  guint hash = 17;
  for (guint i = 0; i < self->other_traces->len; i++)
    hash = hash * 31 + g_direct_hash (self->other_traces->pdata[i]);
  *r = (Request){
    .analysis = analysis,
    .others_hash = hash,
    .n_others = (int) self->other_traces->len,
    .source = self->source,
    .method = self->method,
    .beside = gtk_check_button_get_active (self->static_check)
              && self->source != AS_VECTORS_TOKEN_EMBEDDINGS,
  };
  set_layer (self, view, r);
  return TRUE;
}

static gboolean
current_request (AttnscopeEmbeddingsPage *self, Request *r)
{
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  return request_for (self, &view, r);
}

/* The projections R needs: *MAIN and, when beside, *STATIC (NULL while computed); FALSE with
 * *FAILURE when one failed. */
static gboolean
want_projections (AttnscopeEmbeddingsPage *self, const Request *r, const AsProjection **main,
                  const AsProjection **statics, const char **failure)
{
  AsTrace **others = (AsTrace **) self->other_traces->pdata;
  *statics = NULL;
  *failure = NULL;
  if (r->beside)
    {
      *statics = attnscope_analysis_want_projection (
          r->analysis, others, r->n_others, AS_VECTORS_TOKEN_EMBEDDINGS, 0, -1, r->method, failure);
      if (*failure != NULL)
        return FALSE;
    }
  *main = attnscope_analysis_want_projection (r->analysis, others, r->n_others, r->source, r->layer,
                                              r->head, r->method, failure);
  return *failure == NULL;
}

/* The sentences of the figure: text A, then the others as last read. */
static void
sentences_of (AttnscopeEmbeddingsPage *self, const Request *r, GPtrArray *traces, GPtrArray *texts,
              ArSentences *out)
{
  g_ptr_array_add (traces, attnscope_analysis_get_trace (r->analysis));
  g_ptr_array_add (texts, (gpointer) attnscope_analysis_get_text (r->analysis));
  for (guint i = 0; i < self->other_traces->len; i++)
    {
      g_ptr_array_add (traces, self->other_traces->pdata[i]);
      g_ptr_array_add (texts, self->other_texts->pdata[i]);
    }
  *out = (ArSentences){ (int) traces->len, (const AsTrace *const *) traces->pdata,
                        (const char *const *) texts->pdata };
}

static ArBuiltFigure *
build (AttnscopeEmbeddingsPage *self, const Request *r, const AsProjection *p,
       const AsProjection *statics, const ArViewSelection *view)
{
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  ArSentences sentences;
  sentences_of (self, r, traces, texts, &sentences);
  ArProjectionPanel panels[2];
  int n_panels = 0;
  if (statics != NULL)
    panels[n_panels++] = (ArProjectionPanel){ statics, { AS_VECTORS_TOKEN_EMBEDDINGS, 0, -1 } };
  panels[n_panels++] = (ArProjectionPanel){ p, { r->source, r->layer, r->head } };
  ArFigureTexts figure_texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &figure_texts);
  figure_texts.compare_text = NULL;
  return ar_build_projection_figure (panels, n_panels, &sentences, highlight_word (self),
                                     gtk_toggle_button_get_active (self->labels_button), view,
                                     &figure_texts);
}

static void
show_busy (AttnscopeEmbeddingsPage *self, gboolean busy, gboolean progress)
{
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), busy && progress);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_button_set_label (self->run_button, busy ? _ ("_Cancel") : _ ("_Run Again"));
  gtk_widget_set_visible (GTK_WIDGET (self->run_button),
                          (busy && progress) || self->cancelled.analysis != NULL);
  attnscope_page_set_busy (ATTNSCOPE_PAGE (self), busy);
}

static void
on_progress (AttnscopeAnalysis *analysis, int done, int total, AttnscopeEmbeddingsPage *self)
{
  gtk_progress_bar_set_fraction (self->progress_bar, total > 0 ? (double) done / total : 0);
  g_autofree char *text = self->method == ATTNSCOPE_PROJECTION_UMAP
                              ? g_strdup_printf (_ ("UMAP: epoch %d of %d"), done, total)
                              : g_strdup_printf (_ ("t-SNE: iteration %d of %d"), done, total);
  gtk_label_set_text (self->status_label, text);
}

static void
show_status (AttnscopeEmbeddingsPage *self, const AsProjection *p, int n_sentences)
{
  g_autofree char *points = g_strdup_printf (ngettext ("%d point", "%d points", p->n), p->n);
  g_autofree char *of
      = g_strdup_printf (ngettext ("%d sentence", "%d sentences", n_sentences), n_sentences);
  g_autofree char *status = p->method == AS_PROJECTION_PCA
                                ? g_strdup_printf (_ ("%s · %s · explained variance %.0f %%"),
                                                   points, of, 100 * (p->ratio[0] + p->ratio[1]))
                                : g_strdup_printf ("%s · %s", points, of);
  gtk_label_set_text (self->status_label, status);
}

static void
show_projection (AttnscopeEmbeddingsPage *self, const Request *r, const AsProjection *p,
                 const AsProjection *statics)
{
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  gboolean labels = gtk_toggle_button_get_active (self->labels_button);
  const char *highlight = highlight_word (self);
  show_status (self, p, r->n_others + 1);
  if (r->analysis == self->built_analysis && request_equal (r, &self->built_request)
      && p == self->built_projection && statics == self->built_static
      && labels == self->built_labels && g_strcmp0 (highlight, self->built_highlight) == 0
      && ar_view_selection_equal (&view, &self->built_view))
    return;
  g_autoptr (ArBuiltFigure) figure = build (self, r, p, statics, &view);
  attnscope_scatter_view_set_figure (self->scatter, figure);
  g_set_object (&self->built_analysis, r->analysis);
  self->built_request = *r;
  self->built_projection = p;
  self->built_static = statics;
  self->built_view = view;
  self->built_labels = labels;
  g_free (self->built_highlight);
  self->built_highlight = g_strdup (highlight);
}

/* ---- the page ---- */

static ArBuiltFigure *
attnscope_embeddings_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  Request r;
  if (!request_for (self, view, &r))
    return NULL;
  const AsProjection *p = NULL, *statics = NULL;
  const char *failure;
  if (!want_projections (self, &r, &p, &statics, &failure) || p == NULL
      || (r.beside && statics == NULL))
    return NULL;
  return build (self, &r, p, statics, view);
}

static void
add_arg (GPtrArray *argv, const char *name, const char *value)
{
  g_ptr_array_add (argv, g_strdup (name));
  g_ptr_array_add (argv, g_strdup (value));
}

static void
attnscope_embeddings_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                              GPtrArray *argv)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  Request r;
  if (!request_for (self, view, &r))
    return;
  add_arg (argv, "--project", as_projection_method_to_string (r.method));
  if (r.beside)
    {
      add_arg (argv, "--of", as_vector_source_to_string (AS_VECTORS_TOKEN_EMBEDDINGS));
      add_arg (argv, "--also", as_vector_source_to_string (r.source));
    }
  else
    add_arg (argv, "--of", as_vector_source_to_string (r.source));
  if (as_vector_source_needs_layer (r.source))
    {
      g_autofree char *layer = g_strdup_printf ("%d", r.layer);
      add_arg (argv, "--layer", layer);
    }
  if (r.head >= 0)
    {
      g_autofree char *head = g_strdup_printf ("%d", r.head);
      add_arg (argv, "--head", head);
    }
  if (!gtk_toggle_button_get_active (self->labels_button))
    g_ptr_array_add (argv, g_strdup ("--no-labels"));
  for (guint i = 0; i < self->other_texts->len; i++)
    add_arg (argv, "--text", self->other_texts->pdata[i]);
  if (highlight_word (self) != NULL)
    add_arg (argv, "--highlight", highlight_word (self));
}

static void
attnscope_embeddings_page_update (AttnscopePage *page)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  attnscope_embeddings_page_sync_rows (self);
  AttnscopeSentencesState state = attnscope_embeddings_page_read_sentences (self);
  Request r;
  if (!current_request (self, &r))
    {
      g_signal_group_set_target (self->progress_signals, NULL);
      attnscope_scatter_view_set_figure (self->scatter, NULL);
      g_clear_object (&self->built_analysis);
      show_busy (self, FALSE, FALSE);
      return;
    }
  if (state != ATTNSCOPE_SENTENCES_READY)
    {
      /* The previous figure stays: a sentence runs, or the model could not take one. */
      gboolean running = state == ATTNSCOPE_SENTENCES_RUNNING;
      gtk_label_set_text (self->status_label, running ? _ ("Running the sentences…")
                                                      : _ ("A sentence could not be run"));
      show_busy (self, running, FALSE);
      return;
    }
  g_signal_group_set_target (self->progress_signals, r.analysis);
  if (self->cancelled.analysis != NULL && request_equal (&r, &self->cancelled))
    {
      gtk_label_set_text (self->status_label, _ ("Cancelled"));
      show_busy (self, FALSE, FALSE);
      return;
    }
  self->cancelled.analysis = NULL;
  const AsProjection *p = NULL, *statics = NULL;
  const char *failure = NULL;
  gboolean iterative = r.method != AS_PROJECTION_PCA;
  if (!want_projections (self, &r, &p, &statics, &failure))
    {
      /* The last figure stays; the status says why there is no new one. */
      gtk_label_set_text (self->status_label, failure);
      show_busy (self, FALSE, FALSE);
    }
  else if (p == NULL || (r.beside && statics == NULL))
    {
      /* Already waiting: leave the progress where it is. */
      if (!attnscope_page_get_busy (page))
        {
          gtk_label_set_text (self->status_label,
                              r.method == AS_PROJECTION_TSNE   ? _ ("t-SNE running…")
                              : r.method == AS_PROJECTION_UMAP ? _ ("UMAP running…")
                                                               : "");
          show_busy (self, TRUE, iterative);
        }
    }
  else
    {
      show_busy (self, FALSE, FALSE);
      show_projection (self, &r, p, statics);
    }
}

static ArBuiltFigure *
attnscope_embeddings_page_get_figure (AttnscopePage *page)
{
  return attnscope_scatter_view_get_figure (ATTNSCOPE_EMBEDDINGS_PAGE (page)->scatter);
}

static char *
attnscope_embeddings_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  return g_strdup_printf ("%s-%s-layer%d%s", as_projection_method_to_string (self->method),
                          as_vector_source_to_string (self->source), view.layer,
                          gtk_check_button_get_active (self->static_check) ? "-static" : "");
}

void
attnscope_embeddings_page_set_method (AttnscopeEmbeddingsPage *self, AttnscopeProjection method)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  if (self->method == method)
    return;
  self->method = method;
  gtk_drop_down_set_selected (self->method_dropdown, method);
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_embeddings_page_set_source (AttnscopeEmbeddingsPage *self, AsVectorSource source)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  if (self->source == source)
    return;
  self->source = source;
  gtk_drop_down_set_selected (self->source_dropdown, source);
  attnscope_layer_controls_set_head_mode (self->layer_controls, source == AS_VECTORS_CONTEXTS
                                                                    ? ATTNSCOPE_HEAD_MODE_ALWAYS
                                                                    : ATTNSCOPE_HEAD_MODE_NEVER);
  gtk_widget_set_sensitive (GTK_WIDGET (self->static_check), source != AS_VECTORS_TOKEN_EMBEDDINGS);
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_embeddings_page_set_static_beside (AttnscopeEmbeddingsPage *self, gboolean beside)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  gtk_check_button_set_active (self->static_check, beside);
}

void
attnscope_embeddings_page_set_highlight (AttnscopeEmbeddingsPage *self, const char *word)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  gtk_editable_set_text (GTK_EDITABLE (self->highlight_entry), word != NULL ? word : "");
}

AttnscopeSentences *
attnscope_embeddings_page_get_sentences (AttnscopeEmbeddingsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self), NULL);
  return self->sentences;
}

const char *
attnscope_embeddings_page_get_sentence_error (AttnscopeEmbeddingsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self), NULL);
  return self->sentence_error;
}

gboolean
attnscope_embeddings_page_get_busy (AttnscopeEmbeddingsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self), FALSE);
  return attnscope_page_get_busy (ATTNSCOPE_PAGE (self));
}

void
attnscope_embeddings_page_cancel (AttnscopeEmbeddingsPage *self)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  Request r;
  if (!attnscope_page_get_busy (ATTNSCOPE_PAGE (self)) || !current_request (self, &r))
    return;
  attnscope_analysis_cancel (r.analysis, ATTNSCOPE_RESULT_PROJECTION);
  self->cancelled = r;
  gtk_label_set_text (self->status_label, _ ("Cancelled"));
  show_busy (self, FALSE, FALSE);
}

AttnscopeScatterView *
attnscope_embeddings_page_get_scatter (AttnscopeEmbeddingsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self), NULL);
  return self->scatter;
}

static void
on_run_clicked (GtkButton *button, AttnscopeEmbeddingsPage *self)
{
  if (attnscope_page_get_busy (ATTNSCOPE_PAGE (self)))
    attnscope_embeddings_page_cancel (self);
  else
    {
      self->cancelled.analysis = NULL;
      attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
    }
}

static void
on_method_selected (GtkDropDown *dropdown, GParamSpec *pspec, AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_set_method (self, gtk_drop_down_get_selected (dropdown));
}

static void
on_source_selected (GtkDropDown *dropdown, GParamSpec *pspec, AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_set_source (self, gtk_drop_down_get_selected (dropdown));
}

static void
on_option_changed (GtkWidget *widget, AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_sentences_changed (AttnscopeSentences *sentences, AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_session_model (AttnscopeEmbeddingsPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  attnscope_sentences_set_model (self->sentences,
                                 session != NULL ? attnscope_session_get_model (session) : NULL);
}

static void
on_session_notify (GObject *object, GParamSpec *pspec, AttnscopeEmbeddingsPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (session != NULL)
    g_signal_connect_object (session, "notify::model", G_CALLBACK (on_session_model), self,
                             G_CONNECT_SWAPPED);
  on_session_model (self);
}

static void
on_point_activated (AttnscopeScatterView *scatter, int point, AttnscopeEmbeddingsPage *self)
{
  /* The first sentence's tokens come first, in either panel. */
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  ArBuiltFigure *figure = attnscope_scatter_view_get_figure (scatter);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (view == NULL || analysis == NULL || figure == NULL)
    return;
  int token = point % ar_built_figure_get_parts (figure)->scatter.n_points;
  if (token < attnscope_analysis_get_trace (analysis)->n_tokens)
    attnscope_view_state_set_selected_token (view, token);
}

static void
attnscope_embeddings_page_dispose (GObject *object)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (object);
  g_clear_object (&self->progress_signals);
  g_clear_object (&self->built_analysis);
  if (self->sentences != NULL)
    g_signal_handlers_disconnect_by_data (self->sentences, self);
  g_clear_object (&self->sentences);
  g_clear_pointer (&self->other_traces, g_ptr_array_unref);
  g_clear_pointer (&self->other_texts, g_ptr_array_unref);
  G_OBJECT_CLASS (attnscope_embeddings_page_parent_class)->dispose (object);
}

static void
attnscope_embeddings_page_finalize (GObject *object)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (object);
  g_free (self->sentence_error);
  g_free (self->built_highlight);
  G_OBJECT_CLASS (attnscope_embeddings_page_parent_class)->finalize (object);
}

static void
attnscope_embeddings_page_class_init (AttnscopeEmbeddingsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_embeddings_page_dispose;
  object_class->finalize = attnscope_embeddings_page_finalize;
  page_class->update = attnscope_embeddings_page_update;
  page_class->get_figure = attnscope_embeddings_page_get_figure;
  page_class->dup_figure_name = attnscope_embeddings_page_dup_figure_name;
  page_class->build_figure = attnscope_embeddings_page_build_figure;
  page_class->append_export_args = attnscope_embeddings_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_SCATTER_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-embeddings-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, method_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, source_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, static_check);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, highlight_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, labels_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, add_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, load_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, sentence_list);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage,
                                        sentence_error_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, scatter);
}

static void
attnscope_embeddings_page_init (AttnscopeEmbeddingsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->scatter));
  self->method = ATTNSCOPE_PROJECTION_PCA;
  self->source = AS_VECTORS_HIDDEN;
  self->sentences = attnscope_sentences_new ();
  self->other_traces = g_ptr_array_new_with_free_func ((GDestroyNotify) as_trace_unref);
  self->other_texts = g_ptr_array_new_with_free_func (g_free);
  gtk_drop_down_set_selected (self->source_dropdown, self->source);
  attnscope_layer_controls_set_show_aggregate (self->layer_controls, FALSE);
  attnscope_layer_controls_set_head_mode (self->layer_controls, ATTNSCOPE_HEAD_MODE_NEVER);
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  g_signal_connect (self, "notify::session", G_CALLBACK (on_session_notify), self);
  g_signal_connect (self->method_dropdown, "notify::selected", G_CALLBACK (on_method_selected),
                    self);
  g_signal_connect (self->source_dropdown, "notify::selected", G_CALLBACK (on_source_selected),
                    self);
  g_signal_connect (self->static_check, "toggled", G_CALLBACK (on_option_changed), self);
  g_signal_connect (self->highlight_entry, "changed", G_CALLBACK (on_option_changed), self);
  g_signal_connect (self->labels_button, "toggled", G_CALLBACK (on_option_changed), self);
  g_signal_connect (self->run_button, "clicked", G_CALLBACK (on_run_clicked), self);
  attnscope_embeddings_page_init_sentence_panel (self);
  g_signal_connect (self->scatter, "point-activated", G_CALLBACK (on_point_activated), self);
  g_signal_connect (self->sentences, "changed", G_CALLBACK (on_sentences_changed), self);
  self->progress_signals = g_signal_group_new (ATTNSCOPE_TYPE_ANALYSIS);
  g_signal_group_connect (self->progress_signals, "progress", G_CALLBACK (on_progress), self);
}
