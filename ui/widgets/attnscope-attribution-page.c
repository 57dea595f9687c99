/* attnscope-attribution-page.c — the Attribution page (see attnscope-attribution-page.h). One
 * job runs at a time in a GTask thread: the predicted token when none was typed
 * (as_attribution_predicted_id), then as_attribution_compute. A new trace, token or position
 * replaces the job that runs (its result is dropped); the figure on screen stays until the new
 * attribution lands. The typed tokens are looked up on the UI thread, so that a word the
 * vocabulary splits is refused at once in the status line and the figure stays. */
#include "attnscope-attribution-page.h"

#include <glib/gi18n.h>
#include <math.h>

#include "as-predict.h"
#include "attnscope-qk-panel.h"
#include "attribution-figure.h"

/* What an attribution is of: TARGET -1 is the predicted token. */
typedef struct
{
  AttnscopeAnalysis *analysis; /* borrowed: compared, not dereferenced */
  int position;
  int32_t target, vs;
} Key;

struct _AttnscopeAttributionPage
{
  AttnscopePage parent_instance;

  GtkToggleButton *parts_button, *qk_button;
  GtkToggleButton *rope_button; /* the query-key view's q before RoPE (RoPE families) */
  GtkWidget *parts_controls;
  GtkStack *stack;
  AttnscopeQkPanel *qk_panel;
  GtkEntry *token_entry, *vs_entry;
  GtkSpinButton *position_spin;
  GtkLabel *status;
  AttnscopeHeatmapView *heatmap;
  AttnscopeHeatmapView *cross_heatmap; /* a translation model's cross-attention heads */
  GtkListBox *parts;

  /* what is asked for: the typed tokens (NULL: none) and the position (-1: the last) */
  char *token, *vs;
  int position;
  char *token_error; /* a typed token the vocabulary does not have as one token */
  gboolean setting_spin;

  /* the attribution of KEY's analysis (kept alive by RESULT_ANALYSIS), or why there is none */
  AttnscopeAnalysis *result_analysis;
  Key key;
  AsAttribution *attribution;
  char *failure;
  /* the job that runs */
  GCancellable *cancellable;
  Key job_key;
  /* what the figure on screen was built from */
  const AsAttribution *built;
  ArViewSelection built_view;
};

G_DEFINE_FINAL_TYPE (AttnscopeAttributionPage, attnscope_attribution_page, ATTNSCOPE_TYPE_PAGE)

typedef struct
{
  AsModel *model;
  AsTrace *trace;
  AttnscopeAnalysis *analysis;
  Key key;
} AttributionJob;

static void
job_free (AttributionJob *job)
{
  as_model_unref (job->model);
  as_trace_unref (job->trace);
  g_object_unref (job->analysis);
  g_free (job);
}

static void
job_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  AttributionJob *job = task_data;
  GError *error = NULL;
  int32_t target = job->key.target;
  AsAttribution *at = NULL;
  if (as_attribution_supported (job->model, &error)
      && (target >= 0
          || as_attribution_predicted_id (job->model, job->trace, job->key.position, &target,
                                          &error)))
    at = as_attribution_compute (job->model, job->trace, job->key.position, target, job->key.vs,
                                 &error);
  if (at == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, at, (GDestroyNotify) as_attribution_free);
}

static gboolean
key_equal (const Key *a, const Key *b)
{
  return a->analysis == b->analysis && a->position == b->position && a->target == b->target
         && a->vs == b->vs;
}

static void
cancel_job (AttnscopeAttributionPage *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
}

static void attnscope_attribution_page_update (AttnscopePage *page);

static void
job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (source);
  GTask *task = G_TASK (result);
  AttributionJob *job = g_task_get_task_data (task);
  GError *error = NULL;
  AsAttribution *at = g_task_propagate_pointer (task, &error);
  if (g_task_get_cancellable (task) != self->cancellable)
    {
      /* replaced by a newer job */
      g_clear_pointer (&at, as_attribution_free);
      g_clear_error (&error);
      return;
    }
  g_clear_object (&self->cancellable);
  g_set_object (&self->result_analysis, job->analysis);
  self->key = job->key;
  g_clear_pointer (&self->attribution, as_attribution_free);
  g_clear_pointer (&self->failure, g_free);
  self->attribution = at;
  self->failure = error != NULL ? g_strdup (error->message) : NULL;
  g_clear_error (&error);
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

