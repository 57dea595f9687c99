/* hub-download.c — a model from the hub into the cache (as-hub.h), in the order
 * huggingface_hub's snapshot_download works, with attnscope's choice of files:
 *
 * 1. the listing (/api/models/{id}/revision/{revision}) gives the commit and the file names;
 * 2. hub-select.c chooses what to fetch; config.json comes first, and a model type no family
 *    reads stops the download there (before gigabytes of weights); a sharded index comes next,
 *    and its shards join the list;
 * 3. each file already linked in snapshots/<commit>/ is taken as it is, without a request (as
 *    hf_hub_download does for a commit it has); for the others a HEAD request gives the etag and
 *    the size, and a blob already in blobs/ is reused;
 * 4. after a check of the free disk space, the missing blobs are received (hub-fetch.c);
 * 5. only then are the snapshot's links made and refs/<revision> written, so an interrupted or
 *    failed download never leaves a partial snapshot that a reader would take for a model.
 *
 * Progress is kept under a mutex for any thread to read: stage, bytes in place, bytes received,
 * the speed over the last few seconds and the time left at that speed. */
#include "as-hub.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "as-error.h"
#include "family-private.h"
#include "hub-private.h"

#define SPEED_SAMPLES 24                /* × SAMPLE_INTERVAL: the speed's window */
#define SAMPLE_INTERVAL_US (250 * 1000) /* between two samples of the bytes received */
#define SPEED_MIN_SPAN_US (500 * 1000)  /* the shortest span a speed is measured over */

typedef struct
{
  char *name;
  AsHubFileMeta *meta; /* NULL when snapshots/<commit>/ links the file already */
  char *path;          /* where its bytes are once in place: the blob, or the snapshot's link */
  guint64 size;
  gboolean prepared, placed;
} Entry;

struct _AsHubDownload
{
  gatomicrefcount ref_count;
  char *repo_id, *revision;
  AsHubDownloadFlags flags;
  char *cache_dir, *repo_dir, *endpoint, *token, *token_source;
  gboolean offline;
  gboolean started;

  GMutex lock; /* guards what follows, up to the run's own state */
  AsHubProgress progress;
  guint64 placed_bytes; /* of the files in place */
  GPtrArray *done;      /* AsHubFileDone */
  gint64 start_us;
  gint64 sample_us[SPEED_SAMPLES];
  guint64 sample_bytes[SPEED_SAMPLES];
  guint n_samples, next_sample;

  /* The run's own state (its thread only). */
  AsHubClient *client;
  GPtrArray *entries; /* Entry */
  GCancellable *cancellable;
};

static void
entry_free (Entry *entry)
{
  g_free (entry->name);
  as_hub_file_meta_free (entry->meta);
  g_free (entry->path);
  g_free (entry);
}

void
as_hub_progress_clear (AsHubProgress *progress)
{
  g_clear_pointer (&progress->file, g_free);
}

void
as_hub_file_done_free (AsHubFileDone *file)
{
  if (file == NULL)
    return;
  g_free (file->name);
  g_free (file);
}

AsHubDownload *
as_hub_download_new (const char *repo_id, const char *revision, AsHubDownloadFlags flags,
                     GError **error)
{
  if (revision == NULL || *revision == '\0')
    revision = "main";
  if (!as_hub_check_repo_id (repo_id, error) || !as_hub_check_revision (revision, error))
    return NULL;
  AsHubDownload *d = g_new0 (AsHubDownload, 1);
  g_atomic_ref_count_init (&d->ref_count);
  d->repo_id = g_strdup (repo_id);
  d->revision = g_strdup (revision);
  d->flags = flags;
  d->cache_dir = as_hub_dup_cache_dir ();
  g_autofree char *folder = as_hub_repo_folder_name (repo_id);
  d->repo_dir = g_build_filename (d->cache_dir, folder, NULL);
  d->endpoint = as_hub_dup_endpoint ();
  d->token = as_hub_dup_token (&d->token_source);
  d->offline = as_hub_get_offline ();
  g_mutex_init (&d->lock);
  d->done = g_ptr_array_new_with_free_func ((GDestroyNotify) as_hub_file_done_free);
  d->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  d->progress.bytes_per_second = -1;
  d->progress.seconds_left = -1;
  return d;
}

