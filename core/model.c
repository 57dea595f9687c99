/* model.c — loads a model folder (as-model.h): config.json, the tokenizer, the weights.
 *
 * The folder is found by model-locate.c. Weights come from tf_model.h5 (preferred) or
 * model.safetensors into one tensor store; every weight is checked for NaN/Inf, then bound to
 * the architecture's weight struct by name suffix with the exact shapes config.json implies
 * (FORMATS.md §2 for the Keras names, §5 for the safetensors names). A loaded model is immutable
 * and reference counted. */
#include "as-model.h"

#include <string.h>

#include "as-error.h"
#include "model-private.h"
#include "tensor-store-private.h"
#include "toy-attention.h"

struct _AsModel
{
  gint ref_count;
  AsConfig config;
  AsTokenizer *tokenizer;
  AsTensorStore *store;
  AsGpt2Weights gpt2;
  AsGpt2Layer *gpt2_layers; /* [L], gpt2.layers points here */
  AsToyWeights toy;
  char *path;
  char *name;
  char *weights_path;
  int64_t n_params;
};

/* Binds tensors by suffix, with the Keras or the safetensors spelling of each name. */
typedef struct
{
  const AsTensorStore *store;
  gboolean keras;
  int64_t n_params;
  GError **error;
  gboolean failed;
} Binder;

/* SHAPE with the size-1 dimensions dropped, so (1, D) and (D,) compare equal. */
static int
squeeze_shape (int64_t *out, int ndim, const int64_t *shape)
{
  int n = 0;
  for (int i = 0; i < ndim; i++)
    if (shape[i] != 1)
      out[n++] = shape[i];
  return n;
}

/* Requires the tensor whose name ends with KERAS_NAME (or ST_NAME for safetensors), prefixed
 * by the block "h_._N/" or "h.N." when LAYER >= 0, with shape (D0) or (D0, D1). Besides the
 * element count, the shape must be the expected one up to size-1 dimensions: a transposed
 * matrix has the right count but would silently compute something else. */
static const float *
bind (Binder *b, int layer, const char *keras_name, const char *st_name, int64_t d0, int64_t d1)
{
  if (b->failed)
    return NULL;
  const char *name = b->keras ? keras_name : st_name;
  g_autofree char *suffix = layer < 0  ? g_strdup (name)
                            : b->keras ? g_strdup_printf ("h_._%d/%s", layer, name)
                                       : g_strdup_printf ("h.%d.%s", layer, name);
  /* Newer exports name the token embedding like the position one. */
  if (b->keras && g_str_equal (suffix, "wte/weight:0")
      && as_tensor_store_find_suffix (b->store, suffix) == NULL
      && as_tensor_store_find_suffix (b->store, "wte/embeddings:0") != NULL)
    {
      g_free (suffix);
      suffix = g_strdup ("wte/embeddings:0");
    }

  int64_t shape[2] = { d0, d1 };
  int ndim = d1 > 0 ? 2 : 1;
  const float *data = as_tensor_store_require (b->store, suffix, ndim, shape, b->error);
  if (data == NULL)
    {
      b->failed = TRUE;
      return NULL;
    }
  const AsTensor *t = as_tensor_store_find_suffix (b->store, suffix);
  int64_t want[AS_TENSOR_MAX_DIMS], got[AS_TENSOR_MAX_DIMS];
  int nw = squeeze_shape (want, ndim, shape), ng = squeeze_shape (got, t->ndim, t->shape);
  if (nw != ng || memcmp (want, got, (gsize) nw * sizeof (int64_t)) != 0)
    {
      g_autofree char *s_got = as_tensor_shape_to_string (t->ndim, t->shape);
      g_autofree char *s_want = as_tensor_shape_to_string (ndim, shape);
      g_set_error (b->error, AS_ERROR, AS_ERROR_SHAPE,
                   "%s: %s '%s' has shape %s, expected %s from config.json",
                   as_tensor_store_get_path (b->store), as_tensor_store_noun (b->store), t->name,
                   s_got, s_want);
      b->failed = TRUE;
      return NULL;
    }
  b->n_params += t->n_elements;
  return data;
}

static gboolean
bind_gpt2 (AsModel *model, GError **error)
{
  const AsConfig *c = &model->config;
  int64_t D = c->n_embd, F = c->n_inner;
  Binder b = { .store = model->store,
               .keras = g_str_has_suffix (model->weights_path, ".h5"),
               .error = error };
  AsGpt2Weights *w = &model->gpt2;
  model->gpt2_layers = g_new0 (AsGpt2Layer, c->n_layer);
  w->layers = model->gpt2_layers;

  w->wte = bind (&b, -1, "wte/weight:0", "wte.weight", c->vocab_size, D);
  w->wpe = bind (&b, -1, "wpe/embeddings:0", "wpe.weight", c->n_positions, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsGpt2Layer *y = &w->layers[l];
      y->ln1_g = bind (&b, l, "ln_1/gamma:0", "ln_1.weight", D, 0);
      y->ln1_b = bind (&b, l, "ln_1/beta:0", "ln_1.bias", D, 0);
      y->attn_w = bind (&b, l, "attn/c_attn/weight:0", "attn.c_attn.weight", D, 3 * D);
      y->attn_b = bind (&b, l, "attn/c_attn/bias:0", "attn.c_attn.bias", 3 * D, 0);
      y->proj_w = bind (&b, l, "attn/c_proj/weight:0", "attn.c_proj.weight", D, D);
      y->proj_b = bind (&b, l, "attn/c_proj/bias:0", "attn.c_proj.bias", D, 0);
      y->ln2_g = bind (&b, l, "ln_2/gamma:0", "ln_2.weight", D, 0);
      y->ln2_b = bind (&b, l, "ln_2/beta:0", "ln_2.bias", D, 0);
      y->fc_w = bind (&b, l, "mlp/c_fc/weight:0", "mlp.c_fc.weight", D, F);
      y->fc_b = bind (&b, l, "mlp/c_fc/bias:0", "mlp.c_fc.bias", F, 0);
      y->fc2_w = bind (&b, l, "mlp/c_proj/weight:0", "mlp.c_proj.weight", F, D);
      y->fc2_b = bind (&b, l, "mlp/c_proj/bias:0", "mlp.c_proj.bias", D, 0);
    }
  w->lnf_g = bind (&b, -1, "ln_f/gamma:0", "ln_f.weight", D, 0);
  w->lnf_b = bind (&b, -1, "ln_f/beta:0", "ln_f.bias", D, 0);
  model->n_params = b.n_params;
  return !b.failed;
}

