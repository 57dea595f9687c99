/* forward-translation.c — the entry points of an encoder–decoder (translation) model's forward
 * pass: a source and a decoder input, validated and sized, then the family's two stacks
 * (model/family-private.h) with the one driver (pass.c): the encoder over the source, the decoder
 * over the decoder input attending to the encoder's output. */
#include "as-forward.h"

#include <string.h>

#include "as-error.h"
#include "as-translate.h"
#include "family-private.h"
#include "model-private.h"
#include "pass-private.h"

/* Fails unless 1 ≤ N_IDS ≤ the model's positions and every id is in the vocabulary; WHAT names
 * the ids in messages ("the source", "the decoder input"). */
static gboolean
check_side (const AsConfig *c, const int32_t *ids, int n_ids, const char *what, GError **error)
{
  if (n_ids <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "no tokens to run: %s is empty", what);
      return FALSE;
    }
  if (n_ids > c->n_positions)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has %d tokens but the model has %d positions; shorten it", what, n_ids,
                   c->n_positions);
      return FALSE;
    }
  for (int i = 0; i < n_ids; i++)
    if (ids[i] < 0 || ids[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "%s: token id %d at position %d is outside the vocabulary (0..%d)", what,
                     ids[i], i, c->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

guint64
as_forward_translation_bytes (const AsModel *model, int n_src, int n_tgt,
                              const AsForwardOptions *options)
{
  const AsConfig *c = as_model_get_config (model);
  AsForwardOptions encoder_options = { .attention = options != NULL ? options->attention : 0 };
  return as_pass_bytes (c->ops->encoder, c, n_src, 0, &encoder_options)
         + as_pass_bytes (c->ops->stack, c, n_tgt, n_src, options)
         + (guint64) c->n_layer * c->n_head * n_tgt * n_src * sizeof (float);
}

/* OPTIONS as the pass runs them: when the automatic choice's traces would not fit the memory
 * budget, both stacks keep their self-attention on demand (SCRATCH holds those options), as
 * as_forward does for one stack. */
static const AsForwardOptions *
fit_attention (AsModel *model, int n_src, int n_tgt, const AsForwardOptions *options,
               AsForwardOptions *scratch)
{
  if (!as_forward_options_automatic (options)
      || as_forward_translation_bytes (model, n_src, n_tgt, options) <= as_forward_budget (model))
    return options;
  *scratch = as_forward_options_on_demand (options);
  return scratch;
}

/* Fails with AS_ERROR_MEMORY, naming both sizes, when the two traces, the cross-attention and
 * the scratch would not fit. */
static gboolean
check_memory (AsModel *model, int n_src, int n_tgt, const AsForwardOptions *options, GError **error)
{
  guint64 bytes = as_forward_translation_bytes (model, n_src, n_tgt, options);
  guint64 budget = as_forward_budget (model);
  if (bytes <= budget)
    return TRUE;
  g_autofree char *need = g_format_size (bytes);
  g_autofree char *have = g_format_size (budget);
  g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
               "A forward pass over %d source and %d target tokens needs %s of memory but only "
               "%s are available; use shorter texts",
               n_src, n_tgt, need, have);
  return FALSE;
}

/* Both traces' special-token ids, for the head statistics: </s> (the generation config's
 * eos_token_id) plays [SEP]'s part, <pad> (the decoder's start token) [PAD]'s; Marian has no
 * [CLS] or [MASK]. */
static void
set_special_ids (AsModel *model, AsTrace *trace)
{
  const AsGenerationConfig *g = as_model_get_generation_config (model);
  int32_t special[AS_N_SPECIAL] = { -1, -1, -1, -1 };
  special[AS_SPECIAL_SEP] = g->eos_token_id;
  special[AS_SPECIAL_PAD] = g->pad_token_id;
  for (AsTrace *t = trace; t != NULL; t = t->source)
    memcpy (t->special_ids, special, sizeof t->special_ids);
}

/* The caller's progress callback told of both stacks' layers as one count: the encoder's Le,
 * then the decoder's L, out of Le + L. */
typedef struct
{
  AsForwardProgress outer;
  gpointer outer_data;
  int offset; /* layers of the stacks before the one running */
  int total;  /* Le + L */
} Progress;

static void
progress_shifted (int done, int total, gpointer user_data)
{
  (void) total;
  Progress *p = user_data;
  p->outer (p->offset + done, p->total, p->outer_data);
}

/* Points ENCODER's and DECODER's progress at PROGRESS when OPTIONS ask to be told. */
static void
progress_wrap (Progress *progress, const AsForwardOptions *options, const AsConfig *c,
               AsForwardOptions *encoder, AsForwardOptions *decoder)
{
  if (options->progress == NULL)
    return;
  *progress
      = (Progress){ options->progress, options->progress_data, 0, c->n_encoder_layer + c->n_layer };
  encoder->progress = decoder->progress = progress_shifted;
  encoder->progress_data = decoder->progress_data = progress;
}

gboolean
as_translation_positions_removable (const AsConfig *c, GError **error)
{
  /* Marian's sinusoids and BART's learned table are added to the embeddings and can be left
   * out; T5 has no position embeddings: its positions are a relative bias inside every
   * attention (its bucketed distances), which leaving out would change the attention itself. */
  if (g_strcmp0 (c->family, "t5") != 0)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "--no-positions: T5 has no position embeddings to leave out (its positions are the "
               "relative attention bias of every layer)");
  return FALSE;
}

