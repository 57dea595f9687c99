/* gemma.c — the `gemma` family: Google's Gemma 2 (model_type gemma2) and Gemma 3's text model
 * (gemma3_text). config.json keys and weight names: core/families/README.md ("Gemma 2 and Gemma
 * 3").
 *
 * The shared rotary decoder (decoder-forward.c) with Gemma's values: embeddings times float32
 * √D, RMSNorm with weight 1 + w (the binding keeps 1 + w, computed in float32 as HF does), norms
 * after the attention and the MLP as well as before (post_norms), GeGLU with the tanh gelu,
 * scores scaled by query_pre_attn_scalar^-½, a sliding window on the layers layer_types names
 * (else Gemma 2: every other layer from layer 0; Gemma 3: all but every sliding_window_pattern-th),
 * Gemma 2's soft-caps of the scores and of the final logits, Gemma 3's per-head q/k norms and
 * its second RoPE (rope_local_base_freq) on the sliding layers. */
#include "decoder-private.h"

#include <math.h>

#include "as-error.h"

static const char *const gemma_model_types[] = { "gemma2", "gemma3_text", NULL };

/* A soft-cap KEY: absent means DEFAULT_CAP (0: none), null none; otherwise it must be > 0. */
static gboolean
read_softcap (const AsConfigReader *r, const char *key, double default_cap, float *out,
              GError **error)
{
  double cap = default_cap;
  if (json_object_has_member (r->obj, key) && as_config_reader_member (r, key) == NULL)
    cap = 0.0;
  else if (as_config_reader_member (r, key) != NULL)
    {
      if (!as_config_reader_double (r, key, default_cap, -1e9, 1e9, &cap, error))
        return FALSE;
      if (!(cap > 0.0))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: key '%s' is %g; a soft-cap must be a positive number (or null for "
                       "none)",
                       r->path, key, cap);
          return FALSE;
        }
    }
  *out = (float) cap;
  return TRUE;
}

/* The sliding layers: layer_types when given, else the model type's pattern. */
static gboolean
read_windows (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r, gboolean gemma3,
              GError **error)
{
  int window = 0, pattern = 6;
  if (!as_config_reader_int (r, "sliding_window", TRUE, 4096, 1, AS_CONFIG_MAX_POSITIONS, &window,
                             error)
      || !as_config_reader_int (r, "sliding_window_pattern", TRUE, 6, 1, AS_CONFIG_MAX_LAYERS,
                                &pattern, error))
    return FALSE;
  g_autofree gboolean *slides = g_new (gboolean, c->n_layer);
  for (int l = 0; l < c->n_layer; l++)
    slides[l] = gemma3 ? (l + 1) % pattern != 0 : (l + 1) % 2 != 0;
  return as_decoder_read_layer_windows (s, c, r, window, slides, error);
}

/* R with its rope_parameters replaced by NODE (transformers 5's per-layer-type RoPE), for
 * as_decoder_read_rope; NULL object when NODE is NULL. */
static JsonObject *
rope_only (JsonNode *node)
{
  JsonObject *o = json_object_new ();
  json_object_set_member (o, "rope_parameters", json_node_copy (node));
  return o;
}

/* Gemma 3's two RoPEs: full_attention layers rope_theta (default 1e6) with rope_scaling, sliding
 * ones rope_local_base_freq (default 10000) unscaled; transformers 5 writes both in
 * rope_parameters {full_attention: {...}, sliding_attention: {...}}. */
