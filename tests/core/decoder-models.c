/* decoder-models.c — reference models made once per build folder (decoder-models.h). */
#include "decoder-models.h"

#include <glib/gstdio.h>

#include "check-close.h"
#include "reference-cache.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--hidden", "64", "--intermediate", "112", "--vocab", "320",    \
      "--positions", "1024"

const char *const decoder_llama_f32[] = { "--family", "llama", SMALL, "--dtype", "f32", NULL };
const char *const decoder_llama_gqa[] = { "--family",        "llama",
                                          "--layers",        "3",
                                          "--heads",         "8",
                                          "--kv-heads",      "2",
                                          "--hidden",        "128",
                                          "--intermediate",  "192",
                                          "--vocab",         "320",
                                          "--positions",     "1024",
                                          "--dtype",         "bf16",
                                          "--shards",        "3",
                                          "--no-tie",        "--rope-theta",
                                          "500000",          "--rope-scaling",
                                          "llama3:8,1,4,64", NULL };
/* Gemma 2: caps small enough to bend the scores and logits, every other layer sliding (0, 2),
 * its own output matrix */
const char *const decoder_gemma2_caps[] = { "--family",
                                            "gemma2",
                                            "--layers",
                                            "4",
                                            "--heads",
                                            "4",
                                            "--kv-heads",
                                            "2",
                                            "--hidden",
                                            "64",
                                            "--head-dim",
                                            "32",
                                            "--intermediate",
                                            "112",
                                            "--vocab",
                                            "320",
                                            "--positions",
                                            "1024",
                                            "--sliding-window",
                                            "16",
                                            "--softcap",
                                            "0.3,0.5",
                                            "--query-pre-attn-scalar",
                                            "16",
                                            "--no-tie",
                                            "--seed",
                                            "10",
                                            NULL };
const char *const decoder_llama_spm[]
    = { "--family",   "llama", "--layers",    "2",   "--heads",        "4",
        "--kv-heads", "2",     "--hidden",    "64",  "--intermediate", "112",
        "--vocab",    "32000", "--positions", "512", "--dtype",        "bf16",
        NULL };
const char *const decoder_mistral_window[]
    = { "--family", "mistral", SMALL, "--kv-heads", "2", "--sliding-window", "37", NULL };

static const char *const reference_sources[] = {
  "tests/reference/decoder_reference.py",
  "tests/reference/decoder_layout.py",
  "tests/reference/decoder_naive.py",
  "tests/reference/safetensors_io.py",
  NULL,
};

static const ReferenceCache cache = {
  .folder = "decoder-models",
  .script = "tests/reference/decoder_reference.py",
  .sources = reference_sources,
};

static const char *const tiny_gpt2_files[]
    = { "tests/fixtures/tiny-gpt2/vocab.json", "tests/fixtures/tiny-gpt2/merges.txt", NULL };

/* tokenizer.json beside vocab.json + merges.txt: the former must win. */
static const char *const llama_spm_files[]
    = { "tests/fixtures/tokenizers/llama-spm/tokenizer.json",
        "tests/fixtures/tokenizers/llama-spm/tokenizer_config.json",
        "tests/fixtures/tiny-gpt2/vocab.json", "tests/fixtures/tiny-gpt2/merges.txt", NULL };

/* decoder_model with the source files FILES (NULL-terminated, relative to the source tree)
 * copied into the folder. */