AsTrace *
as_forward_translation (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt,
                        int n_tgt, const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!c->encoder_decoder)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is not an encoder–decoder model: it takes one text, not a source and a "
                   "target",
                   as_model_get_name (model));
      return NULL;
    }
  if (options != NULL && options->intervention != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is a translation model: ablation and patching are not available for its "
                   "encoder and decoder",
                   as_model_get_name (model));
      return NULL;
    }
  if (options != NULL && options->no_positions && !as_translation_positions_removable (c, error))
    return NULL;
  if (!check_side (c, src, n_src, "the source", error)
      || !check_side (c, tgt, n_tgt, "the decoder input", error))
    return NULL;
  AsForwardOptions fitted;
  options = fit_attention (model, n_src, n_tgt, options, &fitted);
  if (!check_memory (model, n_src, n_tgt, options, error))
    return NULL;
  gconstpointer weights = as_model_get_weights (model);
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  AsForwardOptions encoder_options = { 0 };
  AsForwardOptions decoder_options = { 0 };
  Progress progress = { 0 };
  if (options != NULL)
    {
      encoder_options.cancellable = options->cancellable;
      encoder_options.attention = options->attention;
      encoder_options.no_positions = options->no_positions; /* both stacks leave them out */
      decoder_options = *options;
      progress_wrap (&progress, options, c, &encoder_options, &decoder_options);
    }
  g_autoptr (AsTrace) source = as_pass_run (c->ops->encoder, c, weights, tokenizer, src, n_src,
                                            NULL, &encoder_options, error);
  if (source == NULL)
    return NULL;
  progress.offset = c->n_encoder_layer;
  AsTrace *trace = as_pass_run (c->ops->stack, c, weights, tokenizer, tgt, n_tgt, source,
                                &decoder_options, error);
  if (trace != NULL)
    set_special_ids (model, trace);
  return trace;
}

/* TEXT's ids (naming it WHAT in messages), on the target side for TARGET. */
static GArray *
encode_side (AsModel *model, const char *text, const char *what, gboolean target, GError **error)
{
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty", what);
      return NULL;
    }
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL)
    return NULL;
  g_autoptr (GArray) ids = target ? as_tokenizer_encode_target (tokenizer, text, -1, error)
                                  : as_tokenizer_encode (tokenizer, text, -1, error);
  if (ids == NULL)
    return NULL;
  if (ids->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s gives no tokens", what);
      return NULL;
    }
  return g_steal_pointer (&ids);
}

AsTrace *
as_forward_translation_text (AsModel *model, const char *source, const char *target,
                             const AsForwardOptions *options, GError **error)
{
  g_return_val_if_fail (model != NULL && source != NULL && target != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  if (!c->encoder_decoder)
    return as_forward_translation (model, NULL, 0, NULL, 0, options, error);
  g_autoptr (GArray) src = encode_side (model, source, "the source text", FALSE, error);
  if (src == NULL)
    return NULL;
  g_autoptr (GArray) tgt = encode_side (model, target, "the target text", TRUE, error);
  if (tgt == NULL)
    return NULL;
  if (c->decoder_start_token_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: config.json has no decoder_start_token_id to start the target with",
                   as_model_get_name (model));
      return NULL;
    }
  int32_t start = c->decoder_start_token_id;
  g_array_prepend_val (tgt, start);
  return as_forward_translation (model, &g_array_index (src, int32_t, 0), (int) src->len,
                                 &g_array_index (tgt, int32_t, 0), (int) tgt->len, options, error);
}
