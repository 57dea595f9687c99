/* hub-server.c — starting and reading the fake hub of the download tests (see hub-server.h). */
#include "hub-server.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "check-close.h"

HubServer *
hub_server_start (const char *const *args)
{
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  if (python == NULL || *python == '\0')
    {
      g_test_skip ("the fake hub needs python3 (ATTNSCOPE_PYTHON is not set; run the tests with "
                   "meson test, .ci/install-deps installs python3)");
      return NULL;
    }
  HubServer *s = g_new0 (HubServer, 1);
  GError *error = NULL;
  s->dir = g_dir_make_tmp ("attnscope-hub-XXXXXX", &error);
  g_assert_no_error (error);
  s->log = g_build_filename (s->dir, "requests.jsonl", NULL);
  g_autofree char *port_file = g_build_filename (s->dir, "port", NULL);
  g_autofree char *script = test_source_path ("tests/reference/hub/fake_hub.py");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) python);
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, "--port-file");
  g_ptr_array_add (argv, port_file);
  g_ptr_array_add (argv, "--log");
  g_ptr_array_add (argv, s->log);
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_async (NULL, (char **) argv->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                NULL, &s->pid, &error));
  g_assert_no_error (error);
  g_autofree char *port = NULL;
  for (int waited = 0; waited < 60000 && port == NULL; waited += 10)
    {
      if (!g_file_get_contents (port_file, &port, NULL, NULL))
        g_usleep (10 * 1000);
      int status = 0;
      if (port == NULL && waitpid (s->pid, &status, WNOHANG) == s->pid)
        g_error ("the fake hub exited before it listened (status %d)", status);
    }
  g_assert_nonnull (port);
  s->endpoint = g_strdup_printf ("http://127.0.0.1:%d", atoi (port));
  return s;
}

void
hub_server_stop (HubServer *s)
{
  if (s == NULL)
    return;
  kill (s->pid, SIGTERM);
  int status = 0;
  waitpid (s->pid, &status, 0);
  g_spawn_close_pid (s->pid);
  g_unlink (s->log);
  g_autofree char *port_file = g_build_filename (s->dir, "port", NULL);
  g_unlink (port_file);
  g_rmdir (s->dir);
  g_free (s->dir);
  g_free (s->log);
  g_free (s->endpoint);
  g_free (s);
}

/* The logged requests, each a JSON object (owned nodes). */
static GPtrArray *
read_log (HubServer *s)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (s->log, &text, NULL, NULL))
    return out;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (*lines[i] == '\0')
        continue;
      g_autoptr (GError) error = NULL;
      JsonNode *node = json_from_string (lines[i], &error);
      g_assert_no_error (error);
      g_ptr_array_add (out, node);
    }
  return out;
}

static const char *
member_string (JsonObject *o, const char *name)
{
  JsonNode *node = json_object_get_member (o, name);
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) ? json_node_get_string (node) : NULL;
}

guint
hub_server_count (HubServer *s, const char *method, const char *needle)
{
  g_autoptr (GPtrArray) log = read_log (s);
  guint n = 0;
  for (guint i = 0; i < log->len; i++)
    {
      JsonObject *o = json_node_get_object (log->pdata[i]);
      if ((method == NULL || g_strcmp0 (member_string (o, "method"), method) == 0)
          && (needle == NULL || strstr (member_string (o, "path"), needle) != NULL))
        n++;
    }
  return n;
}

guint64
hub_server_file_bytes (HubServer *s)
{
  g_autoptr (GPtrArray) log = read_log (s);
  guint64 n = 0;
  for (guint i = 0; i < log->len; i++)
    {
      JsonObject *o = json_node_get_object (log->pdata[i]);
      const char *path = member_string (o, "path");
      if (strstr (path, "/resolve/") != NULL || g_str_has_prefix (path, "/cdn/"))
        n += (guint64) json_object_get_int_member (o, "bytes");
    }
  return n;
}

GStrv
hub_server_ranges (HubServer *s, const char *needle)
{
  g_autoptr (GPtrArray) log = read_log (s);
  g_autoptr (GStrvBuilder) out = g_strv_builder_new ();
  for (guint i = 0; i < log->len; i++)
    {
      JsonObject *o = json_node_get_object (log->pdata[i]);
      if (strstr (member_string (o, "path"), needle) == NULL)
        continue;
      const char *range = member_string (o, "range");
      g_strv_builder_add (out, range != NULL ? range : "");
    }
  return g_strv_builder_end (out);
}

void
hub_server_clear_log (HubServer *s)
{
  g_assert_true (g_file_set_contents (s->log, "", 0, NULL));
}

void
hub_repo_folder (const char *folder, const char *source, const char *const *files)
{
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autofree char *target = g_build_filename (source, files[i], NULL);
      g_autofree char *link = g_build_filename (folder, files[i], NULL);
      g_autofree char *dir = g_path_get_dirname (link);
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_cmpint (symlink (target, link), ==, 0);
    }
}

char *
hub_file_sha256 (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
}

static void
list_tree (const char *root, const char *rel, const char *skip_prefix, GPtrArray *lines)
{
  g_autofree char *dir = rel != NULL ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;
  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      if (skip_prefix != NULL && g_str_has_prefix (name, skip_prefix))
        continue;
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *sub = rel != NULL ? g_build_filename (rel, name, NULL) : g_strdup (name);
      GStatBuf st;
      g_assert_cmpint (g_lstat (path, &st), ==, 0);
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);
          g_ptr_array_add (lines, g_strdup_printf ("l %s -> %s", sub, target));
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_ptr_array_add (lines, g_strdup_printf ("d %s", sub));
          list_tree (root, sub, skip_prefix, lines);
        }
      else
        {
          g_autofree char *sha = hub_file_sha256 (path);
          g_ptr_array_add (lines, g_strdup_printf ("f %s %" G_GINT64_FORMAT " %s", sub,
                                                   (gint64) st.st_size, sha));
        }
    }
}

static int
compare_lines (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char *
hub_tree_listing (const char *dir, const char *skip_prefix)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  list_tree (dir, NULL, skip_prefix, lines);
  g_ptr_array_sort (lines, compare_lines);
  g_ptr_array_add (lines, NULL);
  return g_strjoinv ("\n", (char **) lines->pdata);
}
