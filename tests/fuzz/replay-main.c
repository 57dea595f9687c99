/* replay-main.c — a fuzz harness as a test: every committed input of harness FUZZ_NAME — its seed
 * corpus (tests/fuzz/corpus/NAME/) and every crash the fuzzer found (tests/fuzz/regressions/NAME/)
 * — goes through LLVMFuzzerTestOneInput, built with the project's compiler and, in the sanitizer
 * run, AddressSanitizer + UndefinedBehaviorSanitizer. A crash, a sanitizer report or a violated
 * property (fuzz_fail) fails the test. Files named on the command line are replayed instead. */
#include <stdio.h>

#include "check-close.h"
#include "fuzz-support.h"

/* Optional in a harness. */
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__ ((weak));

/* Replays every file of FOLDER; returns how many. */
static guint
replay_folder (const char *folder)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; dir != NULL && (n = g_dir_read_name (dir)) != NULL;)
    g_ptr_array_add (names, g_build_filename (folder, n, NULL));
  guint count = 0;
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *contents = NULL;
      gsize size = 0;
      if (!g_file_get_contents (names->pdata[i], &contents, &size, NULL))
        continue;
      LLVMFuzzerTestOneInput ((const uint8_t *) contents, size);
      count++;
    }
  return count;
}

static void
test_corpus (void)
{
  g_autofree char *folder = test_source_path ("tests/fuzz/corpus/" FUZZ_NAME);
  guint n = replay_folder (folder);
  g_test_message ("%u seed inputs of %s replayed", n, FUZZ_NAME);
  g_assert_cmpuint (n, >, 0);
}

static void
test_regressions (void)
{
  g_autofree char *folder = test_source_path ("tests/fuzz/regressions/" FUZZ_NAME);
  if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no crash found for this harness so far (tests/README.md, \"Fuzzing\")");
      return;
    }
  guint n = replay_folder (folder);
  g_test_message ("%u crash inputs of %s replayed", n, FUZZ_NAME);
  g_assert_cmpuint (n, >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize (&argc, &argv);
  if (argc > 1)
    {
      for (int i = 1; i < argc; i++)
        {
          g_autofree char *contents = NULL;
          gsize size = 0;
          if (g_file_get_contents (argv[i], &contents, &size, NULL))
            LLVMFuzzerTestOneInput ((const uint8_t *) contents, size);
          printf ("replayed %s\n", argv[i]);
        }
      return 0;
    }
  g_test_add_func ("/fuzz/" FUZZ_NAME "/corpus", test_corpus);
  g_test_add_func ("/fuzz/" FUZZ_NAME "/regressions", test_regressions);
  return g_test_run ();
}