static void
start_job (AttnscopeAttributionPage *self, AttnscopeAnalysis *analysis, const Key *key)
{
  cancel_job (self);
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
  AttributionJob *job = g_new0 (AttributionJob, 1);
  job->model = as_model_ref (model);
  job->trace = as_trace_ref (attnscope_analysis_get_trace (analysis));
  job->analysis = g_object_ref (analysis);
  job->key = *key;
  self->cancellable = g_cancellable_new ();
  self->job_key = *key;
  g_autoptr (GTask) task = g_task_new (self, self->cancellable, job_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, job_thread);
}

/* *ID = WORD's id (-1 for NULL); FALSE with the reason in self->token_error. */
static gboolean
word_id (AttnscopeAttributionPage *self, AsModel *model, const char *word, int32_t *id)
{
  *id = -1;
  if (word == NULL)
    return TRUE;
  GError *error = NULL;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, &error);
  if (tokenizer != NULL && as_tokenizer_word_id (tokenizer, word, id, &error))
    return TRUE;
  g_free (self->token_error);
  self->token_error = g_strdup (error->message);
  g_error_free (error);
  return FALSE;
}

/* The key asked for of ANALYSIS into *KEY; FALSE when a typed token is refused. */
static gboolean
wanted_key (AttnscopeAttributionPage *self, AttnscopeAnalysis *analysis, Key *key)
{
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
  int T = attnscope_analysis_get_trace (analysis)->n_tokens;
  key->analysis = analysis;
  key->position = self->position >= 0 && self->position < T ? self->position : T - 1;
  g_clear_pointer (&self->token_error, g_free);
  return word_id (self, model, self->token, &key->target)
         && word_id (self, model, self->vs, &key->vs);
}

static char *
part_value (double value)
{
  return g_strdup_printf ("%+.3f", value);
}

static void
add_part (GtkListBox *list, const char *name, double value, int layer, int head)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_widget_set_hexpand (label, TRUE);
  g_autofree char *text = part_value (value);
  GtkWidget *number = gtk_label_new (text);
  gtk_widget_add_css_class (number, "numeric");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), number);
  GtkWidget *row = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  gtk_widget_set_margin_top (box, 4);
  gtk_widget_set_margin_bottom (box, 4);
  gtk_widget_set_margin_start (box, 8);
  gtk_widget_set_margin_end (box, 8);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), head >= 0);
  if (head >= 0)
    gtk_widget_set_tooltip_text (row, _ ("Open this head on the Attention page"));
  g_object_set_data (G_OBJECT (row), "layer", GINT_TO_POINTER (layer));
  g_object_set_data (G_OBJECT (row), "head", GINT_TO_POINTER (head));
  gtk_list_box_append (list, row);
}

typedef struct
{
  double value;
  int kind; /* 0 head, 1 MLP, 2 attention bias, 3 embeddings, 4 final norm bias, 5 cross head,
             * 6 a layer's norms' biases, 7 final_logits_bias */
  int layer, head;
} Part;

static int
by_size (const void *a, const void *b)
{
  double x = fabs (((const Part *) a)->value), y = fabs (((const Part *) b)->value);
  return (x < y) - (x > y);
}

