/* attnscope-embeddings-sentences-panel.c — the embeddings page's sentence panel: text A's row
 * (the window's text), one editable row per further sentence with its failure and a remove
 * button, the Add and Load buttons, and the error line under the list. */
#include "attnscope-embeddings-page-private.h"

#include <glib/gi18n.h>

#include "attnscope-tooltips.h"

static void on_sentence_changed (GtkEditable *entry, AttnscopeEmbeddingsPage *self);
static void on_remove_clicked (GtkButton *button, AttnscopeEmbeddingsPage *self);

static GtkWidget *
sentence_number (guint number)
{
  g_autofree char *text = g_strdup_printf ("%u", number);
  GtkWidget *label = gtk_label_new (text);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_size_request (label, 18, -1);
  return label;
}

static GtkWidget *
text_a_row (AttnscopeEmbeddingsPage *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_box_append (GTK_BOX (box), sentence_number (1));
  AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
  GtkWidget *label = gtk_label_new (analysis != NULL ? attnscope_analysis_get_text (analysis) : "");
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 24);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_tooltip_text (label, _ ("Text A: the window's text (edit it above)"));
  attnscope_label_tooltip_full_text (GTK_LABEL (label));
  gtk_box_append (GTK_BOX (box), label);
  return box;
}

static GtkWidget *
sentence_row (AttnscopeEmbeddingsPage *self, guint index)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_margin_start (box, 6);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 3);
  gtk_widget_set_margin_bottom (box, 3);
  gtk_box_append (GTK_BOX (box), sentence_number (index + 2));
  GtkWidget *entry = gtk_entry_new ();
  gtk_widget_set_hexpand (entry, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (entry),
                         attnscope_sentences_get_text (self->sentences, index));
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _ ("A sentence"));
  /* The panel keeps its width whatever the sentences' lengths. */
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 12);
  gtk_editable_set_max_width_chars (GTK_EDITABLE (entry), 24);
  g_object_set_data (G_OBJECT (entry), "sentence", GUINT_TO_POINTER (index));
  g_signal_connect (entry, "changed", G_CALLBACK (on_sentence_changed), self);
  gtk_box_append (GTK_BOX (box), entry);
  GtkWidget *failed = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_widget_add_css_class (failed, "error");
  gtk_widget_set_visible (failed, FALSE);
  gtk_box_append (GTK_BOX (box), failed);
  GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _ ("Remove the sentence"));
  g_object_set_data (G_OBJECT (remove), "sentence", GUINT_TO_POINTER (index));
  g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_clicked), self);
  gtk_box_append (GTK_BOX (box), remove);
  return box;
}

/* The entry of row INDEX + 1 (INDEX: a further sentence), or NULL. */
static GtkEditable *
row_entry (AttnscopeEmbeddingsPage *self, guint index)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->sentence_list, (int) index + 1);
  if (row == NULL)
    return NULL;
  GtkWidget *box = gtk_list_box_row_get_child (row);
  GtkWidget *number = gtk_widget_get_first_child (box);
  return GTK_EDITABLE (gtk_widget_get_next_sibling (number));
}

/* Shows on row INDEX + 1 whether the model refused the sentence, with the message. */
static void
show_row_failure (AttnscopeEmbeddingsPage *self, guint index)
{
  GtkEditable *entry = row_entry (self, index);
  GtkWidget *failed = gtk_widget_get_next_sibling (GTK_WIDGET (entry));
  AttnscopeRun *run = attnscope_sentences_get_run (self->sentences, index);
  const char *message
      = attnscope_run_get_running (run) ? NULL : attnscope_run_get_error_message (run);
  gtk_widget_set_visible (failed, message != NULL);
  gtk_widget_set_tooltip_text (failed, message);
}

/* Rebuilds the rows when they no longer show the list (its length or a text changed from
 * outside: a file was loaded); an edit in a row never rebuilds it. */
