/* output-file.c — output files written beside their target and renamed over it
 * (as-output-file.h).
 *
 * The temporary files in progress are kept in a small fixed table of paths that a signal
 * handler can walk without allocating or locking: a slot is filled, then marked used, and only
 * then is the file created (the handler may run in any thread, at any moment); the handler
 * unlinks the used slots and re-raises the signal with its default action, which ends every
 * thread. */
#include "as-output-file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "as-error.h"

#define AS_OUTPUT_MAX_LINKS 40         /* as the kernel's limit on nested symbolic links */
#define AS_OUTPUT_NAME_PREFIX_BYTES 64 /* of the target's name in the temporary name */
#define AS_OUTPUT_PENDING_SLOTS 16

struct _AsOutputFile
{
  char *path;   /* as given, for messages */
  char *target; /* after symbolic links */
  char *temp;
  int fd;
  gboolean have_mode; /* the target existed: keep its permission bits */
  mode_t mode;
  int slot; /* in the pending table, or -1 */
};

typedef struct
{
  volatile sig_atomic_t used;
  char path[PATH_MAX];
} PendingSlot;

static PendingSlot pending[AS_OUTPUT_PENDING_SLOTS];
static GMutex pending_lock;

static int
pending_add (const char *path)
{
  if (strlen (path) >= PATH_MAX)
    return -1;
  g_mutex_lock (&pending_lock);
  int slot = -1;
  for (int i = 0; i < AS_OUTPUT_PENDING_SLOTS && slot < 0; i++)
    if (!pending[i].used)
      slot = i;
  if (slot >= 0)
    {
      strcpy (pending[slot].path, path);
      /* the path is complete before any thread (a signal handler) sees the slot used */
      __atomic_store_n (&pending[slot].used, 1, __ATOMIC_RELEASE);
    }
  g_mutex_unlock (&pending_lock);
  return slot;
}

static void
pending_remove (int slot)
{
  if (slot < 0)
    return;
  g_mutex_lock (&pending_lock);
  __atomic_store_n (&pending[slot].used, 0, __ATOMIC_RELEASE);
  g_mutex_unlock (&pending_lock);
}

static void
remove_pending_and_die (int sig)
{
  for (int i = 0; i < AS_OUTPUT_PENDING_SLOTS; i++)
    if (__atomic_load_n (&pending[i].used, __ATOMIC_ACQUIRE))
      unlink (pending[i].path);
  signal (sig, SIG_DFL);
  raise (sig);
}

void
as_output_file_install_signal_cleanup (void)
{
  const int signals[] = { SIGINT, SIGTERM, SIGHUP };
  for (gsize i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old;
      if (sigaction (signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
        continue;
      struct sigaction action = { .sa_handler = remove_pending_and_die };
      sigemptyset (&action.sa_mask);
      sigaction (signals[i], &action, NULL);
    }
}

static const char *
kind_of (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

/* PATH with symbolic links followed (the last one may name a file that does not exist yet). */
static char *
resolve_links (const char *path, GError **error)
{
  char *current = g_strdup (path);
  for (int hops = 0; hops <= AS_OUTPUT_MAX_LINKS; hops++)
    {
      GStatBuf st;
      if (g_lstat (current, &st) != 0 || !S_ISLNK (st.st_mode))
        return current;
      g_autoptr (GError) link_error = NULL;
      g_autofree char *link = g_file_read_link (current, &link_error);
      if (link == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: %s", path, link_error->message);
          g_free (current);
          return NULL;
        }
      char *next;
      if (g_path_is_absolute (link))
        next = g_steal_pointer (&link);
      else
        {
          g_autofree char *dir = g_path_get_dirname (current);
          next = g_build_filename (dir, link, NULL);
        }
      g_free (current);
      current = next;
    }
  g_set_error (error, AS_ERROR, AS_ERROR_IO,
               "%s: more than %d symbolic links in a row; refusing to write through them", path,
               AS_OUTPUT_MAX_LINKS);
  g_free (current);
  return NULL;
}

/* A temporary file's name beside TARGET: ".NAME.RANDOM.tmp", NAME cut to a prefix of at most
 * AS_OUTPUT_NAME_PREFIX_BYTES that ends on a UTF-8 character boundary. */
static char *
temp_name (const char *target)
{
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  gsize n = strlen (base);
  if (n > AS_OUTPUT_NAME_PREFIX_BYTES)
    {
      n = AS_OUTPUT_NAME_PREFIX_BYTES;
      while (n > 0 && ((unsigned char) base[n] & 0xc0) == 0x80)
        n--;
    }
  char random[7];
  for (int i = 0; i < 6; i++)
    random[i] = letters[g_random_int_range (0, sizeof letters - 1)];
  random[6] = '\0';
  return g_strdup_printf ("%s%c.%.*s.%s.tmp", dir, G_DIR_SEPARATOR, (int) n, base, random);
}

/* Creates a new temporary file beside TARGET; *TEMP and *SLOT receive its name and its place in
 * the pending table. The name is in the table before the file exists: a signal may be handled
 * by any thread at any moment, and the handler must find every file there is. Returns the
 * descriptor, or -1 (errno set). */
static int
create_temp (const char *target, char **temp, int *slot)
{
  for (int attempt = 0; attempt < 100; attempt++)
    {
      char *name = temp_name (target);
      int s = pending_add (name);
      int fd = open (name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0)
        {
          *temp = name;
          *slot = s;
          return fd;
        }
      int e = errno;
      pending_remove (s);
      g_free (name);
      if (e != EEXIST)
        {
          errno = e;
          return -1;
        }
    }
  errno = EEXIST;
  return -1;
}

/* Resolves PATH to its target and checks it may be replaced; *EXISTS and *ST describe it. */
static char *
check_target (const char *path, AsOutputFlags flags, gboolean *exists, GStatBuf *st, GError **error)
{
  if (*path == '\0' || g_str_has_suffix (path, "/"))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "'%s' names no file (expected a file name)", path);
      return NULL;
    }
  g_autofree char *target = resolve_links (path, error);
  if (target == NULL)
    return NULL;
  g_autofree char *shown = g_str_equal (target, path)
                               ? g_strdup (path)
                               : g_strdup_printf ("%s (a link to %s)", path, target);
  *exists = g_lstat (target, st) == 0;
  if (*exists && !S_ISREG (st->st_mode))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO,
                   "%s is %s; refusing to replace it with a regular file", shown,
                   kind_of (st->st_mode));
      return NULL;
    }
  if (*exists && !(flags & AS_OUTPUT_FORCE)
      && ((st->st_mode & 0222) == 0 || access (target, W_OK) != 0))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO,
                   "%s is read-only; refusing to replace it (use --force to replace it anyway)",
                   shown);
      return NULL;
    }
  return g_steal_pointer (&target);
}

