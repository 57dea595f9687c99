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
  g_autofree char *what = g_strjoinv ("\x1f", (char **) args);
  char *model = reference_cache_path (&cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("numpy");
  if (python == NULL)
    {
      g_free (model);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (model, "");
  g_autoptr (GPtrArray) make = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (make, g_strdup ("make-model"));
  g_ptr_array_add (make, g_strdup (tmp));
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (make, g_strdup (*a));
  reference_cache_run (&cache, python, make);
  reference_cache_publish (tmp, model);
  return model;
}

/* Runs ARGS (args[0] the subcommand, the output path at OUT_INDEX filled here) into a cached
 * file named after MODEL_DIR, KIND and WHAT. */
static char *
cached_output (const char *model_dir, const char *kind, const char *what, GPtrArray *args,
               guint out_index, const char *suffix)
{
  g_autofree char *base = g_path_get_basename (model_dir);
  g_autofree char *name = g_strconcat (base, "-", kind, NULL);
  g_autofree char *keyed = g_strconcat (model_dir, "\x1f", what, NULL);
  g_autofree char *stem = reference_cache_path (&cache, name, keyed);
  char *out = g_strconcat (stem, suffix, NULL);
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return out;
  const char *python = test_python_with ("torch, h5py, numpy");
  if (python == NULL)
    {
      g_free (out);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (out, suffix);
  g_free (args->pdata[out_index]);
  args->pdata[out_index] = g_strdup (tmp);
  reference_cache_run (&cache, python, args);
  reference_cache_publish (tmp, out);
  return out;
}

char *
bart_expected (const char *model_dir, const char *const *src, const char *const *tgt, int n)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("expected"));
  g_ptr_array_add (args, g_strdup (model_dir));
  g_ptr_array_add (args, g_strdup ("")); /* the output */
  GString *what = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      g_ptr_array_add (args, g_strdup ("--src-ids"));
      g_ptr_array_add (args, g_strdup (src[i]));
      g_ptr_array_add (args, g_strdup ("--tgt-ids"));
      g_ptr_array_add (args, g_strdup (tgt[i]));
      g_string_append_printf (what, "%s\x1e%s\x1f", src[i], tgt[i]);
    }
  char *out = cached_output (model_dir, "expected", what->str, args, 2, ".h5");
  g_string_free (what, TRUE);
  return out;
}

char *
bart_generated (const char *model_dir, const char *src, int beams, int max_length)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (args, g_strdup ("generate"));
  g_ptr_array_add (args, g_strdup (model_dir));
  g_ptr_array_add (args, g_strdup ("--src-ids"));
  g_ptr_array_add (args, g_strdup (src));
  if (beams > 0)
    {
      g_ptr_array_add (args, g_strdup ("--beams"));
      g_ptr_array_add (args, g_strdup_printf ("%d", beams));
    }
  if (max_length > 0)
    {
      g_ptr_array_add (args, g_strdup ("--max-length"));
      g_ptr_array_add (args, g_strdup_printf ("%d", max_length));
    }
  g_ptr_array_add (args, g_strdup ("--out"));
  g_ptr_array_add (args, g_strdup (""));
  g_autofree char *what = g_strdup_printf ("%s\x1f%d\x1f%d", src, beams, max_length);
  return cached_output (model_dir, "generate", what, args, args->len - 1, ".json");
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