static gboolean
read_gemma3_ropes (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r, GError **error)
{
  AsDecoderRopeKeys keys
      = { .theta_key = "rope_theta", .rotary_dim = c->head_dim, .default_theta = 1e6 };
  JsonNode *params = as_config_reader_member (r, "rope_parameters");
  JsonObject *nested
      = params != NULL && JSON_NODE_HOLDS_OBJECT (params)
                && json_object_has_member (json_node_get_object (params), "full_attention")
            ? json_node_get_object (params)
            : NULL;
  AsDecoderSettings local = { 0 };
  gboolean ok;
  if (nested != NULL)
    {
      JsonObject *full = rope_only (json_object_get_member (nested, "full_attention"));
      AsConfigReader rf = { r->path, full };
      ok = as_decoder_read_rope (s, c, &rf, &keys, error);
      json_object_unref (full);
      JsonNode *sliding = json_object_get_member (nested, "sliding_attention");
      if (ok && sliding != NULL)
        {
          JsonObject *lo = rope_only (sliding);
          AsConfigReader rl = { r->path, lo };
          AsDecoderRopeKeys lk = { .theta_key = "rope_theta", .rotary_dim = c->head_dim };
          ok = as_decoder_read_rope (&local, c, &rl, &lk, error);
          json_object_unref (lo);
        }
      else
        local.rope
            = (AsRope){ .type = AS_ROPE_DEFAULT, .theta = 10000.0, .rotary_dim = c->head_dim };
    }
  else
    {
      ok = as_decoder_read_rope (s, c, r, &keys, error);
      local.rope = (AsRope){ .type = AS_ROPE_DEFAULT, .rotary_dim = c->head_dim };
      ok = ok
           && as_config_reader_double (r, "rope_local_base_freq", 10000.0, 1e-6, 1e12,
                                       &local.rope.theta, error);
    }
  s->rope_local = local.rope; /* takes its factors, if any */
  return ok;
}

static gboolean
gemma_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  const char *type = NULL;
  if (!as_config_reader_string (r, "model_type", &type, error))
    return FALSE;
  gboolean gemma3 = g_str_equal (type, "gemma3_text");
  if (!as_decoder_read_sizes (c, r, gemma3 ? 131072 : 8192, "rms_norm_eps", 1e-6f, AS_ACT_GELU_NEW,
                              error)
      || !as_config_reader_activation (r, "hidden_activation", AS_ACT_GELU_NEW, &c->activation,
                                       error)
      || !as_decoder_read_kv_heads (c, r, 4, error) || !as_decoder_read_head_dim (c, r, 256, error))
    return FALSE;
  AsDecoderSettings *s = g_new0 (AsDecoderSettings, 1);
  c->settings = s;
  as_decoder_settings_init (s, c); /* gated MLP, sequential */
  s->norm = AS_DECODER_RMSNORM_PLUS_ONE;
  s->post_norms = TRUE;
  s->qk_norm = gemma3 ? AS_DECODER_QK_NORM_RMS : AS_DECODER_QK_NORM_NONE;
  s->embed_scale = (float) sqrt ((double) c->n_embd); /* torch.tensor(D**0.5), float32 */
  double scalar = 256.0;
  gboolean bias = FALSE;
  if (!as_config_reader_bool (r, "tie_word_embeddings", TRUE, &s->tie, error)
      || !as_config_reader_bool (r, "attention_bias", FALSE, &bias, error)
      || !as_config_reader_double (r, "query_pre_attn_scalar", 256.0, 1e-6, 1e12, &scalar, error)
      || !read_softcap (r, "attn_logit_softcapping", gemma3 ? 0.0 : 50.0, &s->attn_softcap, error)
      || !read_softcap (r, "final_logit_softcapping", gemma3 ? 0.0 : 30.0, &s->logit_softcap, error)
      || !read_windows (s, c, r, gemma3, error))
    return FALSE;
  s->biases = bias ? AS_DECODER_BIAS_QKV | AS_DECODER_BIAS_O : 0;
  s->attn_scale = (float) pow (scalar, -0.5); /* query_pre_attn_scalar**-0.5 */
  if (!gemma3)
    {
      AsDecoderRopeKeys keys = { .theta_key = "rope_theta", .rotary_dim = c->head_dim };
      return as_decoder_read_rope (s, c, r, &keys, error);
    }
  if (!read_gemma3_ropes (s, c, r, error))
    return FALSE;
  s->local = g_new0 (guint8, c->n_layer);
  for (int l = 0; l < c->n_layer; l++)
    s->local[l] = s->windows[l] > 0;
  return TRUE;
}

