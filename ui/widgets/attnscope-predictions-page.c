/* attnscope-predictions-page.c — the predictions view (see attnscope-predictions-page.h): next
 * tokens of a decoder, computed here from the trace's last logits; the masks of a masked-LM
 * encoder, computed by the analysis (as_predict_masked, off the UI thread). */
#include "attnscope-predictions-page.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>

#include "as-predict.h"
#include "attnscope-tooltips.h"
#include "render-text.h"
#include "token-label.h"

#define TOP_K 10
#define HEADING_CHARS 60

struct _AttnscopePredictionsPage
{
  AttnscopePage parent_instance;

  GtkStack *stack;
  AdwStatusPage *status_page;
  GtkLabel *heading;
  GtkButton *append_button;
  GtkListBox *list;
  GtkLabel *caption;

  AsPrediction *predictions; /* [n_predictions] next-token predictions (decoders) */
  int n_predictions;
  const AttnscopeMasked *masked; /* masked-LM encoders: the analysis' result, or NULL */
  AttnscopeAnalysis *shown;      /* the analysis whose predictions are listed (a reference) */
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
  self->masked = NULL;
}

static void
on_row_fill (GtkButton *button, AttnscopePredictionsPage *self)
{
  attnscope_predictions_page_fill (
      self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "mask")),
      GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "prediction")));
}

static void
on_row_append (GtkButton *button, AttnscopePredictionsPage *self)
{
  attnscope_predictions_page_append (
      self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "prediction")));
}

/* Prediction P's token as the token strip shows it ("Ġon" -> "␣on"). */
static char *
dup_label (AttnscopePredictionsPage *self, const AsPrediction *p)
{
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AsTokenizer *tokenizer = as_model_get_tokenizer (attnscope_session_get_model (session));
  const char *vocab = as_tokenizer_get_token (tokenizer, p->id);
  g_autofree char *text = as_tokenizer_dup_token_text (tokenizer, p->id);
  return ar_token_label (
      vocab != NULL ? vocab : p->token, text,
      attnscope_view_state_get_raw_tokens (attnscope_session_get_view (session)));
}

/* A row for prediction P of rank I + 1 with its bar and a button: for a next-token prediction
 * (MASK < 0) "Append", for a mask's prediction "Fill" MASK. The bar spans 0 to 100 % (a 0.9 %
 * prediction is a sliver, not a full bar), the number beside it. */
static GtkWidget *
make_row (AttnscopePredictionsPage *self, const AsPrediction *p, int i, int mask)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_add_css_class (box, "prediction-row");

  g_autofree char *rank = g_strdup_printf ("%d", i + 1);
  GtkWidget *rank_label = gtk_label_new (rank);
  gtk_label_set_width_chars (GTK_LABEL (rank_label), 2);
  gtk_widget_add_css_class (rank_label, "dim-label");
  gtk_widget_add_css_class (rank_label, "numeric");
  gtk_box_append (GTK_BOX (box), rank_label);

  g_autofree char *shown = dup_label (self, p);
  GtkWidget *token = gtk_label_new (shown);
  gtk_label_set_xalign (GTK_LABEL (token), 0);
  gtk_label_set_width_chars (GTK_LABEL (token), 14);
  gtk_label_set_max_width_chars (GTK_LABEL (token), 20);
  gtk_label_set_ellipsize (GTK_LABEL (token), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (token, "token-text");
  /* Translators: a prediction's tooltip: the token and its id */
  g_autofree char *tooltip = g_strdup_printf (_ ("%s · id %d"), shown, (int) p->id);
  gtk_widget_set_tooltip_text (token, tooltip);
  gtk_box_append (GTK_BOX (box), token);

  GtkWidget *bar = gtk_level_bar_new_for_interval (0, 1);
  gtk_level_bar_set_value (GTK_LEVEL_BAR (bar), CLAMP (p->probability, 0, 1));
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

  GtkWidget *button;
  if (mask < 0)
    {
      button = gtk_button_new_from_icon_name ("list-add-symbolic");
      gtk_widget_set_tooltip_text (button, _ ("Append this token to the text"));
      g_signal_connect (button, "clicked", G_CALLBACK (on_row_append), self);
    }
  else
    {
      button = gtk_button_new_with_label (_ ("Fill"));
      gtk_widget_set_tooltip_text (button, _ ("Put this token in place of the mask"));
      g_object_set_data (G_OBJECT (button), "mask", GINT_TO_POINTER (mask));
      g_signal_connect (button, "clicked", G_CALLBACK (on_row_fill), self);
    }
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (button), "prediction", GINT_TO_POINTER (i));
  gtk_box_append (GTK_BOX (box), button);
  return box;
}

