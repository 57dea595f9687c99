/* test-hostile-io.c — the mechanisms that keep hostile files harmless: the HDF5 child
 * (h5-child-private.h), safe output files (as-output-file.h), --lines text files (as-input-file.h)
 * and the memory budget that counts what is held (memory-private.h).
 *
 * The child is tested with main functions that do what libhdf5 does on a hostile file — crash,
 * recurse until the stack ends, hang, ask for too much memory, send garbage — and the parent must
 * turn each into one error that calls the file damaged, in bounded time. */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "as-error.h"
#include "as-input-file.h"
#include "as-output-file.h"
#include "as-trace.h"
#include "check-close.h"
#include "h5-child-private.h"
#include "memory-private.h"

/* ---- the HDF5 child ---- */

static int
crash_main (int channel, const char *path, const char *file_path, gpointer data)
{
  raise (SIGSEGV);
  return 0;
}

static volatile int recursion_limit = G_MAXINT; /* never reached: the stack ends first */

static int
recurse (volatile char *previous, int depth)
{
  volatile char frame[4096];
  frame[0] = (char) depth;
  frame[4095] = previous != NULL ? previous[0] : 0;
  if (depth >= recursion_limit)
    return frame[0];
  return recurse (frame, depth + 1) + frame[4095];
}

static int
recurse_main (int channel, const char *path, const char *file_path, gpointer data)
{
  return recurse (NULL, 0);
}

static int
hang_main (int channel, const char *path, const char *file_path, gpointer data)
{
  for (;;)
    pause ();
  return 0;
}

/* Asks for 2 GB, more than the child's allowance (as the fuzzed file that made H5C_protect
 * allocate 864 GB); without the limit this would succeed (the memory is never touched). */
static int
memory_main (int channel, const char *path, const char *file_path, gpointer data)
{
  char *p = malloc ((gsize) 2 << 30);
  if (p == NULL)
    as_h5_channel_send_error (channel, AS_ERROR_MEMORY, "%s: the allocation was refused", path);
  else
    as_h5_channel_send (channel, AS_H5_MSG_USER, "got it", 6);
  free (p);
  return 0;
}

static int
garbage_main (int channel, const char *path, const char *file_path, gpointer data)
{
  AsH5MessageHeader header = { AS_H5_MSG_ERROR, 1u << 30 };
  as_h5_channel_write (channel, &header, sizeof header);
  return 0;
}

static int
echo_main (int channel, const char *path, const char *file_path, gpointer data)
{
  /* the child opens the very file the parent checked, through /proc/self/fd */
  char buffer[64] = "";
  int fd = open (file_path, O_RDONLY);
  ssize_t n = fd >= 0 ? read (fd, buffer, sizeof buffer) : -1;
  if (fd >= 0)
    close (fd);
  as_h5_channel_send (channel, AS_H5_MSG_USER, buffer, n > 0 ? (gsize) n : 0);
  AsH5MessageHeader header;
  if (as_h5_channel_receive (channel, &header, NULL, 0) && header.type == AS_H5_MSG_QUIT)
    return 0;
  return 3;
}

/* Spawns MAIN on a small regular file and returns the error of the first receive. */
static GError *
run_child (AsH5ChildMain main_func)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "child-input", NULL);
  g_assert_true (g_file_set_contents (path, "0123456789", -1, NULL));
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  GError *error = NULL;
  g_autoptr (AsH5Child) child = as_h5_child_spawn (path, fd, main_func, NULL, &error);
  close (fd);
  g_assert_no_error (error);
  AsH5MessageHeader header;
  gint64 start = g_get_monotonic_time ();
  g_assert_false (as_h5_child_receive (child, &header, &error));
  g_test_message ("after %.2f s: %s", (g_get_monotonic_time () - start) / 1e6, error->message);
  g_assert_nonnull (strstr (error->message, path));
  return error;
}

static void
test_child_crash (void)
{
  g_autoptr (GError) crash = run_child (crash_main);
  g_assert_error (crash, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (crash->message, "is damaged"));
  g_assert_nonnull (strstr (crash->message, "crashed while reading it (signal 11"));

  g_autoptr (GError) stack = run_child (recurse_main);
  g_assert_error (stack, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (stack->message, "crashed while reading it (signal 11"));

  g_autoptr (GError) garbage = run_child (garbage_main);
  g_assert_error (garbage, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (garbage->message, "malformed message"));
}

