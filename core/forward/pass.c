/* pass.c — the one forward driver (pass-private.h): everything a forward pass does around a
 * family's maths, written once.
 *
 *   trace = the stack's shape for T tokens; its tokens and token embeddings
 *   x [T][D] = embed(ids)                                  checked finite
 *   per layer l: cancelled? → fail; hidden[l] = x; layer(l), x in place; x checked finite;
 *                progress told l + 1 of L (options' callback; it only observes)
 *   residual = x; finish: hidden[L], logits                both checked finite
 *
 * Weights are finite when they are loaded (as_tensor_store_check_finite), but finite weights can
 * still overflow float32 (embeddings near 3e38 give an infinite sum, an infinite logit and a NaN
 * probability), so every layer's output is checked: one pass over its T·D values, a few
 * microseconds against the layer's T·D² multiply-adds. The first value that is not finite stops
 * the pass with a message naming the layer, the position and its token. */
#include "pass-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "attention-private.h"
#include "kernels-private.h"

/* Values checked per block before looking for the exact index: small enough to stay in cache. */
#define FINITE_BLOCK 4096

gssize
as_find_non_finite (const float *x, gsize n)
{
  for (gsize at = 0; at < n; at += FINITE_BLOCK)
    {
      gsize m = MIN (FINITE_BLOCK, n - at);
      guint32 bad = 0;
      for (gsize i = 0; i < m; i++)
        {
          guint32 bits;
          memcpy (&bits, x + at + i, sizeof bits);
          bad |= (bits & 0x7f800000u) == 0x7f800000u; /* exponent all ones: Inf or NaN */
        }
      if (bad == 0)
        continue;
      for (gsize i = 0; i < m; i++)
        if (!isfinite (x[at + i]))
          return (gssize) (at + i);
    }
  return -1;
}

gboolean
as_check_finite (const float *x, int rows, int d, int row0, const char *what, const char *row_noun,
                 char *const *tokens, GError **error)
{
  gssize i = as_find_non_finite (x, (gsize) rows * d);
  if (i < 0)
    return TRUE;
  float v = x[i];
  int row = row0 + (int) (i / d);
  g_autofree char *token
      = tokens != NULL ? g_strdup_printf (" (token '%s')", tokens[row]) : g_strdup ("");
  g_set_error (error, AS_ERROR, AS_ERROR_VALUE,
               "%s produced a non-finite value (%s) at %s %d%s: the model's weights make its "
               "activations overflow float32",
               what, isnan (v) ? "NaN" : (v > 0 ? "+Inf" : "-Inf"), row_noun, row, token);
  return FALSE;
}

AsTraceShape
as_pass_trace_shape (const AsStack *stack, const AsConfig *c, int n_tokens,
                     const AsForwardOptions *options, gboolean *causal)
{
  AsTraceShape shape = {
    .n_layer = c->n_layer,
    .n_head = c->n_head,
    .n_kv_head = c->n_kv_head,
    .n_tokens = n_tokens,
    .d_model = c->n_embd,
    .head_dim = c->head_dim,
    .vocab_size = c->vocab_size,
    .all_logits = options != NULL && options->all_logits,
    .capture_qkv = options != NULL && options->capture_qkv,
    .logits_only = options != NULL && options->logits_only,
  };
  shape.attention_on_demand
      = as_attention_on_demand (options != NULL ? options->attention : AS_ATTENTION_AUTO, &shape);
  gboolean is_causal = TRUE;
  if (stack->trace_shape != NULL)
    stack->trace_shape (c, &shape, &is_causal);
  /* an intervention's heads make the output projection read other contexts than the trace's */
  if (stack->attention_output == NULL || (options != NULL && options->intervention != NULL))
    shape.attn_out_on_demand = shape.logits_only = FALSE;
  if (shape.logits_only)
    shape.attention_on_demand = shape.attn_out_on_demand = shape.capture_qkv = FALSE;
  if (causal != NULL)
    *causal = is_causal;
  return shape;
}

guint64
as_pass_bytes (const AsStack *stack, const AsConfig *config, int n_tokens, int n_source,
               const AsForwardOptions *options)
{
  AsTraceShape shape = as_pass_trace_shape (stack, config, n_tokens, options, NULL);
  guint64 residual = (guint64) n_tokens * config->n_embd * sizeof (float);
  return as_trace_shape_bytes (&shape) + residual
         + stack->scratch_bytes (config, n_tokens, n_source);
}

