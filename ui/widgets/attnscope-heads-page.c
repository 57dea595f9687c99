/* attnscope-heads-page.c — the model view (see attnscope-heads-page.h): the head statistics (and,
 * with autoscaled colours, the range of all attention weights) come from the analysis; the grid
 * is built by ar_build_grid_figure(). */
#include "attnscope-heads-page.h"

#include <glib/gi18n.h>

#include "attention-figure.h"
#include "cross-figure.h"
#include "attnscope-thumbnail-stream.h"

struct _AttnscopeHeadsPage
{
  AttnscopePage parent_instance;

  GtkDropDown *kind_dropdown;
  GBindingGroup *bindings; /* the drop-down on the view state */
  GtkLabel *summary_label;
  AttnscopeHeadGridView *grid;
  GSignalGroup *whatif_signals; /* the session's heads switched off */
  GtkWidget *context_menu;      /* "Switch off head L.H", at a right click */

  /* what the figure on screen was built from */
  AttnscopeAnalysis *built_analysis; /* a reference, so that the pointers below stay unique */
  ArViewSelection built_view;
  gconstpointer built_stats, built_range;
  gconstpointer built_whatif;
  /* a long text's thumbnails, computed visible heads first (attnscope-thumbnail-stream.h) */
  AttnscopeThumbnailStream *stream;
};

G_DEFINE_FINAL_TYPE (AttnscopeHeadsPage, attnscope_heads_page, ATTNSCOPE_TYPE_PAGE)

static void
update_summary (AttnscopeHeadsPage *self, const AsHeadStats *stats)
{
  int counts[AS_HEAD_PATTERN_COUNT] = { 0 };
  for (int i = 0; i < stats->n_layer * stats->n_head; i++)
    counts[stats->patterns[i]]++;
  g_autofree char *text = NULL;
  if (stats->bidirectional)
    text = g_strdup_printf (_ ("Layers × heads: %d × %d · [CLS] %d · [SEP] %d · previous token %d "
                               "· next token %d · self %d · broad %d · mixed %d"),
                            stats->n_layer, stats->n_head, counts[AS_HEAD_PATTERN_CLS],
                            counts[AS_HEAD_PATTERN_SEP], counts[AS_HEAD_PATTERN_PREVIOUS],
                            counts[AS_HEAD_PATTERN_NEXT], counts[AS_HEAD_PATTERN_SELF],
                            counts[AS_HEAD_PATTERN_BROAD], counts[AS_HEAD_PATTERN_MIXED]);
  else
    text = g_strdup_printf (
        _ ("Layers × heads: %d × %d · previous token %d · first token %d · self %d · mixed %d"),
        stats->n_layer, stats->n_head, counts[AS_HEAD_PATTERN_PREVIOUS],
        counts[AS_HEAD_PATTERN_FIRST], counts[AS_HEAD_PATTERN_SELF], counts[AS_HEAD_PATTERN_MIXED]);
  gtk_label_set_text (self->summary_label, text);
}

/* The grid shows no token: a click on one, the annotation or the label flags need not redraw it. */
static void
grid_view (ArViewSelection *view)
{
  view->selected_token = -1;
  view->annotate = AR_ANNOTATE_NEVER;
  view->raw_tokens = FALSE;
  view->no_space_marks = FALSE;
  view->labels = AR_LABELS_THINNED;
  view->pool_words = FALSE;
  view->normalize_rows = FALSE;
  view->alignment = AS_ALIGN_TOKENS;
}

static void
update_cross_summary (AttnscopeHeadsPage *self, const AsCrossStats *stats)
{
  static const char *const names[] = { "eos", "diagonal", "focused", "broad", "mixed" };
  int counts[G_N_ELEMENTS (names)] = { 0 };
  for (int i = 0; i < stats->n_layer * stats->n_head; i++)
    for (guint k = 0; k < G_N_ELEMENTS (names); k++)
      counts[k] += g_str_equal (stats->labels[i], names[k]);
  g_autofree char *text = g_strdup_printf (_ ("Cross-attention, layers × heads: %d × %d · end "
                                              "token %d · diagonal %d · focused %d · broad %d "
                                              "· mixed %d"),
                                           stats->n_layer, stats->n_head, counts[0], counts[1],
                                           counts[2], counts[3], counts[4]);
  gtk_label_set_text (self->summary_label, text);
}

