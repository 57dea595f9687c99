/* attnscope-sentences.c — the embeddings page's further sentences and their run slots (see
 * attnscope-sentences.h). */
#include "attnscope-sentences.h"

#include <glib/gi18n.h>
#include <string.h>

#include "as-error.h"
#include "projection-figure.h"
#include "view-selection.h"

#define MAX_FILE_BYTES (1 << 20)

struct _AttnscopeSentences
{
  GObject parent_instance;

  AsModel *model;
  GPtrArray *runs; /* AttnscopeRun, owned */
};

G_DEFINE_FINAL_TYPE (AttnscopeSentences, attnscope_sentences, G_TYPE_OBJECT)

enum
{
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
emit_changed (AttnscopeSentences *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
on_run_notify (AttnscopeRun *run, GParamSpec *pspec, AttnscopeSentences *self)
{
  emit_changed (self);
}

static AttnscopeRun *
run_new (AttnscopeSentences *self, const char *text)
{
  AttnscopeRun *run = attnscope_run_new ();
  g_signal_connect_object (run, "notify", G_CALLBACK (on_run_notify), self, 0);
  attnscope_run_set_model (run, self->model);
  attnscope_run_set_text (run, text);
  return run;
}

static void
run_free (gpointer run)
{
  g_signal_handlers_disconnect_matched (run, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, on_run_notify, NULL);
  g_object_unref (run);
}

void
attnscope_sentences_set_model (AttnscopeSentences *self, AsModel *model)
{
  g_return_if_fail (ATTNSCOPE_IS_SENTENCES (self));
  if (self->model == model)
    return;
  g_clear_pointer (&self->model, as_model_unref);
  self->model = model != NULL ? as_model_ref (model) : NULL;
  for (guint i = 0; i < self->runs->len; i++)
    attnscope_run_set_model (self->runs->pdata[i], model);
  emit_changed (self);
}

guint
attnscope_sentences_get_n (AttnscopeSentences *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SENTENCES (self), 0);
  return self->runs->len;
}

AttnscopeRun *
attnscope_sentences_get_run (AttnscopeSentences *self, guint index)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SENTENCES (self), NULL);
  g_return_val_if_fail (index < self->runs->len, NULL);
  return self->runs->pdata[index];
}

const char *
attnscope_sentences_get_text (AttnscopeSentences *self, guint index)
{
  AttnscopeRun *run = attnscope_sentences_get_run (self, index);
  return run != NULL && attnscope_run_get_text (run) != NULL ? attnscope_run_get_text (run) : "";
}

guint
attnscope_sentences_add (AttnscopeSentences *self, const char *text)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SENTENCES (self), 0);
  g_ptr_array_add (self->runs, run_new (self, text));
  emit_changed (self);
  return self->runs->len - 1;
}

void
attnscope_sentences_set_text (AttnscopeSentences *self, guint index, const char *text)
{
  g_return_if_fail (ATTNSCOPE_IS_SENTENCES (self));
  g_return_if_fail (index < self->runs->len);
  attnscope_run_set_text (self->runs->pdata[index], text);
}

void
attnscope_sentences_remove (AttnscopeSentences *self, guint index)
{
  g_return_if_fail (ATTNSCOPE_IS_SENTENCES (self));
  g_return_if_fail (index < self->runs->len);
  g_ptr_array_remove_index (self->runs, index);
  emit_changed (self);
}

void
attnscope_sentences_set_all (AttnscopeSentences *self, const char *const *texts)
{
  g_return_if_fail (ATTNSCOPE_IS_SENTENCES (self));
  g_ptr_array_set_size (self->runs, 0);
  for (int i = 0; texts != NULL && texts[i] != NULL; i++)
    g_ptr_array_add (self->runs, run_new (self, texts[i]));
  emit_changed (self);
}

