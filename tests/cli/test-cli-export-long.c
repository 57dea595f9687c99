/* test-cli-export-long.c — `attnscope export --mean L | --rollout L` of a long text whose attention
 * is computed on demand (app/cli/cli-export-long.h; core/README.md, "Attention on demand").
 *
 * On a GPT-2 fixture of one head per layer and 1,100 tokens ($ATTNSCOPE_ATTENTION=on-demand):
 * - the mean over the layer's one head pooled is that head: `--mean 1` and `--layer 1 --head 0`
 *   (without titles) write the same PNG, byte for byte — the pooled overview of the head, whose
 *   values the mean's strips of tiles reproduce (as_trace_mean_heads_pool);
 * - `--rollout 1` writes a figure of the same size; with $ATTNSCOPE_ROLLOUT_MAX_SECONDS = 0 it is
 *   refused (exit 1, one line naming the layer, the tokens and the estimate) and no file is left;
 * - `--compare` of a long mean is refused with a message naming the length and no file.
 * Short texts take the whole-array path as before (test-cli-export, gui-export-parity). */
#include <glib/gstdio.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "fixture-model.h"

#define N_TOKENS 1100

static char *model_dir;
static char *long_text;

static char *
out_path (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

static Run export(const char *out, const char *first, ...) G_GNUC_NULL_TERMINATED;

static Run export(const char *out, const char *first, ...)
{
  const char *prefix[]
      = { "export", "--model", model_dir, "--text", long_text, "--no-titles", "-o", out, NULL };
  va_list ap;
  va_start (ap, first);
  Run r = run_cli_valist (prefix, first, ap);
  va_end (ap);
  return r;
}

static char *
read_file (const char *path, gsize *length)
{
  char *data = NULL;
  g_assert_true (g_file_get_contents (path, &data, length, NULL));
  return data;
}

static void
test_mean_is_the_head (void)
{
  g_autofree char *mean = out_path ("mean.png"), *head = out_path ("head.png");
  g_auto (Run) rm = export(mean, "--mean", "1", NULL);
  g_assert_cmpint (rm.status, ==, 0);
  g_assert_cmpstr (rm.err, ==, "");
  g_auto (Run) rh = export(head, "--layer", "1", "--head", "0", NULL);
  g_assert_cmpint (rh.status, ==, 0);
  gsize nm, nh;
  g_autofree char *dm = read_file (mean, &nm), *dh = read_file (head, &nh);
  g_assert_cmpuint (nm, >, 1000);
  g_assert_cmpmem (dm, nm, dh, nh);
  /* the pooled mean of max pooling differs from the mean pooling's */
  g_autofree char *pooled_mean = out_path ("mean-pool-mean.png");
  g_auto (Run) rp = export(pooled_mean, "--mean", "1", "--pool-mean", NULL);
  g_assert_cmpint (rp.status, ==, 0);
  gsize np;
  g_autofree char *dp = read_file (pooled_mean, &np);
  g_assert_false (np == nm && memcmp (dp, dm, np) == 0);
}

static void
test_rollout (void)
{
  g_autofree char *path = out_path ("rollout.png"), *mean = out_path ("mean-size.png");
  g_auto (Run) r = export(path, "--rollout", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "wrote "));
  g_auto (Run) rm = export(mean, "--mean", "1", NULL);
  g_assert_cmpint (rm.status, ==, 0);
  /* the same figure's geometry: "wrote PATH (W x H px, D dpi)" */
  g_assert_cmpstr (strchr (r.out, '('), ==, strchr (rm.out, '('));
  gsize nr, nm;
  g_autofree char *dr = read_file (path, &nr), *dm = read_file (mean, &nm);
  g_assert_false (nr == nm && memcmp (dr, dm, nr) == 0);

  g_autofree char *refused = out_path ("refused.png");
  g_setenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS", "0", TRUE);
  g_auto (Run) rr = export(refused, "--rollout", "1", NULL);
  g_unsetenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS");
  assert_error (&rr, 1, "the attention rollout of layer 1 over 1100 tokens multiplies 1 matrices");
  g_assert_false (g_file_test (refused, G_FILE_TEST_EXISTS));
}

static void
test_compare_refused (void)
{
  g_autofree char *path = out_path ("compare.png");
  g_auto (Run) r = export(path, "--mean", "0", "--compare", long_text, NULL);
  assert_error (&r, 1, "at most 1024 tokens (this one has 1100)");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  model_dir = g_build_filename (test_tmpdir (), "one-head", NULL);
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_layer = 2;
  spec.n_head = 1;
  spec.n_positions = 2048;
  g_autoptr (GError) error = NULL;
  g_assert_true (fixture_model_write (model_dir, &spec, &error));
  /* capitals the fixture's merges never join: one token each */
  GString *text = g_string_new (NULL);
  for (int i = 0; i < N_TOKENS; i++)
    g_string_append_c (text, "QZXJKV"[(i * 7 + i / 6) % 6]);
  long_text = g_string_free (text, FALSE);
  g_setenv ("ATTNSCOPE_ATTENTION", "on-demand", TRUE);
  g_test_add_func ("/cli-export-long/mean-is-the-head", test_mean_is_the_head);
  g_test_add_func ("/cli-export-long/rollout", test_rollout);
  g_test_add_func ("/cli-export-long/compare-refused", test_compare_refused);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (model_dir);
  g_free (long_text);
  return status;
}
