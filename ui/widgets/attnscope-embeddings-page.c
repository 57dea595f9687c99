/* attnscope-embeddings-page.c — the embeddings view (see attnscope-embeddings-page.h).
 *
 * A projection is requested for (trace, comparison trace or none, vectors, layer, head, method).
 * update() starts a job only when that request differs from the one shown or running, so a
 * change of selection or labels only redraws. The newest job wins: starting one cancels the
 * previous, and results of a cancelled job are dropped. */
#include "attnscope-embeddings-page.h"

#include <glib/gi18n.h>
#include <math.h>

#include "as-tsne.h"
#include "attnscope-layer-controls.h"
#include "attnscope-tasks.h"

typedef struct
{
  AsTrace *a; /* owned */
  AsTrace *b; /* owned, or NULL without the second sentence */
  AsVectorSource source;
  int layer, head;
  AttnscopeProjection method;
  gboolean raw; /* token labels as raw vocabulary strings */
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
  Request request;        /* the projection shown or running */
  GCancellable *job;      /* the job in flight, or NULL */
  gboolean cancelled;     /* the user cancelled the request */
  ArScatterFigure figure; /* the last exported figure, borrowed by get_figure's caller */
};

G_DEFINE_FINAL_TYPE (AttnscopeEmbeddingsPage, attnscope_embeddings_page, ATTNSCOPE_TYPE_PAGE)

static void
request_clear (Request *r)
{
  g_clear_pointer (&r->a, as_trace_unref);
  g_clear_pointer (&r->b, as_trace_unref);
}

static gboolean
request_equal (const Request *x, const Request *y)
{
  return x->a == y->a && x->b == y->b && x->source == y->source && x->layer == y->layer
         && x->head == y->head && x->method == y->method && x->raw == y->raw;
}

/* The core's layer argument: hidden[l + 1] is the output of layer l. */
static int
source_layer (AsVectorSource source, int layer)
{
  return source == AS_VECTORS_HIDDEN ? layer + 1 : layer;
}

/* The vectors of the request stacked: A's T_A rows, then B's T_B rows. [n][dim], or NULL with
 * ERROR. */
static float *
request_vectors (const Request *r, int *n, int *dim, GError **error)
{
  int layer = source_layer (r->source, r->layer), n_a, d_a, n_b = 0, d_b = 0;
  const float *va = as_trace_vectors_get (r->a, r->source, layer, r->head, &n_a, &d_a, error);
  if (va == NULL)
    return NULL;
  const float *vb = NULL;
  if (r->b != NULL
      && (vb = as_trace_vectors_get (r->b, r->source, layer, r->head, &n_b, &d_b, error)) == NULL)
    return NULL;
  float *x = g_new (float, (gsize) (n_a + n_b) * d_a); /* [n_a + n_b][dim] */
  memcpy (x, va, sizeof (float) * n_a * d_a);
  if (vb != NULL)
    memcpy (x + (gsize) n_a * d_a, vb, sizeof (float) * n_b * d_b);
  *n = n_a + n_b;
  *dim = d_a;
  return x;
}

static void
set_busy (AttnscopeEmbeddingsPage *self, gboolean busy, gboolean progress)
{
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), busy && progress);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_button_set_label (self->run_button, busy ? _ ("_Cancel") : _ ("_Run Again"));
  gtk_widget_set_visible (GTK_WIDGET (self->run_button), (busy && progress) || self->cancelled);
}

static void
on_progress (int done, int total, gpointer user_data)
{
  AttnscopeEmbeddingsPage *self = user_data;
  gtk_progress_bar_set_fraction (self->progress_bar, total > 0 ? (double) done / total : 0);
  g_autofree char *text = g_strdup_printf (_ ("t-SNE: iteration %d of %d"), done, total);
  gtk_label_set_text (self->status_label, text);
}

static void show_result (AttnscopeEmbeddingsPage *self, const float *xy, int n,
                         const double ratio[2]);

typedef struct
{
  AttnscopeEmbeddingsPage *self; /* owned */
  GCancellable *job;             /* owned */
} JobData;