/* The list of the ATTRIBUTION_PAGE_PARTS largest parts of AT, largest first. */
static void
fill_parts (GtkListBox *list, const AsAttribution *at)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
  if (at == NULL)
    return;
  int L = at->n_layer, H = at->n_head, n = 0;
  g_autofree Part *parts = g_new (Part, (gsize) L * (2 * H + 3) + 3);
  for (int l = 0; l < L; l++)
    {
      for (int h = 0; h < H; h++)
        parts[n++] = (Part){ at->heads[l * H + h], 0, l, h };
      parts[n++] = (Part){ at->mlps[l], 1, l, -1 };
      if (at->attn_biases[l] != 0.0f)
        parts[n++] = (Part){ at->attn_biases[l], 2, l, -1 };
      for (int h = 0; at->cross_heads != NULL && h < H; h++)
        parts[n++] = (Part){ at->cross_heads[l * H + h], 5, l, h };
      if (at->norm_biases != NULL && at->norm_biases[l] != 0.0f)
        parts[n++] = (Part){ at->norm_biases[l], 6, l, -1 };
    }
  if (at->final_logits_bias != 0.0f)
    parts[n++] = (Part){ at->final_logits_bias, 7, -1, -1 };
  parts[n++] = (Part){ at->embeddings, 3, -1, -1 };
  if (at->norm_bias != 0.0f)
    parts[n++] = (Part){ at->norm_bias, 4, -1, -1 };
  qsort (parts, n, sizeof (Part), by_size);
  for (int i = 0; i < MIN (n, ATTRIBUTION_PAGE_PARTS); i++)
    {
      const Part *p = &parts[i];
      g_autofree char *name = p->kind == 0   ? g_strdup_printf (_ ("Head %d.%d"), p->layer, p->head)
                              : p->kind == 1 ? g_strdup_printf (_ ("MLP %d"), p->layer)
                              : p->kind == 2 ? g_strdup_printf (_ ("Attention bias %d"), p->layer)
                              : p->kind == 3 ? g_strdup (_ ("Embeddings"))
                              : p->kind == 4 ? g_strdup (_ ("Final norm bias"))
                              : p->kind == 5
                                  ? g_strdup_printf (_ ("Cross head %d.%d"), p->layer, p->head)
                              : p->kind == 6 ? g_strdup_printf (_ ("Norm biases %d"), p->layer)
                                             : g_strdup ("final_logits_bias");
      add_part (list, name, p->value, p->layer, p->head);
      g_object_set_data (G_OBJECT (gtk_widget_get_last_child (GTK_WIDGET (list))), "cross",
                         GINT_TO_POINTER (p->kind == 5));
    }
}

static void
set_status (AttnscopeAttributionPage *self)
{
  g_autofree char *text = NULL;
  const AsAttribution *at = self->attribution;
  if (self->token_error != NULL)
    text = g_strdup (self->token_error);
  else if (self->failure != NULL)
    text = g_strdup (self->failure);
  else if (at != NULL)
    {
      AsModel *model
          = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
      g_autofree char *what
          = ar_attribution_what (as_model_get_tokenizer (model), at->target_id, at->vs_id);
      text = self->token == NULL
                 ? g_strdup_printf (_ ("%s (predicted) at token %d: logit %.3f. Click a head to "
                                       "open it on the Attention page."),
                                    what, at->position, at->logit)
                 : g_strdup_printf (_ ("%s at token %d: logit %.3f. Click a head to open it on "
                                       "the Attention page."),
                                    what, at->position, at->logit);
    }
  else
    text = g_strdup (_ ("Which heads and MLPs wrote the prediction"));
  gtk_label_set_text (self->status, text);
}

/* The position spin button's range for T tokens and its value P, without a "value-changed". */
static void
set_spin (AttnscopeAttributionPage *self, int T, int p)
{
  self->setting_spin = TRUE;
  gtk_spin_button_set_range (self->position_spin, 0, MAX (T - 1, 0));
  gtk_spin_button_set_value (self->position_spin, p);
  self->setting_spin = FALSE;
}

static void
clear (AttnscopeAttributionPage *self)
{
  cancel_job (self);
  g_clear_object (&self->result_analysis);
  self->key = (Key){ NULL, -1, -1, -1 };
  g_clear_pointer (&self->attribution, as_attribution_free);
  g_clear_pointer (&self->failure, g_free);
  self->built = NULL;
  attnscope_heatmap_view_set_figure (self->heatmap, NULL);
  attnscope_heatmap_view_set_figure (self->cross_heatmap, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->cross_heatmap), FALSE);
  fill_parts (self->parts, NULL);
}

