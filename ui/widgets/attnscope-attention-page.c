/* attnscope-attention-page.c — the attention view (see attnscope-attention-page.h). The page asks
 * the analysis for the aggregate the view needs (the mean or the rollout; one head needs nothing
 * but the trace), builds the figure with ar_build_attention_figure() and hands it to the heatmap
 * widget. Its controls are bound to the view state. */
#include "attnscope-attention-page.h"

#include <glib/gi18n.h>

#include "attention-figure.h"
#include "attention-overview.h"
#include "cross-figure.h"
#include "attnscope-layer-controls.h"
#include "attnscope-session.h"
#include "position-bias-figure.h"
#include "render-text.h"

struct _AttnscopeAttentionPage
{
  AttnscopePage parent_instance;

  GtkDropDown *kind_dropdown;
  AttnscopeLayerControls *layer_controls;
  GtkToggleButton *position_bias_button; /* T5-family models: their position bias instead */
  GtkToggleButton *norm_button; /* weights × the norms of what the keys write (‖α·f(x)‖) */
  GtkLabel *pattern_label;
  GtkDropDown *segments_dropdown;
  GtkDropDown *colormap_dropdown;
  GtkToggleButton *annotate_button;
  GtkToggleButton *autoscale_button;
  AttnscopeHeatmapView *heatmap;
  GtkLabel *cell_label;

  GBindingGroup *bindings; /* the controls on the view state */
  char *notice;            /* why there is no figure (a cross-attention rollout), or NULL */
  /* what the figure on screen was built from */
  AttnscopeAnalysis *built_analysis; /* a reference, so that the pointers below stay unique */
  ArViewSelection built_view;
  gconstpointer built_matrix; /* what the figure shows (ar_attention_key, ar_cross_matrix) */
  guint progress_source;      /* a long text's layer mean or rollout: its progress shown */
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
    case AS_HEAD_PATTERN_NEXT:
      return _ ("next token");
    case AS_HEAD_PATTERN_CLS:
      return _ ("[CLS]");
    case AS_HEAD_PATTERN_SEP:
      return _ ("[SEP]");
    case AS_HEAD_PATTERN_BROAD:
      return _ ("broad");
    case AS_HEAD_PATTERN_MIXED:
    default:
      return _ ("mixed");
    }
}

/* The head's pattern once the head statistics are there (asked for only for one head). */
static void
update_pattern_label (AttnscopeAttentionPage *self, AttnscopeAnalysis *analysis,
                      const ArViewSelection *view)
{
  if (view->kind == AR_ATTENTION_CROSS)
    {
      AttnscopeCross *cross = attnscope_page_get_cross (ATTNSCOPE_PAGE (self));
      const AsCrossStats *cs = cross != NULL ? attnscope_cross_get_stats (cross) : NULL;
      if (cs == NULL || view->aggregate != AR_AGGREGATE_HEAD)
        {
          gtk_label_set_text (self->pattern_label, "");
          return;
        }
      gsize k = (gsize) view->layer * cs->n_head + view->head;
      g_autofree char *entropy
          = ar_format_number (cs->values[k * AS_CROSS_STAT_COUNT + AS_CROSS_STAT_ENTROPY], 2);
      /* the self-attention's wording, with as-cross-stats.h's label */
      g_autofree char *text
          = g_strdup_printf (_ ("Pattern: %s · entropy %s"), cs->labels[k], entropy);
      gtk_label_set_text (self->pattern_label, text);
      return;
    }
  const AsHeadStats *stats = analysis != NULL && view->aggregate == AR_AGGREGATE_HEAD
                                 ? attnscope_analysis_want_head_stats (analysis)
                                 : NULL;
  if (stats == NULL)
    {
      gtk_label_set_text (self->pattern_label, "");
      return;
    }
  AsHeadPattern pattern = stats->patterns[view->layer * stats->n_head + view->head];
  g_autofree char *entropy = ar_format_number (
      as_head_stats_get (stats, view->layer, view->head, AS_HEAD_STAT_ENTROPY), 2);
  g_autofree char *text
      = g_strdup_printf (_ ("Pattern: %s · entropy %s"), pattern_name (pattern), entropy);
  gtk_label_set_text (self->pattern_label, text);
}

