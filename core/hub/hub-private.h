/* hub-private.h — the pieces of the hub client (as-hub.h) shared inside core/hub: the cache's
 * names and paths (hub-cache.c), what to fetch from a repository's file list (hub-select.c), and
 * the HTTP requests (hub-http.c). core/hub/README.md, "The Hugging Face cache", describes the
 * layout and the requests. */
#pragma once

#include "as-hub.h"

G_BEGIN_DECLS

/* ---- names and paths (hub-env.c, hub-cache.c) ---- */

/* VALUE with a leading "~" or "~user" and $NAME / ${NAME} expanded, as Python's
 * os.path.expandvars (os.path.expanduser (VALUE)) does (unknown variables stay as written). */
char *as_hub_expand_path (const char *value);

/* "ORG/NAME" -> "models--ORG--NAME". */
char *as_hub_repo_folder_name (const char *repo_id);
/* "models--ORG--NAME" -> "ORG/NAME", or NULL for another name. */
char *as_hub_repo_id_from_folder (const char *folder);

/* TRUE for 40 lowercase hexadecimal digits (a full commit). */
gboolean as_hub_is_commit (const char *text);
/* An ETag header as huggingface_hub normalises it: leading 'W' and '/' characters, then quotes
 * at both ends removed. NULL for NULL. */
char *as_hub_normalize_etag (const char *header);
/* Checks ETAG (normalised) before it names a file in blobs/: letters, digits, '-', '_' and '.',
 * not starting with '.'. */
gboolean as_hub_check_etag (const char *etag, GError **error);
/* Checks a file name of the repository before it names a path in snapshots/: relative, '/'
 * separated, no empty, "." or ".." component, no backslash or control character. */
gboolean as_hub_check_filename (const char *name, GError **error);

/* Where FILENAME's snapshot link points: "../../blobs/ETAG" with one more "../" per folder in
 * FILENAME (the relative path huggingface_hub's _create_symlink computes). */
char *as_hub_blob_link_target (const char *filename, const char *etag);

/* The commit refs/REVISION of REPO_DIR holds (stripped), or NULL. */
char *as_hub_read_ref (const char *repo_dir, const char *revision);
/* Writes COMMIT (without a newline, as huggingface_hub does) to refs/REVISION of REPO_DIR, unless
 * it holds that already; through a temporary file and a rename. */
gboolean as_hub_write_ref (const char *repo_dir, const char *revision, const char *commit,
                           GError **error);
/* Makes snapshots/COMMIT/FILENAME of REPO_DIR a link to blobs/ETAG (replacing what is there,
 * atomically: a link under a temporary name renamed over it). */
gboolean as_hub_link_snapshot_file (const char *repo_dir, const char *commit, const char *filename,
                                    const char *etag, GError **error);

/* The lock huggingface_hub takes while it writes blobs/ETAG: flock on
 * <cache>/.locks/models--ORG--NAME/ETAG.lock. Waits (polling CANCELLABLE) while another process
 * holds it. Returns the descriptor to give to as_hub_unlock, or -1. */
int as_hub_lock_blob (const char *cache_dir, const char *repo_folder, const char *etag,
                      GCancellable *cancellable, GError **error);
void as_hub_unlock (int fd);

/* ---- what to fetch (hub-select.c) ---- */

typedef struct
{
  GPtrArray *files; /* names to fetch (owned strings): config.json first, then the others */
  char *index;      /* "model.safetensors.index.json" when the weights are sharded, else NULL
                       (it is in FILES; its shards are added once it is read) */
  char *weights;    /* what the weights are, for messages: "model.safetensors", ... */
} AsHubSelection;

void as_hub_selection_free (AsHubSelection *selection);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHubSelection, as_hub_selection_free)

/* Chooses from SIBLINGS (the repository's file names) what attnscope reads: config.json,
 * generation_config.json, the tokenizer files present, and one weight format — model.safetensors,
 * else model.safetensors.index.json (and its shards), else tf_model.h5. Fails with
 * AS_HUB_ERROR_UNUSABLE naming REPO_ID when there is no config.json or no such weights (the
 * message names the weight files the repository has instead, e.g. a pickle). */
AsHubSelection *as_hub_select_files (const char *repo_id, const char *const *siblings,
                                     GError **error);
