/* model-locate.c — turns what the user typed after --model into a model folder.
 *
 * A spec is, in this order: an existing folder; the NAME of a model shipped with attnscope
 * ($ATTNSCOPE_DATA_DIR/models/NAME, then the source tree's data/models, then the installed data
 * directory); or a Hugging Face hub id found in the local HF cache ($HF_HUB_CACHE, $HF_HOME/hub,
 * $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub), where "ORG/NAME" lives in
 * models--ORG--NAME/snapshots/<revision>/ — the revision refs/main names, else the newest. A bare
 * NAME also finds models--ORG--NAME when exactly one organisation has it (the hub moved e.g.
 * "distilgpt2" to "distilbert/distilgpt2"). When nothing matches, the error lists every place
 * that was searched.
 *
 * Names are names: a spec holding a '/' is never joined to the shipped folders (a shipped name
 * has no '/': "attnscope-mini/../../../../tmp/x" would have opened any folder); it is a hub id
 * only when it is ORG/NAME of the hub's characters, else a path. A snapshot must be a folder of
 * its repository's snapshots/ once symbolic links are resolved (huggingface_hub writes real
 * folders there): one that leads out of the cache is refused, naming where it leads. */
#include "as-model.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "as-error.h"
#include "as-hub.h"
#include "file-read-private.h"
#include "model-private.h"

#define AS_DEFAULT_MODEL_NAME "attnscope-mini"

const char *
as_model_default_name (void)
{
  return AS_DEFAULT_MODEL_NAME;
}

static void
add_unique (GPtrArray *dirs, char *dir)
{
  for (guint i = 0; i < dirs->len; i++)
    if (g_str_equal (dirs->pdata[i], dir))
      {
        g_free (dir);
        return;
      }
  g_ptr_array_add (dirs, dir);
}

char **
as_model_dup_shipped_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new ();
  const char *env = g_getenv ("ATTNSCOPE_DATA_DIR");
  if (env != NULL && *env != '\0')
    add_unique (dirs, g_build_filename (env, "models", NULL));
#ifdef ATTNSCOPE_SOURCE_DATA_DIR
  add_unique (dirs, g_build_filename (ATTNSCOPE_SOURCE_DATA_DIR, "models", NULL));
#endif
#ifdef ATTNSCOPE_INSTALL_DATA_DIR
  add_unique (dirs, g_build_filename (ATTNSCOPE_INSTALL_DATA_DIR, "models", NULL));
#endif
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}

/* The Hugging Face hub caches to search, in the order huggingface_hub itself prefers them. */
static GPtrArray *
hf_cache_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *hub_cache = g_getenv ("HF_HUB_CACHE");
  const char *hf_home = g_getenv ("HF_HOME");
  const char *xdg = g_getenv ("XDG_CACHE_HOME");
  /* First the one cache huggingface_hub (and `attnscope download`) writes to. */
  add_unique (dirs, as_hub_dup_cache_dir ());
  if (hub_cache != NULL && *hub_cache != '\0')
    add_unique (dirs, g_strdup (hub_cache));
  if (hf_home != NULL && *hf_home != '\0')
    add_unique (dirs, g_build_filename (hf_home, "hub", NULL));
  if (xdg != NULL && *xdg != '\0')
    add_unique (dirs, g_build_filename (xdg, "huggingface", "hub", NULL));
  add_unique (dirs, g_build_filename (g_get_home_dir (), ".cache", "huggingface", "hub", NULL));
  return dirs;
}

/* "openai-community/gpt2" -> "models--openai-community--gpt2". */
static char *
hf_repo_dir_name (const char *hub_id)
{
  g_auto (GStrv) parts = g_strsplit (hub_id, "/", -1);
  g_autofree char *joined = g_strjoinv ("--", parts);
  return g_strconcat ("models--", joined, NULL);
}

/* The newest subfolder of SNAPSHOTS, or NULL. */
static char *
hf_newest_snapshot (const char *snapshots)
{
  g_autoptr (GDir) dir = g_dir_open (snapshots, 0, NULL);
  if (dir == NULL)
    return NULL;
  char *best = NULL;
  gint64 best_time = G_MININT64;
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (snapshots, name, NULL);
      GStatBuf st;
      if (g_stat (path, &st) != 0 || !S_ISDIR (st.st_mode))
        continue;
      gint64 mtime = (gint64) st.st_mtime;
      if (best == NULL || mtime > best_time || (mtime == best_time && strcmp (path, best) > 0))
        {
          g_free (best);
          best = g_steal_pointer (&path);
          best_time = mtime;
        }
    }
  return best;
}