/* The page's view selection with its norm weighting (the button down, self-attention). */
static void
get_selection (AttnscopePage *page, ArViewSelection *view)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
  attnscope_page_get_selection (page, view);
  view->norm_weighted
      = gtk_toggle_button_get_active (self->norm_button) && view->kind != AR_ATTENTION_CROSS;
}

/* ATTENTION's key norms for VIEW's norm weighting, asked of the analysis: NULL while they are
 * computed (*PENDING) or where they do not apply (*FAILURE says why). */
static void
want_norms (AttnscopePage *page, AttnscopeAnalysis *analysis, const ArViewSelection *view,
            ArAttention *attention, gboolean *pending, const char **failure)
{
  *pending = FALSE;
  *failure = NULL;
  if (!view->norm_weighted || view->aggregate == AR_AGGREGATE_ROLLOUT)
    return;
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (page));
  if (model == NULL)
    return;
  const AsAttentionNorms *norms = attnscope_analysis_want_norms (analysis, model, failure);
  *pending = norms == NULL && *failure == NULL;
  if (norms == NULL)
    return;
  attention->key_norms = norms->value_norms;
  attention->head_shares = norms->head_shares;
}

/* What the matrix VIEW shows is made of (of the kind's trace; NULL while it is computed, or for a
 * cross-attention rollout), asking the analysis for it; *CROSS is set for the cross-attention. */
static gconstpointer
want_matrix (AttnscopePage *page, const ArViewSelection *view, ArAttention *attention,
             ArCrossAttention *cross)
{
  if (view->kind == AR_ATTENTION_CROSS)
    {
      AttnscopeCross *results = attnscope_page_get_cross (page);
      if (results == NULL)
        return NULL;
      attnscope_cross_get_attention (results, cross);
      return ar_cross_matrix (cross, view);
    }
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (page);
  attnscope_analysis_want_layer_attention (analysis, view, attention, NULL);
  AsTrace *t = attnscope_analysis_get_trace (analysis);
  if (view->layer >= t->n_layer || view->head >= t->n_head)
    return NULL;
  /* a long text's overview is pooled off the UI thread; the figure on screen stays meanwhile
   * (the overview shows the weights: norms weight the exact heatmaps of up to 1,024 tokens) */
  int k = ar_attention_overview_factor (t, view);
  if (k > 1)
    {
      attnscope_analysis_want_overview (analysis, view, k, attention);
      return attention->overview;
    }
  gboolean pending;
  const char *failure;
  want_norms (page, analysis, view, attention, &pending, &failure);
  if (pending)
    return NULL; /* the figure on screen stays until the norms are there */
  if (failure != NULL)
    {
      AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
      g_free (self->notice);
      /* Translators: the Attention page shows the weights alone; %s is why (the core's
       * message). */
      self->notice = g_strdup_printf (_ ("Norm weighting does not apply: %s"), failure);
    }
  return ar_attention_key (attention, view);
}

/* The trace whose position bias the page shows instead of the attention (a T5-family model's
 * encoder or decoder, the button down, one head), or NULL. */
static const AsTrace *
position_bias_trace (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (page);
  if (analysis == NULL || view->kind == AR_ATTENTION_CROSS
      || !gtk_toggle_button_get_active (self->position_bias_button))
    return NULL;
  const AsTrace *t = attnscope_analysis_get_trace (analysis);
  return as_trace_has_position_bias (t) && view->aggregate == AR_AGGREGATE_HEAD
                 && view->head < t->n_head
             ? t
             : NULL;
}

static ArBuiltFigure *
attnscope_attention_page_build_figure (AttnscopePage *page, const ArViewSelection *asked)
{
  /* the window's export passes the shared selection: the page's weighting joins it */
  ArViewSelection weighted = *asked;
  weighted.norm_weighted
      = attnscope_attention_page_get_norm_weighted (ATTNSCOPE_ATTENTION_PAGE (page))
        && asked->kind != AR_ATTENTION_CROSS;
  const ArViewSelection *view = &weighted;
  ArAttention attention;
  ArCrossAttention cross;
  ArFigureTexts texts;
  const AsTrace *biased = position_bias_trace (page, view);
  if (biased != NULL)
    {
      attnscope_page_get_texts (page, &texts);
      return ar_build_position_bias_figure (biased, view->head, view, &texts);
    }
  if (want_matrix (page, view, &attention, &cross) == NULL)
    return NULL;
  attnscope_page_get_texts (page, &texts);
  if (view->kind == AR_ATTENTION_CROSS)
    return ar_build_cross_attention_figure (&cross, view, &texts);
  return ar_build_attention_figure (&attention, view, &texts);
}

