/* attnscope-similarity-page.c — the similarity view (see attnscope-similarity-page.h). The
 * analysis computes the [T][T] cosine similarity of the chosen vectors and the attention that
 * belongs with them (as_trace_vectors_attention) off the UI thread, once per vectors, layer and
 * head; the page fills the table for the selected token (token 0 when none is selected, like the
 * seed's 'May') from that row and shows the matrix through ar_build_similarity_figure(). */
#include "attnscope-similarity-page.h"

#include <glib/gi18n.h>

#include "as-similarity.h"
#include "attnscope-layer-controls.h"
#include "attnscope-similarity-row.h"
#include "render-text.h"
#include "similarity-figure.h"
#include "token-label.h"
#include "as-word-spans.h"
#include "word-labels.h"

struct _AttnscopeSimilarityPage
{
  AttnscopePage parent_instance;

  GtkDropDown *source_dropdown;
  AttnscopeLayerControls *layer_controls;
  GtkLabel *table_title;
  GtkColumnView *table;
  GtkColumnViewColumn *index_column;
  GtkColumnViewColumn *token_column;
  GtkColumnViewColumn *similarity_column;
  GtkColumnViewColumn *attention_column;
  AttnscopeHeatmapView *heatmap;

  GListStore *rows; /* AttnscopeSimilarityRow in token order */
  AsVectorSource source;

  /* what the figure on screen was built from */
  AttnscopeAnalysis *built_analysis; /* a reference, so that the pointer below stays unique */
  const AttnscopeSimilarity *built_similarity;
  AsVectorSource built_source;
  ArViewSelection built_view;
  int table_token; /* the token the table was filled for */
};

G_DEFINE_FINAL_TYPE (AttnscopeSimilarityPage, attnscope_similarity_page, ATTNSCOPE_TYPE_PAGE)

/* The layer argument the core expects for SOURCE at the view's LAYER: hidden states are indexed
 * 0..L with hidden[l + 1] the output of layer l; the embeddings have no layer. */
static int
source_layer (AsVectorSource source, int layer)
{
  return source == AS_VECTORS_HIDDEN ? layer + 1 : source == AS_VECTORS_EMBEDDINGS ? 0 : layer;
}

static void
clear (AttnscopeSimilarityPage *self, const char *message)
{
  g_list_store_remove_all (self->rows);
  attnscope_heatmap_view_set_figure (self->heatmap, NULL);
  g_clear_object (&self->built_analysis);
  gtk_label_set_text (self->table_title, message != NULL ? message : "");
}

/* Fills the table for item TOKEN of the N (tokens or words) labelled LABELS. Rows of the same
 * number are given their new values in place: replacing a thousand rows makes the column view
 * build every visible cell anew. */
static void
fill_table (AttnscopeSimilarityPage *self, const AttnscopeSimilarity *s, int n, char **labels,
            int token, gboolean causal)
{
  int n_rows = 0;
  g_autofree AsSimilarityRow *table
      = as_similarity_table (s->similarity, s->attention, n, token, &n_rows);
  GListModel *rows = G_LIST_MODEL (self->rows);
  if ((int) g_list_model_get_n_items (rows) == n_rows)
    {
      for (int i = 0; i < n_rows; i++)
        {
          g_autoptr (AttnscopeSimilarityRow) row = g_list_model_get_item (rows, i);
          attnscope_similarity_row_set (row, table[i].index, labels[table[i].index],
                                        table[i].similarity, table[i].attention,
                                        causal && table[i].index > token);
        }
      /* A sorted table sorts again (it does not watch its rows). */
      GtkSorter *sorter = gtk_column_view_get_sorter (self->table);
      if (gtk_sorter_get_order (sorter) != GTK_SORTER_ORDER_NONE)
        gtk_sorter_changed (sorter, GTK_SORTER_CHANGE_DIFFERENT);
      return;
    }
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  for (int i = 0; i < n_rows; i++)
    g_ptr_array_add (items, attnscope_similarity_row_new (table[i].index, labels[table[i].index],
                                                          table[i].similarity, table[i].attention,
                                                          causal && table[i].index > token));
  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)),
                       items->pdata, items->len);
}

static void
show_matrix (AttnscopeSimilarityPage *self, AttnscopeAnalysis *analysis,
             const AttnscopeSimilarity *s, int layer, int head, const ArViewSelection *view)
{
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  if (analysis == self->built_analysis && s == self->built_similarity
      && self->source == self->built_source && ar_view_selection_equal (view, &self->built_view))
    return;
  ArFigureTexts texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &texts);
  g_autoptr (ArBuiltFigure) figure = ar_build_similarity_figure (
      trace, s->values, s->range, self->source, layer, head, view, &texts);
  attnscope_heatmap_view_set_figure (self->heatmap, figure);
  g_set_object (&self->built_analysis, analysis);
  self->built_similarity = s;
  self->built_source = self->source;
  self->built_view = *view;
}

