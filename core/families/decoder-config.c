/* decoder-config.c — what the `llama` and `gpt_neox` config readers share (decoder-private.h):
 * the RoPE keys, the settings' lifetime, the weight count and the settings `info` shows.
 *
 * RoPE keys (core/README.md, "RoPE"): transformers 5 writes one rope_parameters object
 * {rope_type, rope_theta, factor, ..., partial_rotary_factor}; older configs write rope_theta
 * (NeoX: rotary_emb_base, rotary_pct) and a rope_scaling object whose type is named "rope_type"
 * or, before transformers 4.43, "type". Supported types: default, linear, llama3 (Llama 3.1+);
 * the others (dynamic, yarn, longrope, ...) change the maths and are refused by name. */
#include "decoder-private.h"

#include <math.h>

#include "as-error.h"

gboolean
as_decoder_read_sizes (AsConfig *c, const AsConfigReader *r, int default_positions,
                       const char *eps_key, float default_eps, AsActivation default_act,
                       GError **error)
{
  c->causal_lm = TRUE;
  return as_config_reader_int (r, "num_hidden_layers", FALSE, 0, 1, AS_CONFIG_MAX_LAYERS,
                               &c->n_layer, error)
         && as_config_reader_int (r, "num_attention_heads", FALSE, 0, 1, AS_CONFIG_MAX_HEADS,
                                  &c->n_head, error)
         && as_config_reader_int (r, "hidden_size", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH, &c->n_embd,
                                  error)
         && as_config_reader_int (r, "intermediate_size", FALSE, 0, 1, AS_CONFIG_MAX_WIDTH,
                                  &c->n_inner, error)
         && as_config_reader_int (r, "vocab_size", FALSE, 0, 1, AS_CONFIG_MAX_VOCAB, &c->vocab_size,
                                  error)
         && as_config_reader_int (r, "max_position_embeddings", TRUE, default_positions, 1,
                                  AS_CONFIG_MAX_POSITIONS, &c->n_positions, error)
         && as_config_reader_eps (r, eps_key, default_eps, &c->layer_norm_eps, error)
         && as_config_reader_activation (r, "hidden_act", default_act, &c->activation, error);
}

void
as_decoder_settings_init (AsDecoderSettings *s, const AsConfig *config)
{
  s->windows = g_new0 (int, config->n_layer);
  s->attn_scale = (float) pow ((double) config->head_dim, -0.5); /* HF: head_dim**-0.5 */
}

void
as_decoder_free_settings (gpointer settings)
{
  AsDecoderSettings *s = settings;
  if (s == NULL)
    return;
  g_free (s->windows);
  g_free (s);
}

