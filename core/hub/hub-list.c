/* hub-list.c — what the hub cache holds (as_hub_list_cached, behind `attnscope list`): one entry
 * per snapshot, with the refs that name it, the size of its files, config.json's model type and
 * whether attnscope opens it — a model type a family reads, config.json and one complete set of
 * weights it reads. A repository with blobs but no snapshot is a download that never finished.
 * Nothing here connects to the network or loads weights. */
#include "as-hub.h"

#include <glib/gstdio.h>
#include <string.h>

#include "family-private.h"
#include "hub-private.h"

void
as_hub_cached_model_free (AsHubCachedModel *model)
{
  if (model == NULL)
    return;
  g_free (model->repo_id);
  g_free (model->refs);
  g_free (model->commit);
  g_free (model->path);
  g_free (model->model_type);
  g_free (model->reason);
  g_free (model);
}

/* Adds the refs under DIR (PREFIX is their name so far) to REFS: commit -> "name, name". */
static void
read_refs (const char *dir, const char *prefix, GHashTable *refs, guint depth)
{
  g_autoptr (GDir) handle = depth < 8 ? g_dir_open (dir, 0, NULL) : NULL;
  const char *name;
  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *ref
          = prefix != NULL ? g_strconcat (prefix, "/", name, NULL) : g_strdup (name);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          read_refs (path, ref, refs, depth + 1);
          continue;
        }
      g_autofree char *commit = NULL;
      if (!g_file_get_contents (path, &commit, NULL, NULL))
        continue;
      g_strstrip (commit);
      GString *names = g_hash_table_lookup (refs, commit);
      if (names == NULL)
        g_hash_table_insert (refs, g_strdup (commit), g_string_new (ref));
      else if (g_str_equal (ref, "main"))
        g_string_prepend (g_string_prepend (names, ", "), ref);
      else
        g_string_append_printf (names, ", %s", ref);
    }
}

/* Bytes of the regular files under DIR, links followed. */
static guint64
folder_size (const char *dir, guint depth)
{
  guint64 total = 0;
  g_autoptr (GDir) handle = depth < 16 ? g_dir_open (dir, 0, NULL) : NULL;
  const char *name;
  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      GStatBuf st;
      if (g_stat (path, &st) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        total += folder_size (path, depth + 1);
      else if (S_ISREG (st.st_mode))
        total += (guint64) st.st_size;
    }
  return total;
}

