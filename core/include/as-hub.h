/* as-hub.h — models from the Hugging Face hub, downloaded into the cache that Python's
 * huggingface_hub (and transformers, and the JavaScript @huggingface/hub) share.
 *
 * The cache is laid out exactly as huggingface_hub writes it (core/README.md, "The Hugging Face
 * cache"): models--ORG--NAME/blobs/<etag> holds each file's bytes, snapshots/<commit>/<file> is a
 * relative symbolic link to its blob, refs/<revision> holds the commit a branch or tag named.
 * The environment is read as huggingface_hub reads it: $HF_HUB_CACHE, $HF_HOME, $HF_ENDPOINT,
 * $HF_HUB_OFFLINE, $HF_TOKEN and the token file $HF_HOME/token.
 *
 * A download fetches what attnscope reads and nothing else: config.json, generation_config.json,
 * the tokenizer files, and one weight format (safetensors, single or sharded, else tf_model.h5;
 * never a pickle). It resumes interrupted files (blobs/<etag>.incomplete and HTTP Range),
 * verifies every file against its etag (sha256 for LFS files, the git blob hash for the others),
 * and links a snapshot only once every file is in place, so snapshots/ never shows a partial or
 * unverified model. Nothing else in attnscope touches the network. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define AS_HUB_ERROR (as_hub_error_quark ())

/* Append-only. */
typedef enum
{
  AS_HUB_ERROR_NOT_FOUND, /* no such model, revision or file on the hub */
  AS_HUB_ERROR_DENIED,    /* 401/403: a gated or private model, a missing or refused token */
  AS_HUB_ERROR_NETWORK,   /* no connection, a timeout, a server error, a reply that is no hub's */
  AS_HUB_ERROR_OFFLINE,   /* HF_HUB_OFFLINE is set and the cache lacks what was asked for */
  AS_HUB_ERROR_CHECKSUM,  /* the bytes received do not match the file's etag or size */
  AS_HUB_ERROR_DISK,      /* the disk is full, or the cache cannot be written */
  AS_HUB_ERROR_UNUSABLE,  /* the repository has nothing attnscope opens (no config.json, only
                             pickled weights, a model type no family reads) */
  AS_HUB_ERROR_INPUT,     /* a malformed model id or revision */
} AsHubErrorCode;

GQuark as_hub_error_quark (void);

/* ---- the environment, as huggingface_hub reads it ---- */

/* The hub cache: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else
 * $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub; "~" and $VARIABLES expanded.
 * Owned. */
char *as_hub_dup_cache_dir (void);
/* The hub's address: $HF_ENDPOINT without trailing slashes, else https://huggingface.co. Owned. */
char *as_hub_dup_endpoint (void);
/* TRUE when $HF_HUB_OFFLINE (or, when that is unset or empty, $TRANSFORMERS_OFFLINE) is 1, ON,
 * YES or TRUE in any case. */
gboolean as_hub_get_offline (void);
/* The access token: $HF_TOKEN, else $HUGGING_FACE_HUB_TOKEN, else the file $HF_TOKEN_PATH (default
 * $HF_HOME/token); line breaks and surrounding blanks removed; NULL when there is none or when
 * $HF_HUB_DISABLE_IMPLICIT_TOKEN is set. *SOURCE (may be NULL) receives where it came from (the
 * variable's name or the file's path). Owned. */
char *as_hub_dup_token (char **source);

/* Checks a model id as the hub names them: NAME or ORG/NAME, each of letters, digits, '-', '_'
 * and '.', starting and ending with a letter or digit, without "--" or "..", at most 96
 * characters. The message names the id and what is expected. */
gboolean as_hub_check_repo_id (const char *repo_id, GError **error);
/* Checks a revision (a branch, a tag, a commit, or e.g. "refs/pr/1"): no empty, "." or ".."
 * path component, no control character. */
gboolean as_hub_check_revision (const char *revision, GError **error);

/* The config.json model_type values attnscope opens, e.g. "gpt2, llama, …". Owned. */
char *as_hub_dup_supported_types (void);

/* ---- downloading a model ---- */

typedef enum
{
  AS_HUB_STAGE_STARTING,
  AS_HUB_STAGE_LISTING,     /* asking the hub for the revision's files */
  AS_HUB_STAGE_CHECKING,    /* asking for each file's etag and size */
  AS_HUB_STAGE_DOWNLOADING, /* receiving file bytes */
  AS_HUB_STAGE_LINKING,     /* linking the snapshot, writing the ref */
  AS_HUB_STAGE_DONE,
} AsHubStage;

