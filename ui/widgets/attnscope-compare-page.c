/* attnscope-compare-page.c — the compare view (see attnscope-compare-page.h). The comparison of
 * the two traces (token pairs, hidden-state similarities) is computed once per pair of traces;
 * the panels follow the session's layer, head and aggregation. */
#include "attnscope-compare-page.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "as-compare.h"
#include "as-rollout.h"
#include "attnscope-attention-matrix.h"
#include "attnscope-layer-controls.h"

/* At most this many shared tokens get a line in the chart (besides the mean). */
#define MAX_SERIES 8

struct _AttnscopeComparePage
{
  AttnscopePage parent_instance;

  GtkEntry *entry;
  AttnscopeLayerControls *layer_controls;
  GtkLabel *error_label;
  GtkStack *stack;
  AdwStatusPage *status_page;
  AttnscopeCompareView *view;

  AsTrace *a, *b;           /* the traces COMPARISON belongs to (owned) */
  AsComparison *comparison; /* of A and B */
  float *rollout_b;         /* [L][T_B][T_B] of B, computed on first use */
  ArCompareFigure figure;   /* the last exported figure, borrowed by get_figure's caller */
  gboolean syncing;
};

G_DEFINE_FINAL_TYPE (AttnscopeComparePage, attnscope_compare_page, ATTNSCOPE_TYPE_PAGE)

static void
forget_traces (AttnscopeComparePage *self)
{
  g_clear_pointer (&self->a, as_trace_unref);
  g_clear_pointer (&self->b, as_trace_unref);
  g_clear_pointer (&self->comparison, as_comparison_free);
  g_clear_pointer (&self->rollout_b, g_free);
}

/* The chart: the mean similarity over the pairs, then up to MAX_SERIES shared tokens. */
static void
show_chart (AttnscopeComparePage *self, char **labels_a)
{
  const AsComparison *c = self->comparison;
  if (c->n_pairs == 0)
    {
      attnscope_compare_view_set_chart (self->view, NULL, 0, 0, NULL, NULL);
      return;
    }
  int n_x = c->n_layer + 1, n_series = 1 + MIN (c->n_pairs, MAX_SERIES);
  g_autofree double *values = g_new (double, (gsize) n_series *n_x); /* [S][L+1] */
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) x_labels = g_strv_builder_new ();
  g_strv_builder_add (names, _ ("mean over shared tokens"));
  for (int x = 0; x < n_x; x++)
    {
      values[x] = c->hidden_mean_similarity[x];
      g_autofree char *label = g_strdup_printf ("%d", x);
      g_strv_builder_add (x_labels, label);
    }
  for (int s = 1; s < n_series; s++)
    {
      const AsTokenPair *pair = &c->pairs[s - 1];
      g_autofree char *name = g_strdup_printf ("%s (%d → %d)", labels_a[pair->a], pair->a, pair->b);
      g_strv_builder_add (names, name);
      for (int x = 0; x < n_x; x++)
        values[s * n_x + x] = c->hidden_similarity[x * c->n_pairs + (s - 1)];
    }
  g_auto (GStrv) series_names = g_strv_builder_end (names);
  g_auto (GStrv) xl = g_strv_builder_end (x_labels);
  attnscope_compare_view_set_chart (self->view, values, n_series, n_x,
                                    (const char *const *) series_names, (const char *const *) xl);
}

static int
paired_token (const AsComparison *c, int token_a)
{
  for (int i = 0; c != NULL && i < c->n_pairs; i++)
    if (c->pairs[i].a == token_a)
      return c->pairs[i].b;
  return -1;
}