/* The similarity and attention heads of the core for VIEW's layer and head, by the page's vectors
 * (see source_layer). */
static void
core_selection (AttnscopeSimilarityPage *self, const ArViewSelection *view, int *layer, int *head,
                int *attention_head)
{
  *layer = source_layer (self->source, view->layer);
  *head = self->source == AS_VECTORS_CONTEXTS ? view->head : -1;
  /* The attention column: the head's weights for contexts, else the head's or the mean. */
  *attention_head = self->source == AS_VECTORS_CONTEXTS || view->aggregate == AR_AGGREGATE_HEAD
                        ? view->head
                        : -1;
}

static ArBuiltFigure *
attnscope_similarity_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeSimilarityPage *self = ATTNSCOPE_SIMILARITY_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  int layer, head, attention_head;
  core_selection (self, view, &layer, &head, &attention_head);
  const AttnscopeSimilarity *s = attnscope_analysis_want_similarity (
      analysis, self->source, layer, head, attention_head, view->pool_words, NULL);
  if (s == NULL)
    return NULL;
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_similarity_figure (attnscope_analysis_get_trace (analysis), s->values, s->range,
                                     self->source, layer, head, view, &texts);
}

static void
attnscope_similarity_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                              GPtrArray *argv)
{
  AttnscopeSimilarityPage *self = ATTNSCOPE_SIMILARITY_PAGE (page);
  int layer, head, attention_head;
  core_selection (self, view, &layer, &head, &attention_head);
  g_ptr_array_add (argv, g_strdup ("--similarity"));
  g_ptr_array_add (argv, g_strdup (as_vector_source_to_string (self->source)));
  if (self->source != AS_VECTORS_EMBEDDINGS)
    {
      g_ptr_array_add (argv, g_strdup ("--layer"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", layer));
    }
  if (head >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("--head"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", head));
    }
}

static void
attnscope_similarity_page_update (AttnscopePage *page)
{
  AttnscopeSimilarityPage *self = ATTNSCOPE_SIMILARITY_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  gtk_drop_down_set_selected (self->source_dropdown, self->source);
  attnscope_page_set_busy (page, FALSE);
  if (analysis == NULL)
    {
      clear (self, NULL);
      return;
    }
  AsTrace *trace = attnscope_analysis_get_trace (analysis);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  int layer, head, attention_head;
  core_selection (self, &view, &layer, &head, &attention_head);
  /* The similarity depends on the layer and head, layer and head do not on one another. */
  view.aggregate = AR_AGGREGATE_HEAD;
  const char *failure = NULL;
  const AttnscopeSimilarity *s = attnscope_analysis_want_similarity (
      analysis, self->source, layer, head, attention_head, view.pool_words, &failure);
  if (failure != NULL)
    {
      clear (self, failure);
      return;
    }
  attnscope_page_set_busy (page, s == NULL);
  if (s == NULL)
    return;
  ArTokenLabelFlags flags = ar_view_selection_label_flags (&view);
  g_autoptr (AsWordSpans) spans = view.pool_words ? as_word_spans_from_trace (trace) : NULL;
  g_auto (GStrv) labels = spans != NULL ? ar_word_labels (trace, spans, flags)
                                        : ar_token_labels_from_trace (trace, flags);
  int n = spans != NULL ? spans->n_words : trace->n_tokens;
  /* Without a selection: the first token, as the seed's 'May'; in a causal model the last, the
   * only one that sees every other token. */
  int token = view.selected_token;
  if (token < 0)
    token = trace->causal ? trace->n_tokens - 1 : 0;
  if (spans != NULL)
    token = as_word_spans_word_of (spans, token);
  g_autofree char *description = ar_vectors_description (self->source, layer, head);
  g_autofree char *heading = spans != NULL
                                 ? g_strdup_printf (_ ("“%s” (word %d) against the others · %s"),
                                                    labels[token], token, description)
                                 : g_strdup_printf (_ ("“%s” (token %d) against the others · %s"),
                                                    labels[token], token, description);
  gtk_label_set_text (self->table_title, heading);
  /* A thousand rows take a while to replace: only when they change. */
  if (analysis != self->built_analysis || s != self->built_similarity
      || self->source != self->built_source || view.raw_tokens != self->built_view.raw_tokens
      || view.pool_words != self->built_view.pool_words || token != self->table_token)
    fill_table (self, s, n, labels, token, trace->causal);
  self->table_token = token;
  show_matrix (self, analysis, s, layer, head, &view);
}

static ArBuiltFigure *
attnscope_similarity_page_get_figure (AttnscopePage *page)
{
  return attnscope_heatmap_view_get_figure (ATTNSCOPE_SIMILARITY_PAGE (page)->heatmap);
}

static char *
attnscope_similarity_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeSimilarityPage *self = ATTNSCOPE_SIMILARITY_PAGE (page);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  const char *source = as_vector_source_to_string (self->source);
  if (self->source == AS_VECTORS_EMBEDDINGS)
    return g_strdup_printf ("similarity-%s", source);
  return g_strdup_printf ("similarity-%s-layer%d", source, view.layer);
}

void
attnscope_similarity_page_set_source (AttnscopeSimilarityPage *self, AsVectorSource source)
{
  g_return_if_fail (ATTNSCOPE_IS_SIMILARITY_PAGE (self));
  if (self->source == source)
    return;
  self->source = source;
  gtk_drop_down_set_selected (self->source_dropdown, source);
  attnscope_similarity_page_update (ATTNSCOPE_PAGE (self));
}

AsVectorSource
attnscope_similarity_page_get_source (AttnscopeSimilarityPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_PAGE (self), AS_VECTORS_EMBEDDINGS);
  return self->source;
}

GListModel *
attnscope_similarity_page_get_rows (AttnscopeSimilarityPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_PAGE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

AttnscopeHeatmapView *
attnscope_similarity_page_get_heatmap (AttnscopeSimilarityPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_PAGE (self), NULL);
  return self->heatmap;
}

static void
on_source_selected (GtkDropDown *dropdown, GParamSpec *pspec, AttnscopeSimilarityPage *self)
{
  attnscope_similarity_page_set_source (self, gtk_drop_down_get_selected (dropdown));
}

static void
on_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col, AttnscopeSimilarityPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (view != NULL)
    attnscope_view_state_set_selected_token (
        view, attnscope_page_item_token (ATTNSCOPE_PAGE (self), row));
}