gboolean
as_output_file_check (const char *path, AsOutputFlags flags, GError **error)
{
  gboolean exists;
  GStatBuf st;
  g_autofree char *target = check_target (path, flags, &exists, &st, error);
  if (target == NULL)
    return FALSE;
  g_autofree char *dir = g_path_get_dirname (target);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: the folder %s does not exist", path, dir);
      return FALSE;
    }
  return TRUE;
}

AsOutputFile *
as_output_file_new (const char *path, AsOutputFlags flags, GError **error)
{
  gboolean exists;
  GStatBuf st;
  g_autofree char *target = check_target (path, flags, &exists, &st, error);
  if (target == NULL)
    return NULL;
  g_autofree char *temp = NULL;
  int slot = -1;
  int fd = create_temp (target, &temp, &slot);
  if (fd < 0)
    {
      int e = errno;
      g_autofree char *dir = g_path_get_dirname (target);
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: cannot create a file in %s: %s", path, dir,
                   g_strerror (e));
      return NULL;
    }
  AsOutputFile *file = g_new0 (AsOutputFile, 1);
  file->path = g_strdup (path);
  file->target = g_steal_pointer (&target);
  file->temp = g_steal_pointer (&temp);
  file->fd = fd;
  file->have_mode = exists;
  file->mode = st.st_mode & 07777;
  file->slot = slot;
  return file;
}

const char *
as_output_file_get_temp_path (const AsOutputFile *file)
{
  return file->temp;
}

int
as_output_file_get_fd (const AsOutputFile *file)
{
  return file->fd;
}

const char *
as_output_file_get_target (const AsOutputFile *file)
{
  return file->target;
}

gboolean
as_output_file_commit (AsOutputFile *file, GError **error)
{
  int e = 0;
  if (file->have_mode && chmod (file->temp, file->mode) != 0)
    e = errno;
  if (file->fd >= 0 && close (file->fd) != 0 && e == 0)
    e = errno;
  file->fd = -1;
  if (e == 0 && g_rename (file->temp, file->target) != 0)
    e = errno;
  if (e != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "%s: could not finish writing: %s", file->path,
                   g_strerror (e));
      return FALSE;
    }
  pending_remove (file->slot);
  file->slot = -1;
  g_clear_pointer (&file->temp, g_free);
  return TRUE;
}

void
as_output_file_free (AsOutputFile *file)
{
  if (file == NULL)
    return;
  if (file->fd >= 0)
    close (file->fd);
  if (file->temp != NULL)
    g_unlink (file->temp);
  pending_remove (file->slot); /* after the unlink: a signal in between removes it again */
  g_free (file->temp);
  g_free (file->target);
  g_free (file->path);
  g_free (file);
}
