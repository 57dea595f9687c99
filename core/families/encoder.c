/* encoder.c — what the encoder families share besides the forward pass: binding weights by their
 * Keras or safetensors names (encoder-private.h), the shared AsFamily members, and the
 * working-memory size of a pass. */
#include "encoder-private.h"

void
as_encoder_binder_init (AsEncoderBinder *eb, const AsTensorStore *store, GError **error)
{
  eb->binder = as_tensor_binder_init (store, error);
  eb->keras = as_tensor_binder_is_keras (&eb->binder);
  eb->keras_prefix = g_strdup ("");
  eb->st_prefix = g_strdup ("");
}

void
as_encoder_binder_clear (AsEncoderBinder *eb)
{
  g_clear_pointer (&eb->keras_prefix, g_free);
  g_clear_pointer (&eb->st_prefix, g_free);
}

void
as_encoder_binder_set_prefix (AsEncoderBinder *eb, const char *keras, const char *st)
{
  g_free (eb->keras_prefix);
  g_free (eb->st_prefix);
  eb->keras_prefix = g_strdup (keras);
  eb->st_prefix = g_strdup (st);
}

/* The full name of KERAS / SAFETENSORS in the store's layout (owned). */
static char *
binder_name (const AsEncoderBinder *eb, const char *keras, const char *safetensors)
{
  return eb->keras ? g_strconcat (eb->keras_prefix, keras, NULL)
                   : g_strconcat (eb->st_prefix, safetensors, NULL);
}

gboolean
as_encoder_binder_has (const AsEncoderBinder *eb, const char *keras, const char *safetensors)
{
  g_autofree char *name = binder_name (eb, keras, safetensors);
  return as_tensor_store_find_suffix (eb->binder.store, name) != NULL;
}

const float *
as_encoder_bind (AsEncoderBinder *eb, const char *keras, const char *safetensors, int64_t d0,
                 int64_t d1)
{
  g_autofree char *name = binder_name (eb, keras, safetensors);
  return as_tensor_binder_get (&eb->binder, name, d0, d1);
}

AsEncoderLinear
as_encoder_bind_linear (AsEncoderBinder *eb, const char *keras, const char *safetensors, int64_t in,
                        int64_t out)
{
  g_autofree char *kernel = g_strconcat (keras, "/kernel:0", NULL);
  g_autofree char *k_bias = g_strconcat (keras, "/bias:0", NULL);
  g_autofree char *weight = g_strconcat (safetensors, ".weight", NULL);
  g_autofree char *s_bias = g_strconcat (safetensors, ".bias", NULL);
  AsEncoderLinear lin = { .out_in = !eb->keras };
  lin.w = eb->keras ? as_encoder_bind (eb, kernel, NULL, in, out)
                    : as_encoder_bind (eb, NULL, weight, out, in);
  lin.b = as_encoder_bind (eb, k_bias, s_bias, out, 0);
  return lin;
}

void
as_encoder_bind_layernorm (AsEncoderBinder *eb, const char *keras, const char *safetensors,
                           int64_t d, const float **gamma, const float **beta)
{
  g_autofree char *k_gamma = g_strconcat (keras, "/gamma:0", NULL);
  g_autofree char *k_beta = g_strconcat (keras, "/beta:0", NULL);
  /* checkpoints saved before transformers renamed them (bert-base-uncased) say gamma/beta */
  g_autofree char *s_weight = g_strconcat (safetensors, ".weight", NULL);
  g_autofree char *s_legacy = g_strconcat (safetensors, ".gamma", NULL);
  gboolean legacy = !eb->keras && !as_encoder_binder_has (eb, NULL, s_weight)
                    && as_encoder_binder_has (eb, NULL, s_legacy);
  g_autofree char *s_gamma = g_strconcat (safetensors, legacy ? ".gamma" : ".weight", NULL);
  g_autofree char *s_beta = g_strconcat (safetensors, legacy ? ".beta" : ".bias", NULL);
  *gamma = as_encoder_bind (eb, k_gamma, s_gamma, d, 0);
  *beta = as_encoder_bind (eb, k_beta, s_beta, d, 0);
}

void
as_encoder_free_weights (gpointer weights)
{
  AsEncoderWeights *w = weights;
  if (w == NULL)
    return;
  g_free (w->layers);
  g_free (w);
}

gboolean
as_encoder_has_masked_lm_head (gconstpointer weights)
{
  const AsEncoderWeights *w = weights;
  return w->has_mlm;
}

void
as_encoder_free_settings (gpointer settings)
{
  g_free (settings);
}
