/* attnscope-compare-page.c — the compare view (see attnscope-compare-page.h). The comparison of
 * the two traces (token pairs, hidden-state similarities) is computed off the UI thread by the
 * main trace's analysis, once per pair of traces; the aggregates of each text by its own
 * analysis. The figure comes from ar_build_compare_figure(). The entry and the error line are
 * bound to the comparison run. */
#include "attnscope-compare-page.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "attnscope-layer-controls.h"
#include "compare-figure.h"
#include "as-sentence-pairs.h"
#include "render-text.h"

struct _AttnscopeComparePage
{
  AttnscopePage parent_instance;

  GtkEntry *entry;
  GtkEntry *pair_entry; /* the compared input's sentence B (encoders) */
  AttnscopeLayerControls *layer_controls;
  GtkLabel *error_label;
  GtkStack *stack;
  AdwStatusPage *status_page;
  AttnscopeCompareView *view;
  GtkDropDown *align_dropdown;
  GtkLabel *ranking_note;
  GtkListBox *ranking_list;
  GtkLabel *positions_note; /* what a comparison without positions shows */
  AttnscopePatchPanel *patch_panel;
  GtkPaned *patch_paned; /* the comparison above, the patching below */
  GtkExpander *patch_expander;
  gboolean patch_split_pending; /* opened before the divider had a height: split when it has */

  GBindingGroup *run_bindings;  /* on the comparison run */
  GBindingGroup *view_bindings; /* on the view state */
  const AsComparison *ranked;   /* the comparison the list shows */
  AsAlign ranked_align;
  /* what the figure on screen was built from; references, so the pointers stay unique */
  AttnscopeAnalysis *built_a_analysis, *built_b_analysis;
  const AsComparison *built_comparison;
  gconstpointer built_a, built_b; /* ar_attention_key */
  ArViewSelection built_view;
};

G_DEFINE_FINAL_TYPE (AttnscopeComparePage, attnscope_compare_page, ATTNSCOPE_TYPE_PAGE)

static void
show_empty (AttnscopeComparePage *self, const char *description)
{
  self->ranked = NULL;
  attnscope_compare_view_set_figure (self->view, NULL);
  g_clear_object (&self->built_a_analysis);
  g_clear_object (&self->built_b_analysis);
  adw_status_page_set_description (self->status_page, description);
  gtk_stack_set_visible_child_name (self->stack, "empty");
}

#define N_RANKED 12

static void
on_ranking_activated (GtkListBox *list, GtkListBoxRow *row, AttnscopeComparePage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  int e = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "head-index"));
  if (view == NULL || self->ranked == NULL)
    return;
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, e / self->ranked->n_head);
  attnscope_view_state_set_head (view, e % self->ranked->n_head);
}

/* The heads ranked by how much their attention changes from A to B in the alignment shown. */
static void
update_ranking (AttnscopeComparePage *self, const AsComparison *c, AsAlign align)
{
  if (c == self->ranked && align == self->ranked_align)
    return;
  self->ranked = c;
  self->ranked_align = align;
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->ranking_list))) != NULL)
    gtk_list_box_remove (self->ranking_list, child);
  /* the ranking `attnscope compare --align` prints */
  AsAttentionChange changes;
  gboolean ranked = as_comparison_attention_change (c, align, &changes);
  gtk_label_set_text (self->ranking_note, !ranked ? _ ("By position the texts need as many tokens.")
                                          : align == AS_ALIGN_TOKENS
                                              ? _ ("How much each head changes from A to B "
                                                   "(B in A's token order). Click one to open it.")
                                              : _ ("How much each head changes from A to B, "
                                                   "position by position. Click one to open it."));
  if (!ranked)
    return;
  const int *ranking = changes.head_ranking;
  const double *change = changes.head_change;
  int n_heads = c->n_layer * c->n_head;
  double top = n_heads > 0 ? change[ranking[0]] : 0;
  for (int k = 0; k < MIN (n_heads, N_RANKED); k++)
    {
      int e = ranking[k];
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 3);
      gtk_widget_set_margin_top (box, 6);
      gtk_widget_set_margin_bottom (box, 6);
      gtk_widget_set_margin_start (box, 8);
      gtk_widget_set_margin_end (box, 8);
      g_autofree char *value = ar_format_number (change[e], 3);
      g_autofree char *text
          = g_strdup_printf (_ ("Layer %d · head %d: %s"), e / c->n_head, e % c->n_head, value);
      GtkWidget *label = gtk_label_new (text);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "numeric");
      GtkWidget *bar = gtk_level_bar_new_for_interval (0, 1);
      gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), top > 0 ? change[e] / top : 0);
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (GTK_BOX (box), bar);
      GtkWidget *row = gtk_list_box_row_new ();
      gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
      g_object_set_data (G_OBJECT (row), "head-index", GINT_TO_POINTER (e));
      gtk_list_box_append (self->ranking_list, row);
    }
}