static void
show_panels (AttnscopeComparePage *self, AttnscopeSession *session, AsTrace *a, AsTrace *b)
{
  g_autofree float *owned_a = NULL, *owned_b = NULL;
  gboolean rollout = attnscope_session_get_aggregate (session) == ATTNSCOPE_AGGREGATE_ROLLOUT;
  if (rollout && self->rollout_b == NULL)
    self->rollout_b = as_trace_rollout (b);
  const float *ma = attnscope_attention_matrix (
      session, a, rollout ? attnscope_session_get_rollout (session) : NULL, &owned_a);
  const float *mb = attnscope_attention_matrix (session, b, self->rollout_b, &owned_b);
  g_auto (GStrv) labels_a = attnscope_page_dup_token_labels (ATTNSCOPE_PAGE (self), a);
  g_auto (GStrv) labels_b = attnscope_page_dup_token_labels (ATTNSCOPE_PAGE (self), b);
  g_autofree char *title_a = g_strdup_printf ("A: %s", attnscope_session_get_text (session));
  g_autofree char *title_b
      = g_strdup_printf ("B: %s", attnscope_session_get_compare_text (session));
  attnscope_compare_view_set_panel (self->view, 0, ma, a->n_tokens, (const char *const *) labels_a,
                                    title_a);
  attnscope_compare_view_set_panel (self->view, 1, mb, b->n_tokens, (const char *const *) labels_b,
                                    title_b);
  float vmax = 0, dmax = 0;
  for (gsize i = 0; i < (gsize) a->n_tokens * a->n_tokens; i++)
    vmax = MAX (vmax, ma[i]);
  for (gsize i = 0; i < (gsize) b->n_tokens * b->n_tokens; i++)
    vmax = MAX (vmax, mb[i]);
  g_autofree char *note = NULL;
  if (a->n_tokens == b->n_tokens)
    {
      gsize tt = (gsize) a->n_tokens * a->n_tokens;
      g_autofree float *diff = g_new (float, tt); /* [T][T] B − A */
      for (gsize i = 0; i < tt; i++)
        {
          diff[i] = mb[i] - ma[i];
          dmax = MAX (dmax, fabsf (diff[i]));
        }
      attnscope_compare_view_set_difference (self->view, diff, a->n_tokens);
    }
  else
    {
      attnscope_compare_view_set_difference (self->view, NULL, 0);
      note = g_strdup_printf (_ ("A has %d tokens and B has %d: no difference map"), a->n_tokens,
                              b->n_tokens);
    }
  g_autofree char *title = attnscope_attention_title (session);
  g_autofree char *subtitle = attnscope_page_dup_subtitle (ATTNSCOPE_PAGE (self), NULL);
  attnscope_compare_view_set_titles (self->view, title, subtitle, note);
  attnscope_compare_view_set_style (self->view, attnscope_session_get_colormap (session),
                                    vmax > 0 ? vmax : 1, dmax > 0 ? dmax : 1,
                                    attnscope_session_get_annotate (session), a->causal);
  int selected = attnscope_session_get_selected_token (session);
  attnscope_compare_view_set_highlight (
      self->view, selected, selected >= 0 ? paired_token (self->comparison, selected) : -1);
  show_chart (self, labels_a);
}

static void
attnscope_compare_page_update (AttnscopePage *page)
{
  AttnscopeComparePage *self = ATTNSCOPE_COMPARE_PAGE (page);
  AttnscopeSession *session = attnscope_page_get_session (page);
  if (session == NULL)
    return;
  self->syncing = TRUE;
  g_autofree char *text = g_strdup (attnscope_session_get_compare_text (session));
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->entry)), text ? text : "") != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->entry), text ? text : "");
  self->syncing = FALSE;
  const char *error = attnscope_session_get_compare_error (session);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), error != NULL);
  gtk_label_set_text (self->error_label, error != NULL ? error : "");

  AsTrace *a = attnscope_session_get_trace (session);
  AsTrace *b = attnscope_session_get_compare_trace (session);
  if (a == NULL || b == NULL)
    {
      forget_traces (self);
      attnscope_compare_view_set_panel (self->view, 0, NULL, 0, NULL, NULL);
      attnscope_compare_view_set_panel (self->view, 1, NULL, 0, NULL, NULL);
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }
  if (self->a != a || self->b != b)
    {
      forget_traces (self);
      g_autoptr (GError) err = NULL;
      self->comparison = as_compare_traces (a, b, &err);
      if (self->comparison == NULL)
        {
          adw_status_page_set_description (self->status_page, err->message);
          gtk_stack_set_visible_child_name (self->stack, "empty");
          return;
        }
      self->a = as_trace_ref (a);
      self->b = as_trace_ref (b);
    }
  show_panels (self, session, a, b);
  gtk_stack_set_visible_child_name (self->stack, "view");
}

static gboolean
attnscope_compare_page_get_figure (AttnscopePage *page, ArFigure *figure)
{
  AttnscopeComparePage *self = ATTNSCOPE_COMPARE_PAGE (page);
  if (!attnscope_compare_view_has_panels (self->view))
    return FALSE;
  attnscope_compare_view_get_figure (self->view, &self->figure);
  *figure = ar_figure_from_compare (&self->figure);
  return TRUE;
}

static char *
attnscope_compare_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeSession *session = attnscope_page_get_session (page);
  return g_strdup_printf ("compare-layer%d-head%d", attnscope_session_get_layer (session),
                          attnscope_session_get_head (session));
}

static void
on_entry_changed (GtkEditable *editable, AttnscopeComparePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (!self->syncing && session != NULL)
    attnscope_session_set_compare_text (session, gtk_editable_get_text (editable));
}

AttnscopeCompareView *
attnscope_compare_page_get_view (AttnscopeComparePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_PAGE (self), NULL);
  return self->view;
}

static void
attnscope_compare_page_dispose (GObject *object)
{
  forget_traces (ATTNSCOPE_COMPARE_PAGE (object));
  G_OBJECT_CLASS (attnscope_compare_page_parent_class)->dispose (object);
}

static void
attnscope_compare_page_class_init (AttnscopeComparePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_compare_page_dispose;
  page_class->update = attnscope_compare_page_update;
  page_class->get_figure = attnscope_compare_page_get_figure;
  page_class->dup_figure_name = attnscope_compare_page_dup_figure_name;

  g_type_ensure (ATTNSCOPE_TYPE_COMPARE_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, error_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, status_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, view);
}

static void
attnscope_compare_page_init (AttnscopeComparePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  g_signal_connect (self->entry, "changed", G_CALLBACK (on_entry_changed), self);
}