/* "layer 3", "decoder layer 3"; "the embeddings", "the decoder's embeddings" (owned). */
static char *
stage_name (const AsStack *stack, int layer, const char *part)
{
  if (part == NULL)
    return stack->name != NULL ? g_strdup_printf ("%s layer %d", stack->name, layer)
                               : g_strdup_printf ("layer %d", layer);
  return stack->name != NULL ? g_strdup_printf ("the %s's %s", stack->name, part)
                             : g_strdup_printf ("the %s", part);
}

/* Fails when x [ROWS][D] — the last ROWS positions — of stage LAYER (or PART) holds a value
 * that is not finite. */
static gboolean
check_stage (const AsPass *p, const AsStack *stack, const float *x, int rows, int d, int layer,
             const char *part, GError **error)
{
  if (as_find_non_finite (x, (gsize) rows * d) < 0)
    return TRUE;
  const AsTrace *t = p->trace;
  g_autofree char *what = stage_name (stack, layer, part);
  return as_check_finite (x, rows, d, t->n_tokens - rows, what, "position", t->token_texts, error);
}

static const AsIntervention *
intervention_of (const AsPass *p)
{
  return p->options != NULL ? p->options->intervention : NULL;
}

void
as_pass_heads (const AsPass *p, int layer, float *cc, int ldc)
{
  const AsIntervention *iv = intervention_of (p);
  if (iv == NULL || iv->heads == NULL)
    return;
  const AsTrace *t = p->trace;
  int T = p->n_tokens, H = t->n_head, hd = t->head_dim;
  for (int h = 0; h < H; h++)
    {
      if (!iv->heads[(gsize) layer * H + h])
        continue;
      gsize head = (gsize) layer * H + h;
      const float *values = iv->head_values != NULL ? iv->head_values + head * T * hd : NULL;
      const float *mean = iv->head_means != NULL ? iv->head_means + head * hd : NULL;
      for (int i = 0; i < T; i++)
        {
          float *row = cc + (gsize) i * ldc + (gsize) h * hd;
          if (values != NULL)
            memcpy (row, values + (gsize) i * hd, sizeof (float) * hd);
          else if (mean != NULL)
            memcpy (row, mean, sizeof (float) * hd);
          else
            memset (row, 0, sizeof (float) * hd);
        }
    }
}

void
as_pass_cross_attend (const AsPass *p, int layer, const float *q, const float *k, const float *v,
                      float *cc, int width, float scale)
{
  AsTrace *t = p->trace;
  int T = t->n_tokens, S = p->source->n_tokens, hd = t->head_dim;
  AsAttention job = {
    .q = q,
    .k = k,
    .v = v,
    .q_head = hd,
    .k_head = hd,
    .v_head = hd,
    .ldq = width,
    .ldk = width,
    .ldv = width,
    .p = as_trace_cross_attn (t, layer, 0),
    .p_head = (gsize) T * S,
    .cc = cc,
    .ldcc = width,
    .n_heads = t->n_head,
    .n_q = T,
    .n_k = S,
    .head_dim = hd,
    .group = 1,
    .scale = scale,
  };
  as_attend (p->team, &job);
}

void
as_pass_mlp (const AsPass *p, int layer, float *m)
{
  const AsIntervention *iv = intervention_of (p);
  if (iv == NULL)
    return;
  int T = p->n_tokens, D = p->trace->d_model;
  gsize n = (gsize) T * D;
  if (iv->mlp_record != NULL)
    memcpy (iv->mlp_record + layer * n, m, sizeof (float) * n);
  if (iv->mlps == NULL || !iv->mlps[layer])
    return;
  if (iv->mlp_values != NULL)
    memcpy (m, iv->mlp_values + layer * n, sizeof (float) * n);
  else if (iv->mlp_means != NULL)
    for (int i = 0; i < T; i++)
      memcpy (m + (gsize) i * D, iv->mlp_means + (gsize) layer * D, sizeof (float) * D);
  else
    memset (m, 0, sizeof (float) * n);
}

/* x's rows that the intervention replaces at LAYER's input. */
static void
replace_residual (const AsPass *p, int layer)
{
  const AsIntervention *iv = intervention_of (p);
  if (iv == NULL || iv->resid == NULL)
    return;
  int T = p->n_tokens, D = p->trace->d_model;
  for (int i = 0; i < T; i++)
    if (iv->resid[(gsize) layer * T + i])
      memcpy (p->x + (gsize) i * D, iv->resid_values + ((gsize) layer * T + i) * D,
              sizeof (float) * D);
}

/* The first layer the pass computes: 0, or the intervention's start layer, whose input and the
 * hidden states before it are copied from its start_hidden. */