static ArBuiltFigure *
build (AttnscopeAttributionPage *self, const ArViewSelection *view)
{
  AsModel *model = attnscope_session_get_model (attnscope_page_get_session (ATTNSCOPE_PAGE (self)));
  ArFigureTexts texts;
  attnscope_page_get_texts (ATTNSCOPE_PAGE (self), &texts);
  return ar_build_attribution_view_figure (self->attribution, as_model_get_tokenizer (model),
                                           &texts, view);
}

/* Shows the result: the figure (rebuilt when the attribution or the view changed), the list. */
static void
show_result (AttnscopeAttributionPage *self)
{
  if (self->failure != NULL)
    {
      attnscope_heatmap_view_set_figure (self->heatmap, NULL);
      attnscope_heatmap_view_set_figure (self->cross_heatmap, NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->cross_heatmap), FALSE);
      fill_parts (self->parts, NULL);
      self->built = NULL;
      return;
    }
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (self), &view);
  if (self->built == self->attribution && ar_view_selection_equal (&view, &self->built_view))
    return;
  /* on screen the self-attention heads, and beside them a translation model's cross heads */
  ArViewSelection self_view = view, cross_view = view;
  self_view.kind = AR_ATTENTION_SELF;
  cross_view.kind = AR_ATTENTION_CROSS;
  g_autoptr (ArBuiltFigure) figure = build (self, &self_view);
  attnscope_heatmap_view_set_figure (self->heatmap, figure);
  gboolean cross = self->attribution->cross_heads != NULL;
  g_autoptr (ArBuiltFigure) cross_figure = cross ? build (self, &cross_view) : NULL;
  attnscope_heatmap_view_set_figure (self->cross_heatmap, cross_figure);
  gtk_widget_set_visible (GTK_WIDGET (self->cross_heatmap), cross);
  if (self->built != self->attribution)
    fill_parts (self->parts, self->attribution);
  self->built = self->attribution;
  self->built_view = view;
}

static gboolean
qk_shown (AttnscopeAttributionPage *self)
{
  return gtk_toggle_button_get_active (self->qk_button);
}

/* The query–key view's status line and busy state. */
static void
update_qk (AttnscopeAttributionPage *self)
{
  AttnscopePage *page = ATTNSCOPE_PAGE (self);
  gboolean busy = attnscope_qk_panel_update (self->qk_panel, page);
  const char *failure = attnscope_qk_panel_get_failure (self->qk_panel);
  const AsQk *qk = attnscope_qk_panel_get_qk (self->qk_panel);
  g_autofree char *text = NULL;
  if (failure != NULL)
    text = g_strdup (failure);
  else if (qk != NULL)
    text = qk->kv_head != qk->head
               ? g_strdup_printf (_ ("Layer %d, head %d (key/value head %d), query token %d: "
                                     "select a head and a token to change them"),
                                  qk->layer, qk->head, qk->kv_head, qk->query)
               : g_strdup_printf (_ ("Layer %d, head %d, query token %d: select a head and a "
                                     "token to change them"),
                                  qk->layer, qk->head, qk->query);
  if (text != NULL)
    gtk_label_set_text (self->status, text);
  gtk_widget_set_visible (GTK_WIDGET (self->rope_button), qk != NULL && qk->q_before_rope != NULL);
  attnscope_page_set_busy (page, busy);
}

static void
attnscope_attribution_page_update (AttnscopePage *page)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  if (qk_shown (self))
    {
      update_qk (self);
      return;
    }
  if (analysis == NULL)
    {
      clear (self);
      set_status (self);
      attnscope_page_set_busy (page, FALSE);
      return;
    }
  Key key;
  gboolean ok = wanted_key (self, analysis, &key);
  set_spin (self, attnscope_analysis_get_trace (analysis)->n_tokens, key.position);
  if (ok && !(self->result_analysis == analysis && key_equal (&key, &self->key)))
    {
      if (self->cancellable == NULL || !key_equal (&key, &self->job_key))
        start_job (self, analysis, &key);
      set_status (self);
      attnscope_page_set_busy (page, TRUE);
      return;
    }
  /* a refused token keeps the figure on screen; the status says why */
  cancel_job (self);
  set_status (self);
  if (self->result_analysis == analysis)
    show_result (self);
  attnscope_page_set_busy (page, FALSE);
}