static void
job_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  JobData *data = user_data;
  AttnscopeEmbeddingsPage *self = data->self;
  g_autoptr (GError) error = NULL;
  int n = 0;
  double ratio[2];
  g_autofree float *xy = attnscope_project_finish (result, &n, ratio, &error);
  if (self->job == data->job && !g_cancellable_is_cancelled (data->job))
    {
      g_clear_object (&self->job);
      set_busy (self, FALSE, FALSE);
      if (xy != NULL)
        show_result (self, xy, n, ratio);
      else
        {
          attnscope_scatter_view_set_points (self->scatter, NULL, 0, NULL, NULL, NULL, 0);
          gtk_label_set_text (self->status_label, error->message);
        }
    }
  g_object_unref (data->job);
  g_object_unref (data->self);
  g_free (data);
}

static void
start_job (AttnscopeEmbeddingsPage *self)
{
  attnscope_embeddings_page_cancel (self);
  self->cancelled = FALSE;
  g_autoptr (GError) error = NULL;
  int n = 0, dim = 0;
  g_autofree float *x = request_vectors (&self->request, &n, &dim, &error);
  if (x == NULL)
    {
      attnscope_scatter_view_set_points (self->scatter, NULL, 0, NULL, NULL, NULL, 0);
      gtk_label_set_text (self->status_label, error->message);
      set_busy (self, FALSE, FALSE);
      return;
    }
  self->job = g_cancellable_new ();
  JobData *data = g_new0 (JobData, 1);
  data->self = g_object_ref (self);
  data->job = g_object_ref (self->job);
  gboolean tsne = self->request.method == ATTNSCOPE_PROJECTION_TSNE;
  set_busy (self, TRUE, tsne);
  if (tsne)
    {
      AsTsneOptions options;
      as_tsne_options_init (&options);
      /* The largest perplexity the core accepts for n points, at most sklearn's 30. */
      options.perplexity = MIN (30.0, as_tsne_max_perplexity (n));
      gtk_label_set_text (self->status_label, _ ("t-SNE running…"));
      attnscope_project_tsne_async (x, n, dim, &options, on_progress, self, self->job, job_finished,
                                    data);
    }
  else
    {
      gtk_label_set_text (self->status_label, "");
      attnscope_project_pca_async (x, n, dim, self->job, job_finished, data);
    }
}

static char *
dup_title (AttnscopeEmbeddingsPage *self)
{
  const Request *r = &self->request;
  const char *method = r->method == ATTNSCOPE_PROJECTION_TSNE ? "t-SNE" : "PCA";
  switch (r->source)
    {
    case AS_VECTORS_CONTEXTS:
      return g_strdup_printf (_ ("%s of the contexts of layer %d, head %d"), method, r->layer,
                              r->head);
    case AS_VECTORS_ATTN_OUT:
      return g_strdup_printf (_ ("%s of the attention outputs of layer %d"), method, r->layer);
    case AS_VECTORS_HIDDEN:
      return g_strdup_printf (_ ("%s of the hidden states after layer %d"), method, r->layer);
    case AS_VECTORS_EMBEDDINGS:
    default:
      return g_strdup_printf (_ ("%s of the embeddings"), method);
    }
}

static void
show_result (AttnscopeEmbeddingsPage *self, const float *xy, int n, const double ratio[2])
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  const Request *r = &self->request;
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) la = attnscope_page_dup_token_labels (ATTNSCOPE_PAGE (self), r->a);
  g_strv_builder_addv (builder, (const char **) la);
  g_autofree int *groups = g_new0 (int, n);
  const char *text_b = attnscope_session_get_compare_text (session);
  g_autofree char *name_a = g_strdup_printf ("A: %s", attnscope_session_get_text (session));
  g_autofree char *name_b = g_strdup_printf ("B: %s", text_b != NULL ? text_b : "");
  const char *names[] = { name_a, name_b };
  if (r->b != NULL)
    {
      g_auto (GStrv) lb = attnscope_page_dup_token_labels (ATTNSCOPE_PAGE (self), r->b);
      g_strv_builder_addv (builder, (const char **) lb);
      for (int i = r->a->n_tokens; i < n; i++)
        groups[i] = 1;
    }
  g_auto (GStrv) labels = g_strv_builder_end (builder);
  attnscope_scatter_view_set_points (self->scatter, xy, n, (const char *const *) labels, groups,
                                     names, r->b != NULL ? 2 : 1);
  g_autofree char *title = dup_title (self);
  g_autofree char *subtitle
      = attnscope_page_dup_subtitle (ATTNSCOPE_PAGE (self), attnscope_session_get_text (session));
  attnscope_scatter_view_set_titles (self->scatter, title, subtitle);
  if (isnan (ratio[0]))
    attnscope_scatter_view_set_axes (self->scatter, _ ("t-SNE 1"), _ ("t-SNE 2"));
  else
    {
      g_autofree char *x_axis = g_strdup_printf (_ ("PC 1 (%.0f %%)"), 100 * ratio[0]);
      g_autofree char *y_axis = g_strdup_printf (_ ("PC 2 (%.0f %%)"), 100 * ratio[1]);
      attnscope_scatter_view_set_axes (self->scatter, x_axis, y_axis);
      g_autofree char *status = g_strdup_printf (_ ("%d points · explained variance %.0f %%"), n,
                                                 100 * (ratio[0] + ratio[1]));
      gtk_label_set_text (self->status_label, status);
    }
  if (!isnan (ratio[0]) || r->method != ATTNSCOPE_PROJECTION_TSNE)
    return;
  g_autofree char *status = g_strdup_printf (ngettext ("%d point", "%d points", n), n);
  gtk_label_set_text (self->status_label, status);
}

