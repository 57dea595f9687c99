/* hub-server.h — the fake Hugging Face hub of the download tests
 * (tests/reference/hub/fake_hub.py, on 127.0.0.1), and what the tests check of a hub cache:
 * the tree of a model's cache folder (tests/README.md, "The hub client"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  GPid pid;
  char *dir;      /* holds the port file and the request log */
  char *log;      /* one JSON line per request */
  char *endpoint; /* http://127.0.0.1:PORT */
} HubServer;

/* Starts fake_hub.py with ARGS (NULL-terminated: --repo ID=FOLDER, faults, ...) and waits for its
 * port. NULL (the test marked skipped, saying why) when there is no $ATTNSCOPE_PYTHON. */
HubServer *hub_server_start (const char *const *args);
/* Stops the server (SIGTERM, waited for) and frees S. */
void hub_server_stop (HubServer *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HubServer, hub_server_stop)

/* Requests logged so far whose METHOD (NULL: any) matches and whose path contains NEEDLE (NULL:
 * any). */
guint hub_server_count (HubServer *s, const char *method, const char *needle);
/* Body bytes the server sent for file requests (resolve and CDN) so far. */
guint64 hub_server_file_bytes (HubServer *s);
/* The Range header of the requests whose path contains NEEDLE, in order ("" for none). Owned. */
GStrv hub_server_ranges (HubServer *s, const char *needle);
/* Forgets the requests logged so far. */
void hub_server_clear_log (HubServer *s);

/* Makes FOLDER a repository of the fake hub holding FILES (NULL-terminated names) of the model
 * folder SOURCE, as symbolic links. */
void hub_repo_folder (const char *folder, const char *source, const char *const *files);

/* The tree under DIR as sorted lines: "d PATH", "l PATH -> TARGET", "f PATH SIZE SHA256" (symbolic
 * links are not followed; PATH is relative to DIR). Names starting with SKIP_PREFIX (NULL: none)
 * are left out. Owned. */
char *hub_tree_listing (const char *dir, const char *skip_prefix);

/* The sha256 of the file at PATH (followed), as hexadecimal. Owned. */
char *hub_file_sha256 (const char *path);

G_END_DECLS
