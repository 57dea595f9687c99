/* fuzz-support.c — see fuzz-support.h. */
#include "fuzz-support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *
fuzz_write_input (int slot, const void *data, size_t size)
{
  static char *paths[2];
  g_assert (slot == 0 || slot == 1);
  if (paths[slot] == NULL)
    {
      const char *dir
          = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : g_get_tmp_dir ();
      paths[slot] = g_build_filename (dir, "attnscope-fuzz-XXXXXX", NULL);
      int fd = g_mkstemp (paths[slot]);
      if (fd < 0)
        fuzz_fail ("cannot create an input file in %s", dir);
      close (fd);
    }
  GError *error = NULL;
  if (!g_file_set_contents_full (paths[slot], data, (gssize) size, G_FILE_SET_CONTENTS_NONE, 0600,
                                 &error))
    fuzz_fail ("cannot write the input file: %s", error->message);
  return paths[slot];
}

void
fuzz_fail (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  fprintf (stderr, "fuzz property violated: ");
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
  abort ();
}

void
fuzz_check_error (gboolean ok, const GError *error)
{
  if (ok && error != NULL)
    fuzz_fail ("success with an error set: %s", error->message);
  if (ok)
    return;
  if (error == NULL)
    fuzz_fail ("failure without an error");
  if (error->message == NULL || *error->message == '\0')
    fuzz_fail ("an error without a message");
  if (!g_utf8_validate (error->message, -1, NULL))
    fuzz_fail ("an error message that is not UTF-8");
}

static volatile guint32 fuzz_sink;

void
fuzz_touch_floats (const float *x, gsize n)
{
  const guint32 *bits = (const guint32 *) x;
  guint32 acc = 0;
  for (gsize i = 0; i < n; i++)
    acc ^= bits[i];
  fuzz_sink = acc;
}
