/* hub-cache.c — names and paths in the hub cache, written exactly as huggingface_hub writes them
 * (file_download.py: repo_folder_name, _normalize_etag, _create_symlink,
 * _cache_commit_hash_for_specific_revision, the WeakFileLock around a blob), so that Python,
 * the JavaScript client and attnscope find each other's files and never fetch them twice.
 *
 *   models--ORG--NAME/blobs/<etag>                 the bytes of a file
 *   models--ORG--NAME/blobs/<etag>.incomplete      a file being received (resumed from its end)
 *   models--ORG--NAME/snapshots/<commit>/<file>    -> ../../blobs/<etag> (relative; one more
 *                                                     "../" per folder of <file>)
 *   models--ORG--NAME/refs/<revision>              the commit, without a newline
 *   .locks/models--ORG--NAME/<etag>.lock           flock'ed while the blob is written */
#include "hub-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "as-error.h"
#include "file-read-private.h"

char *
as_hub_repo_folder_name (const char *repo_id)
{
  g_auto (GStrv) parts = g_strsplit (repo_id, "/", -1);
  g_autofree char *joined = g_strjoinv ("--", parts);
  return g_strconcat ("models--", joined, NULL);
}

char *
as_hub_repo_id_from_folder (const char *folder)
{
  if (!g_str_has_prefix (folder, "models--") || folder[strlen ("models--")] == '\0')
    return NULL;
  g_auto (GStrv) parts = g_strsplit (folder + strlen ("models--"), "--", -1);
  return g_strjoinv ("/", parts);
}

gboolean
as_hub_is_commit (const char *text)
{
  if (text == NULL || strlen (text) != 40)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p) && !(*p >= 'a' && *p <= 'f'))
      return FALSE;
  return TRUE;
}

char *
as_hub_normalize_etag (const char *header)
{
  if (header == NULL)
    return NULL;
  /* etag.lstrip ("W/").strip ('"') */
  while (*header == 'W' || *header == '/')
    header++;
  while (*header == '"')
    header++;
  gsize n = strlen (header);
  while (n > 0 && header[n - 1] == '"')
    n--;
  return g_strndup (header, n);
}

gboolean
as_hub_check_etag (const char *etag, GError **error)
{
  gboolean ok = etag != NULL && *etag != '\0' && *etag != '.' && strlen (etag) <= 200;
  for (const char *p = etag; ok && *p != '\0'; p++)
    ok = g_ascii_isalnum (*p) || *p == '-' || *p == '_' || *p == '.';
  if (!ok)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                 "the hub sent the etag '%s', which cannot name a file in the cache (expected a "
                 "hexadecimal hash)",
                 etag != NULL ? etag : "");
  return ok;
}

gboolean
as_hub_check_filename (const char *name, GError **error)
{
  gboolean ok = name != NULL && *name != '\0' && *name != '/' && strlen (name) <= 1024;
  for (const char *p = name; ok && *p != '\0'; p++)
    ok = (guchar) *p >= 0x20 && *p != 0x7f && *p != '\\';
  if (ok)
    {
      g_auto (GStrv) parts = g_strsplit (name, "/", -1);
      for (guint i = 0; ok && parts[i] != NULL; i++)
        ok = *parts[i] != '\0' && !g_str_equal (parts[i], ".") && !g_str_equal (parts[i], "..");
    }
  if (!ok)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                 "the hub lists the file '%s', which would leave the snapshot folder",
                 name != NULL ? name : "");
  return ok;
}

char *
as_hub_blob_link_target (const char *filename, const char *etag)
{
  GString *target = g_string_new ("../../");
  for (const char *p = filename; *p != '\0'; p++)
    if (*p == '/')
      g_string_append (target, "../");
  g_string_append_printf (target, "blobs/%s", etag);
  return g_string_free (target, FALSE);
}

char *
as_hub_read_ref (const char *repo_dir, const char *revision)
{
  g_autofree char *path = g_build_filename (repo_dir, "refs", revision, NULL);
  char *contents = NULL;
  gsize length = 0;
  if (!as_file_read_all (path, 4096, &contents, &length, NULL))
    return NULL;
  g_strstrip (contents);
  if (*contents == '\0')
    g_clear_pointer (&contents, g_free);
  return contents;
}

static gboolean
fail_errno (GError **error, int saved, const char *what, const char *path)
{
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot %s %s: %s%s", what, path,
               g_strerror (saved), saved == ENOSPC || saved == EDQUOT ? " (the disk is full)" : "");
  return FALSE;
}

gboolean
as_hub_write_ref (const char *repo_dir, const char *revision, const char *commit, GError **error)
{
  g_autofree char *current = as_hub_read_ref (repo_dir, revision);
  if (g_strcmp0 (current, commit) == 0)
    return TRUE;
  g_autofree char *path = g_build_filename (repo_dir, "refs", revision, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    return fail_errno (error, errno, "create", dir);
  g_autofree char *tmp = g_strdup_printf ("%s.tmp-%d", path, (int) getpid ());
  int fd = g_open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return fail_errno (error, errno, "write", tmp);
  gsize n = strlen (commit);
  gboolean ok = write (fd, commit, n) == (gssize) n;
  int saved = errno;
  ok = close (fd) == 0 && ok;
  if (ok && g_rename (tmp, path) == 0)
    return TRUE;
  saved = errno != 0 ? errno : saved;
  g_unlink (tmp);
  return fail_errno (error, saved, "write", path);
}

gboolean
as_hub_link_snapshot_file (const char *repo_dir, const char *commit, const char *filename,
                           const char *etag, GError **error)
{
  g_autofree char *pointer = g_build_filename (repo_dir, "snapshots", commit, filename, NULL);
  g_autofree char *dir = g_path_get_dirname (pointer);
  g_autofree char *target = as_hub_blob_link_target (filename, etag);
  g_autofree char *existing = g_file_read_link (pointer, NULL);
  if (existing != NULL && g_str_equal (existing, target))
    return TRUE;
  if (g_mkdir_with_parents (dir, 0777) != 0)
    return fail_errno (error, errno, "create", dir);
  g_autofree char *base = g_path_get_basename (pointer);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.link-%d", dir, base, (int) getpid ());
  g_unlink (tmp);
  if (symlink (target, tmp) != 0)
    return fail_errno (error, errno, "link", tmp);
  if (g_rename (tmp, pointer) != 0)
    {
      int saved = errno;
      g_unlink (tmp);
      return fail_errno (error, saved, "link", pointer);
    }
  return TRUE;
}

int
as_hub_lock_blob (const char *cache_dir, const char *repo_folder, const char *etag,
                  GCancellable *cancellable, GError **error)
{
  g_autofree char *dir = g_build_filename (cache_dir, ".locks", repo_folder, NULL);
  g_autofree char *name = g_strconcat (etag, ".lock", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      fail_errno (error, errno, "create", dir);
      return -1;
    }
  int fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      fail_errno (error, errno, "create", path);
      return -1;
    }
  /* Python's filelock polls a non-blocking flock the same way. */
  while (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      if (errno != EWOULDBLOCK && errno != EINTR)
        {
          fail_errno (error, errno, "lock", path);
          close (fd);
          return -1;
        }
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED,
                       "the download was cancelled while waiting for %s", path);
          close (fd);
          return -1;
        }
      g_usleep (50 * 1000);
    }
  return fd;
}

void
as_hub_unlock (int fd)
{
  if (fd < 0)
    return;
  flock (fd, LOCK_UN);
  close (fd);
}
