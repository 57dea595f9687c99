/* marian.c — the `marian` family: config.json keys, the tokenizer, weight names.
 *
 * Weight names (core/families/README.md, "Marian"): Keras (tf_model.h5, TFMarianMTModel) — the
 * shared embedding model.shared/model.shared/embeddings:0 (older files …/weight:0), under the class
 * scope tf_marian_mt_model/model/ the stacks encoder/… and decoder/… with layers.N/… and
 * embed_positions/embeddings:0, and final_logits_bias:0 in a group of its own; safetensors
 * (MarianMTModel) — model.shared.weight, model.{encoder,decoder}.layers.N.…, optional
 * model.{encoder,decoder}.embed_positions.weight and final_logits_bias. Keras kernels are
 * [in, out]; nn.Linear weights [out, in]. The passes are marian-forward.c and marian-step.c. */
#include "marian-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"
#include "positional-private.h"
#include "tensor-bind-private.h"

static const char *const marian_model_types[] = { "marian", NULL };

/* Reads the keys of one stack: SIDE ("encoder", "decoder") + _layers, _attention_heads and
 * _ffn_dim. */
static gboolean
read_stack (const AsConfigReader *r, const char *side, int *layers, int *heads, int *ffn,
            GError **error)
{
  g_autofree char *k_layers = g_strdup_printf ("%s_layers", side);
  g_autofree char *k_heads = g_strdup_printf ("%s_attention_heads", side);
  g_autofree char *k_ffn = g_strdup_printf ("%s_ffn_dim", side);
  return as_config_reader_int (r, k_layers, FALSE, 0, 1, AS_CONFIG_MAX_LAYERS, layers, error)
         && as_config_reader_int (r, k_heads, FALSE, 0, 1, AS_CONFIG_MAX_HEADS, heads, error)
         && as_config_reader_int (r, k_ffn, FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, ffn, error);
}

/* A key MarianConfig has whose other values attnscope does not compute. */
static gboolean
require_true (const AsConfigReader *r, const char *key, const char *why, GError **error)
{
  gboolean value;
  if (!as_config_reader_bool (r, key, TRUE, &value, error))
    return FALSE;
  if (!value)
    g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: %s is false (%s); not supported", r->path,
                 key, why);
  return value;
}

/* The token ids the config names, each -1 when absent and otherwise inside the vocabulary. */
static gboolean
read_ids (AsConfig *c, AsMarianSettings *s, const AsConfigReader *r, GError **error)
{
  int max_id = AS_CONFIG_MAX_VOCAB;
  if (!as_config_reader_int (r, "decoder_start_token_id", TRUE, -1, 0, max_id,
                             &c->decoder_start_token_id, error)
      || !as_config_reader_int (r, "pad_token_id", TRUE, -1, 0, max_id, &s->pad_token_id, error)
      || !as_config_reader_int (r, "forced_eos_token_id", TRUE, -1, 0, max_id,
                                &s->forced_eos_token_id, error))
    return FALSE;
  const int ids[] = { c->decoder_start_token_id, s->pad_token_id, s->forced_eos_token_id };
  const char *const keys[] = { "decoder_start_token_id", "pad_token_id", "forced_eos_token_id" };
  for (gsize i = 0; i < G_N_ELEMENTS (ids); i++)
    if (ids[i] >= c->vocab_size)
      {
        g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                     "%s: %s %d is outside the vocabulary (vocab_size %d)", r->path, keys[i],
                     ids[i], c->vocab_size);
        return FALSE;
      }
  return TRUE;
}