static void
on_row_activated (GtkColumnView *table, guint position, AttnscopeSimilarityPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (table));
  g_autoptr (AttnscopeSimilarityRow) row = g_list_model_get_item (model, position);
  if (view != NULL && row != NULL)
    attnscope_view_state_set_selected_token (
        view, attnscope_page_item_token (ATTNSCOPE_PAGE (self),
                                         attnscope_similarity_row_get_index (row)));
}

/* ---- table cells ---- */

static void
setup_text_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
setup_number_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (label), 1);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static AttnscopeSimilarityRow *
item_row (GtkListItem *item)
{
  return ATTNSCOPE_SIMILARITY_ROW (gtk_list_item_get_item (item));
}

static GtkLabel *
item_label (GtkListItem *item)
{
  return GTK_LABEL (gtk_list_item_get_child (item));
}

static void
show_index (GtkListItem *item)
{
  g_autofree char *text
      = g_strdup_printf ("%d", attnscope_similarity_row_get_index (item_row (item)));
  gtk_label_set_text (item_label (item), text);
}

static void
show_token (GtkListItem *item)
{
  gtk_label_set_text (item_label (item), attnscope_similarity_row_get_token (item_row (item)));
}

static void
show_similarity (GtkListItem *item)
{
  g_autofree char *text
      = ar_format_number (attnscope_similarity_row_get_similarity (item_row (item)), 4);
  gtk_label_set_text (item_label (item), text);
}

static void
show_attention (GtkListItem *item)
{
  AttnscopeSimilarityRow *row = item_row (item);
  g_autofree char *text = attnscope_similarity_row_get_masked (row)
                              ? g_strdup (_ ("masked"))
                              : ar_format_number (attnscope_similarity_row_get_attention (row), 4);
  gtk_label_set_text (item_label (item), text);
  /* only when it changes: setting a tooltip asks the display where the pointer is, a round trip
   * per cell that made a long text's first visit of the page wait on the X server */
  const char *tooltip = attnscope_similarity_row_get_masked (row)
                            ? _ ("The model cannot attend to a later token")
                            : NULL;
  GtkWidget *label = GTK_WIDGET (item_label (item));
  if (g_strcmp0 (gtk_widget_get_tooltip_text (label), tooltip) != 0)
    gtk_widget_set_tooltip_text (label, tooltip);
}

