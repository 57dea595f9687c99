/* attnscope-run.h — one text and the model run over it: a run slot. The window has two, the main
 * text and the comparison text.
 *
 * Setting the text (or the model, or the truncate flag) starts a forward pass in a GTask thread;
 * a newer one cancels the pass in flight and only the newest lands. While one is in flight
 * "running" is TRUE. A pass that fails leaves the last good trace in place and sets
 * "error-message" (the core's text). The text's tokens are counted when it is set ("n-text-tokens",
 * before its pass), so a count and "too-long" — a text with more tokens than the context, which
 * then runs nothing — change with the text itself. An empty text runs nothing and drops the trace:
 * a window shows its empty state, not the figures of a text no longer there.
 *
 * A translation (encoder–decoder) model runs on the text as its source and "target" as the
 * decoder's text (as_forward_translation_text); an empty target runs nothing, keeps the last
 * trace and says what is missing in "error-message". attnscope_run_translate() fills the
 * target with the model's translation of the text, in a GTask ("translating" while it runs); a new
 * text or target set meanwhile cancels it. */
#pragma once

#include <gio/gio.h>

#include "attnscope-cross.h"
#include "attnscope-types.h"
#include "attnscope-whatif.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_RUN (attnscope_run_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeRun, attnscope_run, ATTNSCOPE, RUN, GObject)

AttnscopeRun *attnscope_run_new (void);

const char *attnscope_run_get_text (AttnscopeRun *self);
/* Sets the text, tokenized for the passes (a text of ids from attnscope_run_append_id no longer
 * is one). */
void attnscope_run_set_text (AttnscopeRun *self, const char *text);
/* Continues the text of the trace FROM by the token ID, as a greedy loop does: the passes run on
 * FROM's ids and ID (never tokenizing the text again, which would turn a byte token or any token
 * whose text does not re-tokenize to itself into other tokens), and the text is those ids
 * decoded as Hugging Face decodes them (without the special tokens before the text). FALSE, doing
 * nothing, for a model without a tokenizer or a translation model. */
gboolean attnscope_run_append_id (AttnscopeRun *self, const AsTrace *from, int32_t id);
/* The ids the passes run on after attnscope_run_append_id (int32_t), or NULL while the text is
 * tokenized. Borrowed. */
const GArray *attnscope_run_get_ids (AttnscopeRun *self);
/* "pair": the second text of a sentence pair (NULL or "": none). For a model that takes pairs
 * (an encoder, as-sentence-pairs.h) the passes run on the pair (as_forward_pair: [CLS] TEXT [SEP]
 * PAIR [SEP], token types 0 and 1); other models ignore it. Setting it runs again. */
void attnscope_run_set_pair (AttnscopeRun *self, const char *pair);
const char *attnscope_run_get_pair (AttnscopeRun *self);
/* The pair the passes use: the pair when the model takes pairs, else NULL. */
const char *attnscope_run_get_pair_in_use (AttnscopeRun *self);
/* The interventions of the passes (attnscope-whatif.h: heads switched off, positions left
 * out; NULL: none). A change runs the text again and keeps the trace until the new one lands;
 * a translation model's passes do not take them. */
void attnscope_run_set_whatif (AttnscopeRun *self, AttnscopeWhatifState *whatif);
/* The model the passes use; a change drops the trace and runs again. */
void attnscope_run_set_model (AttnscopeRun *self, AsModel *model);
/* "truncate": keep the first tokens of this text when it is longer than the context. It belongs
 * to the text that needed it: a pass over a text that fits turns it off again. */
void attnscope_run_set_truncate (AttnscopeRun *self, gboolean truncate);
gboolean attnscope_run_get_truncate (AttnscopeRun *self);
/* The number of tokens of the whole text at the last pass (-1: unknown), and whether the trace
 * holds fewer (it was truncated). */
int attnscope_run_get_n_text_tokens (AttnscopeRun *self);
gboolean attnscope_run_get_truncated (AttnscopeRun *self);
/* For a pair that did not fit (or was truncated): each text's own tokens, without the special
 * tokens, at the last pass; -1 when unknown (a single text, or a pass that fitted). */
void attnscope_run_get_pair_tokens (AttnscopeRun *self, int *n_a, int *n_b);

/* A translation model's target text ("target"), and the target the trace came from. */
const char *attnscope_run_get_target (AttnscopeRun *self);
void attnscope_run_set_target (AttnscopeRun *self, const char *target);
const char *attnscope_run_get_trace_target (AttnscopeRun *self);
/* The trace's cross-attention results (translation models), or NULL. Borrowed. */
AttnscopeCross *attnscope_run_get_cross (AttnscopeRun *self);
/* Translates the text off the UI thread and makes the translation the target; a failure sets
 * "error-message". Nothing for a model that is not encoder–decoder. */
void attnscope_run_translate (AttnscopeRun *self);
gboolean attnscope_run_get_translating (AttnscopeRun *self);

AsTrace *attnscope_run_get_trace (AttnscopeRun *self);
/* The text the trace was computed from (it may differ from the text while a run is in flight),
 * and the pair's second text (NULL for a single text). */
const char *attnscope_run_get_trace_text (AttnscopeRun *self);
const char *attnscope_run_get_trace_pair (AttnscopeRun *self);
gboolean attnscope_run_get_running (AttnscopeRun *self);
/* The running pass's progress once it has run for half a second: *DONE layers of *TOTAL (an
 * encoder–decoder counts both stacks); FALSE (and 0 of 0) when none is shown. "progress" is
 * DONE / TOTAL, or -1. */
gboolean attnscope_run_get_progress (AttnscopeRun *self, int *done, int *total);
/* Stops the running pass; the trace stays the previous pass's. */
void attnscope_run_cancel (AttnscopeRun *self);
const char *attnscope_run_get_error_message (AttnscopeRun *self);
gboolean attnscope_run_get_too_long (AttnscopeRun *self);

G_END_DECLS
