/* hub-fetch.c — receiving one file into blobs/<etag>, the way huggingface_hub does
 * (_download_to_tmp_and_move, http_get) and a little safer: the bytes go to
 * blobs/<etag>.incomplete, appended from wherever an earlier run stopped (HTTP Range); a broken
 * connection is resumed from the last byte received; the whole file is then checked against its
 * size and its etag — the sha256 of an LFS file, the git blob hash ("blob <size>\0" + bytes,
 * SHA-1) of the others — and only then synced and renamed to blobs/<etag>. A file that fails the
 * check is removed, never resumed from. The blob's lock is huggingface_hub's, so Python and
 * attnscope never write the same blob at once. */
#include "hub-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"

/* Failures in a row without a byte received before giving up (http_get's _nb_retries). */
#define MAX_FAILURES 5
#define RETRY_WAIT_MS 1000

typedef struct
{
  int fd;
  const char *path; /* the .incomplete file */
  const char *filename;
  const char *etag;
  guint64 size; /* what the hub announced */
  guint64 done; /* bytes in the file */
  GChecksum *checksum;
  gboolean git; /* the etag is a git blob hash */
  AsHubBytesFunc progress;
  gpointer progress_data;
} Sink;

static gboolean
is_hex (const char *text, gsize length)
{
  if (strlen (text) != length)
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p))
      return FALSE;
  return TRUE;
}

static void
checksum_reset (Sink *sink)
{
  g_clear_pointer (&sink->checksum, g_checksum_free);
  if (is_hex (sink->etag, 64))
    sink->checksum = g_checksum_new (G_CHECKSUM_SHA256);
  else if (is_hex (sink->etag, 40))
    {
      /* git hash-object: SHA-1 of "blob <size>\0" and the bytes */
      sink->checksum = g_checksum_new (G_CHECKSUM_SHA1);
      sink->git = TRUE;
      g_autofree char *head = g_strdup_printf ("blob %" G_GUINT64_FORMAT, sink->size);
      g_checksum_update (sink->checksum, (const guchar *) head, (gssize) strlen (head) + 1);
    }
}

static gboolean
write_failed (Sink *sink, int saved, GError **error)
{
  gboolean full = saved == ENOSPC || saved == EDQUOT;
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK,
               "%swriting %s failed after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
               " bytes of %s: %s (what was written is kept: free some space and run again to "
               "resume)",
               full ? "the disk is full: " : "", sink->path, sink->done, sink->size, sink->filename,
               g_strerror (saved));
  return FALSE;
}

static gboolean
sink_write (const guint8 *data, gsize length, gpointer user_data, GError **error)
{
  Sink *sink = user_data;
  if (data == NULL)
    {
      /* The server sent the whole file: start over. */
      if (ftruncate (sink->fd, 0) != 0 || lseek (sink->fd, 0, SEEK_SET) != 0)
        return write_failed (sink, errno, error);
      sink->done = 0;
      checksum_reset (sink);
      sink->progress (sink->progress_data, 0, 0);
      return TRUE;
    }
  if (sink->done + length > sink->size)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_CHECKSUM,
                   "%s: the server sent more than the %" G_GUINT64_FORMAT
                   " bytes the hub announced for it",
                   sink->filename, sink->size);
      return FALSE;
    }
  for (gsize written = 0; written < length;)
    {
      gssize n = write (sink->fd, data + written, length - written);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return write_failed (sink, n < 0 ? errno : EIO, error);
      written += (gsize) n;
    }
  if (sink->checksum != NULL)
    g_checksum_update (sink->checksum, data, (gssize) length);
  sink->done += length;
  sink->progress (sink->progress_data, sink->done, length);
  return TRUE;
}

/* Hashes the first DONE bytes already in the file (a resumed download). */
static gboolean
hash_existing (Sink *sink, GError **error)
{
  g_autofree guint8 *buffer = g_malloc (1u << 20);
  for (guint64 at = 0; at < sink->done;)
    {
      gsize want = (gsize) MIN ((guint64) (1u << 20), sink->done - at);
      gssize n = pread (sink->fd, buffer, want, (off_t) at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot read %s: %s", sink->path,
                       n < 0 ? g_strerror (errno) : "it is shorter than it was");
          return FALSE;
        }
      if (sink->checksum != NULL)
        g_checksum_update (sink->checksum, buffer, n);
      at += (guint64) n;
    }
  return TRUE;
}

/* Waits MS milliseconds unless CANCELLABLE fires. */
static void
wait_cancellable (guint ms, GCancellable *cancellable)
{
  for (guint waited = 0; waited < ms && !g_cancellable_is_cancelled (cancellable); waited += 50)
    g_usleep (50 * 1000);
}

