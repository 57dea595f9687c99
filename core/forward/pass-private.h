/* pass-private.h — the one forward driver: runs a family's stack of layers (model/stack-private.h)
 * into a trace, and checks that what it computes stays finite.
 *
 * as_forward() and as_forward_translation() validate the ids and the memory, then call
 * as_pass_run() for each stack; a family's own entry points (the toy layer on weights in memory,
 * an encoder–decoder's step decoder running its encoder once) call it the same way. Private to
 * the core. */
#pragma once

#include "stack-private.h"

G_BEGIN_DECLS

/* The shape of the trace STACK fills for N_TOKENS tokens with OPTIONS (may be NULL), and in
 * *CAUSAL (may be NULL) whether its attention is causal. */
AsTraceShape as_pass_trace_shape (const AsStack *stack, const AsConfig *config, int n_tokens,
                                  const AsForwardOptions *options, gboolean *causal);

/* Bytes a pass of STACK over N_TOKENS tokens (attending to N_SOURCE encoder tokens, 0 without)
 * needs: its trace, the residual stream and the stack's working memory. */
guint64 as_pass_bytes (const AsStack *stack, const AsConfig *config, int n_tokens, int n_source,
                       const AsForwardOptions *options);

/* Runs STACK of a model with CONFIG and WEIGHTS over IDS [N_TOKENS] (valid: every id in the
 * vocabulary, N_TOKENS within the positions) and returns its trace, tokens named by TOKENIZER
 * (may be NULL). SOURCE is the encoder's trace for a decoder stack (taken as the trace's
 * `source`, a reference added), else NULL. Fails on memory, cancellation (OPTIONS' cancellable,
 * checked before each layer) and a value that is not finite: the message names the stack's
 * layer (or the embeddings, the final norm, the logits), the first position and its token. */
AsTrace *as_pass_run (const AsStack *stack, const AsConfig *config, gconstpointer weights,
                      const AsTokenizer *tokenizer, const int32_t *ids, int n_tokens,
                      AsTrace *source, const AsForwardOptions *options, GError **error);

/* The index of the first NaN or infinity in x [N], or -1 when every value is finite. One
 * vectorised pass over the bits (a value is not finite when its exponent bits are all ones). */
gssize as_find_non_finite (const float *x, gsize n);

/* Fails with AS_ERROR_VALUE when x [ROWS][D] holds a NaN or an infinity: "WHAT produced a
 * non-finite value (+Inf) at ROW_NOUN R (token 'TEXT'): ..." where R = ROW0 + the first such
 * row and TEXT is TOKENS[R] when TOKENS is not NULL. */
gboolean as_check_finite (const float *x, int rows, int d, int row0, const char *what,
                          const char *row_noun, char *const *tokens, GError **error);

/* Whether OPTIONS (may be NULL) leave how the trace keeps its attention to the automatic choice
 * (as_attention_choice_automatic), which as_forward and as_forward_translation then make by the
 * memory budget too. */
/* The bytes of a translation pass of MODEL over N_SRC source and N_TGT target tokens: both
 * traces, the cross-attention and the scratch (forward-translation.c). */
guint64 as_forward_translation_bytes (const AsModel *model, int n_src, int n_tgt,
                                      const AsForwardOptions *options);

gboolean as_forward_options_automatic (const AsForwardOptions *options);

/* OPTIONS (may be NULL) with the attention kept on demand. */
AsForwardOptions as_forward_options_on_demand (const AsForwardOptions *options);

G_END_DECLS
