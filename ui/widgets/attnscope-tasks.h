/* attnscope-tasks.h — the core's slow calls that make a session's inputs run in GTask threads so
 * the UI thread never blocks: loading a model, a forward pass over a text
 * (or a translation model's pass over a source and a target) and a translation (the analyses of a
 * trace are attnscope-analysis.h's). Each takes a GCancellable; results come back on the
 * caller's main context through _finish(). */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"
#include "attnscope-cross.h"
#include "attnscope-whatif.h"

G_BEGIN_DECLS

void attnscope_model_load_async (const char *spec, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
AsModel *attnscope_model_load_finish (GAsyncResult *result, GError **error);

/* How many tokens an input has: N_TOKENS in all (special tokens included), and for a pair each
 * text's own (without special tokens; -1 for a single text). -1 when it could not be tokenized. */
typedef struct
{
  int n_tokens, n_a, n_b;
} AttnscopeTokenCounts;

/* A forward pass over TEXT, or over the pair TEXT, PAIR when PAIR is not NULL (as_forward_pair;
 * an encoder's sentence pair), with logits for every position when the model has a masked-LM
 * head (as_predict_masked needs them). *COUNTS (may be NULL) receives the input's token counts:
 * on failure, so that callers can offer to truncate an input longer than the context; with
 * TRUNCATE, so that they can say how much was cut (the trace's own count otherwise). */
void attnscope_forward_text_async (AsModel *model, const char *text, const char *pair,
                                   gboolean truncate, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
AsTrace *attnscope_forward_text_finish (GAsyncResult *result, AttnscopeTokenCounts *counts,
                                        GError **error);

/* A forward pass over the token ids IDS (int32_t) exactly as given (as_forward): a greedy
 * continuation that appends ids, as Hugging Face's generate() does. Finish with
 * attnscope_forward_text_finish. */
void attnscope_forward_ids_async (AsModel *model, const GArray *ids, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);

/* As attnscope_forward_text_async and attnscope_forward_ids_async, with the heads WHATIF switches
 * off and its positions choice (attnscope-whatif.h; NULL: the model as it is). */
void attnscope_forward_text_whatif_async (AsModel *model, const char *text, const char *pair,
                                          gboolean truncate, AttnscopeWhatifState *whatif,
                                          GCancellable *cancellable, GAsyncReadyCallback callback,
                                          gpointer user_data);
void attnscope_forward_ids_whatif_async (AsModel *model, const GArray *ids,
                                         AttnscopeWhatifState *whatif, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);

/* A translation model's pass over SOURCE and TARGET (as_forward_translation_text), with the
 * cross-attention results computed in the same thread (attnscope-cross.h). Finish with
 * attnscope_forward_text_finish (*N_TOKENS: the decoder's tokens, -1 on failure), then
 * attnscope_forward_dup_cross for the results. */
void attnscope_forward_translation_async (AsModel *model, const char *source, const char *target,
                                          GCancellable *cancellable, GAsyncReadyCallback callback,
                                          gpointer user_data);
/* The cross-attention results of a successful translation pass (a new reference), else NULL. */
AttnscopeCross *attnscope_forward_dup_cross (GAsyncResult *result);

/* A pass's progress: the layers DONE of TOTAL, written by the pass's thread and read by the main
 * loop (g_atomic_int_get); both 0 until the first layer is done. Reference counted: the thread
 * keeps its own reference. */
typedef struct
{
  gint done, total;
} AttnscopeProgress;

AttnscopeProgress *attnscope_progress_new (void);
AttnscopeProgress *attnscope_progress_ref (AttnscopeProgress *progress);
void attnscope_progress_unref (AttnscopeProgress *progress);

/* Makes the forward passes started with CANCELLABLE (attnscope_forward_*_async) tell PROGRESS
 * layer by layer (the cancellable keeps a reference). */
void attnscope_progress_attach (AttnscopeProgress *progress, GCancellable *cancellable);

/* Translates TEXT with the model's generation settings (as_translate_text). Finish: the
 * translation's text (newly allocated), or NULL with ERROR. */
void attnscope_translate_text_async (AsModel *model, const char *text, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);
char *attnscope_translate_text_finish (GAsyncResult *result, GError **error);

G_END_DECLS
