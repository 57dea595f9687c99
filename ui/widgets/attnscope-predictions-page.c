/* attnscope-predictions-page.c — the predictions view (see attnscope-predictions-page.h). */
#include "attnscope-predictions-page.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "as-predict.h"
#include "render-text.h"
#include "token-label.h"

#define TOP_K 10
#define HEADING_CHARS 60

struct _AttnscopePredictionsPage
{
  AttnscopePage parent_instance;

  GtkStack *stack;
  GtkLabel *heading;
  GtkButton *append_button;
  GtkListBox *list;

  AsPrediction *predictions; /* [n_predictions] */
  int n_predictions;
  AttnscopeAnalysis *shown; /* the analysis whose predictions are listed (a reference) */
  gboolean shown_raw;
};

G_DEFINE_FINAL_TYPE (AttnscopePredictionsPage, attnscope_predictions_page, ATTNSCOPE_TYPE_PAGE)

static void
clear_predictions (AttnscopePredictionsPage *self)
{
  if (self->predictions != NULL)
    as_predictions_free (self->predictions, self->n_predictions);
  self->predictions = NULL;
  self->n_predictions = 0;
}

static void
on_row_append (GtkButton *button, AttnscopePredictionsPage *self)
{
  attnscope_predictions_page_append (
      self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "prediction")));
}

/* Prediction I's token as the token strip shows it ("Ġon" -> "␣on"). */
static char *
dup_label (AttnscopePredictionsPage *self, int i)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AsTokenizer *tokenizer = as_model_get_tokenizer (attnscope_session_get_model (session));
  int32_t id = self->predictions[i].id;
  const char *vocab = as_tokenizer_get_token (tokenizer, id);
  g_autofree char *text = as_tokenizer_dup_token_text (tokenizer, id);
  return ar_token_label (
      vocab != NULL ? vocab : self->predictions[i].token, text,
      attnscope_view_state_get_raw_tokens (attnscope_session_get_view (session)));
}

static GtkWidget *
make_row (AttnscopePredictionsPage *self, int i, double top_probability)
{
  const AsPrediction *p = &self->predictions[i];
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (box, "prediction-row");

  g_autofree char *rank = g_strdup_printf ("%d", i + 1);
  GtkWidget *rank_label = gtk_label_new (rank);
  gtk_label_set_width_chars (GTK_LABEL (rank_label), 2);
  gtk_widget_add_css_class (rank_label, "dim-label");
  gtk_widget_add_css_class (rank_label, "numeric");
  gtk_box_append (GTK_BOX (box), rank_label);

  g_autofree char *shown = dup_label (self, i);
  GtkWidget *token = gtk_label_new (shown);
  gtk_label_set_xalign (GTK_LABEL (token), 0);
  gtk_label_set_width_chars (GTK_LABEL (token), 14);
  gtk_label_set_max_width_chars (GTK_LABEL (token), 20);
  gtk_label_set_ellipsize (GTK_LABEL (token), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (token, "token-text");
  g_autofree char *tooltip = g_strdup_printf (_ ("id %d"), (int) p->id);
  gtk_widget_set_tooltip_text (token, tooltip);
  gtk_box_append (GTK_BOX (box), token);

  GtkWidget *bar = gtk_level_bar_new_for_interval (0, 1);
  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar),
                           top_probability > 0 ? p->probability / top_probability : 0);
  gtk_widget_set_hexpand (bar, TRUE);
  gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_LOW);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_HIGH);
  gtk_level_bar_remove_offset_value (GTK_LEVEL_BAR (bar), GTK_LEVEL_BAR_OFFSET_FULL);
  gtk_box_append (GTK_BOX (box), bar);

  g_autofree char *number = ar_format_number (100.0 * p->probability, 1);
  g_autofree char *percent = g_strdup_printf ("%s %%", number);
  GtkWidget *probability = gtk_label_new (percent);
  gtk_label_set_width_chars (GTK_LABEL (probability), 7);
  gtk_label_set_xalign (GTK_LABEL (probability), 1);
  gtk_widget_add_css_class (probability, "numeric");
  gtk_box_append (GTK_BOX (box), probability);

  g_autofree char *logit_text = ar_format_number (p->logit, 2);
  g_autofree char *logit = g_strdup_printf (_ ("logit %s"), logit_text);
  GtkWidget *logit_label = gtk_label_new (logit);
  gtk_label_set_width_chars (GTK_LABEL (logit_label), 12);
  gtk_label_set_xalign (GTK_LABEL (logit_label), 1);
  gtk_widget_add_css_class (logit_label, "dim-label");
  gtk_widget_add_css_class (logit_label, "numeric");
  gtk_box_append (GTK_BOX (box), logit_label);

  GtkWidget *append = gtk_button_new_from_icon_name ("list-add-symbolic");
  gtk_widget_add_css_class (append, "flat");
  gtk_widget_set_valign (append, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (append, _ ("Append this token to the text"));
  g_object_set_data (G_OBJECT (append), "prediction", GINT_TO_POINTER (i));
  g_signal_connect (append, "clicked", G_CALLBACK (on_row_append), self);
  gtk_box_append (GTK_BOX (box), append);
  return box;
}