/* Whether the attribution for the page's current request is there. */
static gboolean
ready (AttnscopeAttributionPage *self, AttnscopeAnalysis *analysis)
{
  Key key;
  return analysis != NULL && self->result_analysis == analysis && self->attribution != NULL
         && wanted_key (self, analysis, &key) && key_equal (&key, &self->key);
}

static ArBuiltFigure *
attnscope_attribution_page_build_figure (AttnscopePage *page, const ArViewSelection *view)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (page);
  if (qk_shown (self))
    return attnscope_qk_panel_build_figure (self->qk_panel, page, view);
  if (!ready (self, attnscope_page_get_analysis (page)))
    return NULL;
  return build (self, view);
}

static void
attnscope_attribution_page_append_export_args (AttnscopePage *page, const ArViewSelection *view,
                                               GPtrArray *argv)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (page);
  if (qk_shown (self))
    {
      g_ptr_array_add (argv, g_strdup ("--qk"));
      g_ptr_array_add (argv, g_strdup ("--layer"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->layer));
      g_ptr_array_add (argv, g_strdup ("--head"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", view->head));
      const AsQk *qk = attnscope_qk_panel_get_qk (self->qk_panel);
      if (attnscope_qk_panel_get_before_rope (self->qk_panel) && qk != NULL
          && qk->q_before_rope != NULL)
        {
          g_ptr_array_add (argv, g_strdup ("--qk-rope"));
          g_ptr_array_add (argv, g_strdup ("before"));
        }
      return;
    }
  g_ptr_array_add (argv, g_strdup ("--attribution"));
  attnscope_page_append_kind_args (page, view, argv); /* translation: --target, --kind */
  const AsAttribution *at = self->attribution;
  if (at == NULL)
    return;
  if (self->token != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--target-id"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", at->target_id));
    }
  if (at->vs_id >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("--vs-id"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", at->vs_id));
    }
  if (self->position >= 0)
    {
      g_ptr_array_add (argv, g_strdup ("--position"));
      g_ptr_array_add (argv, g_strdup_printf ("%d", at->position));
    }
}

static ArBuiltFigure *
attnscope_attribution_page_get_figure (AttnscopePage *page)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (page);
  if (qk_shown (self))
    return attnscope_heatmap_view_get_figure (attnscope_qk_panel_get_heatmap (self->qk_panel));
  return attnscope_heatmap_view_get_figure (self->heatmap);
}

static char *
attnscope_attribution_page_dup_figure_name (AttnscopePage *page)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (page);
  const AsQk *qk = attnscope_qk_panel_get_qk (self->qk_panel);
  if (qk_shown (self))
    return qk != NULL
               ? g_strdup_printf ("qk-layer%d-head%d-token%d", qk->layer, qk->head, qk->query)
               : g_strdup ("qk");
  const AsAttribution *at = self->attribution;
  if (at == NULL)
    return g_strdup ("attribution");
  if (at->vs_id >= 0)
    return g_strdup_printf ("attribution-token%d-vs%d-position%d", at->target_id, at->vs_id,
                            at->position);
  return g_strdup_printf ("attribution-token%d-position%d", at->target_id, at->position);
}

/* The tooltip of cell (ROW, COL): the part and its number. */
static char *
describe_cell (int row, int col, gpointer data)
{
  AttnscopeAttributionPage *self = data;
  const AsAttribution *at = self->built;
  if (at == NULL || row >= at->n_layer || col > at->n_head)
    return NULL;
  g_autofree char *value
      = part_value (col < at->n_head ? at->heads[row * at->n_head + col] : at->mlps[row]);
  if (col == at->n_head)
    return g_strdup_printf (_ ("MLP %d: %s"), row, value);
  return g_strdup_printf (_ ("Head %d.%d: %s\nActivate to open it on the Attention page"), row, col,
                          value);
}