/* The heading row of mask M: its token and position, and the tokens around it. */
static GtkWidget *
make_mask_heading (AttnscopePredictionsPage *self, const AsTrace *trace, int m)
{
  int position = self->masked->masks[m].position;
  GString *context = g_string_new (NULL);
  for (int i = MAX (position - 4, 0); i <= MIN (position + 4, trace->n_tokens - 1); i++)
    {
      g_autofree char *label = ar_token_label (trace->tokens[i], trace->token_texts[i], FALSE);
      g_autofree char *escaped = g_markup_escape_text (label, -1);
      g_string_append_printf (context, i == position ? "%s<b>%s</b>" : "%s%s",
                              context->len > 0 ? " " : "", escaped);
    }
  g_autofree char *escaped_token = g_markup_escape_text (trace->tokens[position], -1);
  g_autofree char *markup
      = g_strdup_printf (_ ("<b>%s</b> at token %d · %s"), escaped_token, position, context->str);
  g_string_free (context, TRUE);
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  attnscope_label_tooltip_full_text (GTK_LABEL (label));
  gtk_widget_add_css_class (label, "mask-heading");
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  GtkWidget *row = gtk_list_box_row_new ();
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  return row;
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

/* The mask token's string of MODEL ("[MASK]", "<mask>"), or NULL. */
static const char *
mask_token (AsModel *model)
{
  int32_t id = as_model_get_special_id (model, AS_SPECIAL_MASK);
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  return id >= 0 && tokenizer != NULL ? as_tokenizer_get_token (tokenizer, id) : NULL;
}

static void
show_status (AttnscopePredictionsPage *self, const char *title, const char *description)
{
  adw_status_page_set_title (self->status_page, title);
  adw_status_page_set_description (self->status_page, description);
  gtk_stack_set_visible_child_name (self->stack, "none");
}

/* A masked-LM encoder: the predictions at every mask of the text, computed by the analysis. */
static void
update_masked (AttnscopePredictionsPage *self, AttnscopeAnalysis *analysis, AsModel *model)
{
  const char *failure = NULL;
  const AttnscopeMasked *masked = attnscope_analysis_want_masked (analysis, model, TOP_K, &failure);
  attnscope_page_set_busy (ATTNSCOPE_PAGE (self), masked == NULL && failure == NULL);
  if (masked == NULL && failure == NULL)
    return; /* computing: the previous list stays until it lands */
  g_set_object (&self->shown, analysis);
  clear_predictions (self);
  GtkWidget *row;
  while ((row = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, row);
  const AsTrace *trace = attnscope_analysis_get_trace (analysis);
  const char *mask = mask_token (model);
  if (masked == NULL)
    {
      int32_t id = as_model_get_special_id (model, AS_SPECIAL_MASK);
      gboolean has_mask = FALSE;
      for (int i = 0; i < trace->n_tokens && id >= 0; i++)
        has_mask |= trace->ids[i] == id;
      if (mask != NULL && !has_mask)
        {
          g_autofree char *description = g_strdup_printf (
              _ ("Type %s where a word should be predicted, e.g. “The man went to the %s.”: "
                 "%s fills every %s of the text with its most likely tokens."),
              mask, mask, as_model_get_name (model), mask);
          show_status (self, _ ("No Mask in the Text"), description);
        }
      else
        show_status (self, _ ("No Predictions"), failure);
      return;
    }
  self->masked = masked;
  for (int m = 0; m < masked->n_masks; m++)
    {
      const AsMaskedPrediction *mp = &masked->masks[m];
      gtk_list_box_append (self->list, make_mask_heading (self, trace, m));
      for (int i = 0; i < mp->n_top; i++)
        gtk_list_box_append (self->list, make_row (self, &mp->top[i], i, m));
    }
  g_autofree char *shown = text_end (attnscope_analysis_get_shown_text (analysis));
  g_autofree char *heading
      = masked->n_masks == 1
            ? g_strdup_printf (_ ("What fills the mask of “%s”?"), shown)
            : g_strdup_printf (_ ("What fills the %d masks of “%s”?"), masked->n_masks, shown);
  gtk_label_set_text (self->heading, heading);
  gtk_widget_set_visible (GTK_WIDGET (self->append_button), FALSE);
  gtk_label_set_text (self->caption,
                      _ ("Each bar is how likely the model finds that token in place of the mask, "
                         "among all the tokens it knows. Fill puts a token in place of its mask "
                         "and runs the model again."));
  gtk_stack_set_visible_child_name (self->stack, "list");
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
  self->shown_raw = raw;
  if (trace != NULL && model != NULL && as_model_get_config (model)->masked_lm
      && trace->logits_rows == trace->n_tokens)
    {
      update_masked (self, analysis, model);
      return;
    }
  attnscope_page_set_busy (page, FALSE);
  g_set_object (&self->shown, analysis);
  clear_predictions (self);
  GtkWidget *row;
  while ((row = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, row);
  if (trace == NULL || model == NULL || trace->logits_rows == 0 || trace->vocab_size == 0
      || !as_model_get_config (model)->causal_lm)
    {
      gboolean encoder = model != NULL && mask_token (model) != NULL;
      show_status (self, _ ("No Predictions"),
                   encoder ? _ ("This encoder comes without the part that guesses hidden words "
                                "(its masked-LM head): it shows attention only and predicts no "
                                "tokens.")
                           : _ ("This model comes without the part that predicts the next word "
                                "(its language-model head): it shows attention only."));
      return;
    }
  self->predictions
      = as_predict_top_k (trace, as_model_get_tokenizer (model), TOP_K, &self->n_predictions);
  for (int i = 0; i < self->n_predictions; i++)
    gtk_list_box_append (self->list, make_row (self, &self->predictions[i], i, -1));
  g_autofree char *end = text_end (attnscope_analysis_get_text (analysis));
  g_autofree char *heading = g_strdup_printf (_ ("What comes after “%s”?"), end);
  gtk_label_set_text (self->heading, heading);
  g_autofree char *top = dup_label (self, &self->predictions[0]);
  g_autofree char *label = g_strdup_printf (_ ("Append “%s”"), top);
  gtk_button_set_label (self->append_button, label);
  gtk_widget_set_visible (GTK_WIDGET (self->append_button), TRUE);
  gtk_label_set_text (self->caption,
                      _ ("Each bar is how likely the model finds that token as the next one, from "
                         "0 to 100 %, among all the tokens it knows. Append adds the token to the "
                         "text "
                         "and runs the model again; appending the top token again and again writes "
                         "the model's most likely continuation, one token at a time."));
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
attnscope_predictions_page_get_bar (AttnscopePredictionsPage *self, int i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), -1);
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->list, i);
  if (row == NULL)
    return -1;
  for (GtkWidget *w = gtk_widget_get_first_child (gtk_list_box_row_get_child (row)); w != NULL;
       w = gtk_widget_get_next_sibling (w))
    if (GTK_IS_LEVEL_BAR (w))
      return gtk_level_bar_get_value (GTK_LEVEL_BAR (w));
  return -1;
}

int32_t
attnscope_predictions_page_get_id (AttnscopePredictionsPage *self, int i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), -1);
  g_return_val_if_fail (i >= 0 && i < self->n_predictions, -1);
  return self->predictions[i].id;
}