/* Whether SNAPSHOT resolves to a folder inside REPO's snapshots/ folder; else sets ERROR naming
 * where it leads. */
static gboolean
hf_snapshot_inside (const char *repo, const char *snapshot, GError **error)
{
  g_autofree char *snapshots = g_build_filename (repo, "snapshots", NULL);
  g_autofree char *real_snapshots = realpath (snapshots, NULL);
  g_autofree char *real = realpath (snapshot, NULL);
  if (real_snapshots != NULL && real != NULL && g_str_has_prefix (real, real_snapshots)
      && real[strlen (real_snapshots)] == '/')
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
               "%s leads out of the Hugging Face cache (to %s); a snapshot must be a folder of "
               "its repository's snapshots",
               snapshot, real != NULL ? real : "nowhere");
  return FALSE;
}

/* REPO (a models--ORG--NAME folder) -> the snapshot refs/main names, else the newest; NULL when
 * there is none, or with ERROR when it leads out of the cache. */
static char *
hf_pick_snapshot (const char *repo, GError **error)
{
  char *picked = NULL;
  g_autofree char *snapshots = g_build_filename (repo, "snapshots", NULL);
  g_autofree char *ref_path = g_build_filename (repo, "refs", "main", NULL);
  g_autofree char *ref = NULL;
  gsize ref_length = 0;
  /* refs/main is a 40-character commit hash; a FIFO there must not hang the lookup */
  if (as_file_read_all (ref_path, 4096, &ref, &ref_length, NULL))
    {
      g_strstrip (ref);
      g_autofree char *snapshot = g_build_filename (snapshots, ref, NULL);
      if (*ref != '\0' && strchr (ref, '/') == NULL && strcmp (ref, ".") != 0
          && strcmp (ref, "..") != 0 && g_file_test (snapshot, G_FILE_TEST_IS_DIR))
        picked = g_steal_pointer (&snapshot);
    }
  if (picked == NULL)
    picked = hf_newest_snapshot (snapshots);
  if (picked != NULL && !hf_snapshot_inside (repo, picked, error))
    g_clear_pointer (&picked, g_free);
  return picked;
}

/* For a bare NAME: the single models--ORG--NAME folder in CACHE, or NULL (none, or several). */
static char *
hf_find_any_org (const char *cache, const char *name)
{
  g_autoptr (GDir) dir = g_dir_open (cache, 0, NULL);
  if (dir == NULL)
    return NULL;
  char *found = NULL;
  const char *entry;
  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      if (!g_str_has_prefix (entry, "models--"))
        continue;
      const char *org = entry + strlen ("models--");
      const char *sep = strstr (org, "--");
      if (sep == NULL || sep == org || !g_str_equal (sep + 2, name))
        continue;
      if (found != NULL)
        {
          g_clear_pointer (&found, g_free);
          break;
        }
      found = g_build_filename (cache, entry, NULL);
    }
  return found;
}

/* The snapshot folder of hub id SPEC in the HF caches, or NULL (with ERROR when a snapshot leads
 * out of the cache); appends the searched places. */