/* The end of TEXT the heading quotes: the last HEADING_CHARS characters after "…" when it is
 * longer (a paragraph in a wrapping label costs its layout on every resize). */
static char *
text_end (const char *text)
{
  glong n = g_utf8_strlen (text, -1);
  if (n <= HEADING_CHARS)
    return g_strdup (text);
  return g_strconcat ("…", g_utf8_offset_to_pointer (text, n - HEADING_CHARS), NULL);
}

static void
attnscope_predictions_page_update (AttnscopePage *page)
{
  AttnscopePredictionsPage *self = ATTNSCOPE_PREDICTIONS_PAGE (page);
  AttnscopeSession *session = attnscope_page_get_session (page);
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (page);
  AsTrace *trace = analysis != NULL ? attnscope_analysis_get_trace (analysis) : NULL;
  AsModel *model = session != NULL ? attnscope_session_get_model (session) : NULL;
  gboolean raw = session != NULL
                 && attnscope_view_state_get_raw_tokens (attnscope_session_get_view (session));
  /* The predictions belong to the trace: a new selection, layer or colour changes nothing. */
  if (analysis != NULL && analysis == self->shown && raw == self->shown_raw)
    return;
  g_set_object (&self->shown, analysis);
  self->shown_raw = raw;
  clear_predictions (self);
  GtkWidget *row;
  while ((row = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, row);
  if (trace == NULL || model == NULL || trace->logits_rows == 0 || trace->vocab_size == 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "none");
      return;
    }
  self->predictions
      = as_predict_top_k (trace, as_model_get_tokenizer (model), TOP_K, &self->n_predictions);
  for (int i = 0; i < self->n_predictions; i++)
    gtk_list_box_append (self->list, make_row (self, i, self->predictions[0].probability));
  g_autofree char *end = text_end (attnscope_analysis_get_text (analysis));
  g_autofree char *heading = g_strdup_printf (_ ("What comes after “%s”?"), end);
  gtk_label_set_text (self->heading, heading);
  g_autofree char *top = dup_label (self, 0);
  g_autofree char *label = g_strdup_printf (_ ("Append “%s”"), top);
  gtk_button_set_label (self->append_button, label);
  gtk_stack_set_visible_child_name (self->stack, "list");
}

int
attnscope_predictions_page_get_n_predictions (AttnscopePredictionsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), 0);
  return self->n_predictions;
}

const char *
attnscope_predictions_page_get_token (AttnscopePredictionsPage *self, int i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), NULL);
  g_return_val_if_fail (i >= 0 && i < self->n_predictions, NULL);
  return self->predictions[i].token;
}

double
attnscope_predictions_page_get_probability (AttnscopePredictionsPage *self, int i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), 0);
  g_return_val_if_fail (i >= 0 && i < self->n_predictions, 0);
  return self->predictions[i].probability;
}

void
attnscope_predictions_page_append (AttnscopePredictionsPage *self, int i)
{
  g_return_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self));
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (session == NULL || analysis == NULL || i < 0 || i >= self->n_predictions)
    return;
  /* The prediction continues the text of the trace it was made from. */
  const char *text = attnscope_analysis_get_text (analysis);
  g_autofree char *appended
      = g_strconcat (text != NULL ? text : "", self->predictions[i].token, NULL);
  attnscope_run_set_text (attnscope_session_get_main (session), appended);
}

static void
on_append_clicked (GtkButton *button, AttnscopePredictionsPage *self)
{
  attnscope_predictions_page_append (self, 0);
}

static void
attnscope_predictions_page_dispose (GObject *object)
{
  g_clear_object (&ATTNSCOPE_PREDICTIONS_PAGE (object)->shown);
  G_OBJECT_CLASS (attnscope_predictions_page_parent_class)->dispose (object);
}

static void
attnscope_predictions_page_finalize (GObject *object)
{
  clear_predictions (ATTNSCOPE_PREDICTIONS_PAGE (object));
  G_OBJECT_CLASS (attnscope_predictions_page_parent_class)->finalize (object);
}

static void
attnscope_predictions_page_class_init (AttnscopePredictionsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  AttnscopePageClass *page_class = ATTNSCOPE_PAGE_CLASS (klass);

  object_class->dispose = attnscope_predictions_page_dispose;
  object_class->finalize = attnscope_predictions_page_finalize;
  page_class->update = attnscope_predictions_page_update;

  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/attnscope/Attnscope/attnscope-predictions-page.ui");
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, heading);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, append_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, list);
}

static void
attnscope_predictions_page_init (AttnscopePredictionsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->append_button, "clicked", G_CALLBACK (on_append_clicked), self);
}
