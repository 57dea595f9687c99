/* as-trace.h — the result of one forward pass, with everything captured (core/README.md,
 * "Data flow").
 *
 * Immutable once returned, reference counted. Fields are public for reading; analysis code and
 * views index them with the helpers below. L layers, H (query) heads, T tokens, D model width,
 * hd head width, V vocabulary. With grouped-query attention (Llama family) there are K ≤ H
 * key/value heads: every per-head array still has one entry per query head (each query head's
 * own softmax), and as_trace_kv_head() says which key/value head a query head shares.
 *
 * An encoder–decoder (translation) model gives one trace for each stack: the returned trace is
 * the decoder's (causal, over the target tokens, with the logits), and its `source` is a
 * complete trace of the encoder over the source tokens (bidirectional, no logits); `cross_attn`
 * holds the decoder's attention to the encoder's output, queries = target tokens, keys = source
 * tokens. Both are NULL for decoder-only and encoder-only models, so code that reads a trace
 * keeps working on the decoder and views pick the encoder or the cross-attention explicitly. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-config.h"
#include "as-tokenizer.h"

G_BEGIN_DECLS

typedef struct _AsTrace AsTrace;

/* How a layer's self-attention turned scores into weights: what as_trace_attention_tile() needs
 * to recompute any entry from the layer's queries and keys. */
typedef struct
{
  gboolean causal; /* query i sees keys up to i */
  int window;      /* causal only: query i sees keys i−W+1 .. i; 0: every key up to i */
  float scale;     /* the scores' factor (1/√hd for most families) */
  float softcap;   /* > 0: scores capped as cap·tanh(s·scale/cap) first (Gemma 2); 0: none */
  const float *bias_relative; /* NULL, or [H][2T−1] added to q·k·scale first, entry (i, j) of
                               * head h at [h][j − i + T − 1] (T5's relative position bias: the
                               * layer's block of the trace's position_bias_relative, which it
                               * outlives not) */
} AsAttentionRecipe;

struct _AsTrace
{
  int n_layer;    /* L */
  int n_head;     /* H query heads */
  int n_kv_head;  /* K key/value heads (K divides H; K = H without grouped-query attention) */
  int n_tokens;   /* T */
  int d_model;    /* D */
  int head_dim;   /* hd */
  int vocab_size; /* V */
  gboolean causal;

  int32_t *ids;       /* [T] */
  char **tokens;      /* [T] vocabulary strings ("Ġthe"), NULL-terminated */
  char **token_texts; /* [T] the bytes each token stands for (" the"), as
                       * as_tokenizer_dup_token_text() gives them, NULL-terminated */

  /* The input's segments (encoders; core/README.md, "Sentence pairs") */
  int32_t *type_ids;   /* [T] token type of each token as the pass used them (all 0 unless
                        * given), or NULL for a model without token types run without them */
  int segment_b_start; /* first position of a pair's second text (positions from here on belong
                        * to it), or -1 for a single text */
  int32_t special_ids[AS_N_SPECIAL]; /* the model's [CLS], [SEP], [MASK], [PAD] ids (<s>, </s>,
                                      * <mask>, <pad> for RoBERTa); -1 when it has none */

