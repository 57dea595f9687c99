/* test-toy-attention-bad.c — bad toy-attention model folders and bad input: each refused with an
 * error that names the problem (a missing W_O, shapes that do not fit, a transposed matrix, ids
 * out of the vocabulary, a cancelled run, weights that do not fit the configuration). The shipped
 * models data/models/seed-single-head and seed-two-heads are copied and damaged. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "check-close.h"
#include "toy-attention-support.h"

/* ---- bad input ---- */

/* Copies the shipped model NAME into a fresh folder under the test's temporary directory and
 * replaces "KEY": OLD with "KEY": NEW in its config.json (when KEY is not NULL). */
static char *
copy_shipped (const char *name, const char *copy_name, const char *key, const char *old_value,
              const char *new_value)
{
  g_autofree char *src = test_source_path ("data/models");
  g_autofree char *from = g_build_filename (src, name, NULL);
  char *to = g_build_filename (test_tmpdir (), copy_name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (to, 0755), ==, 0);
  const char *files[] = { "config.json", "vocab.json", "tf_model.h5" };
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *a = g_build_filename (from, files[i], NULL);
      g_autofree char *b = g_build_filename (to, files[i], NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (a, &contents, &length, NULL));
      if (key != NULL && strcmp (files[i], "config.json") == 0)
        {
          g_autofree char *needle = g_strdup_printf ("\"%s\": %s", key, old_value);
          g_autofree char *replacement = g_strdup_printf ("\"%s\": %s", key, new_value);
          g_assert_nonnull (strstr (contents, needle));
          g_autoptr (GString) s = g_string_new (contents);
          g_string_replace (s, needle, replacement, 1);
          g_free (contents);
          length = s->len;
          contents = g_string_free (g_steal_pointer (&s), FALSE);
        }
      g_assert_true (g_file_set_contents (b, contents, length, NULL));
    }
  return to;
}

static void
expect_load_error (const char *dir, int code, const char *const *fragments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_null (model);
  g_assert_error (error, AS_ERROR, code);
  g_test_message ("error: %s", error->message);
  for (int i = 0; fragments[i] != NULL; i++)
    if (strstr (error->message, fragments[i]) == NULL)
      {
        g_test_message ("the message does not name '%s'", fragments[i]);
        g_test_fail ();
      }
}

static void
test_bad_missing_w_o (void)
{
  /* seed-single-head's file has no W_O; a config that asks for one must fail naming it */
  g_autofree char *dir
      = copy_shipped ("seed-single-head", "no-w-o", "use_output_projection", "false", "true");
  const char *fragments[] = { "tf_model.h5", "w_o", "use_output_projection", NULL };
  expect_load_error (dir, AS_ERROR_NOT_FOUND, fragments);
}

static void
test_bad_shapes (void)
{
  /* head_dim 4 with the file's (2, 10, 5) projections */
  g_autofree char *hd = copy_shipped ("seed-two-heads", "head-dim-4", "head_dim", "5", "4");
  const char *hd_fragments[] = { "tf_model.h5", "w_q", "(2, 10, 5)", "(2, 10, 4)", NULL };
  expect_load_error (hd, AS_ERROR_SHAPE, hd_fragments);

  /* a vocabulary of 7 with the file's (6, 10) embeddings */
  g_autofree char *v = copy_shipped ("seed-two-heads", "vocab-7", "vocab_size", "6", "7");
  const char *v_fragments[] = { "tf_model.h5", "embeddings", "(6, 10)", "(7, 10)", NULL };
  expect_load_error (v, AS_ERROR_SHAPE, v_fragments);

  /* no projections: the heads split the embeddings, so n_head × head_dim must be n_embd */
  g_autofree char *split = copy_shipped ("seed-single-head", "split-heads", "n_head", "1", "3");
  const char *split_fragments[] = { "config.json", "n_head", "n_embd", NULL };
  expect_load_error (split, AS_ERROR_CONFIG, split_fragments);
}

/* A transposed W_Q (2, 5, 10) has the right element count but the wrong shape: it must be
 * refused, not reshaped (that would silently give other numbers). */