static int
first_layer (AsPass *p)
{
  const AsIntervention *iv = intervention_of (p);
  if (iv == NULL || iv->start_layer <= 0 || iv->start_hidden == NULL)
    return 0;
  AsTrace *t = p->trace;
  gsize n = (gsize) p->n_tokens * t->d_model;
  int start = MIN (iv->start_layer, t->n_layer);
  memcpy (t->hidden, iv->start_hidden, sizeof (float) * n * start);
  memcpy (p->x, iv->start_hidden + start * n, sizeof (float) * n);
  return start;
}

/* The stages of STACK on pass P, the driver's checks between them. */
static gboolean
run_stages (AsPass *p, const AsStack *stack, GError **error)
{
  AsTrace *t = p->trace;
  int T = p->n_tokens, D = t->d_model;
  GCancellable *cancellable = p->options != NULL ? p->options->cancellable : NULL;
  stack->embed (p); /* also the tables the layers read (RoPE's angles) */
  if (!check_stage (p, stack, p->x, T, D, 0, "embeddings", error))
    return FALSE;
  for (int l = first_layer (p); l < t->n_layer; l++)
    {
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the forward pass was cancelled");
          return FALSE;
        }
      replace_residual (p, l);
      if (!t->logits_only)
        memcpy (as_trace_hidden (t, l), p->x, sizeof (float) * T * D);
      stack->layer (p, l);
      if (!check_stage (p, stack, p->x, T, D, l, NULL, error))
        return FALSE;
      if (p->options != NULL && p->options->progress != NULL)
        p->options->progress (l + 1, t->n_layer, p->options->progress_data);
    }
  memcpy (t->residual, p->x, sizeof (float) * T * D);
  stack->finish (p);
  return check_stage (p, stack, as_trace_hidden (t, t->n_layer), T, D, 0, "final norm", error)
         && check_stage (p, stack, t->logits, t->logits_rows, t->vocab_size, 0, "output layer",
                         error);
}

/* A worker team sized for the pass's largest product (tiny models run faster alone). */
static AsWorkerTeam *
team_for (const AsConfig *c, const AsTrace *t)
{
  gsize T = t->n_tokens, D = t->d_model, F = MAX (c->n_inner, c->encoder_n_inner);
  gsize largest = MAX (T * D * F, (gsize) t->logits_rows * D * t->vocab_size);
  largest = MAX (largest, T * T * D);
  return as_worker_team_new (as_parallel_worth (largest) ? as_forward_threads () : 1);
}

/* The trace STACK fills over IDS, with its tokens, token embeddings and SOURCE. */
static AsTrace *
trace_new (const AsStack *stack, const AsConfig *c, gconstpointer weights,
           const AsTokenizer *tokenizer, const int32_t *ids, int T, AsTrace *source,
           const AsForwardOptions *options, GError **error)
{
  gboolean causal;
  AsTraceShape shape = as_pass_trace_shape (stack, c, T, options, &causal);
  g_autoptr (AsTrace) t = as_trace_new_shape (&shape, error);
  if (t == NULL)
    return NULL;
  t->causal = causal;
  as_trace_set_tokens (t, tokenizer, ids);
  const float *table = stack->token_embeddings != NULL ? stack->token_embeddings (weights) : NULL;
  if ((table != NULL && !as_trace_set_token_embeddings (t, table, error))
      || (source != NULL && !as_trace_set_source (t, as_trace_ref (source), error)))
    return NULL;
  return g_steal_pointer (&t);
}

AsTrace *
as_pass_run (const AsStack *stack, const AsConfig *c, gconstpointer weights,
             const AsTokenizer *tokenizer, const int32_t *ids, int T, AsTrace *source,
             const AsForwardOptions *options, GError **error)
{
  g_autoptr (AsTrace) t = trace_new (stack, c, weights, tokenizer, ids, T, source, options, error);
  if (t == NULL)
    return NULL;
  int S = source != NULL ? source->n_tokens : 0;
  guint64 scratch_bytes = stack->scratch_bytes (c, T, S);
  g_autofree float *x = g_try_new (float, (gsize) T * c->n_embd); /* [T][D] */
  g_autofree void *scratch = scratch_bytes > 0 ? g_try_malloc ((gsize) scratch_bytes) : NULL;
  if (x == NULL || (scratch_bytes > 0 && scratch == NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the working memory for %d tokens", T);
      return NULL;
    }

  g_autoptr (AsWorkerTeam) team = team_for (c, t);
  AsPass pass = {
    .config = c,
    .weights = weights,
    .options = options,
    .trace = t,
    .source = source,
    .team = team,
    .n_tokens = T,
    .x = x,
    .scratch = scratch,
  };
  gboolean ok = run_stages (&pass, stack, error);
  return ok ? g_steal_pointer (&t) : NULL;
}
