/* read-out.c — any hidden state read through the model's own output: the final norm and the
 * output head exactly as the forward pass applies them to the last one (the logit lens).
 *
 * The family's finish stage (model/stack-private.h) is what maps the residual stream to
 * hidden[L] and the logits; running it on an earlier hidden state is, by construction, the same
 * code — the final norm, a tied or untied head, Gemma 2's final soft-cap, a masked-LM head,
 * Marian's final_logits_bias. hidden[L], and any vector taken as already through the final norm
 * (the fitted lens's), goes through the output head alone, the product the family's head_product
 * describes and its finish stage applies (a family without one — no final norm, or a masked-LM
 * head — has its finish stage as the head). It runs on blocks of rows through a
 * small trace without attention, so the memory stays that of one block of logits whatever T: a
 * block is as many rows as READ_OUT_BYTES of logits hold (64 … 1,024 rows). Blocks are large
 * because every block's product repacks the whole output head (50257 × 768 floats for GPT-2): at 64
 * rows the repacking was a third of the logit lens's time. */
#include "as-forward.h"

#include <string.h>

#include "as-error.h"
#include "family-private.h"
#include "model-private.h"
#include "pass-private.h"

/* The logits one block of rows may hold, and the bounds of a block's rows. */
#define READ_OUT_BYTES (96u << 20)
#define READ_OUT_MIN_ROWS 64
#define READ_OUT_MAX_ROWS 1024

int
as_forward_read_out_block (const AsTrace *trace)
{
  g_return_val_if_fail (trace != NULL, READ_OUT_MIN_ROWS);
  gsize row_bytes = sizeof (float) * (gsize) MAX (trace->vocab_size, 1);
  return (int) CLAMP (READ_OUT_BYTES / row_bytes, READ_OUT_MIN_ROWS, READ_OUT_MAX_ROWS);
}

/* Where the rows to read out come from: row r is VECTORS[r] when VECTORS is not NULL, else
 * hidden state INDEXES[r] (or INDEX for all when INDEXES is NULL) of TRACE at POSITIONS[r]. */
typedef struct
{
  const AsTrace *trace;
  const float *vectors; /* [n][D] or NULL */
  int index;
  const int *indexes;   /* [n] or NULL */
  const int *positions; /* [n] */
} RowSource;

static const float *
row_at (const RowSource *source, int r)
{
  gsize D = (gsize) source->trace->d_model;
  if (source->vectors != NULL)
    return source->vectors + (gsize) r * D;
  int index = source->indexes != NULL ? source->indexes[r] : source->index;
  return as_trace_hidden (source->trace, index) + (gsize) source->positions[r] * D;
}

/* A trace for ROWS positions that only the finish stage fills: hidden states and all logits. */
static AsTrace *
read_out_trace (const AsStack *stack, const AsConfig *c, int rows, GError **error)
{
  AsForwardOptions options = { .all_logits = TRUE };
  AsTraceShape shape = as_pass_trace_shape (stack, c, rows, &options, NULL);
  shape.n_head = shape.n_kv_head = shape.head_dim = 1; /* no attention is kept */
  shape.capture_qkv = FALSE;
  return as_trace_new_shape (&shape, error);
}

/* The output head alone on the pass's rows, taken as already through the final norm. */
static void
head_stage (AsPass *pass)
{
  as_pass_head_logits (pass, pass->x, pass->config->ops->stack->head_product);
}

/* logits [N][V] of the rows of SOURCE through the finish stage, or with HEAD_ONLY through the
 * output head alone. */