  /* Self-attention weights. Read them only through as_trace_attention_tile() and
   * as_trace_attention_head(): a trace either holds the matrices (attn) or, when they would take
   * too much memory, keeps what recomputes any entry exactly — each layer's queries and keys as
   * the attention used them and each query row's softmax maximum and 1/sum (core/README.md,
   * "Attention on demand"). */
  float *attn;                    /* [L][H][T][T] post-softmax, masked entries exactly 0; or NULL */
  float *attn_q;                  /* [L][H][T][hd] on demand: the queries (after RoPE), else NULL */
  float *attn_k;                  /* [L][K][T][hd] on demand: the keys, once per key/value head */
  float *attn_row_max;            /* [L][H][T] on demand: each query row's largest score it sees */
  float *attn_row_inv;            /* [L][H][T] on demand: 1 / the row's sum of exponentials */
  AsAttentionRecipe *attn_recipe; /* [L] how each layer turned scores into weights */
  /* q, k, v: NULL unless the pass was asked to capture them (AsForwardOptions.capture_qkv) */
  float *q;        /* [L][H][T][hd] the query of each head (after RoPE when the model rotates) */
  float *k;        /* [L][H][T][hd] the key each query head used (its key/value head's) */
  float *v;        /* [L][H][T][hd] the value each query head used */
  float *ctx;      /* [L][H][T][hd] context = P·v, before the output projection */
  float *attn_out; /* [L][T][D] output of each attention block (after c_proj, before residual),
                    * or NULL when the trace recomputes it from the contexts on first read:
                    * read it only through as_trace_attn_out() */
  float *hidden;   /* [L+1][T][D] HF convention: block inputs, last = after the final norm */
  float *residual; /* [T][D] the residual stream the final norm received (the last block's
                    * output): what hidden[L] is computed from, for direct logit attribution */
  float *token_embeddings; /* [T][D] the rows of the family's token-embedding table for the ids,
                            * before positions (or anything else) are added: the same vector
                            * for a token in every text; NULL when the family provides none */
  float *logits;           /* [logits_rows][V]; logits_rows = 1 (last position) or T */
  int logits_rows;

  AsTrace *source;   /* encoder–decoder models: the encoder's trace over S source tokens */
  float *cross_attn; /* [L][H][T][S] the decoder's cross-attention, post-softmax */

  /* NULL, or what every layer adds to head h's scores before the softmax, the same in each layer
   * (T5's relative position bias: what the head prefers before it reads a word). It depends only
   * on the distance j − i from query i to key j, so it is kept compact, [H][2T−1]: entry (i, j)
   * of head h at [h][j − i + T − 1], the distances −(T−1) .. T−1 (a causal stack's future
   * distances j > i, entries its mask hides, are 0). umT5 (n_position_bias = L) keeps one block
   * per layer, [L][H][2T−1]. O(H·T), not the O(H·T²) of the [T][T] it stands for: read it
   * through as_trace_position_bias_entry, _row, _tile and _head below, which expand it. */
  float *position_bias_relative;
  int n_position_bias; /* the [H][2T−1] blocks position_bias_relative holds: 1, or L (umT5) */

  /*< private >*/
  gint ref_count;
  guint64 held_bytes; /* declared to the memory budget while the trace lives */
  /* attn_out NULL: the model (a reference) whose output projection remakes a layer's attention
   * output from the contexts, and the layers remade so far, [L] of [T][D] or NULL, under the lock
   * (core/README.md, "Attention on demand") */
  gpointer attn_out_model;
  float **attn_out_layers;
  GMutex attn_out_lock;
  gboolean logits_only; /* the pass captured nothing but the logits and hidden[L] */
};

/* What a trace holds: its sizes and which optional arrays it has. */
typedef struct
{
  int n_layer, n_head, n_kv_head, n_tokens, d_model, head_dim, vocab_size;
  gboolean all_logits;              /* logits for every position, not only the last */
  gboolean capture_qkv;             /* the q, k and v arrays */
  gboolean position_bias;           /* position_bias_relative [H][2T−1] (the family fills it) */
  gboolean position_bias_per_layer; /* … one per layer: [L][H][2T−1] (umT5) */
  gboolean attention_on_demand;     /* queries, keys and row statistics instead of the matrices */
  gboolean attn_out_on_demand;      /* no attn_out array: each layer's remade on first read */
  gboolean logits_only; /* AsForwardOptions.logits_only: the logits and hidden[L] only */
} AsTraceShape;

/* Allocates a trace of SHAPE with every array zeroed, or fails with AS_ERROR_MEMORY (naming the
 * bytes needed and available) when it would not fit. */
AsTrace *as_trace_new_shape (const AsTraceShape *shape, GError **error);
/* Bytes the arrays of a trace of SHAPE need. */
guint64 as_trace_shape_bytes (const AsTraceShape *shape);

/* as_trace_new_shape with K = H and q, k, v captured. */
AsTrace *as_trace_new (int n_layer, int n_head, int n_tokens, int d_model, int head_dim,
                       int vocab_size, gboolean all_logits, GError **error);
/* Sets TRACE->token_embeddings [T][D] to the rows TABLE[ids[t]] of a token-embedding table
 * TABLE [V][D] (families call it after as_trace_set_tokens(); core/README.md, "Model families").
 * Fails with AS_ERROR_MEMORY. */