/* The norm weight NAME of LAYER as Gemma applies it: 1 + w in float32 (owned by W). */
static const float *
bind_norm (AsTensorBinder *b, AsDecoderWeights *w, int layer, const char *name, int64_t n)
{
  const float *stored = as_decoder_bind_vector (b, layer, name, n, TRUE);
  if (stored == NULL)
    return NULL;
  float *plus = g_new (float, n);
  for (int64_t i = 0; i < n; i++)
    plus[i] = 1.0f + stored[i];
  g_ptr_array_add (w->owned, plus);
  return plus;
}

static gpointer
gemma_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params,
                    GError **error)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  gboolean qkv_bias = (s->biases & AS_DECODER_BIAS_QKV) != 0;
  gboolean o_bias = (s->biases & AS_DECODER_BIAS_O) != 0;
  gboolean qk_norm = s->qk_norm == AS_DECODER_QK_NORM_RMS;
  int64_t D = c->n_embd, F = c->n_inner, V = c->vocab_size, hd = c->head_dim;
  int64_t Q = (int64_t) c->n_head * hd, KV = (int64_t) c->n_kv_head * hd;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsDecoderWeights *w = g_new0 (AsDecoderWeights, 1);
  w->layers = g_new0 (AsDecoderLayer, c->n_layer);
  w->owned = g_ptr_array_new_with_free_func (g_free);

  w->embed = as_decoder_bind_matrix (&b, -1, "embed_tokens.weight", V, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsDecoderLayer *y = &w->layers[l];
      y->norm1_w = bind_norm (&b, w, l, "input_layernorm.weight", D);
      y->q = as_decoder_bind_matrix (&b, l, "self_attn.q_proj.weight", Q, D);
      y->q_b = as_decoder_bind_vector (&b, l, "self_attn.q_proj.bias", Q, qkv_bias);
      y->k = as_decoder_bind_matrix (&b, l, "self_attn.k_proj.weight", KV, D);
      y->k_b = as_decoder_bind_vector (&b, l, "self_attn.k_proj.bias", KV, qkv_bias);
      y->v = as_decoder_bind_matrix (&b, l, "self_attn.v_proj.weight", KV, D);
      y->v_b = as_decoder_bind_vector (&b, l, "self_attn.v_proj.bias", KV, qkv_bias);
      if (qk_norm)
        {
          y->q_norm_w = bind_norm (&b, w, l, "self_attn.q_norm.weight", hd);
          y->k_norm_w = bind_norm (&b, w, l, "self_attn.k_norm.weight", hd);
        }
      y->o = as_decoder_bind_matrix (&b, l, "self_attn.o_proj.weight", D, Q);
      y->o_b = as_decoder_bind_vector (&b, l, "self_attn.o_proj.bias", D, o_bias);
      y->post_attn_w = bind_norm (&b, w, l, "post_attention_layernorm.weight", D);
      y->norm2_w = bind_norm (&b, w, l, "pre_feedforward_layernorm.weight", D);
      y->gate = as_decoder_bind_matrix (&b, l, "mlp.gate_proj.weight", F, D);
      y->up = as_decoder_bind_matrix (&b, l, "mlp.up_proj.weight", F, D);
      y->down = as_decoder_bind_matrix (&b, l, "mlp.down_proj.weight", D, F);
      y->post_mlp_w = bind_norm (&b, w, l, "post_feedforward_layernorm.weight", D);
    }
  w->norm_w = bind_norm (&b, w, -1, "norm.weight", D);
  return as_decoder_bind_finish (&b, w, s, "lm_head.weight", c, n_params);
}

/* Older checkpoints' saved rotary buffers, and the output matrix a tied model may repeat. */
static const char *const gemma_unused_ok[] = { "*.rotary_emb.inv_freq", "lm_head.weight", NULL };

const AsFamily as_family_gemma = {
  .name = "gemma",
  .model_types = gemma_model_types,
  .read_config = gemma_read_config,
  .free_settings = as_decoder_free_settings,
  .count_weights = as_decoder_count_weights,
  .load_tokenizer = as_decoder_load_tokenizer,
  .tokenizer_optional = TRUE,
  .bind_weights = gemma_bind_weights,
  .free_weights = as_decoder_free_weights,
  .unused_ok = gemma_unused_ok,
  .layers_key = "num_hidden_layers",
  .describe = as_decoder_describe,
  .stack = &as_decoder_stack,
};
