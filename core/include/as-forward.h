/* as-forward.h — one forward pass with full capture. */
#pragma once

#include <gio/gio.h>

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* How a trace keeps its self-attention (as-trace.h): the matrices, or what recomputes any entry
 * on demand (core/README.md, "Attention on demand"). Readers see no difference. */
typedef enum
{
  AS_ATTENTION_AUTO = 0,  /* the process's default (as_attention_set_process_default), else the
                           * matrices while they take at most as_attention_held_max() and fit the
                           * memory budget, else on demand; $ATTNSCOPE_ATTENTION=matrices|on-demand
                           * overrides both */
  AS_ATTENTION_MATRICES,  /* always the matrices */
  AS_ATTENTION_ON_DEMAND, /* always on demand */
} AsAttentionStorage;

/* The most bytes of attention matrices a trace holds before it computes attention on demand, by
 * default; as_attention_held_max() gives the one in force. */
#define AS_ATTENTION_HELD_MAX ((guint64) 1 << 30)

/* AS_ATTENTION_HELD_MAX, or the bytes $ATTNSCOPE_ATTENTION_HELD_MAX names (tests). */
guint64 as_attention_held_max (void);

/* An intervention in a forward pass (ablation, activation patching, a pass that starts at a
 * later layer from a clean pass's residual stream). Every array is laid out for the model's
 * (stack's) L layers, H heads, D = d_model, hd = head_dim and the pass's T tokens; NULL means
 * "not used". A head's "output" is its context (the attention-weighted values, [T][hd]) before
 * the output projection; an MLP's output is what the block adds to (or, post-LN, normalises
 * with) the residual stream. What replaces a chosen head or MLP: the values of another pass
 * (patching), else the means (mean ablation), else zeros (zero ablation). */
typedef struct
{
  const guint8 *heads;       /* [L][H] non-zero: that head's context is replaced */
  const float *head_values;  /* [L][H][T][hd] the replacements (another pass's AsTrace.ctx) */
  const float *head_means;   /* [L][H][hd] each head's mean context (mean ablation) */
  const guint8 *mlps;        /* [L] non-zero: that layer's MLP output is replaced */
  const float *mlp_values;   /* [L][T][D] the replacements (another pass's mlp_record) */
  const float *mlp_means;    /* [L][D] each MLP's mean output */
  const guint8 *resid;       /* [L][T] non-zero: the residual stream at layer l's input, position
                              * t, is replaced by resid_values' row (before hidden[l] is kept) */
  const float *resid_values; /* [L+1][T][D] another pass's AsTrace.hidden */
  float *mlp_record;         /* [L][T][D] filled with each layer's MLP output as computed (before
                              * any replacement), or NULL */
  int start_layer;           /* > 0: the pass starts at that layer from start_hidden: the
                              * layers before are taken as they are (hidden[0..start_layer]
                              * copied; their attention, contexts and attention outputs stay 0) */
  const float *start_hidden; /* [L+1][T][D] a pass's hidden states over the same ids, with the
                              * same options up to start_layer (prefix reuse) */
} AsIntervention;

/* Told after each layer of a pass that DONE of TOTAL layers are computed, on the thread that runs
 * the pass (an encoder–decoder counts its encoder's layers, then its decoder's). It may cancel
 * the pass's cancellable; it cannot change the result. */
typedef void (*AsForwardProgress) (int done, int total, gpointer user_data);

