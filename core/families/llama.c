/* llama.c — the `llama` family: model types llama (Llama 2/3, SmolLM2, TinyLlama), mistral,
 * qwen2 (Qwen2/2.5) and qwen3 (Qwen3). config.json keys and weight names: core/README.md ("Llama
 * family", "Qwen3").
 *
 * The four differ only in their config defaults and switches, read here: the number of
 * key/value heads when the key is missing (llama: the query heads; mistral 8; qwen2 and qwen3 32,
 * as their configuration classes), head_dim when missing (qwen3 128, the others D/H), biases
 * (qwen2 on q, k, v; llama with attention_bias / mlp_bias; qwen3 with attention_bias on q, k, v
 * and o), Qwen3's per-head RMSNorm of q and k (q_norm, k_norm), and the sliding window (mistral
 * on every layer unless sliding_window is null; qwen2 and qwen3 with use_sliding_window on the
 * layers layer_types or max_window_layers name). The forward pass is the shared rotary decoder
 * (decoder-forward.c). */
#include "decoder-private.h"

#include "as-error.h"

static const char *const llama_model_types[] = { "llama", "mistral", "qwen2", "qwen3", NULL };

/* Qwen2 and Qwen3 slide the same way (Qwen2Config, Qwen3Config). */
static gboolean
is_qwen (const char *type)
{
  return g_str_equal (type, "qwen2") || g_str_equal (type, "qwen3");
}

/* The sliding windows of mistral and qwen2 (llama has none). */
static gboolean
read_windows (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r, const char *type,
              GError **error)
{
  int window = 0;
  if (g_str_equal (type, "mistral"))
    {
      /* MistralConfig's default is 4096; null turns the window off */
      gboolean given = json_object_has_member (r->obj, "sliding_window");
      if (!as_config_reader_int (r, "sliding_window", TRUE, given ? 0 : 4096, 1,
                                 AS_CONFIG_MAX_POSITIONS, &window, error))
        return FALSE;
      for (int l = 0; l < c->n_layer; l++)
        s->windows[l] = window;
      return TRUE;
    }
  if (!is_qwen (type))
    return TRUE;
  gboolean use = FALSE;
  int max_window_layers = 28;
  if (!as_config_reader_bool (r, "use_sliding_window", FALSE, &use, error)
      || !as_config_reader_int (r, "sliding_window", TRUE, 4096, 1, AS_CONFIG_MAX_POSITIONS,
                                &window, error)
      || !as_config_reader_int (r, "max_window_layers", TRUE, 28, 0, AS_CONFIG_MAX_LAYERS,
                                &max_window_layers, error))
    return FALSE;
  /* Qwen2Config / Qwen3Config: sliding_window = sliding_window if use_sliding_window else None,
   * and an explicit null (Qwen3's hub configs write one) leaves no layer sliding */
  gboolean null_window = json_object_has_member (r->obj, "sliding_window")
                         && as_config_reader_member (r, "sliding_window") == NULL;
  if (!use || null_window)
    return TRUE;
  JsonNode *types = as_config_reader_member (r, "layer_types");
  JsonArray *list
      = types != NULL && JSON_NODE_HOLDS_ARRAY (types) ? json_node_get_array (types) : NULL;
  if (types != NULL && (list == NULL || (int) json_array_get_length (list) != c->n_layer))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key 'layer_types' must be a list of %d strings (one per layer)", r->path,
                   c->n_layer);
      return FALSE;
    }
  for (int l = 0; l < c->n_layer; l++)
    {
      gboolean slides = l >= max_window_layers;
      if (list != NULL)
        {
          const char *t = json_array_get_string_element (list, l);
          if (t == NULL
              || (!g_str_equal (t, "sliding_attention") && !g_str_equal (t, "full_attention")))
            {
              g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                           "%s: layer_types[%d] must be \"sliding_attention\" or "
                           "\"full_attention\"",
                           r->path, l);
              return FALSE;
            }
          slides = g_str_equal (t, "sliding_attention");
        }
      s->windows[l] = slides ? window : 0;
    }
  return TRUE;
}

static gboolean
llama_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  const char *type = NULL;
  if (!as_config_reader_string (r, "model_type", &type, error))
    return FALSE;
  gboolean qwen3 = g_str_equal (type, "qwen3");
  int default_positions = is_qwen (type) ? 32768 : g_str_equal (type, "mistral") ? 131072 : 2048;
  int default_kv = g_str_equal (type, "mistral") ? 8 : is_qwen (type) ? 32 : 0;
  if (!as_decoder_read_sizes (c, r, default_positions, "rms_norm_eps", 1e-6f, AS_ACT_SILU, error)
      || !as_decoder_read_kv_heads (c, r, default_kv > 0 ? default_kv : c->n_head, error)
      || !as_decoder_read_head_dim (c, r, qwen3 ? 128 : 0, error))
    return FALSE;

  AsDecoderSettings *s = g_new0 (AsDecoderSettings, 1);
  c->settings = s;
  as_decoder_settings_init (s, c); /* RMSNorm, separate q/k/v, gated MLP, sequential */
  gboolean attention_bias = FALSE, mlp_bias = FALSE;
  if (!as_config_reader_bool (r, "tie_word_embeddings", FALSE, &s->tie, error)
      || ((g_str_equal (type, "llama") || qwen3)
          && !as_config_reader_bool (r, "attention_bias", FALSE, &attention_bias, error))
      || (g_str_equal (type, "llama")
          && !as_config_reader_bool (r, "mlp_bias", FALSE, &mlp_bias, error)))
    return FALSE;
  s->biases = (g_str_equal (type, "qwen2") || attention_bias ? AS_DECODER_BIAS_QKV : 0)
              | (attention_bias ? AS_DECODER_BIAS_O : 0) | (mlp_bias ? AS_DECODER_BIAS_MLP : 0);
  s->qk_norm = qwen3 ? AS_DECODER_QK_NORM_RMS : AS_DECODER_QK_NORM_NONE;
  AsDecoderRopeKeys keys = { .theta_key = "rope_theta", .rotary_dim = c->head_dim };
  return as_decoder_read_rope (s, c, r, &keys, error) && read_windows (s, c, r, type, error);
}