/* The scaling of a rope_scaling / rope_parameters object SUB (its path names it). */
static gboolean
read_rope_scaling (AsRope *rope, const AsConfigReader *sub, GError **error)
{
  const char *type = NULL;
  if (!as_config_reader_string (sub, "rope_type", &type, error))
    return FALSE;
  if (type == NULL && !as_config_reader_string (sub, "type", &type, error))
    return FALSE;
  if (type == NULL || g_str_equal (type, "default"))
    {
      rope->type = AS_ROPE_DEFAULT;
      return TRUE;
    }
  if (!g_str_equal (type, "linear") && !g_str_equal (type, "llama3"))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: RoPE type \"%s\" is not supported (supported: default, linear, llama3)",
                   sub->path, type);
      return FALSE;
    }
  if (as_config_reader_member (sub, "factor") == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: missing key 'factor' for RoPE type %s",
                   sub->path, type);
      return FALSE;
    }
  if (!as_config_reader_double (sub, "factor", 1.0, 1e-6, 1e6, &rope->factor, error))
    return FALSE;
  if (g_str_equal (type, "linear"))
    {
      rope->type = AS_ROPE_LINEAR;
      return TRUE;
    }
  rope->type = AS_ROPE_LLAMA3;
  const char *keys[]
      = { "low_freq_factor", "high_freq_factor", "original_max_position_embeddings" };
  double *values[]
      = { &rope->low_freq_factor, &rope->high_freq_factor, &rope->original_max_positions };
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (as_config_reader_member (sub, keys[i]) == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: missing key '%s' for RoPE type llama3", sub->path, keys[i]);
          return FALSE;
        }
      if (!as_config_reader_double (sub, keys[i], 1.0, 1e-6, 1e9, values[i], error))
        return FALSE;
    }
  if (!(rope->high_freq_factor > rope->low_freq_factor))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: high_freq_factor (%g) must be larger than low_freq_factor (%g)", sub->path,
                   rope->high_freq_factor, rope->low_freq_factor);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_decoder_read_rope (AsDecoderSettings *s, const AsConfigReader *r, const char *theta_key,
                      int rotary_dim, GError **error)
{
  AsRope *rope = &s->rope;
  rope->rotary_dim = rotary_dim;
  if (rotary_dim % 2 != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: RoPE would rotate %d dims per head, an odd number (rotate_half needs "
                   "pairs)",
                   r->path, rotary_dim);
      return FALSE;
    }
  AsConfigReader params = { 0 };
  gboolean ok = as_config_reader_object (r, "rope_parameters", &params, error);
  if (ok && params.obj != NULL)
    ok = as_config_reader_double (&params, "rope_theta", 10000.0, 1e-6, 1e12, &rope->theta, error)
         && read_rope_scaling (rope, &params, error);
  else if (ok)
    {
      AsConfigReader scaling = { 0 };
      ok = as_config_reader_double (r, theta_key, 10000.0, 1e-6, 1e12, &rope->theta, error)
           && as_config_reader_object (r, "rope_scaling", &scaling, error);
      if (ok && scaling.obj != NULL)
        ok = read_rope_scaling (rope, &scaling, error);
      as_config_reader_clear (&scaling);
    }
  as_config_reader_clear (&params);
  return ok;
}

guint64
as_decoder_count_weights (const AsConfig *c)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  guint64 D = c->n_embd, F = c->n_inner, V = c->vocab_size, L = c->n_layer;
  guint64 Q = (guint64) c->n_head * c->head_dim, KV = (guint64) c->n_kv_head * c->head_dim;
  gboolean gated = s->mlp == AS_DECODER_MLP_GATED;
  guint64 norm = s->norm == AS_DECODER_LAYERNORM ? 2 * D : D;
  guint64 layer = 2 * norm + D * (Q + 2 * KV) + Q * D + (gated ? 3 : 2) * D * F;
  if (s->biases & AS_DECODER_BIAS_QKV)
    layer += Q + 2 * KV;
  if (s->biases & AS_DECODER_BIAS_O)
    layer += D;
  if (s->biases & AS_DECODER_BIAS_MLP)
    layer += (gated ? 2 : 1) * F + D;
  return V * D + L * layer + norm + (s->tie ? 0 : V * D);
}

static void
add_setting (GPtrArray *settings, const char *name, char *value)
{
  g_ptr_array_add (settings, g_strdup (name));
  g_ptr_array_add (settings, value);
}

/* "4096 tokens on every layer", "4096 tokens on layers 14-27", "none". */
static char *
describe_windows (const AsConfig *c, const AsDecoderSettings *s)
{
  int first = -1, n = 0, w = 0;
  for (int l = 0; l < c->n_layer; l++)
    if (s->windows[l] > 0)
      {
        first = first < 0 ? l : first;
        n++;
        w = s->windows[l];
      }
  if (n == 0)
    return g_strdup ("none (causal attention over the whole text)");
  if (n == c->n_layer)
    return g_strdup_printf ("%d tokens on every layer", w);
  return g_strdup_printf ("%d tokens on %d of %d layers (from layer %d)", w, n, c->n_layer, first);
}

