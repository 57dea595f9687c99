/* gpt-neox.c — the `gpt_neox` family (EleutherAI's Pythia and GPT-NeoX): config.json keys and
 * weight names, core/families/README.md ("GPT-NeoX").
 *
 * Against the Llama family: one fused query_key_value projection laid out per head (q | k | v),
 * LayerNorm with biases, a plain MLP with biases (exact gelu), biases on the attention
 * projections (attention_bias, default true), RoPE on the first int(head_dim · rotary_pct) dims
 * only, and by default the parallel residual h + attn(ln1(h)) + mlp(ln2(h)). The forward pass is
 * the shared rotary decoder (decoder-forward.c). */
#include "decoder-private.h"

#include "as-error.h"

static const char *const neox_model_types[] = { "gpt_neox", NULL };

/* The fraction of each head that RoPE rotates: rope_parameters.partial_rotary_factor
 * (transformers 5), else rotary_pct; HF's rotary_ndims = int(head_size · fraction). */
static gboolean
read_rotary_dim (const AsConfig *c, const AsConfigReader *r, int *rotary_dim, GError **error)
{
  double pct = 0.25;
  AsConfigReader params = { 0 };
  gboolean ok = as_config_reader_double (r, "rotary_pct", 0.25, 0.0, 1.0, &pct, error)
                && as_config_reader_object (r, "rope_parameters", &params, error);
  if (ok && params.obj != NULL)
    ok = as_config_reader_double (&params, "partial_rotary_factor", pct, 0.0, 1.0, &pct, error);
  as_config_reader_clear (&params);
  *rotary_dim = (int) (c->head_dim * pct);
  return ok;
}

static gboolean
neox_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  if (!as_decoder_read_sizes (c, r, 2048, "layer_norm_eps", 1e-5f, AS_ACT_GELU, error))
    return FALSE;
  if (c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: hidden_size (%d) is not divisible by num_attention_heads (%d)", r->path,
                   c->n_embd, c->n_head);
      return FALSE;
    }
  c->head_dim = c->n_embd / c->n_head;
  c->n_kv_head = c->n_head;

  AsDecoderSettings *s = g_new0 (AsDecoderSettings, 1);
  c->settings = s;
  as_decoder_settings_init (s, c);
  s->norm = AS_DECODER_LAYERNORM;
  s->qkv = AS_DECODER_QKV_PER_HEAD;
  s->mlp = AS_DECODER_MLP_PLAIN;
  gboolean bias = TRUE, parallel = TRUE;
  int rotary_dim = 0;
  if (!as_config_reader_bool (r, "tie_word_embeddings", FALSE, &s->tie, error)
      || !as_config_reader_bool (r, "use_parallel_residual", TRUE, &parallel, error)
      || !as_config_reader_bool (r, "attention_bias", TRUE, &bias, error)
      || !read_rotary_dim (c, r, &rotary_dim, error))
    return FALSE;
  s->residual = parallel ? AS_DECODER_PARALLEL : AS_DECODER_SEQUENTIAL;
  s->biases = AS_DECODER_BIAS_MLP | (bias ? AS_DECODER_BIAS_QKV | AS_DECODER_BIAS_O : 0);
  AsDecoderRopeKeys keys = { .theta_key = "rotary_emb_base", .rotary_dim = rotary_dim };
  return as_decoder_read_rope (s, c, r, &keys, error);
}

static gpointer
neox_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  gboolean qkv_bias = (s->biases & AS_DECODER_BIAS_QKV) != 0;
  gboolean o_bias = (s->biases & AS_DECODER_BIAS_O) != 0;
  int64_t D = c->n_embd, F = c->n_inner, V = c->vocab_size;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsDecoderWeights *w = g_new0 (AsDecoderWeights, 1);
  w->layers = g_new0 (AsDecoderLayer, c->n_layer);

  w->embed = as_decoder_bind_matrix (&b, -1, "embed_in.weight", V, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsDecoderLayer *y = &w->layers[l];
      y->norm1_w = as_decoder_bind_vector (&b, l, "input_layernorm.weight", D, TRUE);
      y->norm1_b = as_decoder_bind_vector (&b, l, "input_layernorm.bias", D, TRUE);
      y->qkv = as_decoder_bind_matrix (&b, l, "attention.query_key_value.weight", 3 * D, D);
      y->qkv_b = as_decoder_bind_vector (&b, l, "attention.query_key_value.bias", 3 * D, qkv_bias);
      y->o = as_decoder_bind_matrix (&b, l, "attention.dense.weight", D, D);
      y->o_b = as_decoder_bind_vector (&b, l, "attention.dense.bias", D, o_bias);
      y->norm2_w = as_decoder_bind_vector (&b, l, "post_attention_layernorm.weight", D, TRUE);
      y->norm2_b = as_decoder_bind_vector (&b, l, "post_attention_layernorm.bias", D, TRUE);
      y->up = as_decoder_bind_matrix (&b, l, "mlp.dense_h_to_4h.weight", F, D);
      y->up_b = as_decoder_bind_vector (&b, l, "mlp.dense_h_to_4h.bias", F, TRUE);
      y->down = as_decoder_bind_matrix (&b, l, "mlp.dense_4h_to_h.weight", D, F);
      y->down_b = as_decoder_bind_vector (&b, l, "mlp.dense_4h_to_h.bias", D, TRUE);
    }
  w->norm_w = as_decoder_bind_vector (&b, -1, "final_layer_norm.weight", D, TRUE);
  w->norm_b = as_decoder_bind_vector (&b, -1, "final_layer_norm.bias", D, TRUE);
  return as_decoder_bind_finish (&b, w, s, "embed_out.weight", c, n_params);
}

/* The buffers GPTNeoXAttention saves beside its weights (the causal mask, its masked value, the
 * rotary frequencies), and the output matrix a tied model may repeat. */
static const char *const neox_unused_ok[] = { "*.attention.bias", "*.attention.masked_bias",
                                              "*.rotary_emb.inv_freq", "embed_out.weight", NULL };

const AsFamily as_family_gpt_neox = {
  .name = "gpt_neox",
  .model_types = neox_model_types,
  .read_config = neox_read_config,
  .free_settings = as_decoder_free_settings,
  .count_weights = as_decoder_count_weights,
  .load_tokenizer = as_decoder_load_tokenizer,
  .tokenizer_optional = TRUE,
  .bind_weights = neox_bind_weights,
  .free_weights = as_decoder_free_weights,
  .unused_ok = neox_unused_ok,
  .layers_key = "num_hidden_layers",
  .describe = as_decoder_describe,
  .stack = &as_decoder_stack,
};