gboolean
as_marian_read_common (AsConfig *c, AsMarianSettings *s, const AsConfigReader *r, GError **error)
{
  gboolean scale;
  if (!as_config_reader_int (r, "d_model", FALSE, 0, 2, AS_CONFIG_MAX_WIDTH, &c->n_embd, error)
      || !as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                error)
      || !as_config_reader_int (r, "max_position_embeddings", FALSE, 0, 1, AS_CONFIG_MAX_POSITIONS,
                                &c->n_positions, error)
      || !read_stack (r, "decoder", &c->n_layer, &c->n_head, &c->n_inner, error)
      || !read_stack (r, "encoder", &c->n_encoder_layer, &c->n_encoder_head, &c->encoder_n_inner,
                      error)
      /* MarianConfig's, BartConfig's and MBartConfig's defaults: gelu, no embedding scale */
      || !as_config_reader_activation (r, "activation_function", AS_ACT_GELU, &c->activation, error)
      || !as_config_reader_bool (r, "scale_embedding", FALSE, &scale, error)
      || !read_ids (c, s, r, error)
      || !require_true (r, "tie_word_embeddings",
                        "the output matrix would not be the shared embedding", error))
    return FALSE;
  for (int side = 0; side < 2; side++)
    {
      int heads = side == 0 ? c->n_encoder_head : c->n_head;
      if (c->n_embd % heads != 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: d_model (%d) is not divisible by %s_attention_heads (%d)", r->path,
                       c->n_embd, side == 0 ? "encoder" : "decoder", heads);
          return FALSE;
        }
    }
  c->head_dim = c->n_embd / c->n_head;
  c->layer_norm_eps = AS_MARIAN_LN_EPS;
  s->embed_scale = scale ? sqrtf ((float) c->n_embd) : 1.0f;
  return TRUE;
}

static gboolean
marian_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsMarianSettings *s = g_new0 (AsMarianSettings, 1);
  c->settings = s;
  c->encoder_decoder = TRUE;
  c->causal_lm = FALSE;
  return as_marian_read_common (c, s, r, error)
         && require_true (r, "share_encoder_decoder_embeddings",
                          "the decoder would have a vocabulary of its own", error);
}

/* Weights the configuration implies, in floats: HF's num_parameters (the shared embedding once,
 * both sinusoid tables, every layer; final_logits_bias is a buffer, not a parameter). */
static guint64
marian_count_weights (const AsConfig *c)
{
  guint64 D = c->n_embd, V = c->vocab_size, P = c->n_positions;
  guint64 attention = 4 * (D * D + D);
  guint64 fe = c->encoder_n_inner, fd = c->n_inner;
  guint64 encoder = attention + 2 * D + D * fe + fe + fe * D + D + 2 * D;
  guint64 decoder = 2 * attention + 4 * D + D * fd + fd + fd * D + D + 2 * D;
  return V * D + 2 * P * D + c->n_encoder_layer * encoder + c->n_layer * decoder;
}

static AsTokenizer *
marian_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_marian (folder, error);
}

/* --- binding ------------------------------------------------------------------------------- */

typedef struct
{
  AsTensorBinder b;
  gboolean keras;
  const char *prefix; /* "encoder/layers.0/" or "encoder.layers.0." */
} Binder;

static const float *
bind (Binder *bd, const char *keras_name, const char *st_name, int64_t d0, int64_t d1)
{
  g_autofree char *suffix = g_strconcat (bd->prefix, bd->keras ? keras_name : st_name, NULL);
  return as_tensor_binder_get (&bd->b, suffix, d0, d1);
}

/* NAME (the module, e.g. "fc1") as [IN][OUT] Keras kernel or [OUT][IN] PyTorch weight, and its
 * bias. */
static AsMarianLinear
bind_linear (Binder *bd, const char *name, int64_t in, int64_t out)
{
  g_autofree char *k_w = g_strdup_printf ("%s/kernel:0", name);
  g_autofree char *k_b = g_strdup_printf ("%s/bias:0", name);
  g_autofree char *s_w = g_strdup_printf ("%s.weight", name);
  g_autofree char *s_b = g_strdup_printf ("%s.bias", name);
  AsMarianLinear lin = { .transposed = !bd->keras };
  lin.w = bd->keras ? bind (bd, k_w, s_w, in, out) : bind (bd, k_w, s_w, out, in);
  lin.b = bind (bd, k_b, s_b, out, 0);
  return lin;
}

static AsMarianNorm
bind_norm (Binder *bd, const char *name, int64_t d)
{
  g_autofree char *k_g = g_strdup_printf ("%s/gamma:0", name);
  g_autofree char *k_b = g_strdup_printf ("%s/beta:0", name);
  g_autofree char *s_g = g_strdup_printf ("%s.weight", name);
  g_autofree char *s_b = g_strdup_printf ("%s.bias", name);
  return (AsMarianNorm){ bind (bd, k_g, s_g, d, 0), bind (bd, k_b, s_b, d, 0) };
}

