/* test-same-bits.c — the window's trace of a text is `attnscope run` of the same text, byte for
 * byte, whatever the thread count of either (tests/README.md, "Same bits for every thread
 * count").
 *
 * For a decoder (attnscope-mini), an encoder on a sentence pair (attnscope-mini-bert) and a
 * translation model on a source and target (attnscope-mini-en-de), the window runs each input
 * with ATTNSCOPE_THREADS = 1 and then 3 (its passes on GTask threads), and `attnscope run --dump`
 * runs the same input with 4 and 2: every array of the window's trace — token ids, attentions,
 * hidden states, contexts (the translation's encoder, decoder and cross-attention) and its logits
 * (the last position's for the decoder and the translation, every position's for the masked-LM
 * encoder) — must have the dump's bytes (dump-compare.h). */
#include <adwaita.h>
#include <string.h>

#include "check-close.h"
#include "dump-compare.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 120000

static AttnscopeWindow *window;

typedef struct
{
  const char *model;
  const char *text;
  const char *pair;   /* an encoder's sentence B, or NULL */
  const char *target; /* a translation's target, or NULL */
} Input;

/* Dumps INPUT with `attnscope run` under ATTNSCOPE_THREADS = THREADS into a new file (owned
 * path). */
static char *
cli_dump (const Input *in, int threads, const char *name)
{
  char *path = g_build_filename (test_tmpdir (), name, NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("ATTNSCOPE_BIN"));
  const char *const head[] = { "run", "--model", in->model, "--text", in->text, "--dump", path };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (char *) head[i]);
  if (in->pair != NULL)
    {
      g_ptr_array_add (argv, (char *) "--pair");
      g_ptr_array_add (argv, (char *) in->pair);
    }
  if (in->target != NULL)
    {
      g_ptr_array_add (argv, (char *) "--target");
      g_ptr_array_add (argv, (char *) in->target);
    }
  g_ptr_array_add (argv, NULL);
  g_autofree char *n = g_strdup_printf ("%d", threads);
  g_auto (GStrv) env = g_get_environ ();
  env = g_environ_setenv (env, "ATTNSCOPE_THREADS", n, TRUE);
  env = g_environ_setenv (env, "OPENBLAS_NUM_THREADS", n, TRUE);
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                               NULL, NULL, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("attnscope run failed: %s", err);
  return path;
}

/* Runs INPUT in the window with ATTNSCOPE_THREADS = THREADS (set while no pass is running) and
 * returns the window's trace (borrowed). */
static const AsTrace *
window_trace (const Input *in, int threads)
{
  g_autofree char *n = g_strdup_printf ("%d", threads);
  g_setenv ("ATTNSCOPE_THREADS", n, TRUE);
  /* an empty text first, so that the input runs again with this thread count */
  attnscope_window_set_text (window, "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  if (in->pair != NULL)
    attnscope_window_set_pair (window, in->pair);
  if (in->target != NULL)
    attnscope_window_set_target (window, in->target);
  attnscope_window_set_text (window, in->text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeRun *run = gui_test_main_run (window);
  g_assert_null (attnscope_run_get_error_message (run));
  g_assert_cmpstr (attnscope_run_get_trace_text (run), ==, in->text);
  const AsTrace *t = attnscope_run_get_trace (run);
  g_assert_nonnull (t);
  return t;
}

static void
check_input (const Input *in)
{
  gui_test_open (window, in->model, NULL, TIMEOUT_MS);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  const int window_threads[] = { 1, 3 }, cli_threads[] = { 4, 2 };
  for (guint i = 0; i < G_N_ELEMENTS (window_threads); i++)
    {
      const AsTrace *t = window_trace (in, window_threads[i]);
      g_autofree char *name = g_strdup_printf ("%s-%d.h5", in->model, cli_threads[i]);
      g_autofree char *dump = cli_dump (in, cli_threads[i], name);
      g_autofree char *label = g_strdup_printf ("%s: the window with %d threads, run with %d",
                                                in->model, window_threads[i], cli_threads[i]);
      dump_assert_trace (t, dump, label);
      g_test_message ("%s: the same bytes", label);
    }
}

static void
test_decoder (void)
{
  const Input in
      = { "attnscope-mini", "The man hit the car, and then the car hit the man.", NULL, NULL };
  check_input (&in);
}

static void
test_encoder_pair (void)
{
  const Input in = { "attnscope-mini-bert", "the cat sat on the [MASK] .",
                     "a small dog ran in the park .", NULL };
  check_input (&in);
  attnscope_window_set_pair (window, "");
}

static void
test_translation (void)
{
  const Input in = { "attnscope-mini-en-de", "The group went home after the long day.", NULL,
                     "Die Gruppe ging nach dem langen Tag nach Hause." };
  check_input (&in);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  /* set before any thread reads it: later changes only replace its value */
  g_setenv ("ATTNSCOPE_THREADS", "1", TRUE);
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_park_pointer ();
  g_test_add_func ("/ui/same-bits/decoder", test_decoder);
  g_test_add_func ("/ui/same-bits/encoder-pair", test_encoder_pair);
  g_test_add_func ("/ui/same-bits/translation", test_translation);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  test_tmpdir_cleanup ();
  return status;
}