static void
attnscope_attention_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                             GPtrArray *argv)
{
  attnscope_page_append_kind_args (page, view, argv);
  const AsTrace *biased = position_bias_trace (page, view);
  if (biased != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--position-bias"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->head));
      if (biased->n_position_bias > 1) /* umT5: the layer's own table */
        {
          g_ptr_array_add (argv, g_strdup ("--layer"));
          g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
        }
      return;
    }
  attnscope_page_append_attention_args (argv, view);
  if (attnscope_attention_page_get_norm_weighted (ATTNSCOPE_ATTENTION_PAGE (page))
      && view->kind != AR_ATTENTION_CROSS && view->aggregate != AR_AGGREGATE_ROLLOUT)
    {
      g_ptr_array_add (argv, g_strdup ("--weighting"));
      g_ptr_array_add (argv, g_strdup ("norm"));
    }
}

/* The first query row and key column of the figure in the trace's tokens (or, in the words view,
 * words): not 0 when the view's sentence filter shows a block of a pair (segments.h). */
static void
block_origin (AttnscopeAttentionPage *self, int *row0, int *col0)
{
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  *row0 = *col0 = 0;
  if (analysis == NULL)
    return;
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  int n_rows, n_cols;
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  if (!view.pool_words)
    {
      ar_segments_block (trace, view.segments, row0, &n_rows, col0, &n_cols);
      return;
    }
  g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (trace);
  ar_segments_block_words (trace, spans, view.segments, row0, &n_rows, col0, &n_cols);
}

/* The cursor cell of the heatmap in words: its query and key and the value between them. */
/* The block side of the figure on screen: > 1 for a long text's pooled overview
 * (attention-overview.h), whose cell I covers tokens I·K .. I·K+K−1. */
static int
overview_factor (AttnscopeAttentionPage *self)
{
  ArViewSelection shown;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &shown);
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (ATTNSCOPE_PAGE (self));
  return analysis != NULL && shown.kind != AR_ATTENTION_CROSS
             ? ar_attention_overview_factor (attnscope_analysis_get_trace (analysis), &shown)
             : 1;
}

static void
update_cell_label (AttnscopeAttentionPage *self)
{
  int row = attnscope_heatmap_view_get_cursor_row (self->heatmap);
  int col = attnscope_heatmap_view_get_cursor_col (self->heatmap);
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (self->heatmap);
  if (self->notice != NULL)
    {
      gtk_label_set_text (self->cell_label, self->notice);
      return;
    }
  if (row < 0 || built == NULL)
    {
      gtk_label_set_text (self->cell_label,
                          _ ("Arrow keys move through the cells; Return selects the query."));
      return;
    }
  const ArHeatmapFigure *fig = &ar_built_figure_get_parts (built)->heatmap;
  g_autofree char *value = ar_heatmap_cell_state (fig, row, col) == AR_CELL_MASKED
                               ? g_strdup (_ ("masked"))
                               : ar_format_number (fig->values[(gsize) row * fig->n_cols + col], 4);
  int row0, col0, k = overview_factor (self);
  block_origin (self, &row0, &col0);
  g_autofree char *text
      = g_strdup_printf (_ ("Query “%s” (%d) → key “%s” (%d): %s"), fig->row_labels[row],
                         row0 + row * k, fig->col_labels[col], col0 + col * k, value);
  gtk_label_set_text (self->cell_label, text);
}

/* Why a long text's rollout of VIEW's layer is not computed (as_rollout_check: the tokens and
 * the time it would take), or NULL. */
static const char *
rollout_refusal (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (page);
  if (analysis == NULL || view->kind == AR_ATTENTION_CROSS
      || view->aggregate != AR_AGGREGATE_ROLLOUT || position_bias_trace (page, view) != NULL
      || !attnscope_analysis_layer_aggregates (analysis))
    return NULL;
  ArAttention attention;
  const char *failure = NULL;
  attnscope_analysis_want_layer_attention (analysis, view, &attention, &failure);
  return failure;
}

/* While a long text's mean over heads or rollout of one layer is computed: how far it is, in
 * the cell label, every 250 ms. */