/* FOLDER/NAME when it exists, else NULL. */
static char *
model_file (const char *folder, const char *name)
{
  char *path = g_build_filename (folder, name, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return path;
  g_free (path);
  return NULL;
}

/* Loads tf_model.h5, or model.safetensors when there is no tf_model.h5, and checks that every
 * weight is finite. */
static gboolean
model_load_weights (AsModel *model, GError **error)
{
  g_autofree char *h5 = model_file (model->path, "tf_model.h5");
  g_autofree char *st = h5 == NULL ? model_file (model->path, "model.safetensors") : NULL;
  if (h5 == NULL && st == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no weight file (looked for tf_model.h5 and model.safetensors)",
                   model->path);
      return FALSE;
    }
  model->weights_path = g_strdup (h5 != NULL ? h5 : st);
  model->store = h5 != NULL ? as_tensor_store_load_keras_h5 (h5, error)
                            : as_tensor_store_load_safetensors (st, error);
  return model->store != NULL && as_tensor_store_check_finite (model->store, error);
}

/* FALSE when the tokenizer did not load, or when VOCAB (its vocabulary file) holds more tokens
 * than config.json's vocab_size. */
static gboolean
tokenizer_fits (AsModel *model, const char *vocab, GError **error)
{
  if (model->tokenizer == NULL)
    return FALSE;
  int n_tokens = as_tokenizer_get_vocab_size (model->tokenizer);
  if (n_tokens > model->config.vocab_size)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s has %d tokens but config.json says vocab_size is %d", vocab, n_tokens,
                   model->config.vocab_size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
model_load_bpe_tokenizer (AsModel *model, GError **error)
{
  g_autofree char *vocab = model_file (model->path, "vocab.json");
  g_autofree char *merges = model_file (model->path, "merges.txt");
  if (vocab == NULL || merges == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no %s (the GPT-2 tokenizer needs vocab.json and merges.txt)",
                   model->path, vocab == NULL ? "vocab.json" : "merges.txt");
      return FALSE;
    }
  model->tokenizer = as_tokenizer_load_bpe (vocab, merges, error);
  return tokenizer_fits (model, vocab, error);
}

/* The toy models' word-level vocabulary (toy-attention.h). */
static gboolean
model_load_words_tokenizer (AsModel *model, GError **error)
{
  g_autofree char *vocab = model_file (model->path, "vocab.json");
  if (vocab == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s has no vocab.json (the word-level tokenizer of toy-attention needs it)",
                   model->path);
      return FALSE;
    }
  model->tokenizer = as_tokenizer_load_words (vocab, error);
  return tokenizer_fits (model, vocab, error);
}

static gboolean
model_load_toy (AsModel *model, GError **error)
{
  if (!model_load_words_tokenizer (model, error) || !model_load_weights (model, error)
      || !as_toy_attention_bind_weights (&model->toy, &model->config, model->store, error))
    return FALSE;
  model->n_params = as_toy_attention_count_params (&model->config);
  return TRUE;
}

/* The architecture-specific part: tokenizer first (cheap), then the weights. */
static gboolean
model_load_arch (AsModel *model, GError **error)
{
  switch (model->config.arch)
    {
    case AS_ARCH_GPT2:
      return model_load_bpe_tokenizer (model, error) && model_load_weights (model, error)
             && bind_gpt2 (model, error);

    case AS_ARCH_TOY_ATTENTION:
      return model_load_toy (model, error);

    default:
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s/config.json: unsupported architecture",
                   model->path);
      return FALSE;
    }
}

AsModel *
as_model_load (const char *spec, GError **error)
{
  g_autofree char *path = as_model_resolve_path (spec, error);
  if (path == NULL)
    return NULL;
  g_autofree char *config_path = g_build_filename (path, "config.json", NULL);
  if (!g_file_test (config_path, G_FILE_TEST_IS_REGULAR))
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
  if (!as_config_load (&model->config, config_path, error) || !model_load_arch (model, error))
    return NULL;
  return g_steal_pointer (&model);
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
  as_config_clear (&model->config);
  g_clear_pointer (&model->tokenizer, as_tokenizer_free);
  g_clear_pointer (&model->store, as_tensor_store_free);
  g_free (model->gpt2_layers);
  g_free (model->path);
  g_free (model->name);
  g_free (model->weights_path);
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

const AsGpt2Weights *
as_model_get_gpt2_weights (const AsModel *model)
{
  return model->config.arch == AS_ARCH_GPT2 ? &model->gpt2 : NULL;
}

const AsToyWeights *
as_model_get_toy_weights (const AsModel *model)
{
  return model->config.arch == AS_ARCH_TOY_ATTENTION ? &model->toy : NULL;
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
