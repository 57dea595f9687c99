/* toy-attention-support.c — what the toy-attention tests share (toy-attention-support.h). */
#include "toy-attention-support.h"

#include "check-close.h"

/* The seed 000's embeddings of "May the force be with you" ("A Transformer Block"). */
const float toy_seed_embeddings[T_SEED * D_SEED] = {
  0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, /* May */
  1.0f, 0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.4f, 0.3f, 0.2f, 0.1f, /* the */
  0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, 0.1f, 0.2f, 0.3f, 0.4f, /* force */
  0.2f, 0.4f, 0.6f, 0.8f, 1.0f, 0.1f, 0.3f, 0.5f, 0.7f, 0.9f, /* be */
  0.9f, 0.7f, 0.5f, 0.3f, 0.1f, 1.0f, 0.8f, 0.6f, 0.4f, 0.2f, /* with */
  0.3f, 0.1f, 0.9f, 0.7f, 0.5f, 0.2f, 1.0f, 0.8f, 0.6f, 0.4f, /* you */
};

/* The configurations' family settings live here for the whole test program. */
static AsToySettings toy_settings_pool[32];
static guint n_toy_settings;

AsConfig
toy_test_config (int D, int H, int hd, int V, gboolean projections, gboolean output, gboolean scale,
                 gboolean sinusoidal, gboolean causal)
{
  g_assert_cmpuint (n_toy_settings, <, G_N_ELEMENTS (toy_settings_pool));
  AsToySettings *settings = &toy_settings_pool[n_toy_settings++];
  AsConfig c = { 0 };
  c.family = "toy-attention";
  c.settings = settings;
  c.n_layer = 1;
  c.n_embd = D;
  c.n_head = H;
  c.head_dim = hd;
  c.vocab_size = V;
  c.n_positions = 64;
  settings->use_projections = projections;
  settings->use_output = output;
  settings->scale_scores = scale;
  settings->sinusoidal = sinusoidal;
  settings->causal = causal;
  return c;
}

void
toy_test_use_source_data_dir (void)
{
  g_autofree char *data = test_source_path ("data");
  g_setenv ("ATTNSCOPE_DATA_DIR", data, TRUE);
}

AsModel *
toy_test_load_shipped (const char *name)
{
  toy_test_use_source_data_dir ();
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  g_assert_cmpstr (as_model_get_config (model)->family, ==, "toy-attention");
  return model;
}