double
attnscope_predictions_page_get_probability (AttnscopePredictionsPage *self, int i)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), 0);
  g_return_val_if_fail (i >= 0 && i < self->n_predictions, 0);
  return self->predictions[i].probability;
}

int
attnscope_predictions_page_get_n_masks (AttnscopePredictionsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), 0);
  return self->masked != NULL ? self->masked->n_masks : 0;
}

const AsMaskedPrediction *
attnscope_predictions_page_get_mask (AttnscopePredictionsPage *self, int m)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), NULL);
  g_return_val_if_fail (self->masked != NULL && m >= 0 && m < self->masked->n_masks, NULL);
  return &self->masked->masks[m];
}

const char *
attnscope_predictions_page_get_message (AttnscopePredictionsPage *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self), NULL);
  if (!g_str_equal (gtk_stack_get_visible_child_name (self->stack), "none"))
    return NULL;
  return adw_status_page_get_description (self->status_page);
}

/* The byte offset of the N-th occurrence (from 0) of NEEDLE in HAYSTACK, or -1. */
static gssize
nth_occurrence (const char *haystack, const char *needle, int n)
{
  const char *at = haystack;
  for (int i = 0; (at = strstr (at, needle)) != NULL; i++, at += strlen (needle))
    if (i == n)
      return at - haystack;
  return -1;
}