/* What a download has done so far (as_hub_download_get_progress). */
typedef struct
{
  AsHubStage stage;
  char commit[41];         /* the commit the revision names, "" until listed */
  char *file;              /* the file being received, or NULL (owned: as_hub_progress_clear) */
  guint n_files;           /* files of the snapshot, 0 until known */
  guint files_done;        /* of those, in place */
  guint64 total_bytes;     /* their size, 0 until known */
  guint64 done_bytes;      /* of that, in place: in the cache before, resumed or received */
  guint64 cached_bytes;    /* of that, what was in the cache (or an .incomplete file) before */
  guint64 received_bytes;  /* bytes received over the network in this run */
  guint64 file_bytes;      /* size of FILE */
  guint64 file_done;       /* of FILE, in place */
  double bytes_per_second; /* received over the last seconds; < 0 until measured */
  double seconds_left;     /* at that speed; < 0 when unknown */
  double elapsed;          /* seconds since the run started */
} AsHubProgress;

void as_hub_progress_clear (AsHubProgress *progress);

/* "2.9 MB of 6.4 MB, 3.4 MB/s, 0:02 left" (what is known of it). Owned. */
char *as_hub_progress_format (const AsHubProgress *progress);
/* BYTES in SI units as g_format_size writes them ("6.4 MB", "882 bytes"), with a plain space.
 * Owned. */
char *as_hub_format_size (guint64 bytes);
/* "0:07", "1:02:03"; "?" for a negative SECONDS. Owned. */
char *as_hub_format_duration (double seconds);

/* A file of the snapshot that is in place. */
typedef struct
{
  char *name;      /* path in the repository, e.g. "config.json" */
  guint64 size;    /* bytes */
  gboolean cached; /* it was in the cache already: nothing was received for it */
} AsHubFileDone;

void as_hub_file_done_free (AsHubFileDone *file);

typedef enum
{
  AS_HUB_DOWNLOAD_DEFAULT = 0,
  /* Fetch a model even when config.json's model_type is none attnscope opens. */
  AS_HUB_DOWNLOAD_ANY_FAMILY = 1 << 0,
} AsHubDownloadFlags;

typedef struct _AsHubDownload AsHubDownload;

/* A download of REPO_ID at REVISION (NULL: "main") into the hub cache (as_hub_dup_cache_dir),
 * from the hub as_hub_dup_endpoint names, with the token as_hub_dup_token finds. The environment
 * is read here, once. NULL with AS_HUB_ERROR_INPUT for a malformed id or revision. */
AsHubDownload *as_hub_download_new (const char *repo_id, const char *revision,
                                    AsHubDownloadFlags flags, GError **error);
AsHubDownload *as_hub_download_ref (AsHubDownload *download);
void as_hub_download_unref (AsHubDownload *download);

/* Runs the download (blocking; once per object) and returns the snapshot folder (owned), or NULL
 * with an AS_HUB_ERROR (or AS_ERROR_CANCELLED) error saying what failed and what to do. What was
 * received stays in blobs/ (whole files) or blobs/<etag>.incomplete, so running again resumes.
 * With HF_HUB_OFFLINE set it never connects: it returns the snapshot the cache has for the
 * revision, or fails with AS_HUB_ERROR_OFFLINE. */
char *as_hub_download_run (AsHubDownload *download, GCancellable *cancellable, GError **error);
/* The same in a worker thread; CALLBACK runs in the caller's thread-default main context. */
void as_hub_download_run_async (AsHubDownload *download, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
char *as_hub_download_run_finish (AsHubDownload *download, GAsyncResult *result, GError **error);

/* Copies the current progress into *PROGRESS (clear it after); safe from any thread while the
 * download runs. */
void as_hub_download_get_progress (AsHubDownload *download, AsHubProgress *progress);
/* The files in place so far from the FROM-th on, in the order they were placed (owned array of
 * AsHubFileDone, which it frees). Safe from any thread. */
GPtrArray *as_hub_download_dup_done (AsHubDownload *download, guint from);
const char *as_hub_download_get_repo_id (AsHubDownload *download);
const char *as_hub_download_get_revision (AsHubDownload *download);
/* The cache folder of the model: <cache>/models--ORG--NAME. */
const char *as_hub_download_get_repo_dir (AsHubDownload *download);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHubDownload, as_hub_download_unref)

/* ---- the models in the cache ---- */

typedef struct
{
  char *repo_id;    /* "ORG/NAME" */
  char *refs;       /* the refs naming this snapshot, e.g. "main" or "main, v1.0"; NULL for none */
  char *commit;     /* the snapshot's folder name; NULL for a download that never finished */
  char *path;       /* the snapshot folder (or the repository's folder when COMMIT is NULL) */
  guint64 size;     /* bytes of the snapshot's files (of the blobs received when COMMIT is NULL) */
  char *model_type; /* config.json's model_type, or NULL */
  gboolean opens;   /* attnscope opens it: a model type it reads, config and weights in place */
  char *reason;     /* why it does not open, or NULL */
} AsHubCachedModel;

void as_hub_cached_model_free (AsHubCachedModel *model);

/* Every snapshot in the hub cache CACHE_DIR (NULL: as_hub_dup_cache_dir), sorted by id and ref,
 * and each repository with an unfinished download but no snapshot. An empty array when the cache
 * does not exist. Never connects. */
GPtrArray *as_hub_list_cached (const char *cache_dir, GError **error);

G_END_DECLS
