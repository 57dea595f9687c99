/* bart-models.c — BART-family reference models made once per build folder (bart-models.h). */
#include "bart-models.h"

#include "check-close.h"
#include "reference-cache.h"

/* BART (post-norm, F32, 2 + 2 layers) and an mBART shaped like a DistilBART student (pre-norm
 * with final norms, scale_embedding, 2 encoder / 1 decoder layers, D 96 in 6 heads, BF16 in two
 * shards); both with min_length 6 so that generation runs past the start token. */
const char *const bart_post[] = { "--seed", "1", "--min-length", "6", NULL };
const char *const bart_mbart[] = { "--model-type",
                                   "mbart",
                                   "--layers",
                                   "2",
                                   "--decoder-layers",
                                   "1",
                                   "--heads",
                                   "6",
                                   "--d-model",
                                   "96",
                                   "--ffn",
                                   "160",
                                   "--vocab",
                                   "320",
                                   "--scale-embedding",
                                   "--dtype",
                                   "bf16",
                                   "--shards",
                                   "2",
                                   "--seed",
                                   "2",
                                   "--std",
                                   "0.05",
                                   "--num-beams",
                                   "4",
                                   "--min-length",
                                   "6",
                                   NULL };

static const char *const reference_sources[] = {
  "tests/reference/bart_reference.py",
  "tests/reference/marian_generate.py",
  "tests/reference/seq2seq_reference.py",
  "tests/reference/safetensors_io.py",
  NULL,
};

static const ReferenceCache cache = {
  .folder = "bart-models",
  .script = "tests/reference/bart_reference.py",
  .sources = reference_sources,
};

char *
bart_model (const char *name, const char *const *args)
{
  return reference_cache_model (&cache, name, args);
}

char *
bart_expected (const char *model_dir, const char *const *src, const char *const *tgt, int n)
{
  return reference_cache_expected (&cache, model_dir, src, tgt, n);
}

char *
bart_expected_no_positions (const char *model_dir, const char *const *src, const char *const *tgt,
                            int n)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("expected"));
  g_ptr_array_add (args, g_strdup (model_dir));
  g_ptr_array_add (args, g_strdup ("")); /* the output */
  g_ptr_array_add (args, g_strdup ("--no-positions"));
  GString *what = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      g_ptr_array_add (args, g_strdup ("--src-ids"));
      g_ptr_array_add (args, g_strdup (src[i]));
      g_ptr_array_add (args, g_strdup ("--tgt-ids"));
      g_ptr_array_add (args, g_strdup (tgt[i]));
      g_string_append_printf (what, "%s\x1e%s\x1f", src[i], tgt[i]);
    }
  char *out = reference_cache_output (&cache, model_dir, "expected-no-positions", what->str, args,
                                      2, ".h5");
  g_string_free (what, TRUE);
  return out;
}

char *
bart_generated (const char *model_dir, const char *src, int beams, int max_length)
{
  return reference_cache_generated (&cache, model_dir, src, beams, max_length);
}

char *
bart_ids (int length, int vocab, guint32 seed, gboolean eos)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GString *ids = g_string_new (NULL);
  for (int i = 0; i < length; i++)
    {
      int id = eos && i == length - 1 ? 2 : g_rand_int_range (rand, 3, vocab);
      g_string_append_printf (ids, i ? ",%d" : "%d", id);
    }
  return g_string_free (ids, FALSE);
}
