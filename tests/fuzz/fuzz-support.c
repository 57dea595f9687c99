/* fuzz-support.c — see fuzz-support.h. */
#define _GNU_SOURCE
#include "fuzz-support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

char *
fuzz_memfd_path (const void *data, size_t size, int *fd)
{
  *fd = memfd_create ("fuzz-input", MFD_CLOEXEC);
  if (*fd < 0)
    fuzz_fail ("memfd_create failed");
  const char *p = data;
  size_t done = 0;
  while (done < size)
    {
      ssize_t n = write (*fd, p + done, size - done);
      if (n <= 0)
        fuzz_fail ("writing the memory file failed");
      done += (size_t) n;
    }
  return g_strdup_printf ("/proc/self/fd/%d", *fd);
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
