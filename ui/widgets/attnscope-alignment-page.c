/* attnscope-alignment-page.c — the alignment view (see attnscope-alignment-page.h). The
 * cross-attention, its mean over heads and its statistics come with the translation pass
 * (attnscope-cross.h); the figure is built by ar_build_alignment_figure(). */
#include "attnscope-alignment-page.h"

#include <glib/gi18n.h>

#include "attnscope-layer-controls.h"
#include "cross-figure.h"

struct _AttnscopeAlignmentPage
{
  AttnscopePage parent_instance;

  AttnscopeLayerControls *layer_controls;
  GtkLabel *notice_label;
  AttnscopeAlignmentView *alignment;

  /* what the figure on screen was built from */
  AttnscopeCross *built_cross; /* a reference, so that the pointer stays unique */
  ArViewSelection built_view;
};

G_DEFINE_FINAL_TYPE (AttnscopeAlignmentPage, attnscope_alignment_page, ATTNSCOPE_TYPE_PAGE)

static ArBuiltFigure *
attnscope_alignment_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeCross *results = attnscope_page_get_cross (page);
  if (results == NULL)
    return NULL;
  ArCrossAttention cross;
  attnscope_cross_get_attention (results, &cross);
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_alignment_figure (&cross, view, &texts);
}

static void
attnscope_alignment_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                             GPtrArray *argv)
{
  AttnscopeSession *session = attnscope_page_get_session (page);
  const char *target = session != NULL
                           ? attnscope_run_get_trace_target (attnscope_session_get_main (session))
                           : NULL;
  g_ptr_array_add (argv, g_strdup ("--target"));
  g_ptr_array_add (argv, g_strdup (target != NULL ? target : ""));
  g_ptr_array_add (argv, g_strdup ("--alignment"));
  attnscope_page_append_attention_args (argv, view);
}

static void
set_notice (AttnscopeAlignmentPage *self, const char *notice)
{
  gtk_label_set_text (
      self->notice_label,
      notice != NULL
          ? notice
          : _ ("Hover over a token to see its links; click a source token to keep them, a "
               "target token to select it."));
  ;
}

static void
attnscope_alignment_page_update (AttnscopePage *page)
{
  AttnscopeAlignmentPage *self = ATTNSCOPE_ALIGNMENT_PAGE (page);
  AttnscopeCross *cross = attnscope_page_get_cross (page);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  view.kind = AR_ATTENTION_CROSS;
  attnscope_page_set_busy (page, FALSE);
  if (cross == NULL || view.aggregate == AR_AGGREGATE_ROLLOUT)
    {
      AttnscopeAnalysis *a = attnscope_page_get_analysis (page);
      gboolean translation = a != NULL && attnscope_analysis_get_trace (a)->source != NULL;
      attnscope_alignment_view_set_figure (self->alignment, NULL);
      g_clear_pointer (&self->built_cross, attnscope_cross_unref);
      set_notice (self,
                  !translation    ? _ ("The alignment shows the cross-attention of a translation "
                                          "model; this model has none.")
                  : cross == NULL ? NULL
                                  : _ ("The cross-attention has no rollout: choose one head or "
                                       "the mean over heads."));
      return;
    }
  set_notice (self, NULL);
  if (cross == self->built_cross && ar_view_selection_equal (&view, &self->built_view))
    return;
  g_autoptr (ArBuiltFigure) figure = attnscope_alignment_page_build_figure (page, &view);
  attnscope_alignment_view_set_figure (self->alignment, figure);
  g_clear_pointer (&self->built_cross, attnscope_cross_unref);
  self->built_cross = attnscope_cross_ref (cross);
  self->built_view = view;
}

static ArBuiltFigure *
attnscope_alignment_page_get_figure (AttnscopePage *page)
{
  return attnscope_alignment_view_get_figure (ATTNSCOPE_ALIGNMENT_PAGE (page)->alignment);
}

static char *
attnscope_alignment_page_dup_figure_name (AttnscopePage *page)
{
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  if (view.aggregate == AR_AGGREGATE_MEAN)
    return g_strdup_printf ("alignment-layer%d-mean", view.layer);
  return g_strdup_printf ("alignment-layer%d-head%d", view.layer, view.head);
}

static void
on_token_activated (AttnscopeAlignmentView *alignment, gboolean target, int index,
                    AttnscopeAlignmentPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (view == NULL || !target)
    return;
  /* the selection is a target (decoder) token; a click on the selected one clears it */
  int selected = attnscope_view_state_get_selected_token (view);
  attnscope_view_state_set_selected_token (view, selected == index ? -1 : index);
}

AttnscopeAlignmentView *
attnscope_alignment_page_get_view (AttnscopeAlignmentPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ALIGNMENT_PAGE (self), NULL);
  return self->alignment;
}

static void
attnscope_alignment_page_dispose (GObject *object)
{
  g_clear_pointer (&ATTNSCOPE_ALIGNMENT_PAGE (object)->built_cross, attnscope_cross_unref);
  G_OBJECT_CLASS (attnscope_alignment_page_parent_class)->dispose (object);
}

static void
attnscope_alignment_page_class_init (AttnscopeAlignmentPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = attnscope_alignment_page_dispose;
  page_class->update = attnscope_alignment_page_update;
  page_class->get_figure = attnscope_alignment_page_get_figure;
  page_class->dup_figure_name = attnscope_alignment_page_dup_figure_name;
  page_class->build_figure = attnscope_alignment_page_build_figure;
  page_class->append_export_args = attnscope_alignment_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_ALIGNMENT_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-alignment-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAlignmentPage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAlignmentPage, notice_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAlignmentPage, alignment);
}

static void
attnscope_alignment_page_init (AttnscopeAlignmentPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->alignment));
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  g_signal_connect (self->alignment, "token-activated", G_CALLBACK (on_token_activated), self);
  set_notice (self, NULL);
}