static char *
describe_rope (const AsConfig *c, const AsRope *r)
{
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "theta %g, %d of %d dims per head rotated (HF rotate_half)",
                          r->theta, r->rotary_dim, c->head_dim);
  if (r->type == AS_ROPE_LINEAR)
    g_string_append_printf (out, "; linear scaling, factor %g", r->factor);
  else if (r->type == AS_ROPE_LLAMA3)
    g_string_append_printf (out,
                            "; llama3 scaling, factor %g, low_freq_factor %g, high_freq_factor %g, "
                            "original_max_position_embeddings %g",
                            r->factor, r->low_freq_factor, r->high_freq_factor,
                            r->original_max_positions);
  return g_string_free (out, FALSE);
}

void
as_decoder_describe (const AsConfig *c, GPtrArray *settings)
{
  const AsDecoderSettings *s = as_decoder_settings (c);
  add_setting (settings, "rope", describe_rope (c, &s->rope));
  add_setting (settings, "sliding_window", describe_windows (c, s));
  add_setting (settings, "norm",
               g_strdup_printf ("%s, eps %g",
                                s->norm == AS_DECODER_LAYERNORM ? "LayerNorm" : "RMSNorm",
                                (double) c->layer_norm_eps));
  const char *act = c->activation == AS_ACT_SILU       ? "silu"
                    : c->activation == AS_ACT_GELU     ? "gelu"
                    : c->activation == AS_ACT_GELU_NEW ? "gelu_new"
                                                       : "relu";
  add_setting (settings, "mlp",
               s->mlp == AS_DECODER_MLP_GATED
                   ? g_strdup_printf ("gated: down(%s(gate(x)) * up(x))", act)
                   : g_strdup_printf ("down(%s(up(x)))", act));
  add_setting (settings, "residual",
               g_strdup (s->residual == AS_DECODER_PARALLEL
                             ? "parallel: h + attn(ln1(h)) + mlp(ln2(h))"
                             : "sequential"));
  GString *biases = g_string_new (NULL);
  if (s->biases & AS_DECODER_BIAS_QKV)
    g_string_append (biases, "q, k, v");
  if (s->biases & AS_DECODER_BIAS_O)
    g_string_append (biases, biases->len ? ", o" : "o");
  if (s->biases & AS_DECODER_BIAS_MLP)
    g_string_append (biases, biases->len ? ", mlp" : "mlp");
  if (biases->len == 0)
    g_string_append (biases, "none");
  add_setting (settings, "biases", g_string_free (biases, FALSE));
  add_setting (settings, "output",
               g_strdup (s->tie ? "tied to the input embedding" : "its own matrix"));
}

AsTokenizer *
as_decoder_load_tokenizer (const char *folder, const AsConfig *config, GError **error)
{
  return as_tokenizer_load_folder (folder, error);
}

AsWeight
as_decoder_bind_matrix (AsTensorBinder *b, int layer, const char *name, int64_t d0, int64_t d1)
{
  g_autofree char *full
      = layer < 0 ? g_strdup (name) : g_strdup_printf ("layers.%d.%s", layer, name);
  return as_tensor_binder_get_weight (b, full, d0, d1);
}

const float *
as_decoder_bind_vector (AsTensorBinder *b, int layer, const char *name, int64_t d0,
                        gboolean present)
{
  if (!present)
    return NULL;
  g_autofree char *full
      = layer < 0 ? g_strdup (name) : g_strdup_printf ("layers.%d.%s", layer, name);
  return as_tensor_binder_get (b, full, d0, 0);
}

gpointer
as_decoder_bind_finish (AsTensorBinder *b, AsDecoderWeights *w, const AsDecoderSettings *s,
                        const char *head_name, const AsConfig *c, int64_t *n_params)
{
  w->lm_head
      = s->tie ? w->embed : as_decoder_bind_matrix (b, -1, head_name, c->vocab_size, c->n_embd);
  if (b->failed)
    {
      as_decoder_free_weights (w);
      return NULL;
    }
  *n_params += b->n_params;
  return w;
}

void
as_decoder_free_weights (gpointer weights)
{
  AsDecoderWeights *w = weights;
  if (w == NULL)
    return;
  g_free (w->layers);
  g_free (w);
}