/* The cross-attention grid of VIEW, or NULL while the pass's results are missing. */
static ArBuiltFigure *
build_cross_grid (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeCross *results = attnscope_page_get_cross (page);
  if (results == NULL || attnscope_cross_get_stats (results) == NULL)
    return NULL;
  ArCrossAttention cross;
  attnscope_cross_get_attention (results, &cross);
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  return ar_build_cross_grid_figure (&cross, attnscope_cross_get_stats (results), view, &texts);
}

/* The session's heads switched off, or NULL. */
static AttnscopeWhatif *
page_whatif (AttnscopePage *page)
{
  AttnscopeSession *session = attnscope_page_get_session (page);
  return session != NULL ? attnscope_session_get_whatif (session) : NULL;
}

/* Crosses out in BUILT (just built, not yet shared) the heads the session switched off. */
static void
cross_out_ablated (AttnscopePage *page, ArBuiltFigure *built)
{
  AttnscopeWhatif *whatif = page_whatif (page);
  if (built == NULL || whatif == NULL)
    return;
  AttnscopeWhatifState *state = attnscope_whatif_get_state (whatif);
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  if (state->n_heads_off == 0 || state->n_layer != fig->n_layers || state->n_head != fig->n_heads)
    return;
  fig->crossed = ar_built_figure_take (
      built, g_memdup2 (state->heads, (gsize) state->n_layer * state->n_head));
}

/* The grid's heads computed so far: those in view next. */
static gboolean
on_thumbnails_arrived (gpointer data)
{
  AttnscopeHeadsPage *self = data;
  attnscope_page_queue_update (ATTNSCOPE_PAGE (self));
  return G_SOURCE_REMOVE;
}

static void
prioritise_visible (AttnscopeHeadsPage *self)
{
  ArBuiltFigure *built = attnscope_head_grid_view_get_figure (self->grid);
  if (self->stream == NULL || built == NULL)
    return;
  const ArGridFigure *fig = &ar_built_figure_get_parts (built)->grid;
  g_autofree int *heads = g_new (int, (gsize) fig->n_layers * fig->n_heads);
  int n = attnscope_head_grid_visible_heads (self->grid, heads);
  attnscope_thumbnail_stream_prioritise (self->stream, heads, n);
}

/* The thumbnails of ATTENTION's trace when it computes its attention on demand: the stream's once
 * complete; NULL meanwhile (a new trace starts a new stream, dropping the old). */
static void
want_stream (AttnscopeHeadsPage *self, ArAttention *attention)
{
  const AsTrace *t = attention->trace;
  if (t == NULL || as_trace_attention_held (t))
    return;
  if (self->stream == NULL || attnscope_thumbnail_stream_get_trace (self->stream) != t)
    {
      g_clear_pointer (&self->stream, attnscope_thumbnail_stream_free);
      self->stream = attnscope_thumbnail_stream_new ((AsTrace *) t, on_thumbnails_arrived, self);
    }
  attention->thumbnails = attnscope_thumbnail_stream_get_complete (self->stream);
}

AttnscopeThumbnailStream *
attnscope_heads_page_get_thumbnail_stream (AttnscopeHeadsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEADS_PAGE (self), NULL);
  return self->stream;
}

static ArBuiltFigure *
attnscope_heads_page_build_figure (AttnscopePage *page, const ArViewSelection *asked)
{
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (page);
  ArViewSelection view = *asked;
  grid_view (&view);
  if (view.kind == AR_ATTENTION_CROSS)
    return build_cross_grid (page, &view);
  ArAttention attention;
  attnscope_analysis_want_attention (analysis, AR_AGGREGATE_HEAD, view.autoscale, &attention);
  want_stream (ATTNSCOPE_HEADS_PAGE (page), &attention);
  if (attention.thumbnails == NULL)
    attnscope_analysis_want_thumbnails (analysis, &attention);
  const AsHeadStats *stats = attnscope_analysis_want_head_stats (analysis);
  if (stats == NULL || (view.autoscale && attention.range == NULL))
    return NULL;
  ArFigureTexts texts;
  attnscope_page_get_texts (page, &texts);
  ArBuiltFigure *built = ar_build_grid_figure (&attention, stats, &view, &texts);
  cross_out_ablated (page, built);
  return built;
}

