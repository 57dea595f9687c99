/* model.c — loads a model folder (as-model.h): config.json, the tokenizer, the weights.
 *
 * The folder is found by model-locate.c. config.json names the model family
 * (family-private.h), which loads its tokenizer; the weights come from tf_model.h5 (preferred),
 * model.safetensors, or a sharded model.safetensors.index.json into one tensor store, the family
 * binds its weights to the store by name with the exact shapes config.json implies (a Keras store
 * reads each weight only then), and every weight bound is checked for NaN/Inf. Tensors the
 * family left unbound and does not expect (extra layers, unknown names) become one warning, or an
 * error when loading strictly; too few layers are an error of the binding itself. A pickle
 * (pytorch_model.bin) is never loaded. A loaded model is immutable and reference counted. */
#include "as-model.h"

#include <string.h>

#include <unistd.h>

#include "as-error.h"
#include "family-private.h"
#include "generation-config-private.h"
#include "file-read-private.h"
#include "json-file-private.h"
#include "model-private.h"

struct _AsModel
{
  gint ref_count;
  AsConfig config;
  AsTokenizer *tokenizer;
  AsTensorStore *store;
  gpointer weights; /* the family's weights struct, pointing into store */
  char *path;
  char *name;
  char *weights_path;
  char *weights_dtype;
  char *no_tokenizer; /* why the model has no tokenizer (ids only), else NULL */
  char *warning;      /* what loaded but deserves a word (unused weights), else NULL */
  int64_t n_params;
  AsGenerationConfig *generation;    /* encoder–decoder models: how they translate */
  int32_t special_ids[AS_N_SPECIAL]; /* -1 when absent */
};

/* FOLDER/NAME when it exists (whatever it is: the reader refuses what is not a regular file),
 * else NULL. */