/* Shows the row of ITEM with SHOW, now and whenever the row's values change. */
static void
bind_cell (GtkListItem *item, void (*show) (GtkListItem *))
{
  show (item);
  g_signal_connect_object (item_row (item), "notify", G_CALLBACK (show), item, G_CONNECT_SWAPPED);
}

static void
unbind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  g_signal_handlers_disconnect_by_data (item_row (item), item);
}

static void
bind_index_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  bind_cell (item, show_index);
}

static void
bind_token_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  bind_cell (item, show_token);
}

static void
bind_similarity_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  bind_cell (item, show_similarity);
}

static void
bind_attention_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  bind_cell (item, show_attention);
}

static void
set_numeric_sorter (GtkColumnViewColumn *column, const char *property)
{
  g_autoptr (GtkSorter) sorter = GTK_SORTER (gtk_numeric_sorter_new (
      gtk_property_expression_new (ATTNSCOPE_TYPE_SIMILARITY_ROW, NULL, property)));
  gtk_column_view_column_set_sorter (column, sorter);
}

static void
setup_table (AttnscopeSimilarityPage *self)
{
  self->rows = g_list_store_new (ATTNSCOPE_TYPE_SIMILARITY_ROW);
  set_numeric_sorter (self->index_column, "index");
  set_numeric_sorter (self->similarity_column, "similarity");
  set_numeric_sorter (self->attention_column, "attention");
  g_autoptr (GtkSorter) token_sorter = GTK_SORTER (gtk_string_sorter_new (
      gtk_property_expression_new (ATTNSCOPE_TYPE_SIMILARITY_ROW, NULL, "token")));
  gtk_column_view_column_set_sorter (self->token_column, token_sorter);

  GtkSorter *sorter = gtk_column_view_get_sorter (self->table);
  GtkSortListModel *sorted
      = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->rows)), g_object_ref (sorter));
  GtkNoSelection *selection = gtk_no_selection_new (G_LIST_MODEL (sorted));
  gtk_column_view_set_model (self->table, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
}

static void
attnscope_similarity_page_dispose (GObject *object)
{
  AttnscopeSimilarityPage *self = ATTNSCOPE_SIMILARITY_PAGE (object);
  G_OBJECT_CLASS (attnscope_similarity_page_parent_class)->dispose (object);
  g_clear_object (&self->rows);
  g_clear_object (&self->built_analysis);
}

static void
attnscope_similarity_page_class_init (AttnscopeSimilarityPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_similarity_page_dispose;
  page_class->update = attnscope_similarity_page_update;
  page_class->get_figure = attnscope_similarity_page_get_figure;
  page_class->dup_figure_name = attnscope_similarity_page_dup_figure_name;
  page_class->build_figure = attnscope_similarity_page_build_figure;
  page_class->append_export_args = attnscope_similarity_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_LAYER_CONTROLS);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-similarity-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, source_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, layer_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, table_title);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, table);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, index_column);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, token_column);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, similarity_column);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, attention_column);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeSimilarityPage, heatmap);
  gtk_widget_class_bind_template_callback (widget_class, setup_text_cell);
  gtk_widget_class_bind_template_callback (widget_class, setup_number_cell);
  gtk_widget_class_bind_template_callback (widget_class, bind_index_cell);
  gtk_widget_class_bind_template_callback (widget_class, bind_token_cell);
  gtk_widget_class_bind_template_callback (widget_class, bind_similarity_cell);
  gtk_widget_class_bind_template_callback (widget_class, bind_attention_cell);
  gtk_widget_class_bind_template_callback (widget_class, unbind_cell);
}

static void
attnscope_similarity_page_init (AttnscopeSimilarityPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->heatmap));
  self->source = AS_VECTORS_CONTEXTS;
  setup_table (self);
  attnscope_layer_controls_set_show_aggregate (self->layer_controls, FALSE);
  /* The head picks the contexts, and the attention column of the other vectors. */
  attnscope_layer_controls_set_head_mode (self->layer_controls, ATTNSCOPE_HEAD_MODE_ALWAYS);
  g_object_bind_property (self, "session", self->layer_controls, "session", G_BINDING_SYNC_CREATE);
  gtk_drop_down_set_selected (self->source_dropdown, self->source);
  g_signal_connect (self->source_dropdown, "notify::selected", G_CALLBACK (on_source_selected),
                    self);
  g_signal_connect (self->heatmap, "cell-activated", G_CALLBACK (on_cell_activated), self);
  g_signal_connect (self->table, "activate", G_CALLBACK (on_row_activated), self);
}
