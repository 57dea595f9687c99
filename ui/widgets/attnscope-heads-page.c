/* attnscope-heads-page.c — the model view (see attnscope-heads-page.h). */
#include "attnscope-heads-page.h"

#include <glib/gi18n.h>

struct _AttnscopeHeadsPage
{
  AttnscopePage parent_instance;

  GtkLabel *summary_label;
  AttnscopeHeadGridView *grid;
  ArGridFigure figure; /* the last exported figure, borrowed by get_figure's caller */
};

G_DEFINE_FINAL_TYPE (AttnscopeHeadsPage, attnscope_heads_page, ATTNSCOPE_TYPE_PAGE)

static void
update_summary (AttnscopeHeadsPage *self, const AsTrace *trace, const AsHeadStats *stats)
{
  int counts[4] = { 0 };
  for (int i = 0; i < stats->n_layer * stats->n_head; i++)
    counts[stats->patterns[i]]++;
  g_autofree char *text = g_strdup_printf (
      _ ("Layers × heads: %d × %d · previous token %d · first token %d · self %d · mixed %d"),
      trace->n_layer, trace->n_head, counts[AS_HEAD_PATTERN_PREVIOUS],
      counts[AS_HEAD_PATTERN_FIRST], counts[AS_HEAD_PATTERN_SELF], counts[AS_HEAD_PATTERN_MIXED]);
  gtk_label_set_text (self->summary_label, text);
}

static void
attnscope_heads_page_update (AttnscopePage *page)
{
  AttnscopeHeadsPage *self = ATTNSCOPE_HEADS_PAGE (page);
  AttnscopeSession *session = attnscope_page_get_session (page);
  AsTrace *trace = session != NULL ? attnscope_session_get_trace (session) : NULL;
  if (trace == NULL)
    {
      attnscope_head_grid_view_set_trace (self->grid, NULL, NULL);
      gtk_label_set_text (self->summary_label, "");
      return;
    }
  const AsHeadStats *stats = attnscope_session_get_head_stats (session);
  attnscope_head_grid_view_set_trace (self->grid, trace, stats);
  update_summary (self, trace, stats);
  g_autofree char *subtitle
      = attnscope_page_dup_subtitle (page, attnscope_session_get_text (session));
  attnscope_head_grid_view_set_titles (self->grid, _ ("All heads"), subtitle);
  attnscope_head_grid_view_set_colormap (self->grid, attnscope_session_get_colormap (session));
  gboolean one_head = attnscope_session_get_aggregate (session) == ATTNSCOPE_AGGREGATE_HEAD;
  attnscope_head_grid_view_set_highlight (self->grid, attnscope_session_get_layer (session),
                                          one_head ? attnscope_session_get_head (session) : -1);
}

static gboolean
attnscope_heads_page_get_figure (AttnscopePage *page, ArFigure *figure)
{
  AttnscopeHeadsPage *self = ATTNSCOPE_HEADS_PAGE (page);
  if (attnscope_head_grid_view_get_n_layers (self->grid) == 0)
    return FALSE;
  attnscope_head_grid_view_get_figure (self->grid, &self->figure);
  /* An exported grid shows every head alike. */
  self->figure.highlight_layer = self->figure.highlight_head = -1;
  *figure = ar_figure_from_grid (&self->figure);
  return TRUE;
}

static char *
attnscope_heads_page_dup_figure_name (AttnscopePage *page)
{
  return g_strdup ("all-heads");
}

static void
on_head_activated (AttnscopeHeadGridView *grid, int layer, int head, AttnscopeHeadsPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (session == NULL)
    return;
  attnscope_session_set_aggregate (session, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_session_set_layer (session, layer);
  attnscope_session_set_head (session, head);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-page", "s", "attention");
}

AttnscopeHeadGridView *
attnscope_heads_page_get_grid (AttnscopeHeadsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEADS_PAGE (self), NULL);
  return self->grid;
}

static void
attnscope_heads_page_class_init (AttnscopeHeadsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  page_class->update = attnscope_heads_page_update;
  page_class->get_figure = attnscope_heads_page_get_figure;
  page_class->dup_figure_name = attnscope_heads_page_dup_figure_name;

  g_type_ensure (ATTNSCOPE_TYPE_HEAD_GRID_VIEW);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-heads-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeHeadsPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeHeadsPage, grid);
}

static void
attnscope_heads_page_init (AttnscopeHeadsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->grid, "head-activated", G_CALLBACK (on_head_activated), self);
}