static void
test_child_hang (void)
{
  as_h5_child_set_limits (500, 0);
  gint64 start = g_get_monotonic_time ();
  g_autoptr (GError) error = run_child (hang_main);
  double seconds = (g_get_monotonic_time () - start) / 1e6;
  as_h5_child_set_limits (0, 0);
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "did not answer for 0.5 s"));
  g_assert_cmpfloat (seconds, <, 10.0);
}

static void
test_child_memory (void)
{
  g_autoptr (GError) error = run_child (memory_main);
  /* refused by malloc, or (AddressSanitizer's allocator) the child dies of it */
  g_assert_true (g_error_matches (error, AS_ERROR, AS_ERROR_MEMORY)
                 || g_error_matches (error, AS_ERROR, AS_ERROR_FORMAT));
  g_assert_true (strstr (error->message, "the allocation was refused") != NULL
                 || strstr (error->message, "is damaged") != NULL);
}

static void
test_child_talks (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "child-echo", NULL);
  g_assert_true (g_file_set_contents (path, "hello child", -1, NULL));
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsH5Child) child = as_h5_child_spawn (path, fd, echo_main, NULL, &error);
  close (fd);
  /* the file is replaced at its path: the child still reads the one the parent opened */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (g_file_set_contents (path, "another file", -1, NULL));
  AsH5MessageHeader header;
  g_assert_true (as_h5_child_receive (child, &header, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (header.type, ==, AS_H5_MSG_USER);
  g_assert_cmpuint (header.length, ==, 11);
  char text[12] = "";
  g_assert_true (as_h5_child_receive_payload (child, text, 11, &error));
  g_assert_cmpstr (text, ==, "hello child");
  g_assert_true (as_h5_child_send (child, AS_H5_MSG_QUIT, NULL, 0, &error));
}

/* ---- output files ---- */

static char *
read_text (const char *path)
{
  char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

/* Writes TEXT to PATH through an AsOutputFile; returns the error, or NULL. */
static GError *
write_output (const char *path, AsOutputFlags flags, const char *text)
{
  GError *error = NULL;
  g_autoptr (AsOutputFile) out = as_output_file_new (path, flags, &error);
  if (out == NULL)
    return error;
  g_assert_cmpint (write (as_output_file_get_fd (out), text, strlen (text)), ==, strlen (text));
  g_assert_true (as_output_file_commit (out, &error));
  g_assert_no_error (error);
  return NULL;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in DIR (sorted, joined with spaces): no temporary file may stay behind. */
static char *
list_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n; (n = g_dir_read_name (d)) != NULL;)
    g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
test_output_symlink (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "out-link", NULL);
  g_autofree char *real_dir = g_build_filename (dir, "real", NULL);
  g_assert_cmpint (g_mkdir_with_parents (real_dir, 0755), ==, 0);
  g_autofree char *target = g_build_filename (real_dir, "target.txt", NULL);
  g_autofree char *link = g_build_filename (dir, "link.txt", NULL);
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  g_assert_cmpint (symlink ("real/target.txt", link), ==, 0);

  g_assert_null (write_output (link, AS_OUTPUT_DEFAULT, "new"));
  GStatBuf st;
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_autofree char *got = read_text (target);
  g_assert_cmpstr (got, ==, "new");
  g_autofree char *names = list_dir (dir);
  g_assert_cmpstr (names, ==, "link.txt real");
  g_autofree char *real_names = list_dir (real_dir);
  g_assert_cmpstr (real_names, ==, "target.txt");

  /* a dangling link: the file is created where it points */
  g_autofree char *dangling = g_build_filename (dir, "dangling.txt", NULL);
  g_assert_cmpint (symlink ("real/created.txt", dangling), ==, 0);
  g_assert_null (write_output (dangling, AS_OUTPUT_DEFAULT, "made"));
  g_autofree char *created = g_build_filename (real_dir, "created.txt", NULL);
  g_autofree char *made = read_text (created);
  g_assert_cmpstr (made, ==, "made");

  /* a loop of links is refused */
  g_autofree char *loop_a = g_build_filename (dir, "loop-a", NULL);
  g_assert_cmpint (symlink ("loop-b", loop_a), ==, 0);
  g_autofree char *loop_b = g_build_filename (dir, "loop-b", NULL);
  g_assert_cmpint (symlink ("loop-a", loop_b), ==, 0);
  g_autoptr (GError) error = write_output (loop_a, AS_OUTPUT_DEFAULT, "x");
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "symbolic links in a row"));
}