/* Opens head LAYER.HEAD on the Attention page: of KIND's attention for a translation model. */
static void
open_head (AttnscopeAttributionPage *self, int layer, int head, ArAttentionKind kind)
{
  AttnscopeViewState *view = attnscope_page_get_view (ATTNSCOPE_PAGE (self));
  if (self->built != NULL && self->built->cross_heads != NULL)
    attnscope_view_state_set_attention_kind (view, kind);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, layer);
  attnscope_view_state_set_head (view, head);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-page", "s", "attention");
}

static void
on_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col, AttnscopeAttributionPage *self)
{
  const AsAttribution *at = self->built;
  if (at != NULL && row < at->n_layer && col < at->n_head)
    open_head (self, row, col, AR_ATTENTION_SELF);
}

static void
on_cross_cell_activated (AttnscopeHeatmapView *heatmap, int row, int col,
                         AttnscopeAttributionPage *self)
{
  const AsAttribution *at = self->built;
  if (at != NULL && at->cross_heads != NULL && row < at->n_layer && col < at->n_head)
    open_head (self, row, col, AR_ATTENTION_CROSS);
}

/* The cross heatmap's tooltip: the cross head's part. */
static char *
describe_cross_cell (int row, int col, gpointer data)
{
  AttnscopeAttributionPage *self = data;
  const AsAttribution *at = self->built;
  if (at == NULL || at->cross_heads == NULL || row >= at->n_layer || col >= at->n_head)
    return NULL;
  g_autofree char *value = part_value (at->cross_heads[row * at->n_head + col]);
  return g_strdup_printf (_ ("Cross-attention head %d.%d: %s\nActivate to open it on the "
                             "Attention page (cross-attention)"),
                          row, col, value);
}

static void
on_part_activated (GtkListBox *list, GtkListBoxRow *row, AttnscopeAttributionPage *self)
{
  int head = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "head"));
  if (head >= 0)
    open_head (self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), "layer")), head,
               g_object_get_data (G_OBJECT (row), "cross") != NULL ? AR_ATTENTION_CROSS
                                                                   : AR_ATTENTION_SELF);
}

static char *
entry_word (GtkEntry *entry)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  return text[0] != '\0' ? g_strdup (text) : NULL;
}

static void
on_entry_activate (GtkEntry *entry, AttnscopeAttributionPage *self)
{
  g_autofree char *token = entry_word (self->token_entry);
  g_autofree char *vs = entry_word (self->vs_entry);
  attnscope_attribution_page_set_tokens (self, token, vs);
}

static void
on_position_changed (GtkSpinButton *spin, AttnscopeAttributionPage *self)
{
  if (!self->setting_spin)
    attnscope_attribution_page_set_position (self, gtk_spin_button_get_value_as_int (spin));
}

void
attnscope_attribution_page_set_tokens (AttnscopeAttributionPage *self, const char *token,
                                       const char *vs)
{
  g_return_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self));
  g_free (self->token);
  g_free (self->vs);
  self->token = token != NULL && token[0] != '\0' ? g_strdup (token) : NULL;
  self->vs = vs != NULL && vs[0] != '\0' ? g_strdup (vs) : NULL;
  gtk_editable_set_text (GTK_EDITABLE (self->token_entry), self->token ? self->token : "");
  gtk_editable_set_text (GTK_EDITABLE (self->vs_entry), self->vs ? self->vs : "");
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_attribution_page_show_qk (AttnscopeAttributionPage *self, gboolean qk)
{
  g_return_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self));
  gtk_toggle_button_set_active (qk ? self->qk_button : self->parts_button, TRUE);
}

AttnscopeQkPanel *
attnscope_attribution_page_get_qk_panel (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return self->qk_panel;
}

static void
on_rope_toggled (GtkToggleButton *button, AttnscopeAttributionPage *self)
{
  attnscope_qk_panel_set_before_rope (self->qk_panel, gtk_toggle_button_get_active (button));
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_qk_toggled (GtkToggleButton *button, AttnscopeAttributionPage *self)
{
  gboolean qk = gtk_toggle_button_get_active (button);
  gtk_stack_set_visible_child_name (self->stack, qk ? "qk" : "parts");
  gtk_widget_set_visible (self->parts_controls, !qk);
  if (!qk)
    gtk_widget_set_visible (GTK_WIDGET (self->rope_button), FALSE);
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self),
                                   qk ? GTK_WIDGET (attnscope_qk_panel_get_heatmap (self->qk_panel))
                                      : GTK_WIDGET (self->heatmap));
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