static gboolean
show_layer_progress (gpointer data)
{
  AttnscopeAttentionPage *self = data;
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (ATTNSCOPE_PAGE (self));
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  double done = analysis != NULL && view.aggregate != AR_AGGREGATE_HEAD
                    ? attnscope_analysis_get_layer_progress (analysis, view.aggregate)
                    : -1.0;
  if (done < 0)
    {
      self->progress_source = 0;
      return G_SOURCE_REMOVE;
    }
  g_autofree char *text
      = view.aggregate == AR_AGGREGATE_ROLLOUT
            /* Translators: a long text's rollout in progress; %d is the layer, %.0f the percent
             * done. */
            ? g_strdup_printf (_ ("Computing the rollout through layer %d: %.0f %%"), view.layer,
                               100 * done)
            /* Translators: a long text's mean over heads in progress; %d is the layer, %.0f the
             * percent done. */
            : g_strdup_printf (_ ("Computing the mean over the heads of layer %d: %.0f %%"),
                               view.layer, 100 * done);
  gtk_label_set_text (self->cell_label, text);
  return G_SOURCE_CONTINUE;
}

static void
attnscope_attention_page_update (AttnscopePage *page)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  ArViewSelection view;
  get_selection (page, &view);
  gtk_widget_set_visible (GTK_WIDGET (self->kind_dropdown),
                          analysis != NULL
                              && attnscope_analysis_get_trace (analysis)->source != NULL);
  update_pattern_label (self, attnscope_page_get_kind_analysis (page), &view);
  gtk_widget_set_visible (GTK_WIDGET (self->segments_dropdown),
                          analysis != NULL
                              && attnscope_analysis_get_trace (analysis)->segment_b_start > 0);
  AttnscopeAnalysis *kind_analysis = attnscope_page_get_kind_analysis (page);
  gboolean has_bias = kind_analysis != NULL && view.kind != AR_ATTENTION_CROSS
                      && as_trace_has_position_bias (attnscope_analysis_get_trace (kind_analysis));
  gtk_widget_set_visible (GTK_WIDGET (self->position_bias_button), has_bias);
  g_clear_pointer (&self->notice, g_free);
  if (has_bias && gtk_toggle_button_get_active (self->position_bias_button)
      && view.aggregate != AR_AGGREGATE_HEAD)
    {
      self->notice = g_strdup (_ ("The position bias belongs to each head: choose one head."));
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      g_clear_object (&self->built_analysis);
      self->built_matrix = NULL;
      attnscope_page_set_busy (page, FALSE);
      update_cell_label (self);
      return;
    }
  if (analysis != NULL && view.kind == AR_ATTENTION_CROSS && view.aggregate == AR_AGGREGATE_ROLLOUT)
    {
      /* nothing to compute: the cross-attention has no rollout */
      self->notice = g_strdup (_ ("The cross-attention has no rollout: choose one head or the mean "
                                  "over heads."));
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      g_clear_object (&self->built_analysis);
      self->built_matrix = NULL;
      attnscope_page_set_busy (page, FALSE);
      update_cell_label (self);
      return;
    }
  if (analysis == NULL)
    {
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      g_clear_object (&self->built_analysis);
      attnscope_page_set_busy (page, FALSE);
      return;
    }
  const char *refused = rollout_refusal (page, &view);
  if (refused != NULL)
    {
      /* Translators: a long text's rollout is not computed; %s names the tokens and the time it
       * would take (the core's message). */
      self->notice = g_strdup_printf (_ ("No rollout: %s. Choose one head or the mean over heads."),
                                      refused);
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      g_clear_object (&self->built_analysis);
      self->built_matrix = NULL;
      attnscope_page_set_busy (page, FALSE);
      update_cell_label (self);
      return;
    }
  if (view.kind == AR_ATTENTION_CROSS && gtk_toggle_button_get_active (self->norm_button))
    /* Translators: the Norms button is down on the cross-attention, which shows its weights */
    self->notice = g_strdup (_ ("Norm weighting does not apply to the cross-attention: the norms "
                                "are of the self-attention's values. Showing the weights."));
  ArAttention attention;
  ArCrossAttention cross;
  const AsTrace *biased = position_bias_trace (page, &view);
  /* the bias: its compact row of the head (and umT5's layer) stands for the figure's input */
  gconstpointer matrix = biased != NULL ? as_trace_position_bias_relative (
                             biased, CLAMP (view.layer, 0, biased->n_layer - 1), view.head)
                                        : want_matrix (page, &view, &attention, &cross);
  attnscope_page_set_busy (page, matrix == NULL);
  if (matrix == NULL && self->progress_source == 0 && view.aggregate != AR_AGGREGATE_HEAD
      && attnscope_analysis_layer_aggregates (analysis))
    self->progress_source = g_timeout_add (250, show_layer_progress, self);
  /* Unchanged inputs (a result of another kind arrived): the figure on screen stays. */
  if (matrix == NULL)
    return;
  if (analysis == self->built_analysis && matrix == self->built_matrix
      && ar_view_selection_equal (&view, &self->built_view))
    {
      update_cell_label (self); /* the notice may have come or gone (the Norms button) */
      return;
    }
  g_autoptr (ArBuiltFigure) figure = attnscope_attention_page_build_figure (page, &view);
  attnscope_heatmap_view_set_figure (self->heatmap, figure);
  update_cell_label (self);
  g_set_object (&self->built_analysis, analysis);
  self->built_matrix = matrix;
  self->built_view = view;
}