static void
test_output_special (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "out-special", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *fifo = g_build_filename (dir, "fifo.h5", NULL);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_autoptr (GError) error = write_output (fifo, AS_OUTPUT_DEFAULT, "x");
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "fifo.h5 is a FIFO; refusing to replace it"));
  g_clear_error (&error);
  /* --force does not change that */
  error = write_output (fifo, AS_OUTPUT_FORCE, "x");
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_clear_error (&error);
  error = write_output (dir, AS_OUTPUT_FORCE, "x");
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "is a folder"));
  g_clear_error (&error);
  GStatBuf st;
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));

  /* a character device of our own (root only: mknod), and through a symbolic link */
  g_autofree char *device = g_build_filename (dir, "null-device", NULL);
  if (mknod (device, S_IFCHR | 0666, makedev (1, 3)) == 0)
    {
      g_autofree char *link = g_build_filename (dir, "to-device.h5", NULL);
      g_assert_cmpint (symlink ("null-device", link), ==, 0);
      error = write_output (link, AS_OUTPUT_FORCE, "x");
      g_assert_error (error, AS_ERROR, AS_ERROR_IO);
      g_assert_nonnull (strstr (error->message, "is a character device"));
      g_assert_cmpint (g_lstat (device, &st), ==, 0);
      g_assert_true (S_ISCHR (st.st_mode));
    }
  else
    g_test_message ("mknod: %s; the character-device case needs root", g_strerror (errno));
  g_autofree char *names = list_dir (dir);
  g_assert_null (strstr (names, ".tmp"));
}

static void
test_output_read_only (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "out-ro", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *path = g_build_filename (dir, "ro.txt", NULL);
  g_assert_true (g_file_set_contents (path, "keep", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0444), ==, 0);
  g_autoptr (GError) error = write_output (path, AS_OUTPUT_DEFAULT, "lost");
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "ro.txt is read-only"));
  g_assert_nonnull (strstr (error->message, "--force"));
  g_assert_false (as_output_file_check (path, AS_OUTPUT_DEFAULT, NULL));
  g_autofree char *kept = read_text (path);
  g_assert_cmpstr (kept, ==, "keep");

  g_assert_true (as_output_file_check (path, AS_OUTPUT_FORCE, NULL));
  g_assert_null (write_output (path, AS_OUTPUT_FORCE, "forced"));
  g_autofree char *forced = read_text (path);
  g_assert_cmpstr (forced, ==, "forced");
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0444); /* the replaced file's permissions */
  g_autofree char *names = list_dir (dir);
  g_assert_cmpstr (names, ==, "ro.txt");
}

static void
test_output_long_name (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "out-long", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  /* 255 bytes, the longest legal name, with multi-byte characters across the cut */
  GString *name = g_string_new (NULL);
  while (name->len + 2 <= 251)
    g_string_append (name, "\u00e9");
  while (name->len < 251)
    g_string_append_c (name, 'x');
  g_string_append (name, ".png");
  g_assert_cmpuint (name->len, ==, 255);
  g_autofree char *path = g_build_filename (dir, name->str, NULL);
  g_assert_null (write_output (path, AS_OUTPUT_DEFAULT, "long"));
  g_autofree char *got = read_text (path);
  g_assert_cmpstr (got, ==, "long");
  g_autofree char *names = list_dir (dir);
  g_assert_cmpstr (names, ==, name->str);
  g_string_free (name, TRUE);
}

/* An output file in progress, then SIGTERM: the process dies of the signal and the temporary
 * file is gone. */
