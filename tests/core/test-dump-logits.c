/* test-dump-logits.c — a dump of a pass that kept only the last position's logits, its `logits`
 * [T][V] filled 64 rows at a time through the output head (as_forward_dump_h5, what
 * `attnscope run --dump` writes), against the dump of a pass that kept every position's: GPT-2
 * (attnscope-mini), BERT's masked-LM head (attnscope-mini-bert) and Marian's decoder
 * (attnscope-mini-en-de), each over two blocks of rows, the second short. Every other dataset is
 * the same to the bit; the logits within 1e-6 relative (the head's matrix product runs on 64 rows
 * instead of T, which may round differently). */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>

#include "as-forward-dump.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-trace-dump.h"
#include "check-close.h"
#include "dump-compare.h"

static AsTrace *
run (AsModel *model, const char *text, const char *target, gboolean all_logits)
{
  AsForwardOptions options = { .all_logits = all_logits };
  g_autoptr (GError) error = NULL;
  AsTrace *t = target != NULL ? as_forward_translation_text (model, text, target, &options, &error)
                              : as_forward_text (model, text, TRUE, &options, &error);
  g_assert_no_error (error);
  return t;
}

/* The float dataset NAME of FILE, whole; *N its number of elements. */
static float *
read_floats (const char *file, const char *name, gsize *n)
{
  hid_t f = H5Fopen (file, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (f, >=, 0);
  hid_t d = H5Dopen2 (f, name, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  hid_t space = H5Dget_space (d);
  *n = (gsize) H5Sget_simple_extent_npoints (space);
  float *x = g_new (float, *n);
  g_assert_cmpint (H5Dread (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x), >=, 0);
  H5Sclose (space);
  H5Dclose (d);
  H5Fclose (f);
  return x;
}

static void
check_model (gconstpointer data)
{
  const char *const *c = data; /* model, text, target or NULL */
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (c[0], &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) all = run (model, c[1], c[2], TRUE);
  g_autoptr (AsTrace) last = run (model, c[1], c[2], FALSE);
  g_assert_cmpint (last->logits_rows, ==, 1);
  g_assert_cmpint (all->n_tokens, >, 64); /* two blocks of 64 rows, the last one short */
  g_assert_cmpint (all->n_tokens % 64, !=, 0);
  g_autofree char *dir = g_dir_make_tmp ("dump-logits-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *a = g_build_filename (dir, "all.h5", NULL);
  g_autofree char *b = g_build_filename (dir, "streamed.h5", NULL);
  const AsConfig *config = as_model_get_config (model);
  g_assert_true (as_trace_dump_h5 (all, c[0], config->model_type, a, 0, &error));
  g_assert_no_error (error);
  g_assert_true (as_forward_dump_h5 (model, last, NULL, b, 0, &error));
  g_assert_no_error (error);

  gsize na, nb;
  g_autofree float *la = read_floats (a, "logits", &na);
  g_autofree float *lb = read_floats (b, "logits", &nb);
  g_assert_cmpuint (na, ==, (gsize) all->n_tokens * all->vocab_size);
  g_assert_cmpuint (nb, ==, na);
  double worst = 0.0, largest = 0.0;
  for (gsize i = 0; i < na; i++)
    {
      worst = fmax (worst, fabs ((double) la[i] - lb[i]));
      largest = fmax (largest, fabs ((double) la[i]));
    }
  g_test_message ("%s: %d tokens, logits differ by at most %.3g (largest |logit| %.3g)", c[0],
                  all->n_tokens, worst, largest);
  g_assert_cmpfloat (worst, <=, 1e-6 * largest);
  /* the last row is the pass's own */
  gsize last_row = (gsize) (all->n_tokens - 1) * all->vocab_size;
  for (int v = 0; v < all->vocab_size; v++)
    g_assert_cmpfloat (fabs ((double) lb[last_row + v] - last->logits[v]), <=, 1e-6 * largest);

  /* every other dataset to the bit: the streamed file with the all-logits file's logits */
  hid_t f = H5Fopen (b, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2 (f, "logits", H5P_DEFAULT);
  g_assert_cmpint (H5Dwrite (d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, la), >=, 0);
  H5Dclose (d);
  H5Fclose (f);
  g_autofree char *why = NULL;
  if (!dump_same_datasets (a, b, &why))
    g_error ("%s: the dumps differ: %s", c[0], why);
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* A text of SENTENCES sentences, about 13 GPT-2 tokens each. */
static char *
long_text (int sentences)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; i < sentences; i++)
    g_string_append (s, "The man hit the car, and then the car hit the man. ");
  return g_string_free (s, FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_autofree char *text = long_text (7);
  g_autofree char *source = long_text (4); /* Marian's vocabulary splits it finer */
  const char *gpt2[] = { "attnscope-mini", text, NULL };
  const char *bert[] = { "attnscope-mini-bert", text, NULL };
  const char *marian[] = { "attnscope-mini-en-de", source, source };
  g_test_add_data_func ("/dump-logits/gpt2", gpt2, check_model);
  g_test_add_data_func ("/dump-logits/bert", bert, check_model);
  g_test_add_data_func ("/dump-logits/marian", marian, check_model);
  return g_test_run ();
}