static AsMarianAttentionWeights
bind_attention (Binder *bd, const char *name, int64_t d)
{
  char sub[64];
  AsMarianAttentionWeights a;
  g_snprintf (sub, sizeof sub, "%s%sq_proj", name, bd->keras ? "/" : ".");
  a.q = bind_linear (bd, sub, d, d);
  g_snprintf (sub, sizeof sub, "%s%sk_proj", name, bd->keras ? "/" : ".");
  a.k = bind_linear (bd, sub, d, d);
  g_snprintf (sub, sizeof sub, "%s%sv_proj", name, bd->keras ? "/" : ".");
  a.v = bind_linear (bd, sub, d, d);
  g_snprintf (sub, sizeof sub, "%s%sout_proj", name, bd->keras ? "/" : ".");
  a.out = bind_linear (bd, sub, d, d);
  return a;
}

/* The position table of SIDE ("encoder"/"decoder") from position 0's row on. BART's is learned:
 * the file's [P + offset][D], rows 0..offset-1 never used. Marian's sinusoids: the file's table
 * when it has one (Hugging Face loads it over the formula, TF and PyTorch alike), else the
 * formula into OWNED [P][D]. */
static const float *
bind_positions (Binder *bd, const AsMarianSettings *set, const char *side, int64_t p, int64_t d,
                float *owned)
{
  g_autofree char *k = g_strdup_printf ("%s/embed_positions/embeddings:0", side);
  g_autofree char *s = g_strdup_printf ("%s.embed_positions.weight", side);
  int64_t off = set->position_offset;
  bd->prefix = "";
  if (set->learned_positions)
    {
      const float *table = bind (bd, k, s, p + off, d);
      return table != NULL ? table + off * d : NULL;
    }
  if (as_tensor_store_find_suffix (bd->b.store, bd->keras ? k : s) != NULL)
    return bind (bd, k, s, p, d);
  as_positional_encodings (owned, 0, (int) p, (int) d, AS_POSITIONAL_SPLIT_HALVES);
  return owned;
}

static void
bind_stack (Binder *bd, AsMarianStack *st, const char *side, const AsConfig *c, gboolean decoder)
{
  const AsMarianSettings *set = c->settings;
  int64_t D = c->n_embd, F = st->n_inner;
  st->layers = g_new0 (AsMarianLayer, st->n_layer);
  const char *sep = bd->keras ? "/" : ".";
  g_autofree char *stack_prefix = g_strdup_printf ("%s%s", side, sep);
  bd->prefix = stack_prefix;
  if (set->embedding_norm)
    st->embed_norm = bind_norm (bd, "layernorm_embedding", D);
  if (set->norm_place == AS_MARIAN_PRE_NORM)
    st->final_norm = bind_norm (bd, "layer_norm", D);
  for (int l = 0; l < st->n_layer; l++)
    {
      g_autofree char *prefix = g_strdup_printf ("%s%slayers.%d%s", side, sep, l, sep);
      bd->prefix = prefix;
      AsMarianLayer *y = &st->layers[l];
      y->self_attn = bind_attention (bd, "self_attn", D);
      y->self_attn_norm = bind_norm (bd, "self_attn_layer_norm", D);
      if (decoder)
        {
          y->cross_attn = bind_attention (bd, "encoder_attn", D);
          y->cross_attn_norm = bind_norm (bd, "encoder_attn_layer_norm", D);
        }
      y->fc1 = bind_linear (bd, "fc1", D, F);
      y->fc2 = bind_linear (bd, "fc2", F, D);
      y->final_norm = bind_norm (bd, "final_layer_norm", D);
    }
}

/* The shared embedding: Keras embeddings:0 (or weight:0 before transformers 4.27); safetensors
 * model.shared.weight, or one of its tied copies when a file kept only those. */
static const float *
bind_shared (Binder *bd, int64_t v, int64_t d)
{
  static const char *const keras[] = { "model.shared/embeddings:0", "model.shared/weight:0" };
  static const char *const st[] = { "model.shared.weight", "model.encoder.embed_tokens.weight",
                                    "model.decoder.embed_tokens.weight", "lm_head.weight" };
  const char *const *names = bd->keras ? keras : st;
  gsize n = bd->keras ? G_N_ELEMENTS (keras) : G_N_ELEMENTS (st);
  bd->prefix = "";
  for (gsize i = 1; i < n; i++)
    if (as_tensor_store_find_suffix (bd->b.store, names[0]) == NULL
        && as_tensor_store_find_suffix (bd->b.store, names[i]) != NULL)
      return as_tensor_binder_get (&bd->b, names[i], v, d);
  return as_tensor_binder_get (&bd->b, names[0], v, d); /* or the error naming it */
}