AsHubDownload *
as_hub_download_ref (AsHubDownload *download)
{
  g_atomic_ref_count_inc (&download->ref_count);
  return download;
}

void
as_hub_download_unref (AsHubDownload *d)
{
  if (d == NULL || !g_atomic_ref_count_dec (&d->ref_count))
    return;
  g_free (d->repo_id);
  g_free (d->revision);
  g_free (d->cache_dir);
  g_free (d->repo_dir);
  g_free (d->endpoint);
  g_free (d->token);
  g_free (d->token_source);
  as_hub_progress_clear (&d->progress);
  g_ptr_array_unref (d->done);
  g_ptr_array_unref (d->entries);
  as_hub_client_free (d->client);
  g_mutex_clear (&d->lock);
  g_free (d);
}

const char *
as_hub_download_get_repo_id (AsHubDownload *download)
{
  return download->repo_id;
}

const char *
as_hub_download_get_revision (AsHubDownload *download)
{
  return download->revision;
}

const char *
as_hub_download_get_repo_dir (AsHubDownload *download)
{
  return download->repo_dir;
}

/* ---- progress ---- */

static void
set_stage (AsHubDownload *d, AsHubStage stage)
{
  g_mutex_lock (&d->lock);
  d->progress.stage = stage;
  g_mutex_unlock (&d->lock);
}

static void
set_commit (AsHubDownload *d, const char *commit)
{
  g_mutex_lock (&d->lock);
  g_strlcpy (d->progress.commit, commit, sizeof d->progress.commit);
  g_mutex_unlock (&d->lock);
}

/* The speed over the samples' window, and the time left at it (under the lock). */
static void
update_speed (AsHubDownload *d, gint64 now)
{
  AsHubProgress *p = &d->progress;
  guint last = (d->next_sample + SPEED_SAMPLES - 1) % SPEED_SAMPLES;
  if (d->n_samples == 0 || now - d->sample_us[last] >= SAMPLE_INTERVAL_US)
    {
      d->sample_us[d->next_sample] = now;
      d->sample_bytes[d->next_sample] = p->received_bytes;
      d->next_sample = (d->next_sample + 1) % SPEED_SAMPLES;
      d->n_samples = MIN (d->n_samples + 1, SPEED_SAMPLES);
    }
  guint oldest = (d->next_sample + SPEED_SAMPLES - d->n_samples) % SPEED_SAMPLES;
  gint64 span = now - d->sample_us[oldest];
  if (span >= SPEED_MIN_SPAN_US)
    p->bytes_per_second
        = (double) (p->received_bytes - d->sample_bytes[oldest]) * 1e6 / (double) span;
  p->seconds_left = p->bytes_per_second > 0 && p->total_bytes >= p->done_bytes
                        ? (double) (p->total_bytes - p->done_bytes) / p->bytes_per_second
                        : -1;
}

/* AsHubBytesFunc of the file being received. */
static void
on_bytes (gpointer user_data, guint64 file_done, guint64 received)
{
  AsHubDownload *d = user_data;
  g_mutex_lock (&d->lock);
  d->progress.file_done = file_done;
  d->progress.done_bytes = d->placed_bytes + file_done;
  d->progress.received_bytes += received;
  update_speed (d, g_get_monotonic_time ());
  g_mutex_unlock (&d->lock);
}

static void
set_file (AsHubDownload *d, const Entry *entry)
{
  g_mutex_lock (&d->lock);
  g_free (d->progress.file);
  d->progress.file = entry != NULL ? g_strdup (entry->name) : NULL;
  d->progress.file_bytes = entry != NULL ? entry->size : 0;
  d->progress.file_done = 0;
  g_mutex_unlock (&d->lock);
}

/* ENTRY is in place; CACHED_BYTES of it were there before this run. */
static void
record_placed (AsHubDownload *d, Entry *entry, guint64 cached_bytes)
{
  entry->placed = TRUE;
  AsHubFileDone *file = g_new0 (AsHubFileDone, 1);
  file->name = g_strdup (entry->name);
  file->size = entry->size;
  file->cached = cached_bytes == entry->size;
  g_mutex_lock (&d->lock);
  g_ptr_array_add (d->done, file);
  d->placed_bytes += entry->size;
  d->progress.files_done++;
  d->progress.cached_bytes += cached_bytes;
  d->progress.done_bytes = d->placed_bytes;
  g_mutex_unlock (&d->lock);
}

