/* attnscope-attention-page.c — the attention view (see attnscope-attention-page.h). The page
 * picks the [T][T] matrix for the session's layer, head and aggregation and hands it to the
 * heatmap widget; the controls write back to the session. */
#include "attnscope-attention-page.h"

#include <glib/gi18n.h>

#include "attnscope-attention-matrix.h"
#include "attnscope-layer-controls.h"
#include "render-text.h"

struct _AttnscopeAttentionPage
{
  AttnscopePage parent_instance;

  AttnscopeLayerControls *layer_controls;
  GtkLabel *pattern_label;
  GtkDropDown *colormap_dropdown;
  GtkToggleButton *annotate_button;
  AttnscopeHeatmapView *heatmap;

  gboolean syncing;       /* controls being set from the session */
  ArHeatmapFigure figure; /* the last exported figure, borrowed by get_figure's caller */
};

G_DEFINE_FINAL_TYPE (AttnscopeAttentionPage, attnscope_attention_page, ATTNSCOPE_TYPE_PAGE)

static const char *
pattern_name (AsHeadPattern pattern)
{
  switch (pattern)
    {
    case AS_HEAD_PATTERN_PREVIOUS:
      return _ ("previous token");
    case AS_HEAD_PATTERN_FIRST:
      return _ ("first token");
    case AS_HEAD_PATTERN_SELF:
      return _ ("self");
    case AS_HEAD_PATTERN_MIXED:
    default:
      return _ ("mixed");
    }
}

static void
update_pattern_label (AttnscopeAttentionPage *self, AttnscopeSession *session)
{
  const AsHeadStats *stats = attnscope_session_get_head_stats (session);
  if (stats == NULL || attnscope_session_get_aggregate (session) != ATTNSCOPE_AGGREGATE_HEAD)
    {
      gtk_label_set_text (self->pattern_label, "");
      return;
    }
  int layer = attnscope_session_get_layer (session), head = attnscope_session_get_head (session);
  AsHeadPattern pattern = stats->patterns[layer * stats->n_head + head];
  g_autofree char *entropy
      = ar_format_number (as_head_stats_get (stats, layer, head, AS_HEAD_STAT_ENTROPY), 2);
  g_autofree char *text
      = g_strdup_printf (_ ("Pattern: %s · entropy %s"), pattern_name (pattern), entropy);
  gtk_label_set_text (self->pattern_label, text);
}

static void
sync_controls (AttnscopeAttentionPage *self, AttnscopeSession *session)
{
  self->syncing = TRUE;
  gtk_drop_down_set_selected (self->colormap_dropdown,
                              attnscope_colormap_index (attnscope_session_get_colormap (session)));
  gtk_toggle_button_set_active (self->annotate_button, attnscope_session_get_annotate (session));
  self->syncing = FALSE;
}

static void
attnscope_attention_page_update (AttnscopePage *page)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
  AttnscopeSession *session = attnscope_page_get_session (page);
  AsTrace *trace = session != NULL ? attnscope_session_get_trace (session) : NULL;
  if (trace == NULL)
    {
      attnscope_heatmap_view_set_matrix (self->heatmap, NULL, 0, 0, NULL, NULL);
      gtk_label_set_text (self->pattern_label, "");
      return;
    }
  sync_controls (self, session);

  g_autofree float *owned = NULL;
  const float *matrix = attnscope_attention_matrix (
      session, trace, attnscope_session_get_rollout (session), &owned);
  g_auto (GStrv) labels = attnscope_page_dup_token_labels (page, trace);
  int t = trace->n_tokens;
  float vmax = 0;
  for (gsize i = 0; i < (gsize) t * t; i++)
    vmax = MAX (vmax, matrix[i]);
  attnscope_heatmap_view_set_matrix (self->heatmap, matrix, t, t, (const char *const *) labels,
                                     (const char *const *) labels);
  attnscope_heatmap_view_set_range (self->heatmap, 0, vmax > 0 ? vmax : 1);
  g_autofree char *title = attnscope_attention_title (session);
  g_autofree char *subtitle
      = attnscope_page_dup_subtitle (page, attnscope_session_get_text (session));
  attnscope_heatmap_view_set_titles (self->heatmap, title, subtitle);
  attnscope_heatmap_view_set_colormap (self->heatmap, attnscope_session_get_colormap (session));
  attnscope_heatmap_view_set_annotate (self->heatmap, attnscope_session_get_annotate (session));
  attnscope_heatmap_view_set_mask_upper (self->heatmap, trace->causal);
  int selected = attnscope_session_get_selected_token (session);
  attnscope_heatmap_view_set_highlight (self->heatmap, selected, selected);
  update_pattern_label (self, session);
}

static gboolean
attnscope_attention_page_get_figure (AttnscopePage *page, ArFigure *figure)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
  if (attnscope_heatmap_view_get_n_rows (self->heatmap) == 0)
    return FALSE;
  attnscope_heatmap_view_get_figure (self->heatmap, &self->figure);
  *figure = ar_figure_from_heatmap (&self->figure);
  return TRUE;
}

static char *
attnscope_attention_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeSession *session = attnscope_page_get_session (page);
  int layer = attnscope_session_get_layer (session);
  switch (attnscope_session_get_aggregate (session))
    {
    case ATTNSCOPE_AGGREGATE_MEAN:
      return g_strdup_printf ("attention-layer%d-mean", layer);
    case ATTNSCOPE_AGGREGATE_ROLLOUT:
      return g_strdup_printf ("attention-rollout-layer%d", layer);
    case ATTNSCOPE_AGGREGATE_HEAD:
    default:
      return g_strdup_printf ("attention-layer%d-head%d", layer,
                              attnscope_session_get_head (session));
    }
}

/* ---- controls → session ---- */

static void
on_colormap_selected (GtkDropDown *dropdown, GParamSpec *pspec, AttnscopeAttentionPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (!self->syncing && session != NULL)
    attnscope_session_set_colormap (
        session, attnscope_colormap_name (gtk_drop_down_get_selected (dropdown)));
}

static void
on_annotate_toggled (GtkToggleButton *button, AttnscopeAttentionPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (!self->syncing && session != NULL)
    attnscope_session_set_annotate (session, gtk_toggle_button_get_active (button));
}

static void
on_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col, AttnscopeAttentionPage *self)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  if (session == NULL)
    return;
  /* A click selects the query token; a click on the selected one clears the selection. */
  int selected = attnscope_session_get_selected_token (session);
  attnscope_session_set_selected_token (session, selected == row ? -1 : row);
}

AttnscopeHeatmapView *
attnscope_attention_page_get_heatmap (AttnscopeAttentionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self), NULL);
  return self->heatmap;
}

static void
attnscope_attention_page_class_init (AttnscopeAttentionPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  page_class->update = attnscope_attention_page_update;
  page_class->get_figure = attnscope_attention_page_get_figure;
  page_class->dup_figure_name = attnscope_attention_page_dup_figure_name;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-attention-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, pattern_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, colormap_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, annotate_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, heatmap);
}

static void
attnscope_attention_page_init (AttnscopeAttentionPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  g_signal_connect (self->colormap_dropdown, "notify::selected", G_CALLBACK (on_colormap_selected),
                    self);
  g_signal_connect (self->annotate_button, "toggled", G_CALLBACK (on_annotate_toggled), self);
  g_signal_connect (self->heatmap, "cell-activated", G_CALLBACK (on_cell_activated), self);
}
