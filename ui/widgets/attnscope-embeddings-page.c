/* attnscope-embeddings-page.c — the embeddings view (see attnscope-embeddings-page.h).
 *
 * A projection is asked of the analysis for (comparison trace or none, vectors, layer, head,
 * method); the analysis computes it off the UI thread once and keeps it, so going back to a
 * projection shown before is immediate. While one is computed the page keeps its last plot and
 * shows t-SNE's progress. A projection the user cancelled is not asked for again until the
 * request changes or "Run Again" is pressed. */
#include "attnscope-embeddings-page.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-layer-controls.h"

typedef struct
{
  AttnscopeAnalysis *analysis; /* compared, never used */
  AsTrace *other;              /* compared, never used */
  AsVectorSource source;
  int layer, head;
  AttnscopeProjection method;
} Request;

struct _AttnscopeEmbeddingsPage
{
  AttnscopePage parent_instance;

  GtkDropDown *method_dropdown;
  GtkDropDown *source_dropdown;
  AttnscopeLayerControls *layer_controls;
  GtkCheckButton *both_check;
  GtkToggleButton *labels_button;
  GtkLabel *status_label;
  GtkProgressBar *progress_bar;
  GtkButton *run_button;
  AttnscopeScatterView *scatter;

  AttnscopeProjection method;
  AsVectorSource source;
  GSignalGroup *progress_signals; /* on the analysis computing the projection */
  Request cancelled;              /* the request the user cancelled (analysis NULL: none) */
  /* what the figure on screen was built from */
  AttnscopeAnalysis *built_analysis; /* a reference, so that the pointers below stay unique */
  Request built_request;
  const ArProjection *built_projection;
  ArViewSelection built_view;
  gboolean built_labels;
};

G_DEFINE_FINAL_TYPE (AttnscopeEmbeddingsPage, attnscope_embeddings_page, ATTNSCOPE_TYPE_PAGE)

static gboolean
request_equal (const Request *x, const Request *y)
{
  return x->analysis == y->analysis && x->other == y->other && x->source == y->source
         && x->layer == y->layer && x->head == y->head && x->method == y->method;
}

/* What the page asks for now; FALSE without a trace. */
static gboolean
current_request (AttnscopeEmbeddingsPage *self, Request *r)
{
  AttnscopePage *page = ATTNSCOPE_PAGE (self);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  AttnscopeAnalysis *compare = attnscope_page_get_compare_analysis (page);
  if (analysis == NULL)
    return FALSE;
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  gboolean both = compare != NULL && gtk_check_button_get_active (self->both_check);
  *r = (Request){
    .analysis = analysis,
    .other = both ? attnscope_analysis_get_trace (compare) : NULL,
    .source = self->source,
    /* The core's layer: hidden[l + 1] is the output of layer l; the embeddings have none. */
    .layer = self->source == AS_VECTORS_HIDDEN       ? view.layer + 1
             : self->source == AS_VECTORS_EMBEDDINGS ? 0
                                                     : view.layer,
    .head = self->source == AS_VECTORS_CONTEXTS ? view.head : -1,
    .method = self->method,
  };
  return TRUE;
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
  g_autofree char *text = g_strdup_printf (_ ("t-SNE: iteration %d of %d"), done, total);
  gtk_label_set_text (self->status_label, text);
}

static void
show_status (AttnscopeEmbeddingsPage *self, const ArProjection *p)
{
  g_autofree char *status = p->method == AR_PROJECTION_PCA
                                ? g_strdup_printf (_ ("%d points · explained variance %.0f %%"),
                                                   p->n, 100 * (p->ratio[0] + p->ratio[1]))
                                : g_strdup_printf (ngettext ("%d point", "%d points", p->n), p->n);
  gtk_label_set_text (self->status_label, status);
}

static void
show_projection (AttnscopeEmbeddingsPage *self, const Request *r, const ArProjection *p)
{
  AttnscopePage *page = ATTNSCOPE_PAGE (self);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  gboolean labels = gtk_toggle_button_get_active (self->labels_button);
  show_status (self, p);
  if (r->analysis == self->built_analysis && request_equal (r, &self->built_request)
      && p == self->built_projection && labels == self->built_labels
      && ar_view_selection_equal (&view, &self->built_view))
    return;
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  g_autoptr (ArBuiltFigure) figure
      = ar_build_projection_figure (p, attnscope_analysis_get_trace (r->analysis), r->other,
                                    r->source, r->layer, r->head, labels, &view, &texts);
  attnscope_scatter_view_set_figure (self->scatter, figure);
  g_set_object (&self->built_analysis, r->analysis);
  self->built_request = *r;
  self->built_projection = p;
  self->built_view = view;
  self->built_labels = labels;
}

/* The request for VIEW's layer and head (current_request's rules). */
static gboolean
request_for (AttnscopeEmbeddingsPage *self, const ArViewSelection *view, Request *r)
{
  if (!current_request (self, r))
    return FALSE;
  r->layer = self->source == AS_VECTORS_HIDDEN       ? view->layer + 1
             : self->source == AS_VECTORS_EMBEDDINGS ? 0
                                                     : view->layer;
  r->head = self->source == AS_VECTORS_CONTEXTS ? view->head : -1;
  return TRUE;
}

static ArBuiltFigure *
attnscope_embeddings_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  Request r;
  if (!request_for (self, view, &r))
    return NULL;
  const ArProjection *p = attnscope_analysis_want_projection (r.analysis, r.other, r.source,
                                                              r.layer, r.head, r.method, NULL);
  if (p == NULL)
    return NULL;
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_projection_figure (
      p, attnscope_analysis_get_trace (r.analysis), r.other, r.source, r.layer, r.head,
      gtk_toggle_button_get_active (self->labels_button), view, &texts);
}