static gboolean
read_rows (AsModel *model, const RowSource *source, int n_rows, gboolean head_only, float *logits,
           GError **error)
{
  const AsTrace *trace = source->trace;
  const AsConfig *c = as_model_get_config (model);
  const AsStack *stack = c->ops->stack;
  int D = trace->d_model, V = trace->vocab_size;
  if (V == 0 || trace->logits_rows == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has no output head to read hidden states through (%s)",
                   as_model_get_name (model),
                   c->encoder_decoder ? "its decoder has none" : "it computes attention only");
      return FALSE;
    }
  void (*stage) (AsPass *) = head_only && stack->head_product != NULL ? head_stage : stack->finish;
  int rows = MIN (n_rows, as_forward_read_out_block (trace));
  g_autoptr (AsTrace) out = read_out_trace (stack, c, rows, error);
  if (out == NULL)
    return FALSE;
  int S = trace->source != NULL ? trace->source->n_tokens : 0;
  guint64 scratch_bytes = stack->scratch_bytes (c, rows, S);
  g_autofree float *x = g_try_new (float, (gsize) rows *D); /* [rows][D] */
  g_autofree void *scratch = scratch_bytes > 0 ? g_try_malloc ((gsize) scratch_bytes) : NULL;
  if (x == NULL || (scratch_bytes > 0 && scratch == NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory to read %d positions", rows);
      return FALSE;
    }
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (as_forward_threads ());
  for (int t0 = 0; t0 < n_rows; t0 += rows)
    {
      int n = MIN (rows, n_rows - t0);
      AsTrace *block = out;
      g_autoptr (AsTrace) last = NULL;
      if (n < rows)
        {
          /* the last, shorter block: its own trace, so the finish stage sees n positions */
          last = read_out_trace (stack, c, n, error);
          if (last == NULL)
            return FALSE;
          block = last;
        }
      for (int i = 0; i < n; i++)
        memcpy (x + (gsize) i * D, row_at (source, t0 + i), sizeof (float) * D);
      AsPass pass = {
        .config = c,
        .weights = as_model_get_weights (model),
        .trace = block,
        .source = trace->source,
        .team = team,
        .n_tokens = n,
        .x = x,
        .scratch = scratch,
      };
      /* the stage writes the caller's rows in place: the block's own logits are never touched
       * (nor their pages faulted in), and nothing is copied */
      float *own = block->logits;
      block->logits = logits + (gsize) t0 * V;
      stage (&pass);
      block->logits = own;
    }
  return TRUE;
}

gboolean
as_forward_read_out (AsModel *model, const AsTrace *trace, int index, const int *positions,
                     int n_positions, float *logits, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && logits != NULL, FALSE);
  g_return_val_if_fail (positions != NULL && n_positions > 0, FALSE);
  g_return_val_if_fail (index >= 0 && index <= trace->n_layer, FALSE);
  for (int i = 0; i < n_positions; i++)
    g_return_val_if_fail (positions[i] >= 0 && positions[i] < trace->n_tokens, FALSE);
  RowSource source = { .trace = trace, .index = index, .positions = positions };
  return read_rows (model, &source, n_positions, index == trace->n_layer, logits, error);
}

gboolean
as_forward_read_out_cells (AsModel *model, const AsTrace *trace, const int *indexes,
                           const int *positions, int n, float *logits, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && logits != NULL, FALSE);
  g_return_val_if_fail (indexes != NULL && positions != NULL && n > 0, FALSE);
  for (int i = 0; i < n; i++)
    {
      g_return_val_if_fail (indexes[i] >= 0 && indexes[i] < trace->n_layer, FALSE);
      g_return_val_if_fail (positions[i] >= 0 && positions[i] < trace->n_tokens, FALSE);
    }
  RowSource source = { .trace = trace, .indexes = indexes, .positions = positions };
  return read_rows (model, &source, n, FALSE, logits, error);
}

gboolean
as_forward_read_head (AsModel *model, const AsTrace *trace, const float *vectors, int n,
                      float *logits, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL && vectors != NULL && logits != NULL, FALSE);
  g_return_val_if_fail (n > 0, FALSE);
  RowSource source = { .trace = trace, .vectors = vectors };
  return read_rows (model, &source, n, TRUE, logits, error);
}