gboolean
attnscope_sentences_load_file (AttnscopeSentences *self, GFile *file, GError **error)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SENTENCES (self), FALSE);
  g_autofree char *name = g_file_get_parse_name (file);
  g_autoptr (GFileInfo) info
      = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                           G_FILE_QUERY_INFO_NONE, NULL, error);
  if (info == NULL)
    return FALSE;
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, _ ("%s is not a regular file"), name);
      return FALSE;
    }
  if (g_file_info_get_size (info) > MAX_FILE_BYTES)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   _ ("%s is too large for a list of sentences (%.1f MiB; at most 1 MiB)"), name,
                   g_file_info_get_size (info) / 1048576.0);
      return FALSE;
    }
  g_autofree char *data = NULL;
  gsize length = 0;
  if (!g_file_load_contents (file, NULL, &data, &length, NULL, error))
    return FALSE;
  if (length > MAX_FILE_BYTES || memchr (data, '\0', length) != NULL
      || !g_utf8_validate_len (data, length, NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   _ ("%s is not a text file (one sentence per line, UTF-8)"), name);
      return FALSE;
    }
  g_auto (GStrv) lines = g_strsplit (data, "\n", -1);
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  for (int i = 0; lines[i] != NULL; i++)
    if (*g_strstrip (lines[i]) != '\0')
      g_ptr_array_add (texts, lines[i]);
  if (texts->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, _ ("%s holds no sentence"), name);
      return FALSE;
    }
  g_ptr_array_add (texts, NULL);
  attnscope_sentences_set_all (self, (const char *const *) texts->pdata);
  return TRUE;
}

AttnscopeSentencesState
attnscope_sentences_get_state (AttnscopeSentences *self, GPtrArray *traces, GPtrArray *texts,
                               char **error_message)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SENTENCES (self), ATTNSCOPE_SENTENCES_RUNNING);
  gboolean running = FALSE;
  if (self->model == NULL)
    return self->runs->len > 0 ? ATTNSCOPE_SENTENCES_RUNNING : ATTNSCOPE_SENTENCES_READY;
  for (guint i = 0; i < self->runs->len; i++)
    {
      AttnscopeRun *run = self->runs->pdata[i];
      const char *text = attnscope_run_get_text (run);
      if (text == NULL || *text == '\0')
        continue;
      if (attnscope_run_get_running (run))
        {
          running = TRUE;
          continue;
        }
      const char *message = attnscope_run_get_error_message (run);
      if (message != NULL || attnscope_run_get_trace (run) == NULL)
        {
          g_autofree char *beginning = ar_text_beginning (text, 32);
          g_autofree char *quoted = ar_quote_text (beginning);
          /* too long: the window's words (the core's message names --truncate) */
          g_autofree char *too_long
              = attnscope_run_get_too_long (run)
                    ? g_strdup_printf (_ ("This text has %d tokens; %s reads at most %d."),
                                       attnscope_run_get_n_text_tokens (run),
                                       as_model_get_name (self->model),
                                       as_model_get_config (self->model)->n_positions)
                    : NULL;
          /* Translators: "Sentence 3 “Last night I…”: This text has 1100 tokens; ...". */
          *error_message = g_strdup_printf (_ ("Sentence %u %s: %s"), i + 2, quoted,
                                            too_long != NULL  ? too_long
                                            : message != NULL ? message
                                                              : _ ("no result"));
          return ATTNSCOPE_SENTENCES_FAILED;
        }
      g_ptr_array_add (traces, attnscope_run_get_trace (run));
      g_ptr_array_add (texts, (gpointer) attnscope_run_get_trace_text (run));
    }
  return running ? ATTNSCOPE_SENTENCES_RUNNING : ATTNSCOPE_SENTENCES_READY;
}

static void
attnscope_sentences_dispose (GObject *object)
{
  AttnscopeSentences *self = ATTNSCOPE_SENTENCES (object);
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_pointer (&self->model, as_model_unref);
  G_OBJECT_CLASS (attnscope_sentences_parent_class)->dispose (object);
}

static void
attnscope_sentences_class_init (AttnscopeSentencesClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = attnscope_sentences_dispose;
  /* The list, a text, a trace, a run's state or an error changed. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL, NULL, G_TYPE_NONE, 0);
}

static void
attnscope_sentences_init (AttnscopeSentences *self)
{
  self->runs = g_ptr_array_new_with_free_func (run_free);
}

AttnscopeSentences *
attnscope_sentences_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_SENTENCES, NULL);
}
