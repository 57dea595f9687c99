/* hub-repos.h — the repositories the fake hub (hub-server.h) serves in the download tests, and
 * what the tests check of a download: the shipped attnscope-mini as "test/mini" (commit
 * HUB_COMMIT) and "test/extra" (the same files among a README, a pickle, Flax and ONNX files;
 * HUB_EXTRA_COMMIT), sharded safetensors in a subfolder as "test/sharded", a pickle-only
 * "test/pickle" and a "test/t5" whose model type no family reads (tests/README.md, "The hub
 * client"). */
#pragma once

#include <glib.h>

#include "as-hub.h"
#include "hub-server.h"

G_BEGIN_DECLS

#define HUB_COMMIT "0123456789abcdef0123456789abcdef01234567"
#define HUB_EXTRA_COMMIT "89abcdef0123456789abcdef0123456789abcdef"

/* The files of attnscope-mini a download fetches (NULL-terminated), and their folder. */
extern const char *const hub_mini_files[];
extern char *hub_mini_source;

/* Unsets the HF_* variables (and proxies) and points HOME into the test's folder. */
void hub_isolate_env (void);
/* Writes the served repositories into the test's temporary folder. */
void hub_repos_make (void);
void hub_repos_free (void);
/* The served folder of repository test/NAME. Owned. */
char *hub_repo_path (const char *name);
/* Writes LENGTH bytes of DATA to DIR/NAME (folders made). */
void hub_write_bytes (const char *dir, const char *name, const char *data, gsize length);

/* The fake hub serving every repository, with EXTRA arguments (NULL-terminated); sets
 * HF_ENDPOINT. NULL when the test was skipped (no python). */
HubServer *hub_start (const char *extra, ...);
/* A fresh, empty cache for the test (sets HF_HUB_CACHE). Owned. */
char *hub_fresh_cache (const char *name);

/* as_hub_download of REPO_ID at REVISION; *DONE (may be NULL) receives the files placed. */
char *hub_download_full (const char *repo_id, const char *revision, AsHubDownloadFlags flags,
                         GPtrArray **done, GError **error);
char *hub_download (const char *repo_id, GError **error);

/* The etag the hub gives CONTENT: sha256 for an LFS file, the git blob hash otherwise (computed
 * here, independently of core/hub). Owned. */
char *hub_etag_of (const char *name, const char *content, gsize length);
/* The tree huggingface_hub writes for FILES of SOURCE at COMMIT, REF naming it (NULL: none), in
 * hub_tree_listing's form. Owned. */
char *hub_expected_tree (const char *source, const char *const *files, const char *commit,
                         const char *ref);
/* CACHE/models--ORG--NAME. Owned. */
char *hub_repo_dir_of (const char *cache, const char *repo_id);
void hub_assert_tree (const char *cache, const char *repo_id, const char *expected);
void hub_assert_error_has (const GError *error, const char *needle);
/* The sha256 of attnscope-mini's tf_model.h5 (its size in *SIZE, may be NULL). Owned. */
char *hub_h5_sha256 (gsize *size);
gsize hub_files_size (const char *source, const char *const *files);
/* SNAPSHOT's tf_model.h5 has the right sha256. */
void hub_assert_h5_ok (const char *snapshot);
/* REPO_ID has no snapshots/ and no refs/ in CACHE. */
void hub_assert_nothing_linked (const char *cache, const char *repo_id);

G_END_DECLS