void
as_marian_free_weights (gpointer weights)
{
  AsMarianWeights *w = weights;
  if (w == NULL)
    return;
  g_free (w->encoder.layers);
  g_free (w->decoder.layers);
  g_free (w->owned);
  g_free (w);
}

gpointer
as_marian_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params,
                        GError **error)
{
  const AsMarianSettings *set = c->settings;
  int64_t D = c->n_embd, V = c->vocab_size, P = c->n_positions;
  Binder bd = { .b = as_tensor_binder_init (store, error), .prefix = "" };
  bd.keras = as_tensor_binder_is_keras (&bd.b);
  AsMarianWeights *w = g_new0 (AsMarianWeights, 1);
  w->encoder = (AsMarianStack){ c->n_encoder_layer, c->n_encoder_head, c->encoder_n_inner };
  w->decoder = (AsMarianStack){ c->n_layer, c->n_head, c->n_inner };
  /* [2][P][D] computed sinusoids, then [V] zero bias */
  w->owned = g_try_new0 (float, (gsize) (2 * P * D + V));
  if (w->owned == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate the position tables");
      as_marian_free_weights (w);
      return NULL;
    }

  w->shared = bind_shared (&bd, V, D);
  w->encoder.positions = bind_positions (&bd, set, "encoder", P, D, w->owned);
  w->decoder.positions = bind_positions (&bd, set, "decoder", P, D, w->owned + P * D);
  bind_stack (&bd, &w->encoder, "encoder", c, FALSE);
  bind_stack (&bd, &w->decoder, "decoder", c, TRUE);

  /* final_logits_bias: absent from files written before September 2022 (zero then) */
  bd.prefix = "";
  const char *bias_name = bd.keras ? "final_logits_bias:0" : "final_logits_bias";
  int64_t bias_params = 0;
  if (!bd.b.failed && as_tensor_store_find_suffix (store, bias_name) != NULL)
    {
      w->final_logits_bias = as_tensor_binder_get (&bd.b, bias_name, V, 0);
      bias_params = V;
    }
  else
    w->final_logits_bias = w->owned + 2 * P * D;
  if (bd.b.failed)
    {
      as_marian_free_weights (w);
      return NULL;
    }
  /* as HF counts: both sinusoid tables whether stored or computed, the bias not at all */
  int64_t stored_positions = 0;
  for (int side = 0; side < 2 && !set->learned_positions; side++)
    {
      const float *table = side == 0 ? w->encoder.positions : w->decoder.positions;
      if (table != w->owned + side * P * D)
        stored_positions += P * D;
    }
  *n_params
      += bd.b.n_params - bias_params - stored_positions + (set->learned_positions ? 0 : 2 * P * D);
  return w;
}

const AsMarianWeights *
as_marian_weights (const AsModel *model)
{
  return as_model_get_weights (model);
}

const AsMarianSettings *
as_marian_settings (const AsConfig *config)
{
  return config->settings;
}

/* The tied copies of the shared embedding that safetensors files may hold beside it (the binding
 * takes one of them). */
static const char *const marian_unused_ok[] = { "*embed_tokens.weight", "lm_head.weight", NULL };

const AsFamily as_family_marian = {
  .name = "marian",
  .model_types = marian_model_types,
  .read_config = marian_read_config,
  .free_settings = g_free,
  .count_weights = marian_count_weights,
  .load_tokenizer = marian_load_tokenizer,
  .bind_weights = as_marian_bind_weights,
  .free_weights = as_marian_free_weights,
  .unused_ok = marian_unused_ok,
  .layers_key = "decoder_layers",
  .encoder_layers_key = "encoder_layers",
  .stack = &as_marian_decoder_stack,
  .encoder = &as_marian_encoder_stack,
  .step_decoder_new = as_marian_step_decoder_new,
};