static char *
decoder_model_with (const char *name, const char *const *args, const char *const *files)
{
  g_autofree char *joined = g_strjoinv ("\x1f", (char **) args);
  g_autofree char *listed = files != NULL ? g_strjoinv ("\x1f", (char **) files) : g_strdup ("");
  g_autofree char *what = g_strdup_printf ("%s\x1e%s", joined, listed);
  char *model = reference_cache_path (&cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("numpy");
  if (python == NULL)
    {
      g_free (model);
      return NULL;
    }

  /* made beside the final place, then renamed into it (with the Meta file, if any) */
  g_autofree char *tmp = reference_cache_temporary (model, "");
  g_autofree char *tmp_meta = g_strconcat (tmp, ".meta.safetensors", NULL);
  g_autoptr (GPtrArray) make = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (make, g_strdup ("make-model"));
  g_ptr_array_add (make, g_strdup (tmp));
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (make, g_strdup (*a));
  reference_cache_run (&cache, python, make);
  for (const char *const *f = files; f != NULL && *f != NULL; f++)
    {
      g_autofree char *from = test_source_path (*f);
      g_autofree char *file = g_path_get_basename (*f);
      g_autofree char *to = g_build_filename (tmp, file, NULL);
      reference_cache_copy_file (from, to);
    }
  if (g_file_test (tmp_meta, G_FILE_TEST_EXISTS))
    {
      g_autofree char *meta = g_strconcat (model, ".meta.safetensors", NULL);
      g_assert_cmpint (g_rename (tmp_meta, meta), ==, 0);
    }
  /* another program may have finished the same model meanwhile: keep either */
  reference_cache_publish (tmp, model);
  return model;
}

char *
decoder_model (const char *name, const char *const *args, gboolean tokenizer)
{
  return decoder_model_with (name, args, tokenizer ? tiny_gpt2_files : NULL);
}

char *
decoder_model_llama_spm (void)
{
  return decoder_model_with ("llama-spm-tokenizer-json", decoder_llama_spm, llama_spm_files);
}

char *
decoder_ids (int length, int vocab, guint32 seed, int index)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed + 7919u * (guint32) index);
  GString *ids = g_string_new (NULL);
  for (int i = 0; i < length; i++)
    g_string_append_printf (ids, i ? ",%d" : "%d", g_rand_int_range (rand, 0, vocab));
  return g_string_free (ids, FALSE);
}

/* The reference's outputs for the id lists IDS (each "a,b,c"), cached. */
static char *
expected_for (const char *model_dir, GPtrArray *ids, const char *meta_path)
{
  g_autoptr (GPtrArray) exp = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (exp, g_strdup ("expected"));
  g_ptr_array_add (exp, g_strdup (model_dir));
  g_ptr_array_add (exp, NULL); /* the output, below */
  GString *what = g_string_new (model_dir);
  for (guint s = 0; s < ids->len; s++)
    {
      g_ptr_array_add (exp, g_strdup ("--ids"));
      g_ptr_array_add (exp, g_strdup (ids->pdata[s]));
      g_string_append_printf (what, "\x1f%s", (char *) ids->pdata[s]);
    }
  if (meta_path != NULL)
    {
      g_ptr_array_add (exp, g_strdup ("--meta"));
      g_ptr_array_add (exp, g_strdup (meta_path));
      g_string_append_printf (what, "\x1fmeta");
    }
  g_autofree char *base = g_path_get_basename (model_dir);
  g_autofree char *name = g_strconcat (base, "-expected", NULL);
  g_autofree char *stem = reference_cache_path (&cache, name, what->str);
  g_string_free (what, TRUE);
  char *out = g_strconcat (stem, ".h5", NULL);
  if (g_file_test (out, G_FILE_TEST_EXISTS))
    return out;
  const char *python = test_python_with ("torch, h5py, numpy");
  if (python == NULL)
    {
      g_free (out);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (out, ".h5");
  exp->pdata[2] = g_strdup (tmp);
  reference_cache_run (&cache, python, exp);
  reference_cache_publish (tmp, out);
  return out;
}

char *
decoder_expected (const char *model_dir, const int *lengths, int n_lengths, int vocab, guint32 seed,
                  const char *meta_path)
{
  g_autoptr (GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  for (int s = 0; s < n_lengths; s++)
    g_ptr_array_add (ids, decoder_ids (lengths[s], vocab, seed, s));
  return expected_for (model_dir, ids, meta_path);
}

char *
decoder_expected_ids (const char *model_dir, const char *ids)
{
  g_autoptr (GPtrArray) list = g_ptr_array_new ();
  g_ptr_array_add (list, (gpointer) ids);
  return expected_for (model_dir, list, NULL);
}