typedef struct
{
  gboolean all_logits;       /* logits for every position, not only the last */
  GCancellable *cancellable; /* checked between layers; may be NULL */
  gboolean capture_qkv;      /* keep every head's q, k and v in the trace (AsTrace.q/k/v), which
                              * takes 3·L·H·T·hd floats more; off: they are NULL */
  const int32_t *type_ids;   /* [n_ids] the token type (segment) of each id, as a tokenizer gives
                              * them for a pair of texts (0 for the first, 1 for the second); NULL:
                              * all 0. Each must be below the model's type_vocab_size, or 0/1 for a
                              * model without token types (then they only mark the segments). */
  const AsIntervention *intervention; /* NULL: the model as it is */
  gboolean no_positions; /* leave out the learned or sinusoidal position embeddings (GPT-2, BERT,
                          * Marian) or the rotation of q and k (RoPE families) */
  AsAttentionStorage attention; /* how the trace keeps attention; 0 = AS_ATTENTION_AUTO */
  AsForwardProgress progress;   /* NULL: not told */
  gpointer progress_data;       /* progress's user_data */
  gboolean logits_only; /* capture nothing but the logits (and hidden[L], which they are read
                         * from): no attention, contexts, attention outputs or other hidden
                         * states (NULL or zeros). The rotary decoders with the sequential
                         * residual only (others capture everything): what capturing costs is
                         * measured against it (tests/bench/bench-capture.c) */
} AsForwardOptions;

/* Makes AS_ATTENTION_AUTO mean STORAGE in this process (before any pass; the window and `export`
 * ask for the matrices, which their figures read). */
void as_attention_set_process_default (AsAttentionStorage storage);

/* Whether nothing forces how a trace keeps its attention under STORAGE: neither STORAGE, the
 * process's default nor $ATTNSCOPE_ATTENTION. Then a pass whose matrices would not fit the memory
 * budget keeps its attention on demand (as_forward), whatever their size. */
gboolean as_attention_choice_automatic (AsAttentionStorage storage);

/* Whether a trace of SHAPE keeps its attention on demand under STORAGE (AS_ATTENTION_AUTO: by
 * the size of its matrices, or $ATTNSCOPE_ATTENTION). */
gboolean as_attention_on_demand (AsAttentionStorage storage, const AsTraceShape *shape);

/* The shape of the trace a pass of MODEL over N_TOKENS makes with OPTIONS (may be NULL). */
AsTraceShape as_forward_trace_shape (const AsModel *model, int n_tokens,
                                     const AsForwardOptions *options);

/* Bytes a pass of MODEL over N_TOKENS needs: its trace plus the family's working memory; for an
 * encoder–decoder, a translation pass over a source and a target of N_TOKENS each (both traces
 * and the cross-attention). as_forward_max_tokens counts the same way. */
guint64 as_forward_bytes (const AsModel *model, int n_tokens, const AsForwardOptions *options);

/* The most tokens (at most the context length) whose pass fits in BUDGET bytes; 0 when not even
 * one token does. */
int as_forward_max_tokens (const AsModel *model, const AsForwardOptions *options, guint64 budget);

/* The memory a pass may use now: as_memory_budget() less the model's mapped weight files, which
 * must stay in memory (their pages count as reclaimable in MemAvailable). With
 * $ATTNSCOPE_MEMORY_LIMIT set, that limit less everything held (weights, other traces). */
guint64 as_forward_budget (const AsModel *model);

/* Runs MODEL on IDS[0..N_IDS-1] and returns the full trace. Fails on: no ids, an id or a token
 * type outside the model's range, more ids than the context length (message names both numbers,
 * for a pair both texts' lengths), a trace that would not fit in memory (message names both sizes
 * and how many tokens would fit), cancellation, and activations that overflow float32
 * (AS_ERROR_VALUE: the message names the layer, the first position and its token). OPTIONS may be
 * NULL. The trace keeps the type ids, where the pair's second text starts and the model's
 * special-token ids (as-trace.h). */
AsTrace *as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
                     GError **error);

/* logits [N_POSITIONS][V]: hidden state INDEX (0 ≤ INDEX ≤ L, HF's hidden_states numbering:
 * 0 = the embeddings) of TRACE — a trace MODEL made; a translation model's decoder trace — at
 * POSITIONS, read through the model's final norm and output head exactly as the pass reads the
 * last one (the logit lens; hidden[L] is already normalised: it goes through the head alone, and
 * its logits are a pass's with all_logits). Fails (AS_ERROR_INPUT) for a model without an output
 * head, or on memory. */
