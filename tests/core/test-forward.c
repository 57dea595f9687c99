/* test-forward.c — the GPT-2 forward pass against the project's independent PyTorch reference.
 *
 * tests/reference/gpt2_reference.py writes random GPT-2 models in the exact Hugging Face layout
 * and the reference's outputs for given token ids (one HDF5 group /seqN per sequence: ids,
 * attentions, q, k, v, contexts, attn_out, hidden_states, logits). This program loads a model
 * with as_model_load(), runs as_forward() with all logits and compares every captured array:
 *
 *  - the committed tiny fixture (tests/fixtures/tiny-gpt2, 2 layers, 2 heads, D 16, V 300,
 *    expected outputs in tests/fixtures/tiny-gpt2-expected.h5 for T = 1, 7, 32), which needs no
 *    Python;
 *  - generated at test time when $ATTNSCOPE_PYTHON can import torch and h5py: a distilgpt2-shaped
 *    model (6 layers, 12 heads, 768, vocab 50257, 1024 positions, std 0.05, tf_model.h5), T = 1,
 *    2, 5, 17, 64; and a second shape read from model.safetensors only (3 layers, 4 heads, 64,
 *    vocab 1000, 256 positions, n_inner 160, with h.N.attn.bias mask buffers), T up to 200.
 *
 * Tolerances (tests/README.md, "Tolerances"; trace-compare.h): attention weights within 1e-5
 * absolute. Vectors (q, k, v, contexts, attn_out, hidden states, logits) within 1e-4 relative,
 * element by element: |a - e| <= 1e-4·|e| + atol with atol = 1e-5·rms(e) of that array. The small
 * absolute term is needed because a float32 value near zero that is the sum of terms of size ~rms
 * carries an absolute rounding error of that order, not one proportional to itself; 1e-5·rms is a
 * tenth of the relative tolerance at the data's own scale, so it cannot hide an error in a typical
 * value. Masked (future) attention weights must be exactly 0 and every row must sum to 1 within
 * 1e-6; the last-position-only logits must equal the last row of the all-position logits. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "check-close.h"
#include "trace-compare.h"

/* --- the committed tiny fixture -------------------------------------------------------------- */

static void
test_tiny_fixture (void)
{
  g_autofree char *dir = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autofree char *expected = test_source_path ("tests/fixtures/tiny-gpt2-expected.h5");
  int n = trace_compare_model (dir, expected, "tiny-gpt2", NULL);
  g_assert_cmpint (n, ==, 3);
}

/* The reference's causal softmax puts weight on the past: a uniform row would mean the model or
 * the fixture lost its weights. Guards the fixture itself against degenerating. */
static void
test_tiny_not_uniform (void)
{
  g_autofree char *dir = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  int32_t ids[32];
  for (int i = 0; i < 32; i++)
    ids[i] = (i * 37 + 5) % 300;
  g_autoptr (AsTrace) t = as_forward (model, ids, 32, NULL, &error);
  g_assert_no_error (error);
  float top = 0;
  const float *p = as_trace_attn_matrices (t, 0, 0); /* [T][T] */
  for (int j = 0; j < 32; j++)
    top = MAX (top, p[31 * 32 + j]);
  g_assert_cmpfloat (top, >, 2.0 / 32);
}

/* --- models generated at test time ----------------------------------------------------------- */

/* The Python interpreter when it can import torch and h5py, else NULL (and the test skips). */
static void
run_reference (GPtrArray *argv)
{
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    g_test_message ("gpt2_reference.py failed (%d): %s", status, err ? err : "");
  g_assert_cmpint (status, ==, 0);
}

/* Appends "--ids a,b,c" for each length in LENGTHS (ids drawn from SEED, below VOCAB). */
static void
add_id_lists (GPtrArray *argv, const int *lengths, int n_lengths, int vocab, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  for (int s = 0; s < n_lengths; s++)
    {
      GString *ids = g_string_new (NULL);
      for (int i = 0; i < lengths[s]; i++)
        g_string_append_printf (ids, i ? ",%d" : "%d", g_rand_int_range (rand, 0, vocab));
      g_ptr_array_add (argv, g_strdup ("--ids"));
      g_ptr_array_add (argv, g_string_free (ids, FALSE));
    }
}