static char *
model_file (const char *folder, const char *name)
{
  char *path = g_build_filename (folder, name, NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_free (path);
  return NULL;
}

/* The message for a folder without a weight file attnscope reads: pickles are named with their
 * safer alternative. */
static void
model_no_weights_error (const char *folder, GError **error)
{
  const char *pickles[]
      = { "pytorch_model.bin", "pytorch_model.bin.index.json", "model.pt", "consolidated.00.pth" };
  for (gsize i = 0; i < G_N_ELEMENTS (pickles); i++)
    {
      g_autofree char *pickle = model_file (folder, pickles[i]);
      if (pickle == NULL)
        continue;
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has only %s, a Python pickle, which attnscope never loads (unpickling can "
                   "run any code); download the model's model.safetensors (or its sharded "
                   "model-0000k-of-0000n.safetensors with model.safetensors.index.json) instead",
                   folder, pickles[i]);
      return;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
               "%s has no weight file (looked for tf_model.h5, model.safetensors and "
               "model.safetensors.index.json)",
               folder);
}

/* Opens tf_model.h5, else model.safetensors, else the sharded model.safetensors.index.json. A
 * Keras store reads a weight only when the family binds it (model_bind_weights). */
static gboolean
model_load_weights (AsModel *model, GError **error)
{
  const char *names[] = { "tf_model.h5", "model.safetensors", "model.safetensors.index.json" };
  for (gsize i = 0; i < G_N_ELEMENTS (names) && model->weights_path == NULL; i++)
    model->weights_path = model_file (model->path, names[i]);
  if (model->weights_path == NULL)
    {
      model_no_weights_error (model->path, error);
      return FALSE;
    }
  const char *path = model->weights_path;
  if (g_str_has_suffix (path, ".h5"))
    model->store = as_tensor_store_open_keras_h5 (path, error);
  else if (g_str_has_suffix (path, ".index.json"))
    model->store = as_tensor_store_load_safetensors_index (path, error);
  else
    model->store = as_tensor_store_load_safetensors (path, error);
  if (model->store == NULL)
    return FALSE;
  model->weights_dtype = as_tensor_store_dup_dtype_summary (model->store);
  return TRUE;
}

/* The family's tokenizer; fails when it holds more tokens than config.json's vocab_size. */
static gboolean
model_load_tokenizer (AsModel *model, GError **error)
{
  GError *local = NULL;
  model->tokenizer = model->config.ops->load_tokenizer (model->path, &model->config, &local);
  if (model->tokenizer == NULL)
    {
      /* a family whose models run on token ids alone accepts a folder without tokenizer files */
      if (!model->config.ops->tokenizer_optional
          || !g_error_matches (local, AS_ERROR, AS_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      model->no_tokenizer = g_strdup (local->message);
      g_error_free (local);
      return TRUE;
    }
  int n_tokens = as_tokenizer_get_vocab_size (model->tokenizer);
  if (n_tokens > model->config.vocab_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s has %d tokens but config.json says vocab_size is %d",
                   as_tokenizer_get_source (model->tokenizer), n_tokens, model->config.vocab_size);
      return FALSE;
    }
  for (int i = 0; i < AS_N_SPECIAL; i++)
    {
      const char *token = model->config.special_tokens[i];
      model->special_ids[i] = token != NULL ? as_tokenizer_lookup (model->tokenizer, token) : -1;
    }
  return TRUE;
}

/* The generation settings of an encoder–decoder model (generation-config-private.h). */
static gboolean
model_load_generation (AsModel *model, GError **error)
{
  if (!model->config.encoder_decoder)
    return TRUE;
  model->generation = g_new0 (AsGenerationConfig, 1);
  return as_generation_config_load (model->generation, model->path, &model->config, error);
}

/* Whether NAME matches one of the family's PATTERNS of tensors it leaves unbound on purpose. */
static gboolean
expected_unused (const char *const *patterns, const char *name)
{
  for (const char *const *p = patterns; p != NULL && *p != NULL; p++)
    if (g_pattern_match_simple (*p, name))
      return TRUE;
  return FALSE;
}

/* NAME for a message: at most 120 characters (a Keras name may have 4,096 bytes). */
static void
append_name (GString *out, const char *name)
{
  if (!g_utf8_validate (name, -1, NULL) || g_utf8_strlen (name, -1) <= 120)
    {
      g_string_append (out, name);
      return;
    }
  g_autofree char *cut = g_utf8_substring (name, 0, 119);
  g_string_append_printf (out, "%s…", cut);
}

/* "; num_hidden_layers is 2", "; encoder_layers is 2, decoder_layers is 3", or "" (owned). */
static char *
layers_note (const AsConfig *c)
{
  const AsFamily *ops = c->ops;
  if (ops->layers_key == NULL)
    return g_strdup ("");
  if (ops->encoder_layers_key == NULL)
    return g_strdup_printf ("; %s is %d", ops->layers_key, c->n_layer);
  return g_strdup_printf ("; %s is %d, %s is %d", ops->encoder_layers_key, c->n_encoder_layer,
                          ops->layers_key, c->n_layer);
}

/* Binds the family's weights (reading them), then checks that every weight read is finite; an
 * encoder learns from them whether it has its masked-LM head. A weight that is not there is
 * often a layer config.json counts and the file lacks: the message ends with the layer count. */
static gboolean
model_bind_weights (AsModel *model, GError **error)
{
  const AsFamily *ops = model->config.ops;
  GError *local = NULL;
  model->weights = ops->bind_weights (&model->config, model->store, &model->n_params, &local);
  as_tensor_store_close_source (model->store);
  if (local != NULL && g_error_matches (local, AS_ERROR, AS_ERROR_NOT_FOUND))
    {
      g_autofree char *layers = layers_note (&model->config);
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "%s%s", local->message, layers);
      g_error_free (local);
      return FALSE;
    }
  if (local != NULL)
    g_propagate_error (error, local);
  if (model->weights == NULL || !as_tensor_store_check_finite (model->store, error))
    return FALSE;
  model->config.masked_lm
      = ops->has_masked_lm_head != NULL && ops->has_masked_lm_head (model->weights);
  return TRUE;
}

/* A Keras name without its first component, the layer's group ("mlm___cls/"), or NULL. */
static const char *
keras_variable (const char *name)
{
  const char *slash = strchr (name, '/');
  return slash != NULL ? slash + 1 : NULL;
}

/* The variables of the used tensors of a Keras file (keras_variable), as a set (owned; NULL for
 * other files). Keras saves a variable that several layers share under each layer's group: a
 * BERT masked-LM file holds the word embeddings under bert/ and again under mlm___cls/, whose
 * decoder is tied to them. */
static GHashTable *
keras_used_variables (const AsModel *model)
{
  if (!g_str_has_suffix (model->weights_path, ".h5"))
    return NULL;
  GHashTable *used = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = as_tensor_store_get_n_tensors (model->store);
  for (guint i = 0; i < n; i++)
    {
      const AsTensor *t = as_tensor_store_get_nth (model->store, i);
      const char *variable = keras_variable (t->name);
      if (t->used && variable != NULL)
        g_hash_table_add (used, (gpointer) variable);
    }
  return used;
}

/* The tensors of the weight files that the family neither bound nor expects to leave unbound, as
 * one message naming how many and the first three; NULL when there are none. */
static char *
model_unused_weights (const AsModel *model)
{
  guint n = as_tensor_store_get_n_tensors (model->store), unused = 0;
  g_autoptr (GString) names = g_string_new (NULL);
  g_autoptr (GHashTable) keras_used = keras_used_variables (model);
  for (guint i = 0; i < n; i++)
    {
      const AsTensor *t = as_tensor_store_get_nth (model->store, i);
      const char *variable = keras_variable (t->name);
      if (t->used || expected_unused (model->config.ops->unused_ok, t->name)
          || (keras_used != NULL && variable != NULL
              && g_hash_table_contains (keras_used, variable)))
        continue;
      if (unused < 3)
        {
          g_string_append (names, unused > 0 ? ", " : "");
          append_name (names, t->name);
        }
      unused++;
    }
  if (unused == 0)
    return NULL;
  g_autofree char *layers = layers_note (&model->config);
  gboolean index = g_str_has_suffix (model->weights_path, ".index.json");
  return g_strdup_printf ("%s %s %u tensor%s the config does not use (%s%s)%s", model->weights_path,
                          index ? "lists" : "has", unused, unused == 1 ? "" : "s", names->str,
                          unused > 3 ? ", …" : "", layers);
}

/* Reports the weights the config does not use: MODEL's warning, or an error when STRICT. */
static gboolean
model_check_unused (AsModel *model, gboolean strict, GError **error)
{
  char *message = model_unused_weights (model);
  if (message == NULL || !strict)
    {
      model->warning = message;
      return TRUE;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s; loading strictly, weights the config does not use are an error", message);
  g_free (message);
  return FALSE;
}

AsModel *
as_model_load (const char *spec, GError **error)
{
  return as_model_load_with (spec, AS_MODEL_LOAD_DEFAULT, error);
}

AsModel *
as_model_load_with (const char *spec, AsModelLoadFlags flags, GError **error)
{
  g_autofree char *path = as_model_resolve_path (spec, error);
  if (path == NULL)
    return NULL;
  g_autofree char *config_path = g_build_filename (path, "config.json", NULL);
  if (!g_file_test (config_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no config.json (is it a Hugging Face model folder?)", path);
      return NULL;
    }

  g_autoptr (AsModel) model = g_new0 (AsModel, 1);
  model->ref_count = 1;
  model->name = as_model_display_name (
      spec != NULL && *spec != '\0' ? spec : as_model_default_name (), path);
  model->path = g_steal_pointer (&path);
  /* tokenizer first (cheap), then the weights */
  if (!as_config_load (&model->config, config_path, error)
      || !as_config_check_memory (&model->config, config_path, error)
      || !model_load_tokenizer (model, error) || !model_load_generation (model, error)
      || !model_load_weights (model, error) || !model_bind_weights (model, error)
      || !model_check_unused (model, (flags & AS_MODEL_LOAD_STRICT) != 0, error))
    return NULL;
  return g_steal_pointer (&model);
}

/* config.json's model_type, or NULL when the file or the key is missing (owned). */
static char *
folder_model_type (const char *config_path)
{
  g_autoptr (JsonNode) root = as_json_load_object_file (config_path, AS_LIMIT_CONFIG_BYTES, NULL);
  if (root == NULL)
    return NULL;
  JsonNode *type = json_object_get_member (json_node_get_object (root), "model_type");
  if (type == NULL || !JSON_NODE_HOLDS_VALUE (type)
      || json_node_get_value_type (type) != G_TYPE_STRING)
    return NULL;
  return g_strdup (json_node_get_string (type));
}

AsTokenizer *
as_model_load_tokenizer (const char *spec, GError **error)
{
  g_autofree char *path = as_model_resolve_path (
      spec != NULL && *spec != '\0' ? spec : as_model_default_name (), error);
  if (path == NULL)
    return NULL;
  g_autofree char *config_path = g_build_filename (path, "config.json", NULL);
  g_autofree char *type = folder_model_type (config_path);
  if (type == NULL || as_family_find (type) == NULL)
    return as_tokenizer_load_folder (path, error);
  AsConfig config = { 0 };
  if (!as_config_load (&config, config_path, error))
    return NULL;
  AsTokenizer *tokenizer = config.ops->load_tokenizer (path, &config, error);
  as_config_clear (&config);
  return tokenizer;
}

AsModel *
as_model_ref (AsModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_atomic_int_inc (&model->ref_count);
  return model;
}

void
as_model_unref (AsModel *model)
{
  if (model == NULL || !g_atomic_int_dec_and_test (&model->ref_count))
    return;
  if (model->weights != NULL)
    model->config.ops->free_weights (model->weights);
  if (model->generation != NULL)
    as_generation_config_clear (model->generation);
  g_free (model->generation);
  as_config_clear (&model->config);
  g_clear_pointer (&model->tokenizer, as_tokenizer_free);
  g_clear_pointer (&model->store, as_tensor_store_free);
  g_free (model->path);
  g_free (model->name);
  g_free (model->weights_path);
  g_free (model->weights_dtype);
  g_free (model->no_tokenizer);
  g_free (model->warning);
  g_free (model);
}

const AsConfig *
as_model_get_config (const AsModel *model)
{
  return &model->config;
}

AsTokenizer *
as_model_get_tokenizer (const AsModel *model)
{
  return model->tokenizer;
}

const AsGenerationConfig *
as_model_get_generation_config (const AsModel *model)
{
  return model->generation;
}

gconstpointer
as_model_get_weights (const AsModel *model)
{
  return model->weights;
}

const char *
as_model_get_path (const AsModel *model)
{
  return model->path;
}

const char *
as_model_get_name (const AsModel *model)
{
  return model->name;
}

const char *
as_model_get_weights_path (const AsModel *model)
{
  return model->weights_path;
}

int64_t
as_model_get_n_params (const AsModel *model)
{
  return model->n_params;
}

const char *
as_model_get_weights_dtype (const AsModel *model)
{
  return model->weights_dtype;
}

guint64
as_model_get_mapped_bytes (const AsModel *model)
{
  return as_tensor_store_get_mapped_bytes (model->store);
}

const char *
as_model_get_warning (const AsModel *model)
{
  return model->warning;
}

const char *
as_model_get_no_tokenizer_reason (const AsModel *model)
{
  return model->no_tokenizer;
}

AsTokenizer *
as_model_require_tokenizer (const AsModel *model, GError **error)
{
  if (model->tokenizer == NULL)
    g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                 "model %s runs on token ids only (%s); give token ids instead of text",
                 as_model_get_name (model), model->no_tokenizer);
  return model->tokenizer;
}

int32_t
as_model_get_special_id (const AsModel *model, AsSpecialToken which)
{
  g_return_val_if_fail ((guint) which < AS_N_SPECIAL, -1);
  return model->special_ids[which];
}