static void
test_bad_transposed (void)
{
  const char *python = test_python_with ("h5py, numpy");
  if (python == NULL)
    return;
  g_autofree char *dir = g_build_filename (test_tmpdir (), "transposed", NULL);
  g_autofree char *script = g_build_filename (test_tmpdir (), "transpose.py", NULL);
  g_autofree char *maker = test_source_path ("data/make-toy-models.py");
  g_autofree char *code
      = g_strdup ("import importlib.util, os, sys, h5py\n"
                  "spec = importlib.util.spec_from_file_location('m', sys.argv[1])\n"
                  "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
                  "single, two = m.build(sys.argv[2])\n"
                  "path = os.path.join(two, 'tf_model.h5')\n"
                  "names = ('embeddings', 'w_q', 'w_k', 'w_v', 'w_o')\n"
                  "with h5py.File(path, 'r') as f:\n"
                  "    w = {n: f['toy_attention/toy_attention/' + n + ':0'][()] for n in names}\n"
                  "w['w_q'] = w['w_q'].transpose(0, 2, 1).copy()\n"
                  "m.write_keras_h5(path, [(n, w[n]) for n in names])\n");
  g_assert_true (g_file_set_contents (script, code, -1, NULL));
  const char *argv[] = { python, script, maker, dir, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    g_test_message ("%s", err);
  g_assert_cmpint (status, ==, 0);
  g_autofree char *model = g_build_filename (dir, "seed-two-heads", NULL);
  const char *fragments[] = { "w_q", "(2, 5, 10)", "(2, 10, 5)", NULL };
  expect_load_error (model, AS_ERROR_SHAPE, fragments);
}

static void
test_bad_input (void)
{
  g_autoptr (AsModel) model = toy_test_load_shipped ("seed-single-head");
  g_autoptr (GError) error = NULL;

  /* a word not in the six-word vocabulary: the error names it */
  g_autoptr (AsTrace) t = as_forward_text (model, "May the Force be with you", FALSE, NULL, &error);
  g_assert_null (t);
  g_assert_nonnull (error);
  g_test_message ("unknown word: %s", error->message);
  g_assert_nonnull (strstr (error->message, "Force"));
  g_clear_error (&error);

  /* the seed's own sentence with its full stop: "you." is not a word of the vocabulary */
  g_autoptr (AsTrace) t2
      = as_forward_text (model, "May the force be with you.", FALSE, NULL, &error);
  g_assert_null (t2);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "you."));
  g_clear_error (&error);

  /* ids outside the vocabulary and beyond the context length */
  const int32_t bad_id[] = { 0, 6 };
  g_autoptr (AsTrace) t3 = as_forward (model, bad_id, 2, NULL, &error);
  g_assert_null (t3);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "6"));
  g_clear_error (&error);

  int n_long = as_model_get_config (model)->n_positions + 1;
  g_autofree int32_t *long_ids = g_new0 (int32_t, n_long);
  g_autoptr (AsTrace) t4 = as_forward (model, long_ids, n_long, NULL, &error);
  g_assert_null (t4);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);

  /* a cancelled request */
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_cancellable_cancel (cancellable);
  AsForwardOptions options = { .cancellable = cancellable };
  const int32_t ids[] = { 0, 1 };
  g_autoptr (AsTrace) t5 = as_forward (model, ids, 2, &options, &error);
  g_assert_null (t5);
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
}

/* as_toy_attention_run checks that the weights it is given fit the configuration. */
static void
test_bad_run_arguments (void)
{
  const int32_t ids[] = { 0, 1 };
  g_autoptr (GError) error = NULL;
  AsConfig c = toy_test_config (D_SEED, 1, D_SEED, T_SEED, FALSE, FALSE, FALSE, FALSE, FALSE);
  AsTrace *t;

  /* only some of W_Q, W_K, W_V */
  AsToyWeights partial = { .embeddings = toy_seed_embeddings, .w_q = toy_seed_embeddings };
  t = as_toy_attention_run (&c, &partial, NULL, ids, 2, NULL, &error);
  g_assert_null (t);
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "1 of 3"));
  g_clear_error (&error);

  /* projections to 4 wide without W_O: the 2 × 4 contexts cannot be a 10-wide output */
  AsConfig narrow = toy_test_config (D_SEED, 2, 4, T_SEED, TRUE, FALSE, FALSE, FALSE, FALSE);
  g_assert_false (as_toy_attention_check_config (&narrow, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "use_output_projection"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/toy-attention-bad/missing-w-o", test_bad_missing_w_o);
  g_test_add_func ("/core/toy-attention-bad/shapes", test_bad_shapes);
  g_test_add_func ("/core/toy-attention-bad/transposed", test_bad_transposed);
  g_test_add_func ("/core/toy-attention-bad/input", test_bad_input);
  g_test_add_func ("/core/toy-attention-bad/run-arguments", test_bad_run_arguments);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