static void
attnscope_embeddings_page_update (AttnscopePage *page)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  AttnscopeSession *session = attnscope_page_get_session (page);
  AsTrace *trace = session != NULL ? attnscope_session_get_trace (session) : NULL;
  AsTrace *compare = session != NULL ? attnscope_session_get_compare_trace (session) : NULL;
  gtk_widget_set_sensitive (GTK_WIDGET (self->both_check), compare != NULL);
  if (trace == NULL)
    {
      attnscope_embeddings_page_cancel (self);
      request_clear (&self->request);
      attnscope_scatter_view_set_points (self->scatter, NULL, 0, NULL, NULL, NULL, 0);
      return;
    }
  gboolean both = compare != NULL && gtk_check_button_get_active (self->both_check);
  Request wanted = {
    .a = trace,
    .b = both ? compare : NULL,
    .source = self->source,
    .layer = attnscope_session_get_layer (session),
    .head = attnscope_session_get_head (session),
    .method = self->method,
    .raw = attnscope_session_get_raw_tokens (session),
  };
  if (wanted.source != AS_VECTORS_CONTEXTS)
    wanted.head = -1;
  attnscope_scatter_view_set_show_labels (self->scatter,
                                          gtk_toggle_button_get_active (self->labels_button));
  attnscope_scatter_view_set_highlight (self->scatter,
                                        attnscope_session_get_selected_token (session));
  /* Shown, running, or cancelled by the user (who may run it again): nothing to start. */
  if (request_equal (&wanted, &self->request))
    return;
  request_clear (&self->request);
  self->request = wanted;
  as_trace_ref (wanted.a);
  if (wanted.b != NULL)
    as_trace_ref (wanted.b);
  start_job (self);
}

static gboolean
attnscope_embeddings_page_get_figure (AttnscopePage *page, ArFigure *figure)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  if (attnscope_scatter_view_get_n_points (self->scatter) == 0)
    return FALSE;
  attnscope_scatter_view_get_figure (self->scatter, &self->figure);
  *figure = ar_figure_from_scatter (&self->figure);
  return TRUE;
}

static char *
attnscope_embeddings_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (page);
  const Request *r = &self->request;
  return g_strdup_printf ("%s-%s-layer%d", r->method == ATTNSCOPE_PROJECTION_TSNE ? "tsne" : "pca",
                          as_vector_source_to_string (r->source), r->layer);
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
  return self->job != NULL;
}

void
attnscope_embeddings_page_cancel (AttnscopeEmbeddingsPage *self)
{
  g_return_if_fail (ATTNSCOPE_IS_EMBEDDINGS_PAGE (self));
  if (self->job == NULL)
    return;
  g_cancellable_cancel (self->job);
  g_clear_object (&self->job);
  self->cancelled = TRUE;
  gtk_label_set_text (self->status_label, _ ("Cancelled"));
  set_busy (self, FALSE, FALSE);
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
  if (self->job != NULL)
    attnscope_embeddings_page_cancel (self);
  else if (self->request.a != NULL)
    start_job (self);
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
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (session != NULL && self->request.a != NULL && point < self->request.a->n_tokens)
    attnscope_session_set_selected_token (session, point);
}

static void
attnscope_embeddings_page_dispose (GObject *object)
{
  AttnscopeEmbeddingsPage *self = ATTNSCOPE_EMBEDDINGS_PAGE (object);
  if (self->job != NULL)
    g_cancellable_cancel (self->job);
  g_clear_object (&self->job);
  request_clear (&self->request);
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
}