static void
attnscope_embeddings_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                              GPtrArray *argv)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  Request r;
  if (!request_for (self, view, &r))
    return;
  g_ptr_array_add (argv, g_strdup ("--project"));
  g_ptr_array_add (argv, g_strdup (r.method == AR_PROJECTION_TSNE ? "tsne" : "pca"));
  g_ptr_array_add (argv, g_strdup ("--of"));
  g_ptr_array_add (argv, g_strdup (as_vector_source_to_string (r.source)));
  if (r.source != AS_VECTORS_EMBEDDINGS)
    {
      g_ptr_array_add (argv, g_strdup ("--layer"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", r.layer));
    }
  if (r.head >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("--head"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", r.head));
    }
  if (!gtk_toggle_button_get_active (self->labels_button))
    g_ptr_array_add (argv, g_strdup ("--no-labels"));
  if (r.other != NULL)
    {
      AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (page);
      g_ptr_array_add (argv, g_strdup ("--compare"));
      g_ptr_array_add (argv, g_strdup (attnscope_analysis_get_text (b)));
      if (attnscope_analysis_get_pair (b) != NULL)
        {
          g_ptr_array_add (argv, g_strdup ("--compare-pair"));
          g_ptr_array_add (argv, g_strdup (attnscope_analysis_get_pair (b)));
        }
    }
}

static void
attnscope_embeddings_page_update (AttnscopePage *page)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  gtk_widget_set_sensitive (GTK_WIDGET (self->both_check),
                            attnscope_page_get_compare_analysis (page) != NULL);
  Request r;
  if (!current_request (self, &r))
    {
      g_signal_group_set_target (self->progress_signals, NULL);
      attnscope_scatter_view_set_figure (self->scatter, NULL);
      g_clear_object (&self->built_analysis);
      show_busy (self, FALSE, FALSE);
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
  const char *failure = NULL;
  const ArProjection *p = attnscope_analysis_want_projection (r.analysis, r.other, r.source,
                                                              r.layer, r.head, r.method, &failure);
  gboolean tsne = r.method == AR_PROJECTION_TSNE;
  if (failure != NULL)
    {
      attnscope_scatter_view_set_figure (self->scatter, NULL);
      g_clear_object (&self->built_analysis);
      gtk_label_set_text (self->status_label, failure);
      show_busy (self, FALSE, FALSE);
    }
  else if (p == NULL)
    {
      /* Already waiting: leave the progress where it is. */
      if (!attnscope_page_get_busy (page))
        {
          gtk_label_set_text (self->status_label, tsne ? _ ("t-SNE running…") : "");
          show_busy (self, TRUE, tsne);
        }
    }
  else
    {
      show_busy (self, FALSE, FALSE);
      show_projection (self, &r, p);
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
  return g_strdup_printf ("%s-%s-layer%d",
                          self->method == ATTNSCOPE_PROJECTION_TSNE ? "tsne" : "pca",
                          as_vector_source_to_string (self->source), view.layer);
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
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_embeddings_page_set_both_sentences (AttnscopeEmbeddingsPage *self, gboolean both)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  gtk_check_button_set_active (self->both_check, both);
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
on_option_toggled (GtkWidget *button, AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_point_activated (AttnscopeScatterView *scatter, int point, AttnscopeEmbeddingsPage *self)
{
  /* Points of the first text are its tokens; the second text's come after them. */
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (view != NULL && analysis != NULL && point < attnscope_analysis_get_trace (analysis)->n_tokens)
    attnscope_view_state_set_selected_token (view, point);
}

static void
attnscope_embeddings_page_dispose (GObject *object)
{
  g_clear_object (&ATTNSCOPE_EMBEDDINGS_PAGE (object)->progress_signals);
  g_clear_object (&ATTNSCOPE_EMBEDDINGS_PAGE (object)->built_analysis);
  G_OBJECT_CLASS (attnscope_embeddings_page_parent_class)->dispose (object);
}

static void
attnscope_embeddings_page_class_init (AttnscopeEmbeddingsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_embeddings_page_dispose;
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
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, both_check);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, labels_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeEmbeddingsPage, scatter);
}

static void
attnscope_embeddings_page_init (AttnscopeEmbeddingsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->method = ATTNSCOPE_PROJECTION_PCA;
  self->source = AS_VECTORS_HIDDEN;
  gtk_drop_down_set_selected (self->source_dropdown, self->source);
  attnscope_layer_controls_set_show_aggregate (self->layer_controls, FALSE);
  attnscope_layer_controls_set_head_mode (self->layer_controls, ATTNSCOPE_HEAD_MODE_NEVER);
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  g_signal_connect (self->method_dropdown, "notify::selected", G_CALLBACK (on_method_selected),
                    self);
  g_signal_connect (self->source_dropdown, "notify::selected", G_CALLBACK (on_source_selected),
                    self);
  g_signal_connect (self->both_check, "toggled", G_CALLBACK (on_option_toggled), self);
  g_signal_connect (self->labels_button, "toggled", G_CALLBACK (on_option_toggled), self);
  g_signal_connect (self->run_button, "clicked", G_CALLBACK (on_run_clicked), self);
  g_signal_connect (self->scatter, "point-activated", G_CALLBACK (on_point_activated), self);
  self->progress_signals = g_signal_group_new (ATTNSCOPE_TYPE_ANALYSIS);
  g_signal_group_connect (self->progress_signals, "progress", G_CALLBACK (on_progress), self);
}