static gpointer
llama_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params,
                    GError **error)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  gboolean qkv_bias = (s->biases & AS_DECODER_BIAS_QKV) != 0;
  gboolean o_bias = (s->biases & AS_DECODER_BIAS_O) != 0;
  gboolean mlp_bias = (s->biases & AS_DECODER_BIAS_MLP) != 0;
  gboolean qk_norm = s->qk_norm == AS_DECODER_QK_NORM_RMS;
  int64_t D = c->n_embd, F = c->n_inner, V = c->vocab_size, hd = c->head_dim;
  int64_t Q = (int64_t) c->n_head * c->head_dim, KV = (int64_t) c->n_kv_head * c->head_dim;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsDecoderWeights *w = g_new0 (AsDecoderWeights, 1);
  w->layers = g_new0 (AsDecoderLayer, c->n_layer);

  w->embed = as_decoder_bind_matrix (&b, -1, "embed_tokens.weight", V, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsDecoderLayer *y = &w->layers[l];
      y->norm1_w = as_decoder_bind_vector (&b, l, "input_layernorm.weight", D, TRUE);
      y->q = as_decoder_bind_matrix (&b, l, "self_attn.q_proj.weight", Q, D);
      y->q_b = as_decoder_bind_vector (&b, l, "self_attn.q_proj.bias", Q, qkv_bias);
      y->k = as_decoder_bind_matrix (&b, l, "self_attn.k_proj.weight", KV, D);
      y->k_b = as_decoder_bind_vector (&b, l, "self_attn.k_proj.bias", KV, qkv_bias);
      y->v = as_decoder_bind_matrix (&b, l, "self_attn.v_proj.weight", KV, D);
      y->v_b = as_decoder_bind_vector (&b, l, "self_attn.v_proj.bias", KV, qkv_bias);
      y->q_norm_w = as_decoder_bind_vector (&b, l, "self_attn.q_norm.weight", hd, qk_norm);
      y->k_norm_w = as_decoder_bind_vector (&b, l, "self_attn.k_norm.weight", hd, qk_norm);
      y->o = as_decoder_bind_matrix (&b, l, "self_attn.o_proj.weight", D, Q);
      y->o_b = as_decoder_bind_vector (&b, l, "self_attn.o_proj.bias", D, o_bias);
      y->norm2_w = as_decoder_bind_vector (&b, l, "post_attention_layernorm.weight", D, TRUE);
      y->gate = as_decoder_bind_matrix (&b, l, "mlp.gate_proj.weight", F, D);
      y->gate_b = as_decoder_bind_vector (&b, l, "mlp.gate_proj.bias", F, mlp_bias);
      y->up = as_decoder_bind_matrix (&b, l, "mlp.up_proj.weight", F, D);
      y->up_b = as_decoder_bind_vector (&b, l, "mlp.up_proj.bias", F, mlp_bias);
      y->down = as_decoder_bind_matrix (&b, l, "mlp.down_proj.weight", D, F);
      y->down_b = as_decoder_bind_vector (&b, l, "mlp.down_proj.bias", D, mlp_bias);
    }
  w->norm_w = as_decoder_bind_vector (&b, -1, "norm.weight", D, TRUE);
  return as_decoder_bind_finish (&b, w, s, "lm_head.weight", c, n_params);
}

/* Older checkpoints' saved rotary buffers, and the output matrix a tied model may repeat. */
static const char *const llama_unused_ok[] = { "*.rotary_emb.inv_freq", "lm_head.weight", NULL };

const AsFamily as_family_llama = {
  .name = "llama",
  .model_types = llama_model_types,
  .read_config = llama_read_config,
  .free_settings = as_decoder_free_settings,
  .count_weights = as_decoder_count_weights,
  .load_tokenizer = as_decoder_load_tokenizer,
  .tokenizer_optional = TRUE,
  .bind_weights = llama_bind_weights,
  .free_weights = as_decoder_free_weights,
  .unused_ok = llama_unused_ok,
  .layers_key = "num_hidden_layers",
  .describe = as_decoder_describe,
  .stack = &as_decoder_stack,
};
