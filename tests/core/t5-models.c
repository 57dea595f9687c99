/* t5-models.c — T5 reference models made once per build folder (t5-models.h). */
#include "t5-models.h"

#include "check-close.h"
#include "reference-cache.h"

const char *const t5_relu[] = { "--ff-proj", "relu", "--seed", "1", NULL };
const char *const t5_umt5[] = { "--model-type",
                                "umt5",
                                "--ff-proj",
                                "gated-gelu",
                                "--layers",
                                "3",
                                "--decoder-layers",
                                "2",
                                "--heads",
                                "4",
                                "--d-model",
                                "64",
                                "--d-kv",
                                "16",
                                "--d-ff",
                                "96",
                                "--vocab",
                                "300",
                                "--buckets",
                                "16",
                                "--max-distance",
                                "20",
                                "--no-tie",
                                "--seed",
                                "5",
                                NULL };
const char *const t5_flan_gated[] = { "--model-type",
                                      "mt5",
                                      "--ff-proj",
                                      "gated-gelu",
                                      "--layers",
                                      "2",
                                      "--decoder-layers",
                                      "3",
                                      "--heads",
                                      "6",
                                      "--d-model",
                                      "96",
                                      "--d-kv",
                                      "24",
                                      "--d-ff",
                                      "160",
                                      "--vocab",
                                      "320",
                                      "--buckets",
                                      "16",
                                      "--max-distance",
                                      "20",
                                      "--dtype",
                                      "bf16",
                                      "--shards",
                                      "3",
                                      "--no-tie",
                                      "--num-beams",
                                      "4",
                                      "--seed",
                                      "2",
                                      "--std",
                                      "0.05",
                                      NULL };

static const char *const reference_sources[] = {
  "tests/reference/t5_reference.py",
  "tests/reference/marian_generate.py",
  "tests/reference/seq2seq_reference.py",
  "tests/reference/safetensors_io.py",
  NULL,
};

static const ReferenceCache cache = {
  .folder = "t5-models",
  .script = "tests/reference/t5_reference.py",
  .sources = reference_sources,
};

char *
t5_model (const char *name, const char *const *args)
{
  return reference_cache_model (&cache, name, args);
}

char *
t5_expected (const char *model_dir, const char *const *src, const char *const *tgt, int n)
{
  return reference_cache_expected (&cache, model_dir, src, tgt, n);
}

char *
t5_generated (const char *model_dir, const char *src, int beams, int max_length)
{
  return reference_cache_generated (&cache, model_dir, src, beams, max_length);
}

char *
t5_ids (int length, int vocab, guint32 seed, gboolean eos)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GString *ids = g_string_new (NULL);
  for (int i = 0; i < length; i++)
    {
      int id = eos && i == length - 1 ? 1 : g_rand_int_range (rand, 2, vocab);
      g_string_append_printf (ids, i ? ",%d" : "%d", id);
    }
  return g_string_free (ids, FALSE);
}

char *
t5_model_with_tokenizer (void)
{
  g_autofree char *text = test_source_path ("tests/fixtures/long-text.txt");
  const char *const make[]
      = { "--ff-proj", "gated-gelu", "--vocab", "600", "--tokenizer", text, "--seed", "4", NULL };
  return t5_model ("cli-t5", make);
}