static void
attnscope_heads_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                         GPtrArray *argv)
{
  attnscope_page_append_kind_args (page, view, argv);
  g_ptr_array_add (argv, g_strdup ("--grid"));
  if (view->aggregate == AR_AGGREGATE_HEAD)
    {
      g_ptr_array_add (argv, g_strdup ("--layer"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
      g_ptr_array_add (argv, g_strdup ("--head"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->head));
    }
}

static void
attnscope_heads_page_update (AttnscopePage *page)
{
  AttnscopeHeadsPage *self = ATTNSCOPE_HEADS_PAGE (page);
  AttnscopeAnalysis *main_analysis = attnscope_page_get_analysis (page);
  gtk_widget_set_visible (GTK_WIDGET (self->kind_dropdown),
                          main_analysis != NULL
                              && attnscope_analysis_get_trace (main_analysis)->source != NULL);
  AttnscopeAnalysis *analysis = attnscope_page_get_kind_analysis (page);
  if (analysis == NULL)
    {
      attnscope_head_grid_view_set_figure (self->grid, NULL, NULL);
      g_clear_object (&self->built_analysis);
      gtk_label_set_text (self->summary_label, "");
      attnscope_page_set_busy (page, FALSE);
      return;
    }
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  grid_view (&view);
  if (view.kind == AR_ATTENTION_CROSS)
    {
      AttnscopeCross *results = attnscope_page_get_cross (page);
      if (results == NULL || attnscope_cross_get_stats (results) == NULL)
        return;
      gconstpointer stats = attnscope_cross_get_stats (results);
      if (analysis == self->built_analysis && ar_view_selection_equal (&view, &self->built_view)
          && stats == self->built_stats)
        return;
      g_autoptr (ArBuiltFigure) figure = build_cross_grid (page, &view);
      attnscope_head_grid_view_set_figure (self->grid, figure, NULL);
      attnscope_head_grid_view_set_cross_stats (self->grid, stats);
      update_cross_summary (self, stats);
      attnscope_page_set_busy (page, FALSE);
      g_set_object (&self->built_analysis, analysis);
      self->built_view = view;
      self->built_stats = stats;
      self->built_range = NULL;
      return;
    }
  ArAttention attention;
  attnscope_analysis_want_attention (analysis, AR_AGGREGATE_HEAD, view.autoscale, &attention);
  want_stream (self, &attention);
  const AsHeadStats *stats = attnscope_analysis_want_head_stats (analysis);
  if (!as_trace_attention_held (attention.trace) && attention.thumbnails == NULL)
    {
      /* the heads computed so far, the others placeholders; those in view come next */
      ArFigureTexts texts;
      attnscope_page_get_texts (page, &texts);
      g_autoptr (ArBuiltFigure) partial = attnscope_thumbnail_stream_build_partial (
          self->stream, &attention, stats, &view, &texts);
      attnscope_head_grid_view_set_figure (self->grid, partial, stats);
      g_clear_object (&self->built_analysis);
      prioritise_visible (self);
    }
  gboolean ready = stats != NULL && (!view.autoscale || attention.range != NULL)
                   && (as_trace_attention_held (attention.trace) || attention.thumbnails != NULL);
  attnscope_page_set_busy (page, !ready);
  AttnscopeWhatif *whatif = page_whatif (page);
  gconstpointer whatif_state = whatif != NULL ? attnscope_whatif_get_state (whatif) : NULL;
  if (!ready
      || (analysis == self->built_analysis && ar_view_selection_equal (&view, &self->built_view)
          && (gconstpointer) stats == self->built_stats
          && (gconstpointer) attention.range == self->built_range
          && whatif_state == self->built_whatif))
    return;
  g_autoptr (ArBuiltFigure) figure = attnscope_heads_page_build_figure (page, &view);
  attnscope_head_grid_view_set_figure (self->grid, figure, stats);
  update_summary (self, stats);
  g_set_object (&self->built_analysis, analysis);
  self->built_view = view;
  self->built_stats = stats;
  self->built_range = attention.range;
  self->built_whatif = whatif_state;
}

static ArBuiltFigure *
attnscope_heads_page_get_figure (AttnscopePage *page)
{
  return attnscope_head_grid_view_get_figure (ATTNSCOPE_HEADS_PAGE (page)->grid);
}

static char *
attnscope_heads_page_dup_figure_name (AttnscopePage *page)
{
  return g_strdup ("all-heads");
}

static void
on_session_changed (AttnscopeHeadsPage *self)
{
  g_binding_group_set_source (self->bindings, attnscope_page_get_view (ATTNSCOPE_PAGE (self)));
  g_signal_group_set_target (self->whatif_signals, page_whatif (ATTNSCOPE_PAGE (self)));
}

/* Shift+click, or the context menu: switch head (LAYER, HEAD) off or on again. Self-attention of
 * the model's own stack only (a translation model's heads are not ablated in the window). */
static void
on_head_toggled (AttnscopeHeadGridView *grid, int layer, int head, AttnscopeHeadsPage *self)
{
  AttnscopeWhatif *whatif = page_whatif (ATTNSCOPE_PAGE (self));
  if (whatif != NULL
      && attnscope_page_get_attention_kind (ATTNSCOPE_PAGE (self)) == AR_ATTENTION_SELF)
    attnscope_whatif_toggle_head (whatif, layer, head);
}

static void
toggle_head_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  int layer, head;
  g_variant_get (parameter, "(ii)", &layer, &head);
  on_head_toggled (NULL, layer, head, ATTNSCOPE_HEADS_PAGE (widget));
}

/* A right click on a head: a menu with "Switch off head L.H" (or "Switch on"). */
static void
on_secondary_pressed (GtkGestureClick *gesture, int n_press, double x, double y,
                      AttnscopeHeadsPage *self)
{
  int layer, head;
  AttnscopeWhatif *whatif = page_whatif (ATTNSCOPE_PAGE (self));
  if (whatif == NULL
      || attnscope_page_get_attention_kind (ATTNSCOPE_PAGE (self)) != AR_ATTENTION_SELF
      || !attnscope_head_grid_view_head_at (self->grid, x, y, &layer, &head))
    return;
  g_autoptr (GMenu) menu = g_menu_new ();
  g_autofree char *label
      = g_strdup_printf (attnscope_whatif_get_head (whatif, layer, head)
                             /* Translators: a context menu item of the heads grid; L.H */
                             ? _ ("Switch on head %d.%d")
                             /* Translators: a context menu item of the heads grid; L.H */
                             : _ ("Switch off head %d.%d"),
                         layer, head);
  g_autoptr (GMenuItem) item = g_menu_item_new (label, NULL);
  g_menu_item_set_action_and_target (item, "heads.toggle-head", "(ii)", layer, head);
  g_menu_append_item (menu, item);
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->context_menu), G_MENU_MODEL (menu));
  graphene_point_t point;
  if (!gtk_widget_compute_point (GTK_WIDGET (self->grid), GTK_WIDGET (self),
                                 &GRAPHENE_POINT_INIT ((float) x, (float) y), &point))
    return;
  gtk_popover_set_pointing_to (GTK_POPOVER (self->context_menu),
                               &(GdkRectangle){ (int) point.x, (int) point.y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->context_menu));
}