static ArBuiltFigure *
attnscope_attention_page_get_figure (AttnscopePage *page)
{
  return attnscope_heatmap_view_get_figure (ATTNSCOPE_ATTENTION_PAGE (page)->heatmap);
}

static char *
attnscope_attention_page_dup_figure_name (AttnscopePage *page)
{
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  const char *stem = view.kind == AR_ATTENTION_CROSS     ? "cross-attention"
                     : view.kind == AR_ATTENTION_ENCODER ? "encoder-attention"
                                                         : "attention";
  if (position_bias_trace (page, &view) != NULL)
    return g_strdup_printf ("%s-position-bias-head%d",
                            view.kind == AR_ATTENTION_ENCODER ? "encoder" : "decoder", view.head);
  switch (view.aggregate)
    {
    case AR_AGGREGATE_MEAN:
      return g_strdup_printf ("%s-layer%d-mean", stem, view.layer);
    case AR_AGGREGATE_ROLLOUT:
      return g_strdup_printf ("%s-rollout-layer%d", stem, view.layer);
    case AR_AGGREGATE_HEAD:
    default:
      return g_strdup_printf ("%s-layer%d-head%d", stem, view.layer, view.head);
    }
}

static void
on_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col, AttnscopeAttentionPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (view == NULL)
    return;
  /* A click selects the query token (of a word: its first); a click on the selected one clears
   * the selection. */
  ArAttentionKind kind = attnscope_page_get_attention_kind (ATTNSCOPE_PAGE (self));
  if (kind == AR_ATTENTION_ENCODER)
    return; /* the selection is a target token; the encoder's rows are the source's */
  int row0, col0;
  block_origin (self, &row0, &col0);
  /* a long text's pooled overview: a block selects its first token */
  int k = overview_factor (self);
  /* the cross-attention's rows are the target's tokens, never pooled */
  int token = kind == AR_ATTENTION_CROSS
                  ? row
                  : attnscope_page_item_token (ATTNSCOPE_PAGE (self), row0 + row * k);
  int selected = attnscope_view_state_get_selected_token (view);
  attnscope_view_state_set_selected_token (view, selected == token ? -1 : token);
}

static void
on_session_changed (AttnscopeAttentionPage *self)
{
  g_binding_group_set_source (self->bindings, attnscope_page_get_view (ATTNSCOPE_PAGE (self)));
}

/* The colour map's name ↔ its position in the drop-down. */
static gboolean
colormap_to_index (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_uint (to, attnscope_colormap_index (g_value_get_string (from)));
  return TRUE;
}

static gboolean
index_to_colormap (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_string (to, attnscope_colormap_name (g_value_get_uint (from)));
  return TRUE;
}

/* The sentence filter's name ↔ its position in the drop-down (the order of ArSegments). */
static gboolean
segments_to_index (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  ArSegments segments = AR_SEGMENTS_ALL;
  ar_segments_from_string (g_value_get_string (from), &segments);
  g_value_set_uint (to, segments);
  return TRUE;
}

