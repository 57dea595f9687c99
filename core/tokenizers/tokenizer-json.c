/* tokenizer-json.c — reading a Hugging Face tokenizer.json (as-tokenizer.h).
 *
 * The file (src/tokenizer/serialization.rs): {"version", "truncation", "padding",
 * "added_tokens", "normalizer", "pre_tokenizer", "model", "post_processor", "decoder"}. Each
 * component is read by its own module; messages name the JSON path of the component at fault.
 * "truncation" and "padding" are ignored: transformers' tokenizer(text) applies neither unless
 * asked. tokenizer_config.json (with special_tokens_map.json for the token strings) can change
 * the special tokens a sequence gets: the Llama, Code Llama, Gemma and GPT-NeoX fast tokenizers of
 * transformers rebuild their post-processor from add_bos_token / add_eos_token
 * (tokenization_llama_fast.py, update_post_processor), so attnscope does the same for those
 * tokenizer classes when the flags are given. */
#include "tokenizer-hf-private.h"

#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "json-file-private.h"
#include "tokenizer-config-private.h"

/* The component at member NAME of ROOT read with READ, or NULL (absent or null, or an error). */
#define READ_COMPONENT(root, name, read, out, error)                                               \
  G_STMT_START                                                                                     \
  {                                                                                                \
    AsHfJson _c = { as_hf_json_member (root, name), (root)->file, name };                          \
    if (_c.node != NULL && ((out) = read (&_c, error)) == NULL)                                    \
      return FALSE;                                                                                \
  }                                                                                                \
  G_STMT_END

static gboolean
read_components (AsHfTokenizer *hf, const AsHfJson *root, GError **error)
{
  READ_COMPONENT (root, "normalizer", as_hf_normalizer_read, hf->normalizer, error);
  READ_COMPONENT (root, "pre_tokenizer", as_hf_pretokenizer_read, hf->pretokenizer, error);
  AsHfJson model = { as_hf_json_member (root, "model"), root->file, "model" };
  if (model.node == NULL)
    return as_hf_json_fail (root, error, "missing \"model\"");
  hf->model = as_hf_model_read (&model, error);
  if (hf->model == NULL)
    return FALSE;
  hf->added = as_hf_added_new ();
  AsHfJson added = { as_hf_json_member (root, "added_tokens"), root->file, "added_tokens" };
  if (!as_hf_added_read (hf->added, &added, hf->normalizer, hf->model, error))
    return FALSE;
  as_hf_added_index (hf->added);
  READ_COMPONENT (root, "post_processor", as_hf_postprocessor_read, hf->postprocessor, error);
  READ_COMPONENT (root, "decoder", as_hf_decoder_read, hf->decoder, error);
  return TRUE;
}

/* The whole vocabulary: the model's, then the added tokens (which win, as in HF). An added
 * token's id names its normalized form when it has one (HF's id_to_token: "▁<s>" for a
 * Llama-2 "<s>" with "normalized": true), and its content names its id. */
static void
fill_vocabulary (AsTokenizer *tokenizer)
{
  const AsHfTokenizer *hf = tokenizer->data;
  const AsHfModel *model = hf->model;
  as_tokenizer_init_vocabulary (tokenizer);
  tokenizer->extra_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_set_size (tokenizer->id_to_token, model->id_to_token->len);
  for (guint i = 0; i < model->id_to_token->len; i++)
    {
      const char *t = g_ptr_array_index (model->id_to_token, i);
      if (t == NULL)
        continue;
      char *copy = g_strdup (t);
      g_ptr_array_index (tokenizer->id_to_token, i) = copy;
      if (!g_hash_table_contains (tokenizer->token_to_id, copy))
        g_hash_table_insert (tokenizer->token_to_id, copy, GINT_TO_POINTER ((int32_t) i));
    }
  const GArray *added = as_hf_added_get_tokens (hf->added);
  for (guint i = 0; i < added->len; i++)
    {
      const AsHfAddedToken *t = &g_array_index (added, AsHfAddedToken, i);
      if ((guint) t->id >= tokenizer->id_to_token->len)
        g_ptr_array_set_size (tokenizer->id_to_token, (guint) t->id + 1);
      char *old = g_ptr_array_index (tokenizer->id_to_token, t->id);
      if (old != NULL
          && g_hash_table_lookup (tokenizer->token_to_id, old) == GINT_TO_POINTER (t->id))
        g_hash_table_remove (tokenizer->token_to_id, old);
      g_free (old); /* no longer a key of token_to_id: its key pointer is its own copy */
      char *name = g_strdup (t->normalized != NULL ? t->normalized : t->content);
      g_ptr_array_index (tokenizer->id_to_token, t->id) = name;
      if (t->normalized != NULL)
        {
          g_ptr_array_add (tokenizer->extra_names, g_strdup (t->content));
          g_hash_table_replace (
              tokenizer->token_to_id,
              g_ptr_array_index (tokenizer->extra_names, tokenizer->extra_names->len - 1),
              GINT_TO_POINTER (t->id));
        }
      else
        g_hash_table_replace (tokenizer->token_to_id, name, GINT_TO_POINTER (t->id));
    }
}

