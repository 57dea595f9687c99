/* phi3.c — the `phi3` family: Microsoft's Phi-3, Phi-3.5 and Phi-4-mini (model_type phi3).
 * config.json keys and weight names: core/families/README.md ("Phi-3").
 *
 * A Llama-shaped decoder (RMSNorm, SwiGLU, sequential residuals, no biases) whose checkpoints
 * fuse q, k and v into one self_attn.qkv_proj [H·hd + 2·K·hd][D] and gate and up into one
 * mlp.gate_up_proj [2F][D]. The fused matrices are split at load: their [out][in] rows are
 * contiguous, so q, k and v (gate and up) are views of row ranges of the stored matrix — no copy,
 * and the shared rotary decoder (decoder-forward.c) sees separate weights. A checkpoint stored
 * with separate q_proj/k_proj/v_proj and gate_proj/up_proj (as some conversions write it) binds
 * too, layer by layer. Besides: partial_rotary_factor (Phi-4-mini), the longrope scaling of the
 * 128k models (rope types longrope, and su and yarn which Phi3Config reads as longrope) and a
 * sliding window on every layer when sliding_window is set. */
#include "decoder-private.h"

#include "as-error.h"

static const char *const phi3_model_types[] = { "phi3", NULL };

/* The scaling types Phi3Config renames to longrope (convert_rope_params_to_dict). */
static const char *const phi3_longrope_types[] = { "longrope", "su", "yarn", NULL };

/* partial_rotary_factor: rope_parameters' (transformers 5), else the config's, default 1. */
static gboolean
read_rotary_dim (const AsConfig *c, const AsConfigReader *r, int *rotary_dim, GError **error)
{
  double factor = 1.0;
  AsConfigReader params = { 0 };
  gboolean ok = as_config_reader_double (r, "partial_rotary_factor", 1.0, 1e-6, 1.0, &factor, error)
                && as_config_reader_object (r, "rope_parameters", &params, error);
  if (ok && params.obj != NULL)
    ok = as_config_reader_double (&params, "partial_rotary_factor", factor, 1e-6, 1.0, &factor,
                                  error);
  as_config_reader_clear (&params);
  *rotary_dim = (int) (c->head_dim * factor);
  return ok;
}

/* sliding_window: every layer when set (Phi3Model's mask), none when null or missing. */
static gboolean
read_window (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r, GError **error)
{
  int window = 0;
  if (!as_config_reader_int (r, "sliding_window", TRUE, 0, 1, AS_CONFIG_MAX_POSITIONS, &window,
                             error))
    return FALSE;
  for (int l = 0; l < c->n_layer; l++)
    s->windows[l] = window;
  return TRUE;
}

static gboolean
phi3_read_config (AsConfig *c, const AsConfigReader *r, GError **error)
{
  if (!as_decoder_read_sizes (c, r, 4096, "rms_norm_eps", 1e-5f, AS_ACT_SILU, error)
      || !as_decoder_read_kv_heads (c, r, c->n_head, error)
      || !as_decoder_read_head_dim (c, r, 0, error))
    return FALSE;
  AsDecoderSettings *s = g_new0 (AsDecoderSettings, 1);
  c->settings = s;
  as_decoder_settings_init (s, c); /* RMSNorm, separate q/k/v, gated MLP, sequential */
  int rotary_dim = 0, original = 0;
  if (!as_config_reader_bool (r, "tie_word_embeddings", FALSE, &s->tie, error)
      || !read_rotary_dim (c, r, &rotary_dim, error)
      || !as_config_reader_int (r, "original_max_position_embeddings", TRUE, 4096, 1,
                                AS_CONFIG_MAX_POSITIONS, &original, error))
    return FALSE;
  AsDecoderRopeKeys keys = {
    .theta_key = "rope_theta",
    .rotary_dim = rotary_dim,
    .original_max_positions = original,
    .longrope_types = phi3_longrope_types,
  };
  return as_decoder_read_rope (s, c, r, &keys, error) && read_window (s, c, r, error);
}

/* The rows FIRST.. of the stored matrix M of COLS columns. */
static AsWeight
rows_of (AsWeight m, int64_t first, int64_t cols)
{
  if (m.data != NULL)
    m.data = (const char *) m.data + (gsize) (first * cols) * as_dtype_size (m.dtype);
  return m;
}

/* Layer L's q, k, v: views of qkv_proj's rows when the checkpoint fuses them, else q_proj,
 * k_proj, v_proj. */
