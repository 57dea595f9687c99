/* translate.c — translation with an encoder–decoder model (as-translate.h): the request checked
 * against the model and its generation settings, the family's step decoder, the search
 * (generate.c) and the decoded text. */
#include "as-translate.h"

#include <math.h>

#include "as-error.h"
#include "as-forward.h"
#include "family-private.h"
#include "generate-private.h"

void
as_translation_free (AsTranslation *translation)
{
  if (translation == NULL)
    return;
  g_clear_pointer (&translation->source_ids, g_array_unref);
  g_clear_pointer (&translation->ids, g_array_unref);
  g_free (translation->text);
  g_free (translation);
}

/* The settings of a search with OPTIONS over the model's generation config G. */
static gboolean
search_settings (AsSearchSettings *s, const AsModel *model, const AsGenerationConfig *g,
                 const AsTranslateOptions *options, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  *s = (AsSearchSettings){
    .num_beams = options != NULL && options->num_beams > 0 ? options->num_beams : g->num_beams,
    .max_length = options != NULL && options->max_length > 0 ? options->max_length : g->max_length,
    .min_length = g->min_length,
    .start = g->decoder_start_token_id,
    .eos = g->eos_token_id,
    .forced_eos = g->forced_eos_token_id,
    .forced_bos = g->forced_bos_token_id,
    .no_repeat_ngram = g->no_repeat_ngram_size,
    .bad_words = g->bad_words,
    .length_penalty = g->length_penalty,
    .early_stopping = g->early_stopping,
    .renormalize = g->renormalize_logits,
    .cancellable = options != NULL ? options->cancellable : NULL,
  };
  if (s->start < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: no decoder_start_token_id to start the translation with", g->source);
      return FALSE;
    }
  if (s->num_beams > 1024)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%d beams are too many (at most 1024)",
                   s->num_beams);
      return FALSE;
    }
  if (s->max_length < 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "max_length %d leaves no room for a token after the start token; use 2 or more",
                   s->max_length);
      return FALSE;
    }
  if (s->max_length - 1 > c->n_positions)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "max_length %d needs %d decoder positions but the model has %d "
                   "(max_position_embeddings); use a max_length of at most %d",
                   s->max_length, s->max_length - 1, c->n_positions, c->n_positions + 1);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_source (const AsConfig *c, const int32_t *src, int n_src, GError **error)
{
  if (n_src <= 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "nothing to translate: the source is empty");
      return FALSE;
    }
  if (n_src > c->n_positions)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the source has %d tokens but the model has %d positions; shorten it", n_src,
                   c->n_positions);
      return FALSE;
    }
  for (int i = 0; i < n_src; i++)
    if (src[i] < 0 || src[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                     "the source: token id %d at position %d is outside the vocabulary (0..%d)",
                     src[i], i, c->vocab_size - 1);
        return FALSE;
      }
  return TRUE;
}

/* IDS decoded without the special tokens; NULL for a model loaded without a tokenizer. */
static char *
decode_text (const AsTokenizer *tokenizer, const GArray *ids)
{
  if (tokenizer == NULL)
    return NULL;
  g_autoptr (GArray) kept = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (guint i = 0; i < ids->len; i++)
    {
      int32_t id = g_array_index (ids, int32_t, i);
      if (!as_tokenizer_is_special (tokenizer, id))
        g_array_append_val (kept, id);
    }
  return as_tokenizer_decode (tokenizer, (const int32_t *) kept->data, kept->len);
}

AsTranslation *
as_translate (AsModel *model, const int32_t *src, int n_src, const AsTranslateOptions *options,
              GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  const AsGenerationConfig *g = as_model_get_generation_config (model);
  if (!c->encoder_decoder || g == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is not an encoder–decoder (translation) model", as_model_get_name (model));
      return NULL;
    }
  AsSearchSettings s;
  if (!search_settings (&s, model, g, options, error) || !check_source (c, src, n_src, error))
    return NULL;
  gboolean no_positions = options != NULL && options->no_positions;
  if (no_positions && !as_translation_positions_removable (c, error))
    return NULL;
  g_autoptr (AsStepDecoder) decoder = c->ops->step_decoder_new (
      model, src, n_src, s.num_beams, s.max_length - 1, no_positions, error);
  if (decoder == NULL)
    return NULL;
  double score = NAN;
  g_autoptr (GArray) ids = as_generate_search (decoder, &s, &score, error);
  if (ids == NULL)
    return NULL;

  AsTranslation *t = g_new0 (AsTranslation, 1);
  t->source_ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n_src);
  g_array_append_vals (t->source_ids, src, n_src);
  t->text = decode_text (as_model_get_tokenizer (model), ids);
  t->ids = g_steal_pointer (&ids);
  t->score = score;
  t->num_beams = s.num_beams;
  t->max_length = s.max_length;
  return t;
}

AsTranslation *
as_translate_text (AsModel *model, const char *text, const AsTranslateOptions *options,
                   GError **error)
{
  g_return_val_if_fail (model != NULL && text != NULL, NULL);
  if (*text == '\0')
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "nothing to translate: the text is empty");
      return NULL;
    }
  if (!as_model_get_config (model)->encoder_decoder)
    return as_translate (model, NULL, 0, options, error);
  if (as_model_get_tokenizer (model) == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s has no tokenizer files: give the source as token ids",
                   as_model_get_path (model));
      return NULL;
    }
  g_autoptr (GArray) src = as_tokenizer_encode (as_model_get_tokenizer (model), text, -1, error);
  if (src == NULL)
    return NULL;
  return as_translate (model, (const int32_t *) src->data, (int) src->len, options, error);
}
