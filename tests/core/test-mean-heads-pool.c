/* test-mean-heads-pool.c — a layer's mean over heads pooled from strips of tiles equals the whole
 * mean pooled (as-rollout-long.h: as_trace_mean_heads_pool; `attnscope export --mean` of a long
 * text draws it).
 *
 * A random Llama with grouped-query attention over 131 tokens, its attention on demand and with
 * the matrices: for every layer, blocks of 1, 8, 17, 64 and 131 tokens (a last block that is
 * short, one block, one token a block), max and mean pooling, as_trace_mean_heads_pool gives
 * as_matrix_pool of as_trace_mean_heads's layer to the bit; the max of a block is an entry of it
 * (checked against the largest of the mean's entries it covers). */
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "as-rollout-long.h"
#include "as-rollout.h"
#include "decoder-models.h"

static void
check_trace (const AsTrace *t)
{
  int T = t->n_tokens;
  g_autofree float *mean = as_trace_mean_heads (t); /* [L][T][T] */
  static const int ks[] = { 1, 8, 17, 64, 131 };
  for (int l = 0; l < t->n_layer; l++)
    for (guint i = 0; i < G_N_ELEMENTS (ks); i++)
      for (int pool = AS_POOL_MAX; pool <= AS_POOL_MEAN; pool++)
        {
          int k = ks[i], P = as_pool_size (T, k);
          const float *m = mean + (gsize) l * T * T;
          g_autofree float *want = g_new (float, (gsize) P *P);
          g_autofree float *got = g_new (float, (gsize) P *P);
          as_matrix_pool (want, m, T, T, k, pool);
          as_trace_mean_heads_pool (got, t, l, k, pool);
          if (memcmp (want, got, sizeof (float) * P * P) != 0)
            g_error ("layer %d, blocks of %d, pool %d: not the whole mean's bits", l, k, pool);
          if (pool == AS_POOL_MAX)
            {
              /* block (P−1, 0): the last queries' first keys */
              float largest = 0.0f;
              for (int r = (P - 1) * k; r < T; r++)
                for (int c = 0; c < MIN (k, T); c++)
                  largest = MAX (largest, m[(gsize) r * T + c]);
              g_assert_cmpfloat (got[(gsize) (P - 1) * P], ==, largest);
            }
        }
}

static void
test_pool (void)
{
  g_autofree char *dir = decoder_model ("llama-gqa-bf16-sharded-llama3", decoder_llama_gqa, FALSE);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  enum
  {
    T = 131
  };
  int32_t ids[T];
  for (int i = 0; i < T; i++)
    ids[i] = (i * 37 + 11) % 300;
  for (int storage = AS_ATTENTION_MATRICES; storage <= AS_ATTENTION_ON_DEMAND; storage++)
    {
      AsForwardOptions options = { .attention = storage };
      g_autoptr (AsTrace) t = as_forward (model, ids, T, &options, &error);
      g_assert_no_error (error);
      g_assert_cmpint (as_trace_attention_held (t), ==, storage == AS_ATTENTION_MATRICES);
      check_trace (t);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mean-heads-pool/strips", test_pool);
  return g_test_run ();
}
