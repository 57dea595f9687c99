/* h5-child.c — a forked child that runs libhdf5 on an untrusted file (h5-child-private.h).
 *
 * The parent keeps one end of a socket pair and reads with poll() and a deadline; the child gets
 * the other end, its limits (time, memory, no core file), default signal dispositions (so a
 * crash ends it at once, whatever handlers the parent or a sanitizer installed), stderr on
 * /dev/null, and dies with the parent (PR_SET_PDEATHSIG). The child leaves with _exit(): no
 * atexit handlers, no stdio buffers of the parent flushed twice. */
#include "h5-child-private.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "as-error.h"

/* Set by the sanitizer runtimes (and libFuzzer, which dumps its input there); absent otherwise. */
extern void __sanitizer_set_death_callback (void (*callback) (void)) __attribute__ ((weak));

struct _AsH5Child
{
  char *path; /* for messages */
  int socket;
  pid_t pid;
  gboolean reaped;
  int status; /* from waitpid, once reaped */
  gboolean timed_out;
  guint timeout_ms;
};

static guint child_timeout_ms = AS_H5_CHILD_TIMEOUT_MS;
static guint64 child_memory_bytes = AS_H5_CHILD_MEMORY_BYTES;

void
as_h5_child_set_limits (guint timeout_ms, guint64 memory_bytes)
{
  child_timeout_ms = timeout_ms > 0 ? timeout_ms : AS_H5_CHILD_TIMEOUT_MS;
  child_memory_bytes = memory_bytes > 0 ? memory_bytes : AS_H5_CHILD_MEMORY_BYTES;
}

/* The data segment the child may use (RLIMIT_DATA: its heap and private anonymous mappings,
 * which is where libhdf5's allocations go): what the process has now (VmData) plus the
 * allowance. Relative to VmData, the limit also works under AddressSanitizer, whose terabytes of
 * shadow memory are already counted there. 0 when it cannot be read (no limit then). */
static guint64
child_data_limit (void)
{
  g_autofree char *status = NULL;
  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  const char *line = strstr (status, "\nVmData:");
  if (line == NULL)
    return 0;
  guint64 kib = g_ascii_strtoull (line + strlen ("\nVmData:"), NULL, 10);
  return kib == 0 ? 0 : kib * 1024 + child_memory_bytes;
}

/* Runs in the child between fork() and the main function: async-signal-safe calls only. */
static void
child_setup (guint64 data_limit, gboolean keep_stderr)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  const int signals[] = { SIGSEGV, SIGBUS, SIGILL,  SIGFPE,  SIGABRT, SIGINT,
                          SIGTERM, SIGHUP, SIGXCPU, SIGPIPE, SIGTRAP };
  for (gsize i = 0; i < G_N_ELEMENTS (signals); i++)
    signal (signals[i], SIG_DFL);
  if (__sanitizer_set_death_callback != NULL)
    __sanitizer_set_death_callback (NULL);
  if (!keep_stderr)
    {
      int null = open ("/dev/null", O_WRONLY | O_CLOEXEC);
      if (null >= 0)
        {
          dup2 (null, STDERR_FILENO);
          close (null);
        }
    }
  struct rlimit none = { 0, 0 };
  setrlimit (RLIMIT_CORE, &none);
  struct rlimit cpu = { AS_H5_CHILD_CPU_SECONDS, AS_H5_CHILD_CPU_SECONDS + 5 };
  setrlimit (RLIMIT_CPU, &cpu);
  if (data_limit > 0)
    {
      struct rlimit data = { data_limit, data_limit };
      setrlimit (RLIMIT_DATA, &data);
    }
}

