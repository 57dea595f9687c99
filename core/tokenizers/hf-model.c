/* hf-model.c — tokenizer.json's models: the table of model types and the calls through it
 * (hf-model-private.h). Adding a type is adding its file and one line here. */
#include "hf-model-private.h"
#include "tokenizer-work-private.h"

#include <string.h>

extern const AsHfModelClass as_hf_model_bpe;
extern const AsHfModelClass as_hf_model_wordpiece;
extern const AsHfModelClass as_hf_model_wordlevel;
extern const AsHfModelClass as_hf_model_unigram;

/* In the order HF tries them for a file without "type" (models/mod.rs, ModelWrapper). */
static const AsHfModelClass *const types[] = {
  &as_hf_model_bpe,
  &as_hf_model_wordpiece,
  &as_hf_model_wordlevel,
  &as_hf_model_unigram,
};

/* The type of the model at JSON: its "type", else the first whose marker member it has. */
static const AsHfModelClass *
find_type (const AsHfJson *json, GError **error)
{
  const char *type = NULL;
  if (as_hf_json_object (json, error) == NULL
      || !as_hf_json_string (json, "type", NULL, &type, error))
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    {
      if (type != NULL && strcmp (type, types[i]->type) == 0)
        return types[i];
      if (type == NULL
          && (types[i]->marker == NULL || as_hf_json_member (json, types[i]->marker) != NULL))
        return types[i];
    }
  as_hf_json_fail (json, error, "unknown type \"%s\"", type);
  return NULL;
}

AsHfModel *
as_hf_model_read (const AsHfJson *json, GError **error)
{
  const AsHfModelClass *klass = find_type (json, error);
  if (klass == NULL)
    return NULL;
  g_autoptr (AsHfModel) model = as_hf_model_new (klass);
  if (!klass->read (model, json, error))
    return NULL;
  return g_steal_pointer (&model);
}

gboolean
as_hf_model_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids,
                      GError **error)
{
  if (length == 0)
    return TRUE;
  as_tokenizer_work_add (length);
  return model->klass->tokenize (model, piece, length, ids, error);
}

int32_t
as_hf_model_vocab_size (const AsHfModel *model)
{
  if (model->klass->vocab_size != NULL)
    return model->klass->vocab_size (model);
  return (int32_t) g_hash_table_size (model->token_to_id);
}