static GPtrArray *
reference_argv (const char *py, const char *command)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (py));
  g_ptr_array_add (argv, test_source_path ("tests/reference/gpt2_reference.py"));
  g_ptr_array_add (argv, g_strdup (command));
  return argv;
}

static void
add_args (GPtrArray *argv, const char *const *args)
{
  for (; *args != NULL; args++)
    g_ptr_array_add (argv, g_strdup (*args));
}

/* One model generated at test time and the sequences it is checked on. */
typedef struct
{
  const char *name;          /* folder name and label */
  const char *const *shape;  /* make-model options, NULL-terminated */
  gboolean gpt2_tokenizer;   /* copy tests/fixtures/gpt2-tokenizer when present */
  gboolean safetensors_only; /* delete tf_model.h5 once the reference has read it */
  const int *lengths;        /* [n_lengths] sequence lengths T */
  int n_lengths;
  int vocab;
  guint32 seed; /* for the random ids */
} GeneratedCase;

static void
run_generated_case (const GeneratedCase *gc)
{
  const char *py = test_python_with ("torch, h5py, numpy");
  if (py == NULL)
    return;
  g_autofree char *dir = g_build_filename (test_tmpdir (), gc->name, NULL);
  g_autofree char *expected_name = g_strconcat (gc->name, "-expected.h5", NULL);
  g_autofree char *expected = g_build_filename (test_tmpdir (), expected_name, NULL);
  g_autofree char *tokenizer = test_source_path ("tests/fixtures/gpt2-tokenizer");
  g_autofree char *vocab = g_build_filename (tokenizer, "vocab.json", NULL);

  g_autoptr (GPtrArray) make = reference_argv (py, "make-model");
  g_ptr_array_add (make, g_strdup (dir));
  add_args (make, gc->shape);
  if (gc->gpt2_tokenizer && g_file_test (vocab, G_FILE_TEST_EXISTS))
    {
      const char *from[] = { "--tokenizer-from", tokenizer, NULL };
      add_args (make, from);
    }
  run_reference (make);

  g_autoptr (GPtrArray) exp = reference_argv (py, "expected");
  g_ptr_array_add (exp, g_strdup (dir));
  g_ptr_array_add (exp, g_strdup (expected));
  add_id_lists (exp, gc->lengths, gc->n_lengths, gc->vocab, gc->seed);
  run_reference (exp);
  if (gc->safetensors_only)
    {
      /* The reference read tf_model.h5; the core gets only model.safetensors. */
      g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
      g_assert_cmpint (g_unlink (h5), ==, 0);
    }

  int compared = trace_compare_model (dir, expected, gc->name, NULL);
  /* Free the disk space now (the distilgpt2 shape is 330 MB): a failing test aborts before
   * test_tmpdir_cleanup() runs. */
  const char *rm[] = { "rm", "-rf", dir, expected, NULL };
  g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  g_assert_cmpint (compared, ==, gc->n_lengths);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
}

static void
test_generated_distilgpt2_shape (void)
{
  const char *shape[]
      = { "--layers",    "6",    "--heads", "12",   "--embd", "768", "--vocab", "50257",
          "--positions", "1024", "--std",   "0.05", "--seed", "2",   NULL };
  const int lengths[] = { 1, 2, 5, 17, 64 };
  GeneratedCase gc
      = { "distilgpt2-shape", shape, TRUE, FALSE, lengths, G_N_ELEMENTS (lengths), 50257, 17 };
  run_generated_case (&gc);
}

static void
test_generated_safetensors_shape (void)
{
  const char *shape[]
      = { "--layers", "3",    "--heads",     "4",   "--embd",        "64",
          "--vocab",  "1000", "--positions", "256", "--inner",       "160",
          "--std",    "0.1",  "--seed",      "3",   "--safetensors", "--mask-buffers",
          NULL };
  const int lengths[] = { 1, 3, 31, 128, 200 };
  GeneratedCase gc
      = { "safetensors-shape", shape, FALSE, TRUE, lengths, G_N_ELEMENTS (lengths), 1000, 23 };
  run_generated_case (&gc);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/core/forward/tiny/reference", test_tiny_fixture);
  g_test_add_func ("/core/forward/tiny/not-uniform", test_tiny_not_uniform);
  g_test_add_func ("/core/forward/generated/distilgpt2-shape", test_generated_distilgpt2_shape);
  g_test_add_func ("/core/forward/generated/safetensors-shape", test_generated_safetensors_shape);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