gboolean as_forward_read_out (AsModel *model, const AsTrace *trace, int index, const int *positions,
                              int n_positions, float *logits, GError **error);

/* The same for N cells at once: hidden state INDEXES[r] (0 ≤ INDEXES[r] < L: not yet through the
 * final norm) at POSITIONS[r] into row r of LOGITS [N][V]. Each block of rows repacks the output
 * head once, so one call for many cells is much faster than a call per hidden state. */
gboolean as_forward_read_out_cells (AsModel *model, const AsTrace *trace, const int *indexes,
                                    const int *positions, int n, float *logits, GError **error);

/* The rows a read-out computes at once for TRACE's vocabulary (64 … 1,024): a caller that reads
 * out more rows than this in one call holds this many rows of logits twice. */
int as_forward_read_out_block (const AsTrace *trace);

/* logits [N][V] of VECTORS [N][D] taken as already through the final norm (like hidden[L]; the
 * fitted lens's maps give such vectors), read through MODEL's output head alone — TRACE (one
 * MODEL made) tells the sizes and a translation's source. Fails as as_forward_read_out. */
gboolean as_forward_read_head (AsModel *model, const AsTrace *trace, const float *vectors, int n,
                               float *logits, GError **error);

/* What a ranked read-out gives for each of its N rows (the caller's arrays). */
typedef struct
{
  int k;                     /* the top asked: at most AS_FORWARD_RANK_MAX_K */
  int32_t target_id;         /* a token to follow, or -1 */
  int32_t *top_ids;          /* [N][k] best first (higher logit, then lower id) */
  float *top_logits;         /* [N][k] */
  float *top_probabilities;  /* [N][k] softmax over the vocabulary */
  int *n_top;                /* [N] min (k, V) */
  int *target_rank;          /* [N] tokens ranked before the target (with target_id ≥ 0) */
  float *target_probability; /* [N] */
} AsRankedRows;

#define AS_FORWARD_RANK_MAX_K 16

/* Whether as_forward_rank_cells can read TRACE's cells for a top K on this machine: the model's
 * head is one product (AsHeadProduct: every decoder family, Marian, T5; not a masked-LM head),
 * its weights float32 or BF16, AMX tiles usable, K ≤ AS_FORWARD_RANK_MAX_K. */
gboolean as_forward_can_rank (AsModel *model, const AsTrace *trace, int k);

/* The top K (and a target's rank) of N cells — hidden state INDEXES[r] (0 ≤ INDEXES[r] ≤ L; L is
 * read through the head alone) at POSITIONS[r] — read as as_forward_read_out_cells reads them,
 * but ranked while the head's product makes each unit of the vocabulary, in the cache: no row of
 * logits is written or read back, and the head is split once per 1,024 rows. The normaliser is
 * summed per unit and the units' sums joined in order (same result whatever the threads);
 * probabilities agree with the written logits' within a few units of float32. Cancellable
 * between blocks of rows. */
gboolean as_forward_rank_cells (AsModel *model, const AsTrace *trace, const int *indexes,
                                const int *positions, int n, const AsRankedRows *out,
                                GCancellable *cancellable, GError **error);

/* The same for VECTORS [N][D] taken as already through the final norm (like hidden[L]; the
 * fitted lens's maps give such vectors): the output head alone, as as_forward_read_head. */
gboolean as_forward_rank_vectors (AsModel *model, const AsTrace *trace, const float *vectors, int n,
                                  const AsRankedRows *out, GCancellable *cancellable,
                                  GError **error);

/* Tokenizes TEXT exactly as HF's tokenizer(text) (as_tokenizer_encode: the model's special
 * tokens added, e.g. a Llama <s>, BERT's [CLS] … [SEP]; nothing for GPT-2) and runs the forward
 * pass. Fails on empty text, invalid UTF-8, a model without a tokenizer (it runs on ids only), and
 * text longer than the context unless TRUNCATE (then the text keeps its first tokens and its
 * special tokens: as_truncate_input). as_forward, as_forward_text and as_forward_pair fail for an
 * encoder–decoder model, which needs a source and a target (as_forward_translation). */