/* Receives the rest of SINK's file, resuming after a broken connection. */
static gboolean
receive (AsHubClient *client, const AsHubFileMeta *meta, Sink *sink, GCancellable *cancellable,
         GError **error)
{
  int failures = 0;
  while (sink->done < sink->size)
    {
      gboolean restarted = FALSE;
      guint64 received = 0;
      g_autoptr (GError) local = NULL;
      if (as_hub_client_fetch (client, meta, sink->filename, sink->done, sink_write, sink,
                               &restarted, &received, cancellable, &local))
        {
          if (sink->done == sink->size)
            break;
          g_set_error (&local, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                       "the server ended %s after %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                       " bytes",
                       sink->filename, sink->done, sink->size);
        }
      failures = received > 0 ? 1 : failures + 1;
      if (!g_error_matches (local, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK) || failures > MAX_FAILURES
          || g_cancellable_is_cancelled (cancellable))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_debug ("%s: %s; resuming from byte %" G_GUINT64_FORMAT, sink->filename, local->message,
               sink->done);
      wait_cancellable (RETRY_WAIT_MS, cancellable);
    }
  return TRUE;
}

static gboolean
verify (Sink *sink, GError **error)
{
  if (sink->checksum == NULL)
    return TRUE;
  const char *got = g_checksum_get_string (sink->checksum);
  if (g_ascii_strcasecmp (got, sink->etag) == 0)
    return TRUE;
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_CHECKSUM,
               "%s: the bytes received do not match the hub's checksum (%s %s expected, %s "
               "received); the file was removed and nothing was linked: run again to download it "
               "anew",
               sink->filename, sink->git ? "git blob hash" : "sha256", sink->etag, got);
  return FALSE;
}

/* Opens (creates) PATH and positions it at its end, or at 0 when it is longer than SIZE. */
static int
open_incomplete (const char *path, guint64 size, guint64 *done, GError **error)
{
  int fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  GStatBuf st;
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot write %s: %s", path,
                   g_strerror (saved));
      return -1;
    }
  *done = (guint64) st.st_size;
  if (*done > size && ftruncate (fd, 0) == 0)
    *done = 0;
  if (lseek (fd, (off_t) *done, SEEK_SET) < 0)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot write %s: %s", path,
                   g_strerror (errno));
      close (fd);
      return -1;
    }
  return fd;
}

/* What a failed transfer leaves, said in the error. */
static void
say_kept (GError **error, const Sink *sink)
{
  if (error == NULL || *error == NULL
      || !(g_error_matches (*error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK)
           || g_error_matches (*error, AS_ERROR, AS_ERROR_CANCELLED)))
    return;
  GError *e = *error;
  char *message = g_strdup_printf ("%s; %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                   " bytes of %s are kept in %s and the next download resumes "
                                   "there",
                                   e->message, sink->done, sink->size, sink->filename, sink->path);
  g_free (e->message);
  e->message = message;
}

gboolean
as_hub_fetch_blob (AsHubClient *client, const char *cache_dir, const char *repo_dir,
                   const char *filename, const AsHubFileMeta *meta, AsHubBytesFunc progress,
                   gpointer progress_data, guint64 *resumed, gboolean *cached,
                   GCancellable *cancellable, GError **error)
{
  *resumed = 0;
  *cached = FALSE;
  g_autofree char *blobs = g_build_filename (repo_dir, "blobs", NULL);
  g_autofree char *blob = g_build_filename (blobs, meta->etag, NULL);
  g_autofree char *incomplete = g_strconcat (blob, ".incomplete", NULL);
  g_autofree char *repo_folder = g_path_get_basename (repo_dir);
  if (g_mkdir_with_parents (blobs, 0777) != 0)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot create %s: %s", blobs,
                   g_strerror (errno));
      return FALSE;
    }
  int lock = as_hub_lock_blob (cache_dir, repo_folder, meta->etag, cancellable, error);
  if (lock < 0)
    return FALSE;
  if (g_file_test (blob, G_FILE_TEST_EXISTS))
    {
      /* Another process put it in place while we waited for the lock. */
      as_hub_unlock (lock);
      *cached = TRUE;
      return TRUE;
    }
  Sink sink = { .path = incomplete,
                .filename = filename,
                .etag = meta->etag,
                .size = meta->size,
                .progress = progress,
                .progress_data = progress_data };
  sink.fd = open_incomplete (incomplete, meta->size, &sink.done, error);
  gboolean ok = sink.fd >= 0;
  if (ok)
    {
      *resumed = sink.done;
      checksum_reset (&sink);
      progress (progress_data, sink.done, 0);
      ok = hash_existing (&sink, error) && receive (client, meta, &sink, cancellable, error);
      if (!ok)
        say_kept (error, &sink);
    }
  if (ok && !verify (&sink, error))
    {
      ok = FALSE;
      g_unlink (incomplete);
    }
  if (ok && fsync (sink.fd) != 0)
    ok = write_failed (&sink, errno, error);
  if (sink.fd >= 0 && close (sink.fd) != 0 && ok)
    ok = write_failed (&sink, errno, error);
  if (ok && g_rename (incomplete, blob) != 0)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot rename %s to %s: %s", incomplete,
                   blob, g_strerror (errno));
      ok = FALSE;
    }
  g_clear_pointer (&sink.checksum, g_checksum_free);
  as_hub_unlock (lock);
  return ok;
}