static void
test_output_signal (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "out-signal", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *path = g_build_filename (dir, "dump.h5", NULL);
  const int signals[] = { SIGTERM, SIGINT };
  for (gsize i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      int pipe_fds[2];
      g_assert_cmpint (pipe (pipe_fds), ==, 0);
      pid_t pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          as_output_file_install_signal_cleanup ();
          AsOutputFile *out = as_output_file_new (path, AS_OUTPUT_DEFAULT, NULL);
          if (out == NULL || write (as_output_file_get_fd (out), "partial", 7) != 7
              || write (pipe_fds[1], "r", 1) != 1)
            _exit (2);
          for (;;)
            pause ();
        }
      close (pipe_fds[1]);
      char ready = 0;
      g_assert_cmpint (read (pipe_fds[0], &ready, 1), ==, 1);
      close (pipe_fds[0]);
      g_autofree char *during = list_dir (dir);
      g_assert_nonnull (strstr (during, ".dump.h5."));
      g_assert_cmpint (kill (pid, signals[i]), ==, 0);
      int status = 0;
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFSIGNALED (status));
      g_assert_cmpint (WTERMSIG (status), ==, signals[i]);
      g_autofree char *after = list_dir (dir);
      g_assert_cmpstr (after, ==, "");
    }
}

/* ---- --lines files ---- */

static void
test_input_text (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "lines.txt", NULL);
  g_assert_true (g_file_set_contents (path, "one\ntwo\nthr\0ee\nfour\n", 20, NULL));
  char *contents = NULL;
  gsize n = 0;
  g_autoptr (GError) error = NULL;
  g_assert_false (as_input_file_read_text (path, 1000, &contents, &n, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "lines.txt line 3: holds a NUL byte (at byte 11)"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "one\ntwo\n", -1, NULL));
  g_assert_false (as_input_file_read_text (path, 4, &contents, &n, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  g_clear_error (&error);
  g_assert_true (as_input_file_read_text (path, 1000, &contents, &n, &error));
  g_assert_cmpstr (contents, ==, "one\ntwo\n");
  g_assert_cmpuint (n, ==, 8);
  g_free (contents);

  g_autofree char *fifo = g_build_filename (test_tmpdir (), "lines.fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_false (as_input_file_read_text (fifo, 1000, &contents, &n, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "is a FIFO"));
}

/* ---- the memory budget counts what is held ---- */

static void
test_memory_held (void)
{
  guint64 one = as_trace_bytes (2, 2, 64, 8, 4, 300, FALSE);
  g_autofree char *limit
      = g_strdup_printf ("%" G_GUINT64_FORMAT, as_memory_held () + one + one / 2);
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", limit, TRUE);
  g_autoptr (GError) error = NULL;
  AsTrace *first = as_trace_new (2, 2, 64, 8, 4, 300, FALSE, &error);
  g_assert_no_error (error);
  /* the second one alone would fit; with the first held it does not */
  AsTrace *second = as_trace_new (2, 2, 64, 8, 4, 300, FALSE, &error);
  g_assert_null (second);
  g_assert_error (error, AS_ERROR, AS_ERROR_MEMORY);
  g_assert_nonnull (strstr (error->message, "already held"));
  g_assert_nonnull (strstr (error->message, "ATTNSCOPE_MEMORY_LIMIT"));
  g_clear_error (&error);
  as_trace_unref (first);
  second = as_trace_new (2, 2, 64, 8, 4, 300, FALSE, &error);
  g_assert_no_error (error);
  as_trace_unref (second);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/hostile-io/child/crash", test_child_crash);
  g_test_add_func ("/core/hostile-io/child/hang", test_child_hang);
  g_test_add_func ("/core/hostile-io/child/memory", test_child_memory);
  g_test_add_func ("/core/hostile-io/child/talks", test_child_talks);
  g_test_add_func ("/core/hostile-io/output/symlink", test_output_symlink);
  g_test_add_func ("/core/hostile-io/output/special", test_output_special);
  g_test_add_func ("/core/hostile-io/output/read-only", test_output_read_only);
  g_test_add_func ("/core/hostile-io/output/long-name", test_output_long_name);
  g_test_add_func ("/core/hostile-io/output/signal", test_output_signal);
  g_test_add_func ("/core/hostile-io/input/text", test_input_text);
  g_test_add_func ("/core/hostile-io/memory/held", test_memory_held);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