static ArBuiltFigure *
attnscope_compare_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeAnalysis *a = attnscope_page_get_analysis (page);
  AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (page);
  if (b == NULL)
    return NULL;
  const AsComparison *c
      = attnscope_analysis_want_comparison (a, attnscope_analysis_get_trace (b), NULL);
  ArAttention aa, ab;
  attnscope_analysis_want_layer_attention (a, view, &aa, NULL);
  attnscope_analysis_want_layer_attention (b, view, &ab, NULL);
  if (c == NULL || ar_attention_key (&aa, view) == NULL || ar_attention_key (&ab, view) == NULL)
    return NULL;
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_compare_figure (&aa, &ab, c, view, &texts);
}

static void
attnscope_compare_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                           GPtrArray *argv)
{
  attnscope_page_append_attention_args (argv, view);
  AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (page);
  if (b != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--compare"));
      g_ptr_array_add (argv, g_strdup (attnscope_analysis_get_text (b)));
      if (attnscope_analysis_get_pair (b) != NULL)
        {
          g_ptr_array_add (argv, g_strdup ("--compare-pair"));
          g_ptr_array_add (argv, g_strdup (attnscope_analysis_get_pair (b)));
        }
    }
}

/* Without positions: why a causal model's two orders still differ (the mask), and that an
 * encoder's are the same vectors (aligned by token, the difference is zero). */
static void
update_positions_note (AttnscopeComparePage *self, AttnscopeAnalysis *a)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  gboolean off = session != NULL
                 && attnscope_whatif_get_no_positions (attnscope_session_get_whatif (session));
  const AsTrace *trace = a != NULL ? attnscope_analysis_get_trace (a) : NULL;
  gtk_widget_set_visible (GTK_WIDGET (self->positions_note), off && trace != NULL);
  if (!off || trace == NULL)
    return;
  gtk_label_set_text (
      self->positions_note,
      trace->causal
          ? _ ("Without positions a causal model still tells the orders apart: each token sees "
               "only the tokens before it (the mask), so the same words in another order are "
               "read with other contexts.")
          : _ ("Without positions an encoder sees the tokens as a set: the same words in another "
               "order give the same vectors, and aligned by token the difference is zero."));
}

AttnscopePatchPanel *
attnscope_compare_page_get_patch_panel (AttnscopeComparePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_PAGE (self), NULL);
  return self->patch_panel;
}

static void
on_session_for_patching (AttnscopeComparePage *self)
{
  attnscope_patch_panel_set_session (self->patch_panel,
                                     attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
}

const char *
attnscope_compare_page_get_positions_note (AttnscopeComparePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_PAGE (self), NULL);
  return gtk_widget_get_visible (GTK_WIDGET (self->positions_note))
             ? gtk_label_get_text (self->positions_note)
             : NULL;
}

static void
attnscope_compare_page_update (AttnscopePage *page)
{
  AttnscopeComparePage *self = ATTNSCOPE_COMPARE_PAGE (page);
  AttnscopeAnalysis *a = attnscope_page_get_analysis (page);
  AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (page);
  attnscope_page_set_busy (page, FALSE);
  update_positions_note (self, a);
  if (a == NULL || b == NULL)
    {
      show_empty (self, NULL);
      return;
    }
  const char *failure = NULL;
  const AsComparison *c
      = attnscope_analysis_want_comparison (a, attnscope_analysis_get_trace (b), &failure);
  if (failure != NULL)
    {
      show_empty (self, failure);
      return;
    }
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  ArAttention aa, ab;
  const char *refused = NULL;
  attnscope_analysis_want_layer_attention (a, &view, &aa, &refused);
  if (refused == NULL)
    attnscope_analysis_want_layer_attention (b, &view, &ab, &refused);
  if (refused != NULL)
    {
      show_empty (self, refused);
      return;
    }
  gconstpointer ma = ar_attention_key (&aa, &view), mb = ar_attention_key (&ab, &view);
  attnscope_page_set_busy (page, c == NULL || ma == NULL || mb == NULL);
  if (c == NULL || ma == NULL || mb == NULL
      || (a == self->built_a_analysis && b == self->built_b_analysis && c == self->built_comparison
          && ma == self->built_a && mb == self->built_b
          && ar_view_selection_equal (&view, &self->built_view)))
    return;
  update_ranking (self, c, view.alignment);
  g_autoptr (ArBuiltFigure) figure = attnscope_compare_page_build_figure (page, &view);
  attnscope_compare_view_set_figure (self->view, figure);
  gtk_stack_set_visible_child_name (self->stack, "view");
  g_set_object (&self->built_a_analysis, a);
  g_set_object (&self->built_b_analysis, b);
  self->built_comparison = c;
  self->built_a = ma;
  self->built_b = mb;
  self->built_view = view;
}

static ArBuiltFigure *
attnscope_compare_page_get_figure (AttnscopePage *page)
{
  return attnscope_compare_view_get_figure (ATTNSCOPE_COMPARE_PAGE (page)->view);
}

static char *
attnscope_compare_page_dup_figure_name (AttnscopePage *page)
{
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  return g_strdup_printf ("compare-layer%d-head%d", view.layer, view.head);
}