void
as_hub_download_get_progress (AsHubDownload *d, AsHubProgress *out)
{
  g_mutex_lock (&d->lock);
  *out = d->progress;
  out->file = g_strdup (d->progress.file);
  out->elapsed = d->start_us > 0 ? (double) (g_get_monotonic_time () - d->start_us) / 1e6 : 0;
  g_mutex_unlock (&d->lock);
}

GPtrArray *
as_hub_download_dup_done (AsHubDownload *d, guint from)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) as_hub_file_done_free);
  g_mutex_lock (&d->lock);
  for (guint i = from; i < d->done->len; i++)
    {
      const AsHubFileDone *file = d->done->pdata[i];
      AsHubFileDone *copy = g_new0 (AsHubFileDone, 1);
      *copy = *file;
      copy->name = g_strdup (file->name);
      g_ptr_array_add (out, copy);
    }
  g_mutex_unlock (&d->lock);
  return out;
}

/* ---- the steps ---- */

static Entry *
add_entry (AsHubDownload *d, const char *name)
{
  for (guint i = 0; i < d->entries->len; i++)
    if (g_str_equal (((Entry *) d->entries->pdata[i])->name, name))
      return d->entries->pdata[i];
  Entry *entry = g_new0 (Entry, 1);
  entry->name = g_strdup (name);
  g_ptr_array_add (d->entries, entry);
  return entry;
}

static char *
snapshot_dir (AsHubDownload *d)
{
  return g_build_filename (d->repo_dir, "snapshots", d->progress.commit, NULL);
}

/* Learns ENTRY's size and where its bytes are: the snapshot's link when there is one (no
 * request), else the HEAD's etag. */
static gboolean
prepare (AsHubDownload *d, Entry *entry, GError **error)
{
  g_autofree char *snapshot = snapshot_dir (d);
  g_autofree char *pointer = g_build_filename (snapshot, entry->name, NULL);
  GStatBuf st;
  if (g_stat (pointer, &st) == 0 && S_ISREG (st.st_mode))
    {
      entry->size = (guint64) st.st_size;
      entry->path = g_steal_pointer (&pointer);
      entry->prepared = TRUE;
      return TRUE;
    }
  entry->meta = as_hub_client_head (d->client, d->repo_id, d->progress.commit, entry->name,
                                    d->cancellable, error);
  if (entry->meta == NULL)
    return FALSE;
  if (!g_str_equal (entry->meta->commit, d->progress.commit))
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                   "%s: the hub answered for commit %s while the listing named %s; run the "
                   "download again",
                   entry->name, entry->meta->commit, d->progress.commit);
      return FALSE;
    }
  entry->size = entry->meta->size;
  entry->path = g_build_filename (d->repo_dir, "blobs", entry->meta->etag, NULL);
  entry->prepared = TRUE;
  return TRUE;
}

/* Puts ENTRY's bytes in blobs/ unless they are there. */
static gboolean
place (AsHubDownload *d, Entry *entry, GError **error)
{
  if (entry->meta == NULL || g_file_test (entry->path, G_FILE_TEST_EXISTS))
    {
      record_placed (d, entry, entry->size);
      return TRUE;
    }
  set_file (d, entry);
  guint64 resumed = 0;
  gboolean cached = FALSE;
  gboolean ok = as_hub_fetch_blob (d->client, d->cache_dir, d->repo_dir, entry->name, entry->meta,
                                   on_bytes, d, &resumed, &cached, d->cancellable, error);
  set_file (d, NULL);
  if (ok)
    record_placed (d, entry, cached ? entry->size : resumed);
  return ok;
}

static gboolean
prepare_and_place (AsHubDownload *d, Entry *entry, GError **error)
{
  return (entry->prepared || prepare (d, entry, error))
         && (entry->placed || place (d, entry, error));
}

/* Refuses a model no family reads, before its weights are fetched. */
static gboolean
check_family (AsHubDownload *d, const Entry *config, GError **error)
{
  if (d->flags & AS_HUB_DOWNLOAD_ANY_FAMILY)
    return TRUE;
  g_autoptr (GError) local = NULL;
  g_autofree char *type = as_hub_read_model_type (config->path, &local);
  if (type != NULL && as_family_find (type) != NULL)
    return TRUE;
  g_autofree char *supported = as_family_dup_supported ();
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_UNUSABLE,
               "%s is %s%s%s, and attnscope opens the model types %s: nothing but config.json was "
               "downloaded (`attnscope download --any-family` fetches it anyway)",
               d->repo_id, type != NULL ? "a model of type " : "a model whose ",
               type != NULL ? type : "", type != NULL ? "" : local->message, supported);
  return FALSE;
}

