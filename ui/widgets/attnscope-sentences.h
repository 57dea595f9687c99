/* attnscope-sentences.h — the embeddings page's further sentences: a list of texts, each with its
 * own run slot (attnscope-run.h), so every sentence runs through the model in a GTask thread and
 * the UI thread never waits. The window's text A is not in the list: the page puts it first.
 *
 * "changed" is emitted when the list, a text, a trace, a run's state or an error changes. A
 * sentence is ready when its newest pass landed (its trace is of its current text); a sentence
 * the model refuses (longer than the context, say) keeps its error message and its last trace,
 * and the page keeps showing its previous figure. Empty sentences are ignored. */
#pragma once

#include <gio/gio.h>

#include "attnscope-run.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SENTENCES (attnscope_sentences_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeSentences, attnscope_sentences, ATTNSCOPE, SENTENCES, GObject)

AttnscopeSentences *attnscope_sentences_new (void);

/* The model every sentence runs through (NULL: none yet). */
void attnscope_sentences_set_model (AttnscopeSentences *self, AsModel *model);

guint attnscope_sentences_get_n (AttnscopeSentences *self);
const char *attnscope_sentences_get_text (AttnscopeSentences *self, guint index);
AttnscopeRun *attnscope_sentences_get_run (AttnscopeSentences *self, guint index);

/* Appends TEXT (may be ""); returns its index. */
guint attnscope_sentences_add (AttnscopeSentences *self, const char *text);
void attnscope_sentences_set_text (AttnscopeSentences *self, guint index, const char *text);
void attnscope_sentences_remove (AttnscopeSentences *self, guint index);
/* Replaces the list by TEXTS (NULL-terminated). */
void attnscope_sentences_set_all (AttnscopeSentences *self, const char *const *texts);

/* Reads FILE: one sentence per non-blank line (surrounding white space removed), UTF-8 text of
 * at most 1 MiB without NUL bytes; replaces the list. Fails naming the file and the problem,
 * and then leaves the list as it was. Small files only: called on the UI thread. */
gboolean attnscope_sentences_load_file (AttnscopeSentences *self, GFile *file, GError **error);

/* The state of the non-empty sentences, in order:
 *   ATTNSCOPE_SENTENCES_READY    every one has the trace of its text (TRACES [n], borrowed, and
 *                                TEXTS [n], borrowed, as GPtrArrays without free functions);
 *   ATTNSCOPE_SENTENCES_RUNNING  a pass is in flight, or the model is not there yet;
 *   ATTNSCOPE_SENTENCES_FAILED   a sentence failed: *ERROR_MESSAGE (newly allocated) names it
 *                                ("Sentence 3 “Last night…”: ...", numbered as on the page,
 *                                where text A is sentence 1). */
typedef enum
{
  ATTNSCOPE_SENTENCES_READY,
  ATTNSCOPE_SENTENCES_RUNNING,
  ATTNSCOPE_SENTENCES_FAILED,
} AttnscopeSentencesState;

AttnscopeSentencesState attnscope_sentences_get_state (AttnscopeSentences *self, GPtrArray *traces,
                                                       GPtrArray *texts, char **error_message);

G_END_DECLS