gboolean as_trace_set_token_embeddings (AsTrace *trace, const float *table, GError **error);

/* Copies IDS[0..T-1] into TRACE with their vocabulary strings and texts from TOKENIZER ("<id>"
 * for both when TOKENIZER is NULL or lacks the id). */
void as_trace_set_tokens (AsTrace *trace, const AsTokenizer *tokenizer, const int32_t *ids);

/* Records the input's segments in TRACE (whose ids are set): a copy of TYPE_IDS [T] (NULL: all
 * 0 when WITH_TYPES, else none), SPECIAL_IDS [AS_N_SPECIAL], and segment_b_start by
 * as_segment_b_start(). */
void as_trace_set_segments (AsTrace *trace, const int32_t *type_ids, gboolean with_types,
                            const int32_t *special_ids);

/* Where the second text of a pair starts in IDS [N]: the first position of token type 1 when
 * TYPE_IDS [N] has one (BERT); otherwise the position after the first SEP_ID that is not the
 * last token (DistilBERT's "[CLS] A [SEP] B [SEP]"; RoBERTa's "<s> A </s></s> B </s>", whose
 * second text is "</s> B </s>"). -1 for a single text. TYPE_IDS may be NULL, SEP_ID -1. */
int as_segment_b_start (const int32_t *ids, const int32_t *type_ids, int n, int32_t sep_id);
AsTrace *as_trace_ref (AsTrace *trace);
void as_trace_unref (AsTrace *trace);

/* Makes SOURCE (taken) the encoder trace of the decoder trace TRACE and allocates TRACE's
 * cross-attention [L][H][T][S] zeroed; fails with AS_ERROR_MEMORY when it would not fit. */
gboolean as_trace_set_source (AsTrace *trace, AsTrace *source, GError **error);

/* Bytes the trace arrays of as_trace_new need. */
guint64 as_trace_bytes (int n_layer, int n_head, int n_tokens, int d_model, int head_dim,
                        int vocab_size, gboolean all_logits);

/* The memory budget: $ATTNSCOPE_MEMORY_LIMIT bytes when set — for everything the process holds
 * (traces, weights) together with a request — otherwise 90 % of MemAvailable for the request
 * (core/README.md, "Bad input, memory and threads"). */
guint64 as_memory_budget (void);

/* Fails with AS_ERROR_MEMORY when BYTES would not fit in the budget (with what is held, under
 * ATTNSCOPE_MEMORY_LIMIT); WHAT names the request. */
gboolean as_memory_check (guint64 bytes, const char *what, GError **error);

/* Whether TRACE holds its attention matrices (FALSE: it computes them on demand). */
static inline gboolean
as_trace_attention_held (const AsTrace *t)
{
  return t->attn != NULL;
}

/* Attention weights of head HEAD of LAYER: rows ROW0 .. ROW0+N_ROWS−1 (queries), columns
 * COL0 .. COL0+N_COLS−1 (keys) into OUT [N_ROWS][LD] — copied from the matrices, or computed
 * from the queries and keys: bit for bit what the forward pass computed (core/README.md,
 * "Attention on demand"). Masked entries are exactly 0. Thread-safe. */
void as_trace_attention_tile (const AsTrace *t, int layer, int head, int row0, int n_rows, int col0,
                              int n_cols, float *out, int ld);

/* The whole [T][T] attention of head HEAD of LAYER: a pointer into the trace's matrices, or,
 * computed on demand, a new array stored in *OWNED (g_free it; NULL when nothing was allocated).
 * T²·4 bytes: views of long texts read tiles instead. */
const float *as_trace_attention_head (const AsTrace *t, int layer, int head, float **owned);

/* As as_trace_attention_head for every head of LAYER: [H][T][T]. */
const float *as_trace_attention_layer (const AsTrace *t, int layer, float **owned);

/* Whether TRACE has a position bias (T5 family). */
static inline gboolean
as_trace_has_position_bias (const AsTrace *t)
{
  return t->position_bias_relative != NULL;
}