/* The shard names of the safetensors index at PATH, sorted, without repeats; each must be in
 * SIBLINGS (unless NULL). */
GPtrArray *as_hub_read_shard_names (const char *path, const char *const *siblings, GError **error);
/* config.json's model_type at PATH (owned), or NULL with an error naming the file. */
char *as_hub_read_model_type (const char *path, GError **error);

/* ---- HTTP (hub-http.c) ---- */

typedef struct _AsHubClient AsHubClient;

/* What /api/models/{id}/revision/{revision} says. */
typedef struct
{
  char *commit;        /* "sha" */
  GPtrArray *siblings; /* "siblings[].rfilename", NULL-terminated (owned strings) */
  char *gated;         /* "gated" when not false ("auto", "manual"), else NULL */
} AsHubListing;

void as_hub_listing_free (AsHubListing *listing);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHubListing, as_hub_listing_free)

/* What a HEAD request on /{id}/resolve/{commit}/{file} says (get_hf_file_metadata). */
typedef struct
{
  char *commit;   /* X-Repo-Commit */
  char *etag;     /* X-Linked-Etag, else ETag, normalised */
  guint64 size;   /* X-Linked-Size, else Content-Length */
  char *location; /* where to GET the bytes: the redirect's Location, else the URL */
} AsHubFileMeta;

void as_hub_file_meta_free (AsHubFileMeta *meta);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHubFileMeta, as_hub_file_meta_free)

/* Called with each piece of a file as it arrives, or with DATA NULL when the transfer starts over
 * from the file's first byte; FALSE (with ERROR) stops the transfer. */
typedef gboolean (*AsHubSink) (const guint8 *data, gsize length, gpointer user_data,
                               GError **error);

AsHubClient *as_hub_client_new (const char *endpoint, const char *token, const char *token_source);
void as_hub_client_free (AsHubClient *client);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHubClient, as_hub_client_free)

AsHubListing *as_hub_client_list (AsHubClient *client, const char *repo_id, const char *revision,
                                  GCancellable *cancellable, GError **error);
AsHubFileMeta *as_hub_client_head (AsHubClient *client, const char *repo_id, const char *commit,
                                   const char *filename, GCancellable *cancellable, GError **error);
/* GETs META's bytes from OFFSET on (a Range request when OFFSET > 0) into SINK. *RESTARTED is set
 * when the server sent the whole file instead (it ignored the range): the sink is then told to
 * start over (DATA NULL) before it receives the file from its first byte. A connection lost after
 * some bytes is an AS_HUB_ERROR_NETWORK error; *RECEIVED says how many bytes the sink took. */
gboolean as_hub_client_fetch (AsHubClient *client, const AsHubFileMeta *meta, const char *filename,
                              guint64 offset, AsHubSink sink, gpointer sink_data,
                              gboolean *restarted, guint64 *received, GCancellable *cancellable,
                              GError **error);

/* ---- one blob (hub-fetch.c) ---- */

/* Told, as bytes of a file arrive, how many of its bytes are in place (FILE_DONE; it falls back
 * to 0 when a transfer starts over) and how many more were received (RECEIVED). */
typedef void (*AsHubBytesFunc) (gpointer user_data, guint64 file_done, guint64 received);

/* Puts FILENAME's bytes (META) at blobs/<etag> of REPO_DIR: under huggingface_hub's lock for that
 * blob; through blobs/<etag>.incomplete, resumed from its end with a Range request; retried after
 * a broken connection (five times in a row without a byte received, then the error); checked
 * against the size and the etag (sha256 for an LFS file, the git blob hash otherwise) — a
 * mismatch removes the .incomplete file and fails with AS_HUB_ERROR_CHECKSUM; synced, then
 * renamed into place. *RESUMED receives the bytes that were already in the .incomplete file,
 * *CACHED whether another process had put the blob in place meanwhile. */
gboolean as_hub_fetch_blob (AsHubClient *client, const char *cache_dir, const char *repo_dir,
                            const char *filename, const AsHubFileMeta *meta,
                            AsHubBytesFunc progress, gpointer progress_data, guint64 *resumed,
                            gboolean *cached, GCancellable *cancellable, GError **error);

G_END_DECLS
