/* file-read.c — bounded, non-blocking reads of whole input files (file-read-private.h,
 * as-input-file.h). */
#include "file-read-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as-error.h"
#include "as-input-file.h"

static const char *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

int
as_file_open_regular (const char *path, goffset *size, GError **error)
{
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, AS_ERROR, e == ENOENT ? AS_ERROR_NOT_FOUND : AS_ERROR_IO, "%s: %s", path,
                   e == ENOENT ? "no such file" : g_strerror (e));
      return -1;
    }
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: %s", path, g_strerror (errno));
      close (fd);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s is %s, expected a regular file", path,
                   file_kind (st.st_mode));
      close (fd);
      return -1;
    }
  /* Reads must block normally from here on (a regular file never waits anyway). */
  int flags = fcntl (fd, F_GETFL);
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  if (size != NULL)
    *size = st.st_size;
  return fd;
}

gboolean
as_file_read_all (const char *path, gsize max_bytes, char **contents, gsize *length, GError **error)
{
  goffset size = 0;
  int fd = as_file_open_regular (path, &size, error);
  if (fd < 0)
    return FALSE;
  if (size < 0 || (guint64) size > max_bytes)
    {
      g_autofree char *have = g_format_size ((guint64) size);
      g_autofree char *limit = g_format_size (max_bytes);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is %s, more than the %s such a file may have; it is not a file of this "
                   "kind",
                   path, have, limit);
      close (fd);
      return FALSE;
    }
  char *buf = g_malloc ((gsize) size + 1);
  gsize done = 0;
  while (done < (gsize) size)
    {
      ssize_t n = read (fd, buf + done, (gsize) size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break; /* the file shrank while we read: take what is there */
      done += (gsize) n;
    }
  close (fd);
  buf[done] = '\0';
  *contents = buf;
  *length = done;
  return TRUE;
}

gboolean
as_input_file_read_text (const char *path, gsize max_bytes, char **contents, gsize *length,
                         GError **error)
{
  g_autofree char *text = NULL;
  gsize n = 0;
  if (!as_file_read_all (path, max_bytes, &text, &n, error))
    return FALSE;
  const char *nul = memchr (text, '\0', n);
  if (nul != NULL)
    {
      int line = 1;
      for (const char *p = text; p < nul; p++)
        line += *p == '\n';
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s line %d: holds a NUL byte (at byte %" G_GSIZE_FORMAT "); not a text file",
                   path, line, (gsize) (nul - text));
      return FALSE;
    }
  *contents = g_steal_pointer (&text);
  *length = n;
  return TRUE;
}