AsTrace *as_forward_text (AsModel *model, const char *text, gboolean truncate,
                          const AsForwardOptions *options, GError **error);

/* As as_forward_text for the pair TEXT, PAIR (PAIR may be NULL: one text), tokenized as HF's
 * tokenizer(text, pair) with the token types the tokenizer gives (BERT: 0 for [CLS] A [SEP], 1
 * for B [SEP]); OPTIONS' type_ids are ignored. A pair longer than the context is refused naming
 * both texts' lengths; with TRUNCATE the longer text loses tokens first (as_truncate_input). */
AsTrace *as_forward_pair (AsModel *model, const char *text, const char *pair, gboolean truncate,
                          const AsForwardOptions *options, GError **error);

/* An encoder–decoder (translation) model on source ids SRC and decoder input ids TGT exactly as
 * given: the decoder's trace with the encoder's as its `source` and the cross-attention
 * (as-trace.h). Fails on a model that is not encoder–decoder, empty ids, an id outside the
 * vocabulary, more ids than the model's positions (naming both numbers), memory, cancellation,
 * and an intervention (ablation is not available for translation models). OPTIONS' no_positions
 * leaves out the position embeddings of the encoder and the decoder (Marian's sinusoids, BART's
 * learned table); T5 is refused (as_translation_positions_removable). */
AsTrace *as_forward_translation (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt,
                                 int n_tgt, const AsForwardOptions *options, GError **error);

/* Whether the translation model of config C has position embeddings to leave out: Marian and
 * BART do; T5's positions are its relative attention bias (fails, AS_ERROR_INPUT, saying so). */
gboolean as_translation_positions_removable (const AsConfig *c, GError **error);

/* The same on texts: SOURCE tokenized as the model's tokenizer does by default (Marian: pieces
 * and </s>), the decoder input = decoder_start_token_id followed by TARGET tokenized as target
 * text (Marian: target.spm pieces and </s>), the shape of a generated translation. Fails on an
 * empty text. */
AsTrace *as_forward_translation_text (AsModel *model, const char *source, const char *target,
                                      const AsForwardOptions *options, GError **error);

/* Hugging Face's longest-first rule for a pair (tokenizers' utils/truncation.rs, which
 * tokenizer(a, b, truncation=True) follows): texts of N_A and N_B tokens (special tokens not
 * counted) that may keep MAX_TOKENS together keep *KEEP_A and *KEEP_B tokens. With n1 ≤ n2 the
 * shorter and longer: nothing is cut when n1 + n2 ≤ MAX_TOKENS; else the longer keeps
 * max(n1, MAX_TOKENS − n1) when that fits, and otherwise the two keep MAX_TOKENS / 2 each, the
 * odd token going to the second text (B), the first text (A) counting as the shorter on a tie. */
void as_truncate_longest_first (int n_a, int n_b, int max_tokens, int *keep_a, int *keep_b);

/* Cuts the input IDS (int32_t, with TYPE_IDS of the same length or NULL) of MODEL to at most
 * MAX_TOKENS by dropping the last tokens of its text(s), keeping the special tokens ([CLS],
 * [SEP] and RoBERTa's <s>, </s>) where they are: a single text keeps its first tokens; a pair
 * (as_segment_b_start) is cut by as_truncate_longest_first. For a model without special tokens
 * that is simply the first MAX_TOKENS ids. Fails when MAX_TOKENS cannot even hold the special
 * tokens. */
gboolean as_truncate_input (const AsModel *model, GArray *ids, GArray *type_ids, int max_tokens,
                            GError **error);

/* Threads a forward pass uses (and t-SNE and the rollout by default): $ATTNSCOPE_THREADS when
 * set (≥ 1), else the number of processors. The number changes the speed, never a bit of a
 * result: work is shared out in blocks of a fixed size (tests/README.md, "Same bits for every
 * thread count"). */
int as_forward_threads (void);

G_END_DECLS