static gboolean
names_a_token (int32_t id, gpointer data)
{
  return as_tokenizer_get_token (data, id) != NULL;
}

/* Every id the post-processor adds must name a token: an id past the vocabulary would index
 * past the model's embedding table (a fuzzed file had a template token with id 3 in a
 * vocabulary of 3). */
static gboolean
check_postprocessor_ids (AsTokenizer *tokenizer, GError **error)
{
  const AsHfTokenizer *hf = tokenizer->data;
  int32_t id = as_hf_postprocessor_find_unknown_id (hf->postprocessor, names_a_token, tokenizer);
  if (id < 0)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "%s: post_processor: the special token id %d is not in the vocabulary (%d ids)",
               as_tokenizer_get_source (tokenizer), id, as_tokenizer_get_vocab_size (tokenizer));
  return FALSE;
}

/* update_post_processor: "bos? $A eos?" and "bos? $A eos? bos? $B:1 eos?:1". */
static gboolean
rebuild_postprocessor (AsTokenizer *tokenizer, const AsTokenizerConfig *config, GError **error)
{
  if (config->add_bos < 0 && config->add_eos < 0)
    return TRUE;
  gboolean bos = config->add_bos > 0, eos = config->add_eos > 0;
  int32_t ids[2] = { -1, -1 };
  const char *names[2]
      = { config->role_tokens[AS_TOKENIZER_ROLE_BOS], config->role_tokens[AS_TOKENIZER_ROLE_EOS] };
  gboolean wanted[2] = { bos, eos };
  for (guint i = 0; i < 2; i++)
    {
      if (!wanted[i])
        continue;
      ids[i] = names[i] != NULL ? as_tokenizer_lookup (tokenizer, names[i]) : -1;
      if (ids[i] < 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "tokenizer_config.json: %s is true but the %s token \"%s\" is not in "
                       "the vocabulary",
                       i == 0 ? "add_bos_token" : "add_eos_token", i == 0 ? "bos" : "eos",
                       names[i] != NULL ? names[i] : "(none)");
          return FALSE;
        }
    }
  AsHfTokenizer *hf = tokenizer->data;
  g_clear_pointer (&hf->postprocessor, as_hf_postprocessor_free);
  hf->postprocessor = as_hf_postprocessor_new_template (ids[0], ids[1]);
  return TRUE;
}

AsTokenizer *
as_tokenizer_load_json (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_VOCABULARY_BYTES, error);
  if (root == NULL)
    return NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_hf_new (path, g_new0 (AsHfTokenizer, 1));
  AsHfJson json = { root, path, "(root)" };
  if (!read_components (tokenizer->data, &json, error))
    return NULL;
  fill_vocabulary (tokenizer);
  if (!check_postprocessor_ids (tokenizer, error))
    return NULL;
  g_autofree char *folder = g_path_get_dirname (path);
  AsTokenizerConfig config;
  gboolean ok = as_tokenizer_config_read (&config, folder, error)
                && rebuild_postprocessor (tokenizer, &config, error);
  as_tokenizer_config_clear (&config);
  return ok ? as_tokenizer_finish (g_steal_pointer (&tokenizer), error) : NULL;
}
