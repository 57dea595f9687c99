/* forward.c — the entry points of a forward pass: validate the input, size the memory, and run
 * the model family's stack of layers (model/stack-private.h) with the one driver (pass.c). */
#include "as-forward.h"

#include "as-error.h"
#include "family-private.h"
#include "memory-private.h"
#include "model-private.h"
#include "pass-private.h"

int
as_forward_threads (void)
{
  const char *env = g_getenv ("ATTNSCOPE_THREADS");
  gint64 n = 0;
  if (env != NULL && g_ascii_string_to_signed (env, 10, 1, 256, &n, NULL))
    return (int) n;
  return MAX (1, (int) g_get_num_processors ());
}

/* The model's special-token ids [AS_N_SPECIAL]. */
static void
model_special_ids (const AsModel *model, int32_t *out)
{
  for (int i = 0; i < AS_N_SPECIAL; i++)
    out[i] = as_model_get_special_id (model, i);
}

static gboolean
check_ids (const AsModel *model, const int32_t *ids, int n_ids, const int32_t *type_ids,
           GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no tokens to run: the input is empty");
      return FALSE;
    }
  int b
      = as_segment_b_start (ids, type_ids, n_ids, as_model_get_special_id (model, AS_SPECIAL_SEP));
  if (n_ids > c->n_positions && b >= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the pair has %d tokens (%d in the first text and %d in the second, special "
                   "tokens included) but the model's context length is %d tokens; shorten the "
                   "texts or use --truncate to drop tokens from the longer text first",
                   n_ids, b, n_ids - b, c->n_positions);
      return FALSE;
    }
  if (n_ids > c->n_positions)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the input has %d tokens but the model's context length is %d tokens; "
                   "shorten the text or use --truncate to keep the first %d",
                   n_ids, c->n_positions, c->n_positions);
      return FALSE;
    }
  /* a model without token types takes 0/1 as the segment marks of a pair */
  int n_types = c->type_vocab_size > 0 ? c->type_vocab_size : 2;
  for (int i = 0; type_ids != NULL && i < n_ids; i++)
    if (type_ids[i] < 0 || type_ids[i] >= n_types)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token type %d at position %d is outside the model's token types (0..%d)",
                     type_ids[i], i, n_types - 1);
        return FALSE;
      }
  for (int i = 0; i < n_ids; i++)
    if (ids[i] < 0 || ids[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "token id %d at position %d is outside the vocabulary (0..%d)", ids[i], i,
                     c->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

AsTraceShape
as_forward_trace_shape (const AsModel *model, int n_tokens, const AsForwardOptions *options)
{
  const AsConfig *c = as_model_get_config (model);
  return as_pass_trace_shape (c->ops->stack, c, n_tokens, options, NULL);
}

guint64
as_forward_bytes (const AsModel *model, int n_tokens, const AsForwardOptions *options)
{
  const AsConfig *c = as_model_get_config (model);
  if (c->encoder_decoder) /* a source and a target of N_TOKENS each */
    return as_forward_translation_bytes (model, n_tokens, n_tokens, options);
  return as_pass_bytes (c->ops->stack, c, n_tokens, 0, options);
}

/* The largest T in LO..HI whose pass fits in BUDGET (LO − 1 when none does); the bytes grow with
 * T over the range, so bisect. */
static int
largest_fitting (const AsModel *model, const AsForwardOptions *options, guint64 budget, int lo,
                 int hi)
{
  lo--;
  while (lo < hi)
    {
      int mid = lo + (hi - lo + 1) / 2;
      if (as_forward_bytes (model, mid, options) <= budget)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

/* OPTIONS as a pass over N_IDS tokens runs them: when the automatic choice would keep matrices
 * that do not fit the memory budget, the attention is kept on demand instead (SCRATCH holds those
 * options) — the choice is by the budget, not only by the matrices' size. */
static const AsForwardOptions *
fit_attention (const AsModel *model, int n_ids, const AsForwardOptions *options,
               AsForwardOptions *scratch)
{
  if (!as_forward_options_automatic (options)
      || as_forward_trace_shape (model, n_ids, options).attention_on_demand
      || as_forward_bytes (model, n_ids, options) <= as_forward_budget (model))
    return options;
  *scratch = as_forward_options_on_demand (options);
  return scratch;
}

/* The most tokens that fit BUDGET with the attention's storage OPTIONS ask for. */
static int max_tokens_as_asked (const AsModel *model, const AsForwardOptions *options,
                                guint64 budget);

int
as_forward_max_tokens (const AsModel *model, const AsForwardOptions *options, guint64 budget)
{
  int as_asked = max_tokens_as_asked (model, options, budget);
  if (!as_forward_options_automatic (options))
    return as_asked;
  /* the automatic choice keeps on demand what would not fit with the matrices (fit_attention) */
  AsForwardOptions on_demand = as_forward_options_on_demand (options);
  return MAX (as_asked, max_tokens_as_asked (model, &on_demand, budget));
}

static int
max_tokens_as_asked (const AsModel *model, const AsForwardOptions *options, guint64 budget)
{
  /* the bytes grow with T, except where a trace starts computing attention on demand: they drop
   * there, so search above that length first, then below it */
  const AsConfig *c = as_model_get_config (model);
  int n = c->n_positions, first = n + 1; /* the first length kept on demand */
  int lo = 1, hi = n;
  while (lo <= hi)
    {
      int mid = lo + (hi - lo) / 2;
      AsTraceShape shape = as_forward_trace_shape (model, mid, options);
      if (shape.attention_on_demand)
        first = mid, hi = mid - 1;
      else
        lo = mid + 1;
    }
  if (first <= n)
    {
      int above = largest_fitting (model, options, budget, first, n);
      if (above >= first)
        return above;
    }
  return MAX (0, largest_fitting (model, options, budget, 1, MIN (n, first - 1)));
}

guint64
as_forward_budget (const AsModel *model)
{
  guint64 budget = as_memory_budget ();
  const char *limit = g_getenv ("ATTNSCOPE_MEMORY_LIMIT");
  /* a limit covers everything held (the weights, other traces); MemAvailable already leaves out
   * what is held except the mapped weight files, whose pages it counts as reclaimable */
  guint64 taken
      = limit != NULL && *limit != '\0' ? as_memory_held () : as_model_get_mapped_bytes (model);
  return budget > taken ? budget - taken : 0;
}

/* Fails with AS_ERROR_MEMORY, naming both sizes and the bounded choice, when a pass over N_IDS
 * tokens would not fit. */
static gboolean
check_memory (AsModel *model, int n_ids, const AsForwardOptions *options, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  guint64 bytes = as_forward_bytes (model, n_ids, options);
  guint64 budget = as_forward_budget (model);
  if (bytes <= budget)
    return TRUE;
  AsTraceShape shape = as_forward_trace_shape (model, n_ids, options);
  g_autofree char *need = g_format_size (bytes);
  g_autofree char *trace = g_format_size (as_trace_shape_bytes (&shape));
  g_autofree char *have = g_format_size (budget);
  int fit = as_forward_max_tokens (model, options, budget);
  g_autofree char *choice = fit > 0
                                ? g_strdup_printf ("use a shorter text: at most %d tokens fit", fit)
                                : g_strdup ("not even one token fits");
  /* under a limit, say what is held already: the weights, and other traces (compare, the GUI) */
  const char *limit = g_getenv ("ATTNSCOPE_MEMORY_LIMIT");
  guint64 held = as_memory_held ();
  g_autofree char *held_text = g_format_size (held);
  g_autofree char *limit_text = g_format_size (as_memory_budget ());
  g_autofree char *available
      = limit != NULL && *limit != '\0' && held > 0
            ? g_strdup_printf ("with the %s already held, the limit of %s (ATTNSCOPE_MEMORY_LIMIT) "
                               "leaves only %s",
                               held_text, limit_text, have)
            : g_strdup_printf ("only %s are available", have);
  g_autofree char *what
      = shape.attention_on_demand
            ? g_strdup_printf ("the queries and keys of %d layers x %d heads x %d tokens",
                               c->n_layer, c->n_head, n_ids)
            : g_strdup_printf ("the attention of %d layers x %d heads x %d x %d tokens", c->n_layer,
                               c->n_head, n_ids, n_ids);
  g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
               "A forward pass over %d tokens needs %s of memory (a trace of %s: %s%s) but %s; %s",
               n_ids, need, trace, what, shape.capture_qkv ? ", with q, k, v" : "", available,
               choice);
  return FALSE;
}

/* Fails for an encoder–decoder model, which needs a source and a target
 * (as_forward_translation). */
static gboolean
check_single_stack (const AsModel *model, GError **error)
{
  if (!as_model_get_config (model)->encoder_decoder)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "%s is an encoder–decoder (translation) model: it runs on a source text and a "
               "target text (run --text SRC --target TGT, or translate --text SRC)",
               as_model_get_name (model));
  return FALSE;
}

AsTrace *
as_forward (AsModel *model, const int32_t *ids, int n_ids, const AsForwardOptions *options,
            GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  const int32_t *type_ids = options != NULL ? options->type_ids : NULL;
  if (!check_single_stack (model, error) || !check_ids (model, ids, n_ids, type_ids, error))
    return NULL;
  AsForwardOptions fitted;
  options = fit_attention (model, n_ids, options, &fitted);
  if (!check_memory (model, n_ids, options, error))
    return NULL;
  AsTrace *trace = as_pass_run (c->ops->stack, c, as_model_get_weights (model),
                                as_model_get_tokenizer (model), ids, n_ids, NULL, options, error);
  if (trace == NULL)
    return NULL;
  if (trace->attn_out == NULL && !trace->logits_only)
    trace->attn_out_model = as_model_ref (model); /* as_trace_attn_out remakes it */
  int32_t special[AS_N_SPECIAL];
  model_special_ids (model, special);
  as_trace_set_segments (trace, type_ids, c->type_vocab_size > 0, special);
  return trace;
}

AsTrace *
as_forward_pair (AsModel *model, const char *text, const char *pair, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && text != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!check_single_stack (model, error))
    return NULL;
  if (*text == '\0' || (pair != NULL && *pair == '\0'))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the %s is empty",
                   *text == '\0' ? "text" : "pair's second text");
      return NULL;
    }
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL)
    return NULL;
  g_autoptr (AsEncoding) enc
      = as_tokenizer_encode_full (tokenizer, text, -1, pair, -1, AS_ENCODE_DEFAULT, error);
  if (enc == NULL)
    return NULL;
  if (enc->ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the text gives no tokens");
      return NULL;
    }
  /* a single text keeps the caller's type ids; a pair's come from the tokenizer */
  GArray *types = pair != NULL ? enc->type_ids : NULL;
  if (truncate && !as_truncate_input (model, enc->ids, types, c->n_positions, error))
    return NULL;
  AsForwardOptions with_types = { 0 };
  if (options != NULL)
    with_types = *options;
  if (types != NULL)
    with_types.type_ids = &g_array_index (types, int32_t, 0);
  return as_forward (model, &g_array_index (enc->ids, int32_t, 0), (int) enc->ids->len, &with_types,
                     error);
}

AsTrace *
as_forward_text (AsModel *model, const char *text, gboolean truncate,
                 const AsForwardOptions *options, GError **error)
{
  return as_forward_pair (model, text, NULL, truncate, options, error);
}