static gboolean
add_shards (AsHubDownload *d, const char *index, const char *const *siblings, GError **error)
{
  Entry *entry = add_entry (d, index);
  if (!prepare_and_place (d, entry, error))
    return FALSE;
  g_autoptr (GPtrArray) shards = as_hub_read_shard_names (entry->path, siblings, error);
  if (shards == NULL)
    {
      g_prefix_error (error, "%s: ", d->repo_id);
      return FALSE;
    }
  for (guint i = 0; i < shards->len; i++)
    add_entry (d, shards->pdata[i]);
  return TRUE;
}

/* Totals, once every entry's size is known. */
static void
set_totals (AsHubDownload *d)
{
  guint64 total = 0;
  for (guint i = 0; i < d->entries->len; i++)
    total += ((Entry *) d->entries->pdata[i])->size;
  g_mutex_lock (&d->lock);
  d->progress.n_files = d->entries->len;
  d->progress.total_bytes = total;
  g_mutex_unlock (&d->lock);
}

/* Fails when the cache's file system has less free space than the blobs still to receive. */
static gboolean
check_space (AsHubDownload *d, GError **error)
{
  g_autofree char *blobs = g_build_filename (d->repo_dir, "blobs", NULL);
  if (g_mkdir_with_parents (blobs, 0777) != 0)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot create %s: %s", blobs,
                   g_strerror (errno));
      return FALSE;
    }
  guint64 needed = 0;
  for (guint i = 0; i < d->entries->len; i++)
    {
      const Entry *entry = d->entries->pdata[i];
      if (entry->meta == NULL || g_file_test (entry->path, G_FILE_TEST_EXISTS))
        continue;
      g_autofree char *incomplete = g_strconcat (entry->path, ".incomplete", NULL);
      GStatBuf st;
      guint64 have = g_stat (incomplete, &st) == 0 ? (guint64) st.st_size : 0;
      needed += entry->size > have ? entry->size - have : 0;
    }
  g_autoptr (GFile) file = g_file_new_for_path (blobs);
  g_autoptr (GFileInfo) info
      = g_file_query_filesystem_info (file, G_FILE_ATTRIBUTE_FILESYSTEM_FREE, d->cancellable, NULL);
  if (info == NULL || !g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE))
    return TRUE;
  guint64 free_bytes = g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE);
  if (free_bytes >= needed)
    return TRUE;
  g_autofree char *need_text = as_hub_format_size (needed);
  g_autofree char *free_text = as_hub_format_size (free_bytes);
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK,
               "not enough disk space for %s in %s: it needs %s more and %s is free (the disk is "
               "full; free some space, or choose another cache with HF_HUB_CACHE)",
               d->repo_id, blobs, need_text, free_text);
  return FALSE;
}

static gboolean
link_snapshot (AsHubDownload *d, GError **error)
{
  for (guint i = 0; i < d->entries->len; i++)
    {
      const Entry *entry = d->entries->pdata[i];
      if (entry->meta != NULL
          && !as_hub_link_snapshot_file (d->repo_dir, d->progress.commit, entry->name,
                                         entry->meta->etag, error))
        return FALSE;
    }
  if (!g_str_equal (d->revision, d->progress.commit)
      && !as_hub_write_ref (d->repo_dir, d->revision, d->progress.commit, error))
    return FALSE;
  return TRUE;
}