static void
bind_attention (AsTensorBinder *b, AsDecoderLayer *y, int l, const AsConfig *c)
{
  int64_t D = c->n_embd, Q = (int64_t) c->n_head * c->head_dim;
  int64_t KV = (int64_t) c->n_kv_head * c->head_dim;
  g_autofree char *fused = g_strdup_printf ("layers.%d.self_attn.qkv_proj.weight", l);
  g_autofree char *split = g_strdup_printf ("layers.%d.self_attn.q_proj.weight", l);
  if (as_tensor_store_find_suffix (b->store, fused) != NULL
      || as_tensor_store_find_suffix (b->store, split) == NULL)
    {
      AsWeight qkv = as_decoder_bind_matrix (b, l, "self_attn.qkv_proj.weight", Q + 2 * KV, D);
      y->q = rows_of (qkv, 0, D);
      y->k = rows_of (qkv, Q, D);
      y->v = rows_of (qkv, Q + KV, D);
      return;
    }
  y->q = as_decoder_bind_matrix (b, l, "self_attn.q_proj.weight", Q, D);
  y->k = as_decoder_bind_matrix (b, l, "self_attn.k_proj.weight", KV, D);
  y->v = as_decoder_bind_matrix (b, l, "self_attn.v_proj.weight", KV, D);
}

/* Layer L's gate and up: the two halves of gate_up_proj (gate first, as chunk(2, dim=-1)), else
 * gate_proj and up_proj. */
static void
bind_mlp (AsTensorBinder *b, AsDecoderLayer *y, int l, const AsConfig *c)
{
  int64_t D = c->n_embd, F = c->n_inner;
  g_autofree char *fused = g_strdup_printf ("layers.%d.mlp.gate_up_proj.weight", l);
  g_autofree char *split = g_strdup_printf ("layers.%d.mlp.gate_proj.weight", l);
  if (as_tensor_store_find_suffix (b->store, fused) != NULL
      || as_tensor_store_find_suffix (b->store, split) == NULL)
    {
      AsWeight gate_up = as_decoder_bind_matrix (b, l, "mlp.gate_up_proj.weight", 2 * F, D);
      y->gate = rows_of (gate_up, 0, D);
      y->up = rows_of (gate_up, F, D);
    }
  else
    {
      y->gate = as_decoder_bind_matrix (b, l, "mlp.gate_proj.weight", F, D);
      y->up = as_decoder_bind_matrix (b, l, "mlp.up_proj.weight", F, D);
    }
  y->down = as_decoder_bind_matrix (b, l, "mlp.down_proj.weight", D, F);
}

static gpointer
phi3_bind_weights (const AsConfig *c, const AsTensorStore *store, int64_t *n_params, GError **error)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  int64_t D = c->n_embd, V = c->vocab_size, Q = (int64_t) c->n_head * c->head_dim;
  AsTensorBinder b = as_tensor_binder_init (store, error);
  AsDecoderWeights *w = g_new0 (AsDecoderWeights, 1);
  w->layers = g_new0 (AsDecoderLayer, c->n_layer);

  w->embed = as_decoder_bind_matrix (&b, -1, "embed_tokens.weight", V, D);
  for (int l = 0; l < c->n_layer; l++)
    {
      AsDecoderLayer *y = &w->layers[l];
      y->norm1_w = as_decoder_bind_vector (&b, l, "input_layernorm.weight", D, TRUE);
      bind_attention (&b, y, l, c);
      y->o = as_decoder_bind_matrix (&b, l, "self_attn.o_proj.weight", D, Q);
      y->norm2_w = as_decoder_bind_vector (&b, l, "post_attention_layernorm.weight", D, TRUE);
      bind_mlp (&b, y, l, c);
    }
  w->norm_w = as_decoder_bind_vector (&b, -1, "norm.weight", D, TRUE);
  return as_decoder_bind_finish (&b, w, s, "lm_head.weight", c, n_params);
}

/* info: the decoder's settings and how the checkpoint stores the projections. */
static void
phi3_describe (const AsConfig *config, GPtrArray *settings)
{
  as_decoder_describe (config, settings);
  g_ptr_array_add (settings, g_strdup ("projections"));
  g_ptr_array_add (settings, g_strdup ("qkv_proj and gate_up_proj fused in the checkpoint, split "
                                       "at load into q | k | v and gate | up row ranges"));
}

/* Older checkpoints' saved rotary buffers, and the output matrix a tied model may repeat. */
static const char *const phi3_unused_ok[] = { "*.rotary_emb.inv_freq", "lm_head.weight", NULL };

const AsFamily as_family_phi3 = {
  .name = "phi3",
  .model_types = phi3_model_types,
  .read_config = phi3_read_config,
  .free_settings = as_decoder_free_settings,
  .count_weights = as_decoder_count_weights,
  .load_tokenizer = as_decoder_load_tokenizer,
  .tokenizer_optional = TRUE,
  .bind_weights = phi3_bind_weights,
  .free_weights = as_decoder_free_weights,
  .unused_ok = phi3_unused_ok,
  .layers_key = "num_hidden_layers",
  .describe = phi3_describe,
  .stack = &as_decoder_stack,
};