static void
on_qk_ready (AttnscopeQkPanel *panel, AttnscopeAttributionPage *self)
{
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

void
attnscope_attribution_page_set_position (AttnscopeAttributionPage *self, int position)
{
  g_return_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self));
  self->position = position;
  attnscope_attribution_page_update (ATTNSCOPE_PAGE (self));
}

AttnscopeHeatmapView *
attnscope_attribution_page_get_heatmap (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return self->heatmap;
}

AttnscopeHeatmapView *
attnscope_attribution_page_get_cross_heatmap (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return self->cross_heatmap;
}

GtkListBox *
attnscope_attribution_page_get_parts (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return self->parts;
}

const char *
attnscope_attribution_page_get_status (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return gtk_label_get_text (self->status);
}

const AsAttribution *
attnscope_attribution_page_get_attribution (AttnscopeAttributionPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_ATTRIBUTION_PAGE (self), NULL);
  return self->attribution;
}

static void
attnscope_attribution_page_dispose (GObject *object)
{
  AttnscopeAttributionPage *self = ATTNSCOPE_ATTRIBUTION_PAGE (object);
  cancel_job (self);
  G_OBJECT_CLASS (attnscope_attribution_page_parent_class)->dispose (object);
  g_clear_object (&self->result_analysis);
  g_clear_pointer (&self->attribution, as_attribution_free);
  g_clear_pointer (&self->failure, g_free);
  g_clear_pointer (&self->token_error, g_free);
  g_clear_pointer (&self->token, g_free);
  g_clear_pointer (&self->vs, g_free);
}

static void
attnscope_attribution_page_class_init (AttnscopeAttributionPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_attribution_page_dispose;
  page_class->update = attnscope_attribution_page_update;
  page_class->get_figure = attnscope_attribution_page_get_figure;
  page_class->dup_figure_name = attnscope_attribution_page_dup_figure_name;
  page_class->build_figure = attnscope_attribution_page_build_figure;
  page_class->append_export_args = attnscope_attribution_page_append_export_args;

  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_QK_PANEL);
  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-attribution-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, parts_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, qk_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, rope_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, parts_controls);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, qk_panel);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, token_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, vs_entry);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, position_spin);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, status);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, heatmap);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, cross_heatmap);
  gtk_widget_class_bind_template_child (widget_class, AttnscopeAttributionPage, parts);
}

static void
attnscope_attribution_page_init (AttnscopeAttributionPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->position = -1;
  self->key = (Key){ NULL, -1, -1, -1 };
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->heatmap));
  attnscope_heatmap_view_set_cell_describe (self->heatmap, describe_cell, self);
  g_signal_connect (self->heatmap, "cell-activated", G_CALLBACK (on_cell_activated), self);
  attnscope_heatmap_view_set_cell_describe (self->cross_heatmap, describe_cross_cell, self);
  g_signal_connect (self->cross_heatmap, "cell-activated", G_CALLBACK (on_cross_cell_activated),
                    self);
  g_signal_connect (self->parts, "row-activated", G_CALLBACK (on_part_activated), self);
  g_signal_connect (self->token_entry, "activate", G_CALLBACK (on_entry_activate), self);
  g_signal_connect (self->vs_entry, "activate", G_CALLBACK (on_entry_activate), self);
  g_signal_connect (self->position_spin, "value-changed", G_CALLBACK (on_position_changed), self);
  g_signal_connect (self->qk_button, "toggled", G_CALLBACK (on_qk_toggled), self);
  g_signal_connect (self->rope_button, "toggled", G_CALLBACK (on_rope_toggled), self);
  g_signal_connect (self->qk_panel, "ready", G_CALLBACK (on_qk_ready), self);
  set_status (self);
}