static void
on_head_activated (AttnscopeHeadGridView *grid, int layer, int head, AttnscopeHeadsPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (view == NULL)
    return;
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, layer);
  attnscope_view_state_set_head (view, head);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-page", "s", "attention");
}

/* The keyboard on the grid: arrows move to the head above, below, left or right (the layer and
 * head steps Alt+arrows take anywhere in the window), Return or space opens the head. */
static gboolean
on_grid_key (GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state,
             AttnscopeHeadsPage *self)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (view == NULL || (state & (GDK_ALT_MASK | GDK_CONTROL_MASK | GDK_SUPER_MASK)))
    return FALSE;
  int d_layer = 0, d_head = 0;
  switch (keyval)
    {
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      d_layer = -1;
      break;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      d_layer = 1;
      break;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      d_head = -1;
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      d_head = 1;
      break;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_space:
      on_head_activated (self->grid, attnscope_view_state_get_layer (view),
                         attnscope_view_state_get_head (view), self);
      return TRUE;
    default:
      return FALSE;
    }
  /* Moving selects one head (the grid outlines it). */
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, attnscope_view_state_get_layer (view) + d_layer);
  attnscope_view_state_set_head (view, attnscope_view_state_get_head (view) + d_head);
  return TRUE;
}

const char *
attnscope_heads_page_get_summary (AttnscopeHeadsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEADS_PAGE (self), NULL);
  return gtk_label_get_text (self->summary_label);
}