/* The compact bias of head HEAD of LAYER (0 .. L−1; every layer shares block 0 unless the trace
 * keeps one per layer): [2T−1], distance j − i at [j − i + T − 1]. Where the pass and the
 * on-demand recipe read it, and where a family writes it. */
static inline float *
as_trace_position_bias_relative (const AsTrace *t, int layer, int head)
{
  g_assert (t->position_bias_relative != NULL);
  gsize block = (gsize) MIN (layer, t->n_position_bias - 1);
  return t->position_bias_relative + (block * t->n_head + head) * (2 * (gsize) t->n_tokens - 1);
}

/* The bias head HEAD of LAYER adds to query I's score of key J (trace-position-bias.c). */
float as_trace_position_bias_entry (const AsTrace *t, int layer, int head, int i, int j);

/* Query ROW's bias against keys COL0 .. COL0+N_COLS−1 into OUT [N_COLS]. */
void as_trace_position_bias_row (const AsTrace *t, int layer, int head, int row, int col0,
                                 int n_cols, float *out);

/* Rows ROW0 .. ROW0+N_ROWS−1 (queries), columns COL0 .. COL0+N_COLS−1 (keys) of the bias of
 * head HEAD of LAYER into OUT [N_ROWS][LD], as as_trace_attention_tile reads the weights. */
void as_trace_position_bias_tile (const AsTrace *t, int layer, int head, int row0, int n_rows,
                                  int col0, int n_cols, float *out, int ld);

/* The whole [T][T] bias of head HEAD of LAYER, a new array (g_free it): T²·4 bytes, for views
 * and tests of short texts; long ones read tiles. */
float *as_trace_position_bias_head (const AsTrace *t, int layer, int head);

/* Where the trace writes the matrices of LAYER (the forward pass and families only). */
static inline float *
as_trace_attn_matrices (const AsTrace *t, int layer, int head) /* [T][T] */
{
  g_assert (t->attn != NULL);
  return t->attn + ((gsize) layer * t->n_head + head) * t->n_tokens * t->n_tokens;
}

static inline float *
as_trace_cross_attn (const AsTrace *t, int layer, int head) /* [T][S] */
{
  gsize S = t->source->n_tokens;
  return t->cross_attn + ((gsize) layer * t->n_head + head) * t->n_tokens * S;
}

static inline float *
as_trace_head_vectors (const AsTrace *t, float *base, int layer, int head) /* [T][hd] */
{
  return base + ((gsize) layer * t->n_head + head) * t->n_tokens * t->head_dim;
}

static inline int
as_trace_kv_head (const AsTrace *t, int head) /* the key/value head query head HEAD shares */
{
  return head / (t->n_head / t->n_kv_head);
}

static inline float *
as_trace_hidden (const AsTrace *t, int index) /* [T][D], index 0..L */
{
  return t->hidden + (gsize) index * t->n_tokens * t->d_model;
}

/* The output of LAYER's attention block [T][D] (after the output projection, before the
 * residual): in the trace's array, or — for a trace without one (attn_out NULL: a long text on
 * demand) — remade on first read from the layer's contexts by the very product the pass made, to
 * the pass's bits, and kept while the trace lives. Thread-safe. */
float *as_trace_attn_out (const AsTrace *t, int layer);

/* OUT [T][D] = LAYER's attention output, as as_trace_attn_out gives it (the same bits), without
 * keeping a remade layer: a reader that goes through the layers once (a dump, a scan) holds one
 * [T][D] at a time instead of the L·T·D floats the cache grows to (566 MB of a SmolLM2-135M shape
 * at 8,192 tokens). A layer already kept, or the trace's array, is copied. Thread-safe. */
void as_trace_attn_out_copy (const AsTrace *t, int layer, float *out);

/* Frees the attention outputs remade so far (a trace with an attn_out array: nothing) and returns
 * the bytes freed; a later as_trace_attn_out remakes a layer, to the same bits. Only when no
 * pointer as_trace_attn_out returned is still in use. */
gsize as_trace_attn_out_drop (AsTrace *t);

static inline float *
as_trace_last_logits (const AsTrace *t) /* [V] logits of the last position */
{
  return t->logits + (gsize) (t->logits_rows - 1) * t->vocab_size;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTrace, as_trace_unref)

G_END_DECLS