/* TEXT with its OCCURRENCE-th MASK replaced by TOKEN (a leading space of TOKEN dropped where a
 * space or the text's start comes before it: RoBERTa's " cat" after "the "); NULL when TEXT has
 * no such mask. */
static char *
replace_mask (const char *text, const char *mask, int occurrence, const char *token)
{
  gssize at = nth_occurrence (text, mask, occurrence);
  if (at < 0)
    return NULL;
  if (token[0] == ' ' && (at == 0 || g_ascii_isspace (text[at - 1])))
    token++;
  return g_strdup_printf ("%.*s%s%s", (int) at, text, token, text + at + strlen (mask));
}

void
attnscope_predictions_page_fill (AttnscopePredictionsPage *self, int m, int i)
{
  g_return_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self));
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AttnscopeAnalysis *analysis = self->shown;
  if (session == NULL || analysis == NULL || self->masked == NULL || m < 0
      || m >= self->masked->n_masks || i < 0 || i >= self->masked->masks[m].n_top)
    return;
  /* The mask is the how-many-th of its text: the pair's second text starts at segment_b_start. */
  const AsTrace *trace = attnscope_analysis_get_trace (analysis);
  int position = self->masked->masks[m].position;
  int32_t mask_id = trace->ids[position];
  gboolean in_b = trace->segment_b_start >= 0 && position >= trace->segment_b_start;
  int occurrence = 0;
  for (int p = in_b ? trace->segment_b_start : 0; p < position; p++)
    occurrence += trace->ids[p] == mask_id;
  const char *mask = trace->tokens[position];
  const char *token = self->masked->masks[m].top[i].token;
  AttnscopeRun *run = attnscope_session_get_main (session);
  if (in_b)
    {
      g_autofree char *filled
          = replace_mask (attnscope_analysis_get_pair (analysis), mask, occurrence, token);
      if (filled != NULL)
        {
          attnscope_run_set_text (run, attnscope_analysis_get_text (analysis));
          attnscope_run_set_pair (run, filled);
        }
      return;
    }
  g_autofree char *filled
      = replace_mask (attnscope_analysis_get_text (analysis), mask, occurrence, token);
  if (filled != NULL)
    attnscope_run_set_text (run, filled);
}

void
attnscope_predictions_page_append (AttnscopePredictionsPage *self, int i)
{
  g_return_if_fail (ATTNSCOPE_IS_PREDICTIONS_PAGE (self));
  AttnscopeSession *session = attnscope_page_get_session (ATTNSCOPE_PAGE (self));
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  if (session == NULL || analysis == NULL || i < 0 || i >= self->n_predictions)
    return;
  /* The prediction continues the trace it was made from, by its id: the next pass runs on the
   * ids (the text of a token need not tokenize back to it). */
  attnscope_run_append_id (attnscope_session_get_main (session),
                           attnscope_analysis_get_trace (analysis), self->predictions[i].id);
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
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, status_page);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, caption);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, heading);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, append_button);
  gtk_widget_class_bind_template_child (widget_class, AttnscopePredictionsPage, list);
}

static void
attnscope_predictions_page_init (AttnscopePredictionsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  attnscope_page_set_focus_widget (ATTNSCOPE_PAGE (self), GTK_WIDGET (self->list));
  g_signal_connect (self->append_button, "clicked", G_CALLBACK (on_append_clicked), self);
}
