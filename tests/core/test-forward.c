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
 * Tolerances (tests/README.md, "Tolerances"): attention weights within 1e-5 absolute. Vectors (q,
 * k, v, contexts, attn_out, hidden states, logits) within 1e-4 relative, element by element: |a -
 * e| <= 1e-4·|e| + atol with atol = 1e-5·rms(e) of that array. The small absolute term is needed
 * because a float32 value near zero that is the sum of terms of size ~rms carries an absolute
 * rounding error of that order, not one proportional to itself; 1e-5·rms is a tenth of the relative
 * tolerance at the data's own scale, so it cannot hide an error in a typical value. Masked (future)
 * attention weights must be exactly 0 and every row must sum to 1 within 1e-6; the
 * last-position-only logits must equal the last row of the all-position logits. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "check-close.h"
#include "trace-compare.h"

/* The last-position-only run may compute its one row of logits with a matrix-vector product
 * instead of a matrix product: same numbers up to float32 rounding of a D-term sum. */
#define LAST_LOGITS_RTOL 1e-5
#define LAST_LOGITS_ATOL_PER_RMS 1e-5

/* Masked weights exactly 0, rows summing to 1 within 1e-6. */
static void
check_attention_rows (const char *label, const AsTrace *t)
{
  int T = t->n_tokens;
  for (int l = 0; l < t->n_layer; l++)
    for (int h = 0; h < t->n_head; h++)
      {
        const float *p = as_trace_attn (t, l, h); /* [T][T] */
        for (int i = 0; i < T; i++)
          {
            double sum = 0;
            for (int j = 0; j < T; j++)
              {
                if (j > i && p[i * T + j] != 0.0f)
                  {
                    g_test_message ("%s: layer %d head %d: masked weight [%d][%d] = %g, not 0",
                                    label, l, h, i, j, p[i * T + j]);
                    g_test_fail ();
                    return;
                  }
                sum += p[i * T + j];
              }
            if (fabs (sum - 1.0) > 1e-6)
              {
                g_test_message ("%s: layer %d head %d row %d sums to %.9f", label, l, h, i, sum);
                g_test_fail ();
                return;
              }
          }
      }
}

/* Runs MODEL on sequence GROUP of FILE and compares everything; FALSE when GROUP is absent. */
static gboolean
compare_sequence (AsModel *model, hid_t file, const char *group, const char *label)
{
  g_autoptr (GArray) ids = trace_read_ids (file, group);
  if (ids == NULL)
    return FALSE;
  int n = (int) ids->len;
  const int32_t *id = &g_array_index (ids, int32_t, 0);
  AsForwardOptions all = { .all_logits = TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward (model, id, n, &all, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t);

  const AsConfig *c = as_model_get_config (model);
  g_assert_cmpint (t->n_tokens, ==, n);
  g_assert_cmpint (t->n_layer, ==, c->n_layer);
  g_assert_cmpint (t->n_head, ==, c->n_head);
  g_assert_cmpint (t->d_model, ==, c->n_embd);
  g_assert_cmpint (t->head_dim, ==, c->n_embd / c->n_head);
  g_assert_cmpint (t->vocab_size, ==, c->vocab_size);
  g_assert_cmpint (t->logits_rows, ==, n);
  g_assert_cmpmem (t->ids, n * sizeof (int32_t), id, n * sizeof (int32_t));

  g_autofree char *lbl = g_strdup_printf ("%s %s (T=%d)", label, group, n);
  hsize_t L = t->n_layer, H = t->n_head, T = n, D = t->d_model, hd = t->head_dim;
  hsize_t V = t->vocab_size;
  hsize_t attn_dims[] = { L, H, T, T };
  g_autofree float *attn = trace_read_floats (file, group, "attentions", 4, attn_dims);
  if (attn != NULL)
    {
      g_autofree char *what = g_strdup_printf ("%s attentions", lbl);
      check_close (what, t->attn, attn, L * H * T * T, TRACE_ATTN_ATOL, 0.0);
    }
  hsize_t head_dims[] = { L, H, T, hd };
  trace_compare_vectors (lbl, "q", t->q, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "k", t->k, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "v", t->v, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "contexts", t->ctx, file, group, 4, head_dims);
  hsize_t out_dims[] = { L, T, D };
  trace_compare_vectors (lbl, "attn_out", t->attn_out, file, group, 3, out_dims);
  hsize_t hidden_dims[] = { L + 1, T, D };
  trace_compare_vectors (lbl, "hidden_states", t->hidden, file, group, 3, hidden_dims);
  hsize_t logit_dims[] = { T, V };
  trace_compare_vectors (lbl, "logits", t->logits, file, group, 2, logit_dims);
  check_attention_rows (lbl, t);

  /* Only the last position's logits: the same numbers as the last row of all of them. */
  g_autoptr (AsTrace) last = as_forward (model, id, n, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (last->logits_rows, ==, 1);
  g_autofree char *what = g_strdup_printf ("%s last-position logits", lbl);
  check_close (what, as_trace_last_logits (last), as_trace_last_logits (t), V,
               LAST_LOGITS_ATOL_PER_RMS * trace_rms (as_trace_last_logits (t), V),
               LAST_LOGITS_RTOL);
  g_autofree char *what_attn = g_strdup_printf ("%s attentions of the last-position run", lbl);
  check_close (what_attn, last->attn, t->attn, L * H * T * T, 0.0, 0.0);
  return TRUE;
}

/* Compares every /seqN of EXPECTED_PATH for the model in MODEL_DIR; returns the count. */
static int
compare_model (const char *model_dir, const char *expected_path, const char *label)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (model_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  hid_t file = H5Fopen (expected_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0)
    {
      g_test_message ("could not open the expected outputs %s", expected_path);
      g_test_fail ();
      return 0;
    }
  int n = 0;
  for (;; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      if (!compare_sequence (model, file, group, label))
        break;
    }
  H5Fclose (file);
  return n;
}

/* --- the committed tiny fixture -------------------------------------------------------------- */

static void
test_tiny_fixture (void)
{
  g_autofree char *dir = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autofree char *expected = test_source_path ("tests/fixtures/tiny-gpt2-expected.h5");
  int n = compare_model (dir, expected, "tiny-gpt2");
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
  const float *p = as_trace_attn (t, 0, 0); /* [T][T] */
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

  int compared = compare_model (dir, expected, gc->name);
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