AsH5Child *
as_h5_child_spawn (const char *path, int fd, AsH5ChildMain main_func, gpointer data, GError **error)
{
  int pair[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: cannot start the HDF5 reader: %s", path,
                   g_strerror (errno));
      return NULL;
    }
  /* Everything the child needs is computed here, before fork(). */
  g_autofree char *file_path = g_strdup_printf ("/proc/self/fd/%d", fd);
  if (!g_file_test (file_path, G_FILE_TEST_EXISTS))
    {
      g_free (file_path);
      file_path = g_strdup (path); /* no /proc: open the path the parent checked */
    }
  guint64 data_limit = child_data_limit ();
  gboolean keep_stderr = g_getenv ("ATTNSCOPE_DEBUG_HDF5_CHILD") != NULL;
  char *path_copy = g_strdup (path);

  pid_t pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      close (pair[0]);
      close (pair[1]);
      g_free (path_copy);
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: cannot start the HDF5 reader: %s", path,
                   g_strerror (e));
      return NULL;
    }
  if (pid == 0)
    {
      close (pair[0]);
      child_setup (data_limit, keep_stderr);
      H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
      _exit (main_func (pair[1], path_copy, file_path, data));
    }
  close (pair[1]);
  AsH5Child *child = g_new0 (AsH5Child, 1);
  child->path = path_copy;
  child->socket = pair[0];
  child->pid = pid;
  child->timeout_ms = child_timeout_ms;
  return child;
}

/* Waits for the child to end: at once after SIGKILL (KILL_NOW), otherwise for a moment (it has
 * closed the socket, so it is exiting) before killing it. */
static void
child_reap (AsH5Child *child, gboolean kill_now)
{
  if (child->reaped)
    return;
  if (kill_now)
    kill (child->pid, SIGKILL);
  for (int waited_ms = 0; !kill_now && waited_ms < 2000; waited_ms++)
    {
      pid_t r = waitpid (child->pid, &child->status, WNOHANG);
      if (r == child->pid || (r < 0 && errno != EINTR))
        {
          child->reaped = TRUE;
          return;
        }
      g_usleep (1000);
    }
  kill (child->pid, SIGKILL);
  while (waitpid (child->pid, &child->status, 0) < 0 && errno == EINTR)
    ;
  child->reaped = TRUE;
}

/* Why the child stopped talking, as the end of "PATH is damaged: the HDF5 library ...". */
static char *
child_describe_end (AsH5Child *child)
{
  if (child->timed_out)
    return g_strdup_printf ("did not answer for %g s while reading it", child->timeout_ms / 1000.0);
  if (WIFSIGNALED (child->status))
    {
      int sig = WTERMSIG (child->status);
      if (sig == SIGXCPU)
        return g_strdup_printf ("used up its %d s of CPU time while reading it",
                                AS_H5_CHILD_CPU_SECONDS);
      return g_strdup_printf ("crashed while reading it (signal %d, %s)", sig, g_strsignal (sig));
    }
  if (WIFEXITED (child->status) && WEXITSTATUS (child->status) != 0)
    return g_strdup_printf ("failed while reading it (exit status %d)",
                            WEXITSTATUS (child->status));
  return g_strdup ("stopped before it had read everything");
}

static gboolean
child_fail (AsH5Child *child, GError **error)
{
  child_reap (child, child->timed_out);
  g_autofree char *why = child_describe_end (child);
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s is damaged: the HDF5 library %s", child->path,
               why);
  return FALSE;
}