static gboolean
has_file (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* Why the weights of snapshot DIR cannot be read, or NULL when they can. */
static char *
weights_problem (const char *dir)
{
  if (has_file (dir, "model.safetensors") || has_file (dir, "tf_model.h5"))
    return NULL;
  if (has_file (dir, "model.safetensors.index.json"))
    {
      g_autofree char *index = g_build_filename (dir, "model.safetensors.index.json", NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) shards = as_hub_read_shard_names (index, NULL, &error);
      if (shards == NULL)
        return g_strdup (error->message);
      for (guint i = 0; i < shards->len; i++)
        if (!has_file (dir, shards->pdata[i]))
          return g_strdup_printf ("the shard %s is missing", (char *) shards->pdata[i]);
      return NULL;
    }
  if (has_file (dir, "pytorch_model.bin") || has_file (dir, "pytorch_model.bin.index.json"))
    return g_strdup ("only PyTorch pickles (pytorch_model.bin), which attnscope never loads");
  return g_strdup ("no weights it reads (model.safetensors or tf_model.h5)");
}

static void
check_opens (AsHubCachedModel *model)
{
  if (!has_file (model->path, "config.json"))
    {
      model->reason = g_strdup ("no config.json");
      return;
    }
  g_autofree char *config = g_build_filename (model->path, "config.json", NULL);
  g_autoptr (GError) error = NULL;
  model->model_type = as_hub_read_model_type (config, &error);
  if (model->model_type == NULL)
    model->reason = g_strdup (error->message);
  else if (as_family_find (model->model_type) == NULL)
    model->reason = g_strdup_printf ("model type %s is none attnscope opens", model->model_type);
  else
    model->reason = weights_problem (model->path);
  model->opens = model->reason == NULL;
}

/* A repository without a snapshot but with blobs: a download that never finished. */
static AsHubCachedModel *
unfinished (const char *repo_id, const char *repo_dir)
{
  g_autofree char *blobs = g_build_filename (repo_dir, "blobs", NULL);
  guint64 size = folder_size (blobs, 0);
  if (!g_file_test (blobs, G_FILE_TEST_IS_DIR))
    return NULL;
  AsHubCachedModel *model = g_new0 (AsHubCachedModel, 1);
  model->repo_id = g_strdup (repo_id);
  model->path = g_strdup (repo_dir);
  model->size = size;
  model->reason = g_strdup_printf ("the download did not finish: `attnscope download %s` "
                                   "resumes it",
                                   repo_id);
  return model;
}

static void
string_free (gpointer string)
{
  g_string_free (string, TRUE);
}

static void
list_repo (GPtrArray *out, const char *repo_id, const char *repo_dir)
{
  g_autoptr (GHashTable) refs
      = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, string_free);
  g_autofree char *refs_dir = g_build_filename (repo_dir, "refs", NULL);
  read_refs (refs_dir, NULL, refs, 0);
  g_autofree char *snapshots = g_build_filename (repo_dir, "snapshots", NULL);
  g_autoptr (GDir) handle = g_dir_open (snapshots, 0, NULL);
  const char *commit;
  guint before = out->len;
  while (handle != NULL && (commit = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (snapshots, commit, NULL);
      if (!g_file_test (path, G_FILE_TEST_IS_DIR))
        continue;
      AsHubCachedModel *model = g_new0 (AsHubCachedModel, 1);
      model->repo_id = g_strdup (repo_id);
      model->commit = g_strdup (commit);
      model->path = g_steal_pointer (&path);
      GString *names = g_hash_table_lookup (refs, commit);
      model->refs = names != NULL ? g_strdup (names->str) : NULL;
      model->size = folder_size (model->path, 0);
      check_opens (model);
      g_ptr_array_add (out, model);
    }
  if (out->len == before)
    {
      AsHubCachedModel *model = unfinished (repo_id, repo_dir);
      if (model != NULL)
        g_ptr_array_add (out, model);
    }
}

/* By id; then snapshots named by main, by other refs, by none. */
static int
compare_models (gconstpointer a, gconstpointer b)
{
  const AsHubCachedModel *x = *(AsHubCachedModel *const *) a;
  const AsHubCachedModel *y = *(AsHubCachedModel *const *) b;
  int c = strcmp (x->repo_id, y->repo_id);
  if (c != 0)
    return c;
  int rank_x = x->refs == NULL ? 2 : g_str_has_prefix (x->refs, "main") ? 0 : 1;
  int rank_y = y->refs == NULL ? 2 : g_str_has_prefix (y->refs, "main") ? 0 : 1;
  if (rank_x != rank_y)
    return rank_x - rank_y;
  return g_strcmp0 (x->commit, y->commit);
}

GPtrArray *
as_hub_list_cached (const char *cache_dir, GError **error)
{
  g_autofree char *own = cache_dir == NULL ? as_hub_dup_cache_dir () : NULL;
  const char *dir = cache_dir != NULL ? cache_dir : own;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) as_hub_cached_model_free);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    return out;
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) handle = g_dir_open (dir, 0, &local);
  if (handle == NULL)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DISK, "cannot read the hub cache %s: %s", dir,
                   local->message);
      g_ptr_array_unref (out);
      return NULL;
    }
  const char *entry;
  while ((entry = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *repo_id = as_hub_repo_id_from_folder (entry);
      g_autofree char *repo_dir = g_build_filename (dir, entry, NULL);
      if (repo_id != NULL && g_file_test (repo_dir, G_FILE_TEST_IS_DIR))
        list_repo (out, repo_id, repo_dir);
    }
  g_ptr_array_sort (out, compare_models);
  return out;
}