AttnscopeCompareView *
attnscope_compare_page_get_view (AttnscopeComparePage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_PAGE (self), NULL);
  return self->view;
}

/* Sentence B of the compared input: for a model that takes pairs. */
static void
update_pair_entry (AttnscopeComparePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AsModel *model = session != NULL ? attnscope_session_get_model (session) : NULL;
  gtk_widget_set_visible (GTK_WIDGET (self->pair_entry),
                          model != NULL && as_model_takes_pairs (model));
}

static void
on_session_changed (AttnscopeComparePage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (session != NULL)
    g_signal_connect_object (session, "notify::model", G_CALLBACK (update_pair_entry), self,
                             G_CONNECT_SWAPPED);
  update_pair_entry (self);
  g_binding_group_set_source (self->run_bindings,
                              session != NULL ? attnscope_session_get_compare (session) : NULL);
  g_binding_group_set_source (self->view_bindings,
                              session != NULL ? attnscope_session_get_view (session) : NULL);
}

/* "align-positions" ↔ the drop-down's position (0 by token, 1 by position). */
static gboolean
flag_to_index (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_uint (to, g_value_get_boolean (from) ? 1 : 0);
  return TRUE;
}

static gboolean
index_to_flag (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_boolean (to, g_value_get_uint (from) == 1);
  return TRUE;
}

/* A string that may be NULL (the run's text before the first, no error) for a widget. */
static gboolean
text_to_entry (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const char *text = g_value_get_string (from);
  g_value_set_string (to, text != NULL ? text : "");
  return TRUE;
}

static gboolean
message_to_visible (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_boolean (to, g_value_get_string (from) != NULL);
  return TRUE;
}

static void
attnscope_compare_page_dispose (GObject *object)
{
  AttnscopeComparePage *self = ATTNSCOPE_COMPARE_PAGE (object);
  g_clear_object (&self->run_bindings);
  g_clear_object (&self->view_bindings);
  g_clear_object (&self->built_a_analysis);
  g_clear_object (&self->built_b_analysis);
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
  page_class->build_figure = attnscope_compare_page_build_figure;
  page_class->append_export_args = attnscope_compare_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_COMPARE_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, pair_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, error_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, status_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, view);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, align_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, ranking_note);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, positions_note);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, patch_panel);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, patch_paned);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, patch_expander);
  g_type_ensure (ATTNSCOPE_TYPE_PATCH_PANEL);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeComparePage, ranking_list);
}

/* The patching panel opened: the comparison and the panel share the page's height half and half
 * (a divider the reader can drag; the panel took all it asked for and left the comparison a strip
 * of 150 px at 1280 × 800), as soon as the divider has a height to share; closed: the divider
 * goes and the comparison takes the height again. */
static void
split_patching (AttnscopeComparePage *self)
{
  int height = gtk_widget_get_height (GTK_WIDGET (self->patch_paned));
  if (!self->patch_split_pending || height <= 0)
    return;
  self->patch_split_pending = FALSE;
  gtk_paned_set_position (self->patch_paned, height / 2);
}

static void
on_patch_expanded (GtkExpander *expander, GParamSpec *pspec, AttnscopeComparePage *self)
{
  self->patch_split_pending = gtk_expander_get_expanded (expander);
  if (self->patch_split_pending)
    split_patching (self);
  else
    g_object_set (self->patch_paned, "position-set", FALSE, NULL);
}

static void
on_patch_paned_resized (GtkPaned *paned, GParamSpec *pspec, AttnscopeComparePage *self)
{
  split_patching (self);
}

static void
attnscope_compare_page_init (AttnscopeComparePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->view));
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  self->run_bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->run_bindings, "text", self->entry, "text",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, text_to_entry, NULL,
                             NULL, NULL);
  g_binding_group_bind_full (self->run_bindings, "pair", self->pair_entry, "text",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, text_to_entry, NULL,
                             NULL, NULL);
  g_binding_group_bind_full (self->run_bindings, "error-message", self->error_label, "label",
                             G_BINDING_SYNC_CREATE, text_to_entry, NULL, NULL, NULL);
  g_binding_group_bind_full (self->run_bindings, "error-message", self->error_label, "visible",
                             G_BINDING_SYNC_CREATE, message_to_visible, NULL, NULL, NULL);
  self->view_bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->view_bindings, "align-positions", self->align_dropdown,
                             "selected", G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL,
                             flag_to_index, index_to_flag, NULL, NULL);
  g_signal_connect (self, "notify::session", G_CALLBACK (on_session_changed), NULL);
  g_signal_connect (self->ranking_list, "row-activated", G_CALLBACK (on_ranking_activated), self);
  g_signal_connect (self, "notify::session", G_CALLBACK (on_session_for_patching), NULL);
  g_signal_connect (self->patch_expander, "notify::expanded", G_CALLBACK (on_patch_expanded), self);
  g_signal_connect (self->patch_paned, "notify::max-position", G_CALLBACK (on_patch_paned_resized),
                    self);
}