/* Reads exactly N bytes, waiting at most the timeout for each piece. */
static gboolean
child_read (AsH5Child *child, void *buffer, gsize n, GError **error)
{
  char *p = buffer;
  while (n > 0)
    {
      struct pollfd pfd = { .fd = child->socket, .events = POLLIN };
      int r = poll (&pfd, 1, (int) child->timeout_ms);
      if (r < 0 && errno == EINTR)
        continue;
      if (r == 0)
        {
          child->timed_out = TRUE;
          return child_fail (child, error);
        }
      ssize_t got = r < 0 ? -1 : read (child->socket, p, n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return child_fail (child, error);
      p += got;
      n -= (gsize) got;
    }
  return TRUE;
}

gboolean
as_h5_child_receive_payload (AsH5Child *child, void *buffer, gsize n, GError **error)
{
  return child_read (child, buffer, n, error);
}

gboolean
as_h5_child_receive (AsH5Child *child, AsH5MessageHeader *header, GError **error)
{
  if (!child_read (child, header, sizeof *header, error))
    return FALSE;
  if (header->type != AS_H5_MSG_ERROR)
    return TRUE;
  guint32 code = 0;
  char text[4096 + 1];
  if (header->length < sizeof code || header->length > sizeof code + sizeof text - 1)
    {
      child_reap (child, TRUE);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is damaged: the HDF5 reader sent a malformed message", child->path);
      return FALSE;
    }
  gsize n = header->length - sizeof code;
  if (!child_read (child, &code, sizeof code, error) || !child_read (child, text, n, error))
    return FALSE;
  text[n] = '\0';
  if (code > AS_ERROR_NOT_FOUND)
    code = AS_ERROR_FORMAT;
  g_autofree char *valid = g_utf8_make_valid (text, (gssize) n);
  g_set_error_literal (error, AS_ERROR, (gint) code, valid);
  return FALSE;
}

gboolean
as_h5_child_send (AsH5Child *child, guint32 type, const void *payload, guint32 length,
                  GError **error)
{
  if (!as_h5_channel_send (child->socket, type, payload, length))
    return child_fail (child, error);
  return TRUE;
}

void
as_h5_child_free (AsH5Child *child)
{
  if (child == NULL)
    return;
  close (child->socket);
  child_reap (child, TRUE);
  g_free (child->path);
  g_free (child);
}

/* ---- the child's side of the channel ---- */

gboolean
as_h5_channel_write (int channel, const void *data, gsize n)
{
  const char *p = data;
  while (n > 0)
    {
      ssize_t put = send (channel, p, n, MSG_NOSIGNAL);
      if (put < 0 && errno == EINTR)
        continue;
      if (put <= 0)
        return FALSE;
      p += put;
      n -= (gsize) put;
    }
  return TRUE;
}

gboolean
as_h5_channel_send (int channel, guint32 type, const void *payload, gsize length)
{
  g_return_val_if_fail (length <= G_MAXUINT32, FALSE);
  AsH5MessageHeader header = { type, (guint32) length };
  return as_h5_channel_write (channel, &header, sizeof header)
         && (length == 0 || as_h5_channel_write (channel, payload, length));
}

gboolean
as_h5_channel_send_error (int channel, guint32 code, const char *format, ...)
{
  char buffer[sizeof (guint32) + 4096];
  memcpy (buffer, &code, sizeof code);
  va_list args;
  va_start (args, format);
  int n = vsnprintf (buffer + sizeof code, 4096, format, args);
  va_end (args);
  if (n < 0)
    n = 0;
  if (n > 4095)
    n = 4095;
  return as_h5_channel_send (channel, AS_H5_MSG_ERROR, buffer, sizeof code + (gsize) n);
}

static gboolean
channel_read (int channel, void *buffer, gsize n)
{
  char *p = buffer;
  while (n > 0)
    {
      ssize_t got = read (channel, p, n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return FALSE;
      p += got;
      n -= (gsize) got;
    }
  return TRUE;
}

gboolean
as_h5_channel_receive (int channel, AsH5MessageHeader *header, void *payload, gsize max)
{
  return channel_read (channel, header, sizeof *header) && header->length <= max
         && channel_read (channel, payload, header->length);
}

static herr_t
error_walk (unsigned n, const H5E_error2_t *err, void *data)
{
  char **out = data;
  if (n == 0 && err->desc != NULL && *out == NULL)
    *out = (char *) err->desc;
  return 0;
}

void
as_h5_error_detail (char *buffer, gsize size)
{
  char *desc = NULL;
  H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, error_walk, &desc);
  snprintf (buffer, size, "%s", desc != NULL ? desc : "no detail from HDF5");
}
