/* decoder-config.c — what the `llama`, `phi3`, `gemma` and `gpt_neox` config readers share
 * (decoder-private.h): the RoPE keys, the head counts, the settings' lifetime, the weight count and
 * the settings `info` shows.
 *
 * RoPE keys (core/families/README.md, "RoPE"): transformers 5 writes one rope_parameters object
 * {rope_type, rope_theta, factor, ..., partial_rotary_factor}; older configs write rope_theta
 * (NeoX: rotary_emb_base, rotary_pct) and a rope_scaling object whose type is named "rope_type"
 * or, before transformers 4.43, "type". Supported types: default, linear, llama3 (Llama 3.1+) and
 * longrope (Phi-3's 128k models); the others (dynamic, yarn, ...) change the maths and are refused
 * by name. */
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

gboolean
as_decoder_read_kv_heads (AsConfig *c, const AsConfigReader *r, int default_kv, GError **error)
{
  gboolean given = json_object_has_member (r->obj, "num_key_value_heads");
  if (!given)
    c->n_kv_head = default_kv;
  else if (!as_config_reader_int (r, "num_key_value_heads", TRUE, c->n_head, 1, AS_CONFIG_MAX_HEADS,
                                  &c->n_kv_head, error))
    return FALSE;
  if (c->n_kv_head > c->n_head || c->n_head % c->n_kv_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: num_attention_heads (%d) is not a multiple of num_key_value_heads (%d)%s",
                   r->path, c->n_head, c->n_kv_head,
                   given ? "" : " (the key is missing: that is the default of this model_type)");
      return FALSE;
    }
  return TRUE;
}

gboolean
as_decoder_read_head_dim (AsConfig *c, const AsConfigReader *r, int default_head_dim,
                          GError **error)
{
  if (!as_config_reader_int (r, "head_dim", TRUE, default_head_dim, 1, AS_CONFIG_MAX_WIDTH,
                             &c->head_dim, error))
    return FALSE;
  if (c->head_dim == 0 && c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: hidden_size (%d) is not divisible by num_attention_heads (%d) and there is "
                   "no head_dim",
                   r->path, c->n_embd, c->n_head);
      return FALSE;
    }
  if (c->head_dim == 0)
    c->head_dim = c->n_embd / c->n_head;
  return TRUE;
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
  g_free (s->local);
  g_free (s->rope.short_factor);
  g_free (s->rope.long_factor);
  g_free (s);
}

/* The list KEY of SUB: N positive finite numbers (owned), or NULL with ERROR set. */
static double *
read_factors (const AsConfigReader *sub, const char *key, int n, GError **error)
{
  JsonNode *node = as_config_reader_member (sub, key);
  JsonArray *list
      = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  if (list == NULL || (int) json_array_get_length (list) != n)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' must be a list of %d numbers (rotary dims / 2) for RoPE type "
                   "longrope, not %s of %d",
                   sub->path, key, n, list != NULL ? "a list" : "something else",
                   list != NULL ? (int) json_array_get_length (list) : 0);
      return NULL;
    }
  g_autofree double *out = g_new (double, MAX (n, 1));
  for (int i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (list, i);
      GType t = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_value_type (e) : G_TYPE_INVALID;
      double v = t == G_TYPE_DOUBLE || t == G_TYPE_INT64 ? json_node_get_double (e) : -1.0;
      if (!(v > 0.0 && isfinite (v) && isfinite ((float) v) && (float) v > 0.0f))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: %s[%d] must be a positive number (a float32 above 0)", sub->path, key,
                       i);
          return NULL;
        }
      out[i] = v;
    }
  return g_steal_pointer (&out);
}

/* longrope (rope_type longrope, or a name in KEYS->longrope_types): short_factor, long_factor,
 * original_max_position_embeddings, factor and attention_factor as
 * modeling_rope_utils._compute_longrope_parameters reads them. */
static gboolean
read_longrope (AsRope *rope, const AsConfig *c, const AsConfigReader *sub,
               const AsDecoderRopeKeys *keys, GError **error)
{
  int half = rope->rotary_dim / 2, original = 0;
  double factor = 0.0;
  rope->type = AS_ROPE_LONGROPE;
  if (!as_config_reader_int (sub, "original_max_position_embeddings", TRUE,
                             keys->original_max_positions > 0 ? keys->original_max_positions
                                                              : c->n_positions,
                             1, AS_CONFIG_MAX_POSITIONS, &original, error))
    return FALSE;
  rope->original_max_positions = original;
  double ratio = (double) c->n_positions / original;
  if (!as_config_reader_double (sub, "factor", ratio, 1e-6, 1e6, &factor, error))
    return FALSE;
  rope->factor = factor;
  double derived = factor <= 1.0 ? 1.0 : sqrt (1.0 + log (factor) / log ((double) original));
  if (!as_config_reader_double (sub, "attention_factor", derived, 1e-6, 1e6,
                                &rope->attention_factor, error))
    return FALSE;
  rope->short_factor = read_factors (sub, "short_factor", half, error);
  if (rope->short_factor == NULL)
    return FALSE;
  rope->long_factor = read_factors (sub, "long_factor", half, error);
  return rope->long_factor != NULL;
}

static gboolean
is_longrope (const char *type, const AsDecoderRopeKeys *keys)
{
  if (keys->longrope_types == NULL)
    return g_str_equal (type, "longrope");
  return g_strv_contains (keys->longrope_types, type);
}