void
attnscope_embeddings_page_sync_rows (AttnscopeEmbeddingsPage *self)
{
  guint n = attnscope_sentences_get_n (self->sentences);
  gboolean same = gtk_list_box_get_row_at_index (self->sentence_list, (int) n + 1) == NULL
                  && gtk_list_box_get_row_at_index (self->sentence_list, 0) != NULL;
  for (guint i = 0; i < n && same; i++)
    {
      GtkEditable *entry = row_entry (self, i);
      same = entry != NULL
             && g_strcmp0 (gtk_editable_get_text (entry),
                           attnscope_sentences_get_text (self->sentences, i))
                    == 0;
    }
  if (same)
    {
      /* Text A's row follows the window's text. */
      GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->sentence_list, 0);
      GtkWidget *box = gtk_list_box_row_get_child (row);
      GtkWidget *label = gtk_widget_get_next_sibling (gtk_widget_get_first_child (box));
      AttnscopeAnalysis *analysis = attnscope_page_get_analysis (ATTNSCOPE_PAGE (self));
      gtk_label_set_text (GTK_LABEL (label),
                          analysis != NULL ? attnscope_analysis_get_text (analysis) : "");
      for (guint i = 0; i < n; i++)
        show_row_failure (self, i);
      return;
    }
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sentence_list))) != NULL)
    gtk_list_box_remove (self->sentence_list, child);
  gtk_list_box_append (self->sentence_list, text_a_row (self));
  for (guint i = 0; i < n; i++)
    {
      gtk_list_box_append (self->sentence_list, sentence_row (self, i));
      show_row_failure (self, i);
    }
}

static void
on_sentence_changed (GtkEditable *entry, AttnscopeEmbeddingsPage *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (entry), "sentence"));
  if (index < attnscope_sentences_get_n (self->sentences))
    attnscope_sentences_set_text (self->sentences, index, gtk_editable_get_text (entry));
}

static void
on_remove_clicked (GtkButton *button, AttnscopeEmbeddingsPage *self)
{
  guint index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "sentence"));
  if (index < attnscope_sentences_get_n (self->sentences))
    attnscope_sentences_remove (self->sentences, index);
}

static void
on_add_clicked (GtkButton *button, AttnscopeEmbeddingsPage *self)
{
  guint index = attnscope_sentences_add (self->sentences, "");
  attnscope_embeddings_page_sync_rows (self);
  GtkEditable *entry = row_entry (self, index);
  if (entry != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (entry));
}

static void
show_sentence_error (AttnscopeEmbeddingsPage *self, const char *message)
{
  if (g_strcmp0 (self->sentence_error, message) != 0)
    {
      g_free (self->sentence_error);
      self->sentence_error = g_strdup (message);
    }
  gtk_label_set_text (self->sentence_error_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->sentence_error_label), message != NULL);
}

static void
on_file_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  AttnscopeEmbeddingsPage *self = user_data;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr (GError) error = NULL;
      if (file != NULL && !attnscope_sentences_load_file (self->sentences, file, &error))
        show_sentence_error (self, error->message);
    }
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
on_load_clicked (GtkButton *button, AttnscopeEmbeddingsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (
      _ ("Load Sentences"), GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
      GTK_FILE_CHOOSER_ACTION_OPEN, _ ("_Open"), NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_file_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* Reads the further sentences' state into other_traces / other_texts (kept as they were unless
 * every sentence is ready). Returns the state. */
AttnscopeSentencesState
attnscope_embeddings_page_read_sentences (AttnscopeEmbeddingsPage *self)
{
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  g_autofree char *message = NULL;
  AttnscopeSentencesState state
      = attnscope_sentences_get_state (self->sentences, traces, texts, &message);
  if (state == ATTNSCOPE_SENTENCES_READY)
    {
      g_ptr_array_set_size (self->other_traces, 0);
      g_ptr_array_set_size (self->other_texts, 0);
      for (guint i = 0; i < traces->len; i++)
        {
          g_ptr_array_add (self->other_traces, as_trace_ref (traces->pdata[i]));
          g_ptr_array_add (self->other_texts, g_strdup (texts->pdata[i]));
        }
    }
  show_sentence_error (self, message);
  return state;
}

void
attnscope_embeddings_page_init_sentence_panel (AttnscopeEmbeddingsPage *self)
{
  g_signal_connect (self->add_button, "clicked", G_CALLBACK (on_add_clicked), self);
  g_signal_connect (self->load_button, "clicked", G_CALLBACK (on_load_clicked), self);
}