static gboolean
index_to_segments (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  guint i = g_value_get_uint (from);
  g_value_set_string (to, ar_segments_to_string (i < AR_N_SEGMENTS ? i : AR_SEGMENTS_ALL));
  return TRUE;
}

static void
on_position_bias_toggled (GtkToggleButton *button, AttnscopeAttentionPage *self)
{
  attnscope_attention_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_norm_toggled (GtkToggleButton *button, AttnscopeAttentionPage *self)
{
  attnscope_attention_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_zoom_in (GtkButton *button, AttnscopeAttentionPage *self)
{
  attnscope_heatmap_view_zoom (self->heatmap, 0.5);
}

static void
on_zoom_out (GtkButton *button, AttnscopeAttentionPage *self)
{
  attnscope_heatmap_view_zoom (self->heatmap, 2);
}

static void
on_zoom_all (GtkButton *button, AttnscopeAttentionPage *self)
{
  attnscope_heatmap_view_set_view (self->heatmap, 0, 0, 0);
}

gboolean
attnscope_attention_page_get_segments_visible (AttnscopeAttentionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self), FALSE);
  return gtk_widget_get_visible (GTK_WIDGET (self->segments_dropdown));
}

void
attnscope_attention_page_set_norm_weighted (AttnscopeAttentionPage *self, gboolean weighted)
{
  g_return_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self));
  gtk_toggle_button_set_active (self->norm_button, weighted);
}

gboolean
attnscope_attention_page_get_norm_weighted (AttnscopeAttentionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self), FALSE);
  return gtk_toggle_button_get_active (self->norm_button);
}

const char *
attnscope_attention_page_get_notice (AttnscopeAttentionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self), NULL);
  return self->notice;
}

AttnscopeHeatmapView *
attnscope_attention_page_get_heatmap (AttnscopeAttentionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTENTION_PAGE (self), NULL);
  return self->heatmap;
}

static void
attnscope_attention_page_dispose (GObject *object)
{
  AttnscopeAttentionPage *self = ATTNSCOPE_ATTENTION_PAGE (object);
  g_clear_object (&self->bindings);
  g_clear_object (&self->built_analysis);
  g_clear_pointer (&self->notice, g_free);
  g_clear_handle_id (&self->progress_source, g_source_remove);
  G_OBJECT_CLASS (attnscope_attention_page_parent_class)->dispose (object);
}

static void
attnscope_attention_page_class_init (AttnscopeAttentionPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_attention_page_dispose;
  page_class->update = attnscope_attention_page_update;
  page_class->get_figure = attnscope_attention_page_get_figure;
  page_class->dup_figure_name = attnscope_attention_page_dup_figure_name;
  page_class->build_figure = attnscope_attention_page_build_figure;
  page_class->append_export_args = attnscope_attention_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-attention-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, position_bias_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, norm_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, pattern_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, segments_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, colormap_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, annotate_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, autoscale_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, heatmap);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttentionPage, cell_label);
  gtk_widget_class_bind_template_callback (widget_class, on_position_bias_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_norm_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_zoom_in);
  gtk_widget_class_bind_template_callback (widget_class, on_zoom_out);
  gtk_widget_class_bind_template_callback (widget_class, on_zoom_all);
}

static void
attnscope_attention_page_init (AttnscopeAttentionPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->heatmap));
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  self->bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->bindings, "colormap", self->colormap_dropdown, "selected",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, colormap_to_index,
                             index_to_colormap, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "attention-kind", self->kind_dropdown, "selected",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, attnscope_int_to_uint,
                             attnscope_uint_to_int, NULL, NULL);
  g_binding_group_bind_full (self->bindings, "segments", self->segments_dropdown, "selected",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, segments_to_index,
                             index_to_segments, NULL, NULL);
  g_binding_group_bind (self->bindings, "annotate", self->annotate_button, "active",
                        G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_binding_group_bind (self->bindings, "autoscale", self->autoscale_button, "active",
                        G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_signal_connect (self, "notify::session", G_CALLBACK (on_session_changed), NULL);
  g_signal_connect (self->heatmap, "cell-activated", G_CALLBACK (on_cell_activated), self);
  g_signal_connect_swapped (self->heatmap, "notify::cursor-row", G_CALLBACK (update_cell_label),
                            self);
  g_signal_connect_swapped (self->heatmap, "notify::cursor-col", G_CALLBACK (update_cell_label),
                            self);
  update_cell_label (self);
}