/* The scaling of a rope_scaling / rope_parameters object SUB (its path names it). */
static gboolean
read_rope_scaling (AsRope *rope, const AsConfig *c, const AsConfigReader *sub,
                   const AsDecoderRopeKeys *keys, GError **error)
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
  if (is_longrope (type, keys))
    return read_longrope (rope, c, sub, keys, error);
  if (!g_str_equal (type, "linear") && !g_str_equal (type, "llama3"))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: RoPE type \"%s\" is not supported (supported: default, linear, llama3, "
                   "longrope)",
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
  const char *names[]
      = { "low_freq_factor", "high_freq_factor", "original_max_position_embeddings" };
  double *values[]
      = { &rope->low_freq_factor, &rope->high_freq_factor, &rope->original_max_positions };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      if (as_config_reader_member (sub, names[i]) == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: missing key '%s' for RoPE type llama3", sub->path, names[i]);
          return FALSE;
        }
      if (!as_config_reader_double (sub, names[i], 1.0, 1e-6, 1e9, values[i], error))
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
as_decoder_read_rope (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r,
                      const AsDecoderRopeKeys *keys, GError **error)
{
  AsRope *rope = &s->rope;
  int rotary_dim = keys->rotary_dim;
  const char *theta_key = keys->theta_key;
  double theta0 = keys->default_theta > 0.0 ? keys->default_theta : 10000.0;
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
    ok = as_config_reader_double (&params, "rope_theta", theta0, 1e-6, 1e12, &rope->theta, error)
         && read_rope_scaling (rope, c, &params, keys, error);
  else if (ok)
    {
      AsConfigReader scaling = { 0 };
      ok = as_config_reader_double (r, theta_key, theta0, 1e-6, 1e12, &rope->theta, error)
           && as_config_reader_object (r, "rope_scaling", &scaling, error);
      if (ok && scaling.obj != NULL)
        ok = read_rope_scaling (rope, c, &scaling, keys, error);
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
  if (s->qk_norm == AS_DECODER_QK_NORM_RMS)
    layer += 2 * (guint64) c->head_dim;
  if (s->post_norms)
    layer += 2 * norm;
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
  else if (r->type == AS_ROPE_LONGROPE)
    g_string_append_printf (out,
                            "; longrope scaling, original_max_position_embeddings %g, factor %g, "
                            "attention factor %g (cos and sin scaled), short factors up to %g "
                            "tokens, long factors beyond",
                            r->original_max_positions, r->factor, r->attention_factor,
                            r->original_max_positions);
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
  if (s->local != NULL)
    {
      int n = 0;
      for (int l = 0; l < c->n_layer; l++)
        n += s->local[l];
      char *local = describe_rope (c, &s->rope_local);
      add_setting (settings, "rope_local",
                   g_strdup_printf ("on the %d sliding layers: %s (the others: rope)", n, local));
      g_free (local);
    }
  add_setting (settings, "attention",
               g_strdup_printf ("%d query heads, %d key/value heads, head_dim %d, scores scaled by "
                                "%g",
                                c->n_head, c->n_kv_head, c->head_dim, (double) s->attn_scale));
  add_setting (settings, "sliding_window", describe_windows (c, s));
  add_setting (settings, "norm",
               g_strdup_printf ("%s, eps %g%s",
                                s->norm == AS_DECODER_LAYERNORM ? "LayerNorm"
                                : s->norm == AS_DECODER_RMSNORM_PLUS_ONE
                                    ? "RMSNorm with weight 1 + w"
                                    : "RMSNorm",
                                (double) c->layer_norm_eps,
                                s->post_norms ? "; also on the attention and MLP outputs before "
                                                "each residual add"
                                              : ""));
  if (s->embed_scale > 0.0f)
    add_setting (settings, "embed_scale",
                 g_strdup_printf ("embeddings times %.9g (float32 sqrt(hidden_size))",
                                  (double) s->embed_scale));
  if (s->attn_softcap > 0.0f || s->logit_softcap > 0.0f)
    {
      g_autofree char *scores
          = s->attn_softcap > 0.0f
                ? g_strdup_printf ("cap·tanh(s/cap) with cap %g", (double) s->attn_softcap)
                : g_strdup ("none");
      g_autofree char *logits
          = s->logit_softcap > 0.0f
                ? g_strdup_printf ("cap·tanh(x/cap) with cap %g", (double) s->logit_softcap)
                : g_strdup ("none");
      add_setting (settings, "softcap",
                   g_strdup_printf ("attention scores: %s; final logits: %s", scores, logits));
    }
  add_setting (settings, "qk_norm",
               s->qk_norm == AS_DECODER_QK_NORM_RMS ? g_strdup_printf (
                   "RMSNorm of each head's q and k over head_dim %d before RoPE", c->head_dim)
                                                    : g_strdup ("none"));
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
  if (w->owned != NULL)
    g_ptr_array_unref (w->owned);
  g_free (w->layers);
  g_free (w);
}

gboolean
as_decoder_read_layer_windows (AsDecoderSettings *s, const AsConfig *c, const AsConfigReader *r,
                               int window, const gboolean *default_slides, GError **error)
{
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
      gboolean slides = default_slides[l];
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