static char *
hf_cache_lookup (const char *spec, GString *searched, GError **error)
{
  g_autoptr (GPtrArray) caches = hf_cache_dirs ();
  g_autofree char *repo_name = hf_repo_dir_name (spec);
  for (guint i = 0; i < caches->len; i++)
    {
      g_autofree char *repo = g_build_filename (caches->pdata[i], repo_name, NULL);
      g_string_append_printf (searched, "%s%s", searched->len > 0 ? ", " : "", repo);
      if (!g_file_test (repo, G_FILE_TEST_IS_DIR))
        continue;
      char *snapshot = hf_pick_snapshot (repo, error);
      if (snapshot != NULL || (error != NULL && *error != NULL))
        return snapshot;
    }
  if (strchr (spec, '/') != NULL)
    return NULL;
  for (guint i = 0; i < caches->len; i++)
    {
      g_autofree char *repo = hf_find_any_org (caches->pdata[i], spec);
      char *snapshot = repo != NULL ? hf_pick_snapshot (repo, error) : NULL;
      if (snapshot != NULL || (error != NULL && *error != NULL))
        return snapshot;
    }
  return NULL;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

char **
as_model_dup_cached_hub_ids (void)
{
  g_autoptr (GPtrArray) caches = hf_cache_dirs ();
  GPtrArray *ids = g_ptr_array_new ();
  for (guint i = 0; i < caches->len; i++)
    {
      g_autoptr (GDir) dir = g_dir_open (caches->pdata[i], 0, NULL);
      const char *entry;
      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        {
          if (!g_str_has_prefix (entry, "models--") || entry[strlen ("models--")] == '\0')
            continue;
          g_autofree char *repo = g_build_filename (caches->pdata[i], entry, NULL);
          g_autofree char *snapshot = hf_pick_snapshot (repo, NULL);
          if (snapshot == NULL)
            continue;
          g_auto (GStrv) parts = g_strsplit (entry + strlen ("models--"), "--", -1);
          add_unique (ids, g_strjoinv ("/", parts));
        }
    }
  g_ptr_array_sort (ids, compare_strings);
  g_ptr_array_add (ids, NULL);
  return (char **) g_ptr_array_free (ids, FALSE);
}

static gboolean
spec_is_explicit_path (const char *spec)
{
  return g_path_is_absolute (spec) || g_str_has_prefix (spec, "./")
         || g_str_has_prefix (spec, "../") || g_str_equal (spec, ".") || g_str_equal (spec, "..");
}

/* Whether COMPONENT can be a part of a hub id: the hub's characters, not "." or "..". */
static gboolean
hub_component (const char *component, gsize length)
{
  if (length == 0 || (length <= 2 && strspn (component, ".") >= length))
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isalnum (component[i]) && strchr ("-_.", component[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* Whether SPEC (which holds a '/') has the form of a hub id ORG/NAME. */
static gboolean
spec_is_hub_id (const char *spec)
{
  const char *slash = strchr (spec, '/');
  return slash != NULL && strchr (slash + 1, '/') == NULL
         && hub_component (spec, (gsize) (slash - spec))
         && hub_component (slash + 1, strlen (slash + 1));
}

char *
as_model_resolve_path (const char *spec, GError **error)
{
  if (spec == NULL || *spec == '\0')
    spec = as_model_default_name ();

  if (g_file_test (spec, G_FILE_TEST_IS_DIR))
    return g_canonicalize_filename (spec, NULL);
  if (g_file_test (spec, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "%s is a file; --model takes the model's folder (the one holding config.json)",
                   spec);
      return NULL;
    }
  if (spec_is_explicit_path (spec))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND, "model folder %s does not exist", spec);
      return NULL;
    }
  gboolean slash = strchr (spec, '/') != NULL;
  if (slash && !spec_is_hub_id (spec))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                   "model folder %s does not exist (a --model value with a '/' is a folder or a "
                   "hub id ORG/NAME, never a shipped model's name)",
                   spec);
      return NULL;
    }

  /* a shipped model's name has no '/' */
  g_autoptr (GString) shipped = g_string_new (NULL);
  g_auto (GStrv) dirs = as_model_dup_shipped_dirs ();
  for (char **d = dirs; !slash && *d != NULL; d++)
    {
      g_autofree char *path = g_build_filename (*d, spec, NULL);
      g_string_append_printf (shipped, "%s%s", shipped->len > 0 ? ", " : "", path);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        return g_canonicalize_filename (path, NULL);
    }

  g_autoptr (GString) cached = g_string_new (NULL);
  char *snapshot = hf_cache_lookup (spec, cached, error);
  if (snapshot != NULL || (error != NULL && *error != NULL))
    return snapshot;

  const char *hint = as_hub_check_repo_id (spec, NULL)
                         ? "; to download it from the hub: attnscope download "
                         : "";
  const char *hint_id = *hint != '\0' ? spec : "";
  if (slash)
    g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                 "model '%s' not found: it is not a folder and not in the Hugging Face cache "
                 "(looked in %s)%s%s",
                 spec, cached->str, hint, hint_id);
  else
    g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
                 "model '%s' not found: it is not a folder, not a shipped model (looked in %s) "
                 "and not in the Hugging Face cache (looked in %s)%s%s",
                 spec, shipped->str, cached->str, hint, hint_id);
  return NULL;
}

char *
as_model_display_name (const char *spec, const char *path)
{
  /* A folder inside the HF cache: .../models--ORG--NAME/snapshots/<rev> -> ORG/NAME. */
  g_autofree char *snapshots = g_path_get_dirname (path);
  g_autofree char *repo = g_path_get_dirname (snapshots);
  g_autofree char *snapshots_base = g_path_get_basename (snapshots);
  g_autofree char *repo_base = g_path_get_basename (repo);
  if (g_str_equal (snapshots_base, "snapshots") && g_str_has_prefix (repo_base, "models--"))
    {
      g_auto (GStrv) parts = g_strsplit (repo_base + strlen ("models--"), "--", -1);
      return g_strjoinv ("/", parts);
    }
  if (spec != NULL && *spec != '\0' && !g_file_test (spec, G_FILE_TEST_EXISTS))
    return g_strdup (spec);
  return g_path_get_basename (path);
}