AttnscopeHeadGridView *
attnscope_heads_page_get_grid (AttnscopeHeadsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEADS_PAGE (self), NULL);
  return self->grid;
}

static void
attnscope_heads_page_dispose (GObject *object)
{
  g_clear_object (&ATTNSCOPE_HEADS_PAGE (object)->built_analysis);
  g_clear_pointer (&ATTNSCOPE_HEADS_PAGE (object)->stream, attnscope_thumbnail_stream_free);
  g_clear_object (&ATTNSCOPE_HEADS_PAGE (object)->bindings);
  g_clear_object (&ATTNSCOPE_HEADS_PAGE (object)->whatif_signals);
  g_clear_pointer (&ATTNSCOPE_HEADS_PAGE (object)->context_menu, gtk_widget_unparent);
  G_OBJECT_CLASS (attnscope_heads_page_parent_class)->dispose (object);
}

static void
attnscope_heads_page_class_init (AttnscopeHeadsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = attnscope_heads_page_dispose;
  page_class->update = attnscope_heads_page_update;
  page_class->get_figure = attnscope_heads_page_get_figure;
  page_class->dup_figure_name = attnscope_heads_page_dup_figure_name;
  page_class->build_figure = attnscope_heads_page_build_figure;
  page_class->append_export_args = attnscope_heads_page_append_export_args;
  gtk_widget_class_install_action (widget_class, "heads.toggle-head", "(ii)", toggle_head_action);

  g_type_ensure (ATTNSCOPE_TYPE_HEAD_GRID_VIEW);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-heads-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeHeadsPage, kind_dropdown);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeHeadsPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeHeadsPage, grid);
}

static void
attnscope_heads_page_init (AttnscopeHeadsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->grid, "head-activated", G_CALLBACK (on_head_activated), self);
  g_signal_connect (self->grid, "head-toggled", G_CALLBACK (on_head_toggled), self);
  GtkGesture *secondary = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (secondary), GDK_BUTTON_SECONDARY);
  g_signal_connect (secondary, "pressed", G_CALLBACK (on_secondary_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self->grid), GTK_EVENT_CONTROLLER (secondary));
  self->context_menu = gtk_popover_menu_new_from_model (NULL);
  gtk_widget_set_parent (self->context_menu, GTK_WIDGET (self));
  gtk_popover_set_has_arrow (GTK_POPOVER (self->context_menu), FALSE);
  self->whatif_signals = g_signal_group_new (ATTNSCOPE_TYPE_WHATIF);
  g_signal_group_connect_swapped (self->whatif_signals, "changed",
                                  G_CALLBACK (attnscope_page_queue_update), self);
  GtkEventController *key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_grid_key), self);
  gtk_widget_add_controller (GTK_WIDGET (self->grid), key);
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->grid));
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self->grid), GTK_TYPE_SCROLLED_WINDOW);
  if (scroller != NULL)
    g_signal_connect_swapped (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller)),
                              "value-changed", G_CALLBACK (prioritise_visible), self);
  self->bindings = g_binding_group_new ();
  g_binding_group_bind_full (self->bindings, "attention-kind", self->kind_dropdown, "selected",
                             G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL, attnscope_int_to_uint,
                             attnscope_uint_to_int, NULL, NULL);
  g_signal_connect (self, "notify::session", G_CALLBACK (on_session_changed), NULL);
}