/* The snapshot the cache has for the revision, without asking the hub, or NULL. */
static char *
cached_snapshot (AsHubDownload *d, char **commit_out)
{
  g_autofree char *commit = as_hub_is_commit (d->revision)
                                ? g_strdup (d->revision)
                                : as_hub_read_ref (d->repo_dir, d->revision);
  if (commit == NULL || !as_hub_check_filename (commit, NULL) || strchr (commit, '/') != NULL)
    return NULL;
  g_autofree char *path = g_build_filename (d->repo_dir, "snapshots", commit, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    return NULL;
  if (commit_out != NULL)
    *commit_out = g_steal_pointer (&commit);
  return g_steal_pointer (&path);
}

static char *
run_offline (AsHubDownload *d, GError **error)
{
  g_autofree char *commit = NULL;
  char *path = cached_snapshot (d, &commit);
  if (path == NULL)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_OFFLINE,
                   "HF_HUB_OFFLINE is set and the cache (%s) has no snapshot of %s at revision "
                   "%s: unset HF_HUB_OFFLINE to download it",
                   d->cache_dir, d->repo_id, d->revision);
      return NULL;
    }
  set_commit (d, commit);
  set_stage (d, AS_HUB_STAGE_DONE);
  return path;
}

/* Adds to a network error what the cache has already. */
static void
hint_cached (AsHubDownload *d, GError **error)
{
  if (error == NULL || *error == NULL
      || !g_error_matches (*error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK))
    return;
  g_autofree char *path = cached_snapshot (d, NULL);
  if (path == NULL)
    return;
  GError *e = *error;
  char *message = g_strdup_printf ("%s; the cache has %s at revision %s from an earlier "
                                   "download (%s): attnscope opens it with --model %s",
                                   e->message, d->repo_id, d->revision, path, d->repo_id);
  g_free (e->message);
  e->message = message;
}

static char *
run_online (AsHubDownload *d, GError **error)
{
  d->client = as_hub_client_new (d->endpoint, d->token, d->token_source);
  set_stage (d, AS_HUB_STAGE_LISTING);
  g_autoptr (AsHubListing) listing
      = as_hub_client_list (d->client, d->repo_id, d->revision, d->cancellable, error);
  if (listing == NULL)
    {
      hint_cached (d, error);
      return NULL;
    }
  set_commit (d, listing->commit);
  const char *const *siblings = (const char *const *) listing->siblings->pdata;
  g_autoptr (AsHubSelection) selection = as_hub_select_files (d->repo_id, siblings, error);
  if (selection == NULL)
    return NULL;
  for (guint i = 0; i < selection->files->len; i++)
    add_entry (d, selection->files->pdata[i]);
  set_stage (d, AS_HUB_STAGE_CHECKING);
  Entry *config = d->entries->pdata[0];
  if (!prepare_and_place (d, config, error) || !check_family (d, config, error))
    return NULL;
  if (selection->index != NULL && !add_shards (d, selection->index, siblings, error))
    return NULL;
  for (guint i = 0; i < d->entries->len; i++)
    {
      Entry *entry = d->entries->pdata[i];
      if (!entry->prepared && !prepare (d, entry, error))
        return NULL;
    }
  set_totals (d);
  if (!check_space (d, error))
    return NULL;
  set_stage (d, AS_HUB_STAGE_DOWNLOADING);
  for (guint i = 0; i < d->entries->len; i++)
    {
      Entry *entry = d->entries->pdata[i];
      if (!entry->placed && !place (d, entry, error))
        return NULL;
    }
  set_stage (d, AS_HUB_STAGE_LINKING);
  if (!link_snapshot (d, error))
    return NULL;
  set_stage (d, AS_HUB_STAGE_DONE);
  return snapshot_dir (d);
}

char *
as_hub_download_run (AsHubDownload *d, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (!d->started, NULL);
  d->started = TRUE;
  g_mutex_lock (&d->lock);
  d->start_us = g_get_monotonic_time ();
  g_mutex_unlock (&d->lock);
  d->cancellable = cancellable;
  char *path = d->offline ? run_offline (d, error) : run_online (d, error);
  d->cancellable = NULL;
  g_clear_pointer (&d->client, as_hub_client_free);
  return path;
}

static void
run_in_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  char *path = as_hub_download_run (task_data, cancellable, &error);
  if (path != NULL)
    g_task_return_pointer (task, path, g_free);
  else
    g_task_return_error (task, error);
}

void
as_hub_download_run_async (AsHubDownload *download, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, as_hub_download_run_async);
  g_task_set_task_data (task, as_hub_download_ref (download),
                        (GDestroyNotify) as_hub_download_unref);
  /* The download reports its own cancellation, saying what it keeps. */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_set_check_cancellable (task, FALSE);
  g_task_run_in_thread (task, run_in_thread);
}

char *
as_hub_download_run_finish (AsHubDownload *download, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
