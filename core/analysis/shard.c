/* shard.c — shards of a corpus run and their part files (as-shard.h): the K/N option, the model
 * and corpus fingerprints, writing and reading parts, and checking that a set of parts is one
 * complete, consistent run before it is merged. */
#include "as-shard.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as-error.h"
#include "as-input-file.h"
#include "as-output-file.h"

/* Files up to this size enter the model fingerprint whole; larger ones by their ends. */
#define WHOLE_FILE_MAX (4u << 20)
#define END_BYTES (1u << 20)
/* A part file is a few MB at most (L·H·7 sums for stats); refuse absurd ones. */
#define PART_MAX_BYTES ((gsize) 256 << 20)

static gboolean
parse_int (const char *s, const char *end, int *out)
{
  if (s == end || end - s > 10)
    return FALSE;
  gint64 v = 0;
  for (const char *p = s; p < end; p++)
    {
      if (*p < '0' || *p > '9')
        return FALSE;
      v = v * 10 + (*p - '0');
    }
  if (v > G_MAXINT)
    return FALSE;
  *out = (int) v;
  return TRUE;
}

gboolean
as_shard_spec_parse (AsShardSpec *out, const char *text, const char *option, GError **error)
{
  const char *slash = text != NULL ? strchr (text, '/') : NULL;
  int k = 0, n = 0;
  if (slash == NULL || !parse_int (text, slash, &k)
      || !parse_int (slash + 1, slash + strlen (slash), &n))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: expected K/N, shard K of N counted from 0 (e.g. 0/16), got '%s'", option,
                   text != NULL ? text : "");
      return FALSE;
    }
  if (n == 0 || k >= n)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: shard %d/%d does not exist: N must be at least 1 and K go from 0 to N-1 "
                   "(%s)",
                   option, k, n, n == 0 ? "N is 0" : "K is not below N");
      return FALSE;
    }
  out->index = k;
  out->count = n;
  return TRUE;
}

char *
as_shard_sha256_hex (const void *data, gsize length)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, length);
}

static gboolean
read_at (FILE *in, guchar *buf, gsize n, goffset at, const char *path, GError **error)
{
  if (fseeko (in, at, SEEK_SET) != 0 || fread (buf, 1, n, in) != n)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot read '%s' for the model fingerprint: %s",
                   path, ferror (in) ? g_strerror (errno) : "the file is shorter than it was");
      return FALSE;
    }
  return TRUE;
}

/* Adds one file's name, size and bytes (whole or its two ends) to SUM. */
static gboolean
fingerprint_file (GChecksum *sum, const char *name, const char *path, goffset size, GError **error)
{
  g_autofree char *head = g_strdup_printf ("%s\n%" G_GINT64_FORMAT "\n", name, (gint64) size);
  g_checksum_update (sum, (const guchar *) head, strlen (head) + 1);
  FILE *in = fopen (path, "rb");
  if (in == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot read '%s' for the model fingerprint: %s",
                   path, g_strerror (errno));
      return FALSE;
    }
  gsize n = size <= WHOLE_FILE_MAX ? (gsize) size : END_BYTES;
  g_autofree guchar *buf = g_malloc (MAX (n, 1));
  gboolean ok = read_at (in, buf, n, 0, path, error);
  if (ok)
    g_checksum_update (sum, buf, n);
  if (ok && size > WHOLE_FILE_MAX)
    {
      ok = read_at (in, buf, n, size - (goffset) n, path, error);
      if (ok)
        g_checksum_update (sum, buf, n);
    }
  fclose (in);
  return ok;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

char *
as_shard_model_fingerprint (const char *model_dir, GError **error)
{
  GError *local = NULL;
  g_autoptr (GDir) dir = g_dir_open (model_dir, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot list the model folder '%s': %s", model_dir,
                   local->message);
      g_error_free (local);
      return NULL;
    }
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (model_dir, names->pdata[i], NULL);
      GStatBuf st;
      if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      if (!fingerprint_file (sum, names->pdata[i], path, st.st_size, error))
        return NULL;
    }
  return g_strdup (g_checksum_get_string (sum));
}

AsShardPart *
as_shard_part_new (void)
{
  return g_new0 (AsShardPart, 1);
}

void
as_shard_part_free (AsShardPart *part)
{
  if (part == NULL)
    return;
  g_free (part->command);
  g_free (part->model_name);
  g_free (part->model_fingerprint);
  g_free (part->corpus_sha256);
  g_clear_pointer (&part->options, json_node_unref);
  g_clear_pointer (&part->result, json_node_unref);
  g_free (part->path);
  g_free (part);
}

static void
set_string (JsonBuilder *b, const char *member, const char *value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_string_value (b, value);
}

static void
set_int (JsonBuilder *b, const char *member, gint64 value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_int_value (b, value);
}

static void
set_node (JsonBuilder *b, const char *member, JsonNode *node)
{
  json_builder_set_member_name (b, member);
  if (node != NULL)
    json_builder_add_value (b, json_node_copy (node));
  else
    json_builder_add_null_value (b);
}

static char *
part_to_json (const AsShardPart *part)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  set_int (b, "attnscope_part", AS_SHARD_FORMAT_VERSION);
  set_string (b, "command", part->command);
  set_int (b, "shard", part->spec.index);
  set_int (b, "shards", part->spec.count);
  json_builder_set_member_name (b, "model");
  json_builder_begin_object (b);
  set_string (b, "name", part->model_name);
  set_string (b, "fingerprint", part->model_fingerprint);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "corpus");
  json_builder_begin_object (b);
  set_string (b, "sha256", part->corpus_sha256);
  set_int (b, "items", part->corpus_items);
  json_builder_end_object (b);
  set_node (b, "options", part->options);
  set_int (b, "items", part->items);
  set_node (b, "result", part->result);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  char *text = json_generator_to_data (gen, NULL);
  char *line = g_strconcat (text, "\n", NULL);
  g_free (text);
  return line;
}

gboolean
as_shard_part_write (const AsShardPart *part, const char *path, GError **error)
{
  g_autofree char *text = part_to_json (part);
  g_autoptr (AsOutputFile) out = as_output_file_new (path, AS_OUTPUT_DEFAULT, error);
  if (out == NULL)
    return FALSE;
  int fd = as_output_file_get_fd (out);
  gsize done = 0, length = strlen (text);
  while (done < length)
    {
      gssize n = write (fd, text + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path,
                       g_strerror (errno));
          return FALSE;
        }
      done += n;
    }
  return as_output_file_commit (out, error);
}

/* Reading: each getter fails naming the part file and the member. */
static gboolean
part_format_error (GError **error, const char *path, const char *what)
{
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "'%s' is not an attnscope part file: %s", path,
               what);
  return FALSE;
}

static gboolean
get_int (JsonObject *o, const char *member, gint64 min, gint64 *out, const char *path,
         GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < min)
    {
      g_autofree char *what = g_strdup_printf (
          "\"%s\" is missing or not an integer >= %" G_GINT64_FORMAT, member, min);
      return part_format_error (error, path, what);
    }
  *out = json_node_get_int (node);
  return TRUE;
}

static gboolean
get_string (JsonObject *o, const char *member, char **out, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_autofree char *what = g_strdup_printf ("\"%s\" is missing or not a string", member);
      return part_format_error (error, path, what);
    }
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static JsonObject *
get_object (JsonObject *o, const char *member, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (o, member);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *what = g_strdup_printf ("\"%s\" is missing or not an object", member);
      part_format_error (error, path, what);
      return NULL;
    }
  return json_node_get_object (node);
}

static gboolean
part_from_object (AsShardPart *part, JsonObject *o, const char *path, GError **error)
{
  gint64 version = 0, k = 0, n = 0;
  if (!get_int (o, "attnscope_part", 1, &version, path, error))
    return FALSE;
  if (version != AS_SHARD_FORMAT_VERSION)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "'%s' is a part file of format %" G_GINT64_FORMAT
                   ", this attnscope reads format %d",
                   path, version, AS_SHARD_FORMAT_VERSION);
      return FALSE;
    }
  JsonObject *model, *corpus;
  if (!get_string (o, "command", &part->command, path, error)
      || !get_int (o, "shards", 1, &n, path, error) || !get_int (o, "shard", 0, &k, path, error)
      || !get_int (o, "items", 0, &part->items, path, error)
      || (model = get_object (o, "model", path, error)) == NULL
      || !get_string (model, "name", &part->model_name, path, error)
      || !get_string (model, "fingerprint", &part->model_fingerprint, path, error)
      || (corpus = get_object (o, "corpus", path, error)) == NULL
      || !get_string (corpus, "sha256", &part->corpus_sha256, path, error)
      || !get_int (corpus, "items", 0, &part->corpus_items, path, error)
      || get_object (o, "options", path, error) == NULL
      || get_object (o, "result", path, error) == NULL)
    return FALSE;
  if (n > G_MAXINT || k >= n)
    return part_format_error (error, path, "\"shard\" is not below \"shards\"");
  part->spec.index = (int) k;
  part->spec.count = (int) n;
  part->options = json_node_copy (json_object_get_member (o, "options"));
  part->result = json_node_copy (json_object_get_member (o, "result"));
  return TRUE;
}

AsShardPart *
as_shard_part_read (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize length = 0;
  if (!as_input_file_read_text (path, PART_MAX_BYTES, &text, &length, error))
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  GError *local = NULL;
  if (!json_parser_load_from_data (parser, text, length, &local))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "'%s' is not JSON: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      part_format_error (error, path, "not a JSON object");
      return NULL;
    }
  g_autoptr (AsShardPart) part = as_shard_part_new ();
  part->path = g_strdup (path);
  if (!part_from_object (part, json_node_get_object (root), path, error))
    return NULL;
  return g_steal_pointer (&part);
}

static int
compare_index (gconstpointer a, gconstpointer b)
{
  const AsShardPart *pa = *(AsShardPart *const *) a, *pb = *(AsShardPart *const *) b;
  return (pa->spec.index > pb->spec.index) - (pa->spec.index < pb->spec.index);
}

/* The first option whose value differs between A and B (objects), or NULL. */
static char *
first_differing_option (JsonNode *a, JsonNode *b)
{
  JsonObject *oa = json_node_get_object (a), *ob = json_node_get_object (b);
  for (int side = 0; side < 2; side++)
    {
      JsonObject *from = side == 0 ? oa : ob, *other = side == 0 ? ob : oa;
      g_autoptr (GList) members = json_object_get_members (from);
      for (GList *m = members; m != NULL; m = m->next)
        {
          JsonNode *x = json_object_get_member (from, m->data);
          JsonNode *y = json_object_get_member (other, m->data);
          if (y == NULL || !json_node_equal (x, y))
            {
              g_autofree char *vx = json_to_string (x, FALSE);
              g_autofree char *vy = y != NULL ? json_to_string (y, FALSE) : g_strdup ("(none)");
              return side == 0 ? g_strdup_printf ("%s: %s and %s", (char *) m->data, vx, vy)
                               : g_strdup_printf ("%s: %s and %s", (char *) m->data, vy, vx);
            }
        }
    }
  return NULL;
}

static gboolean
mismatch (GError **error, const AsShardPart *a, const AsShardPart *b, const char *what,
          const char *va, const char *vb)
{
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "the parts are not from one run: %s differ between '%s' (%s) and '%s' (%s)", what,
               a->path, va, b->path, vb);
  return FALSE;
}

/* Checks that B belongs to the same run as A. */
static gboolean
same_run (const AsShardPart *a, const AsShardPart *b, GError **error)
{
  if (strcmp (a->command, b->command) != 0)
    return mismatch (error, a, b, "the commands", a->command, b->command);
  if (strcmp (a->model_fingerprint, b->model_fingerprint) != 0)
    {
      /* the names alone may be equal (two checkpoints in folders of one name) */
      g_autofree char *ma
          = g_strdup_printf ("%s, fingerprint %.12s", a->model_name, a->model_fingerprint);
      g_autofree char *mb
          = g_strdup_printf ("%s, fingerprint %.12s", b->model_name, b->model_fingerprint);
      return mismatch (error, a, b, "the models", ma, mb);
    }
  if (strcmp (a->corpus_sha256, b->corpus_sha256) != 0)
    return mismatch (error, a, b, "the corpora (their files' SHA-256)", a->corpus_sha256,
                     b->corpus_sha256);
  g_autofree char *option = first_differing_option (a->options, b->options);
  if (option != NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the parts are not from one run: the options differ between '%s' and '%s' "
                   "(%s)",
                   a->path, b->path, option);
      return FALSE;
    }
  if (a->spec.count != b->spec.count)
    {
      g_autofree char *na = g_strdup_printf ("%d shards", a->spec.count);
      g_autofree char *nb = g_strdup_printf ("%d shards", b->spec.count);
      return mismatch (error, a, b, "the shard counts", na, nb);
    }
  return TRUE;
}

/* Fails naming every missing shard of N when SEEN [N] has holes. */
static gboolean
check_complete (const gboolean *seen, int n, GError **error)
{
  g_autoptr (GString) missing = g_string_new (NULL);
  int n_missing = 0;
  for (int k = 0; k < n; k++)
    if (!seen[k])
      {
        if (n_missing < 20)
          g_string_append_printf (missing, "%s%d/%d", n_missing > 0 ? ", " : "", k, n);
        n_missing++;
      }
  if (n_missing == 0)
    return TRUE;
  if (n_missing > 20)
    g_string_append_printf (missing, " and %d more", n_missing - 20);
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "the set of parts is incomplete: shard%s %s %s missing", n_missing == 1 ? "" : "s",
               missing->str, n_missing == 1 ? "is" : "are");
  return FALSE;
}

gboolean
as_shard_parts_check (GPtrArray *parts, GError **error)
{
  g_return_val_if_fail (parts != NULL && parts->len > 0, FALSE);
  const AsShardPart *first = parts->pdata[0];
  for (guint i = 1; i < parts->len; i++)
    if (!same_run (first, parts->pdata[i], error))
      return FALSE;
  g_ptr_array_sort (parts, compare_index);
  for (guint i = 1; i < parts->len; i++)
    {
      const AsShardPart *a = parts->pdata[i - 1], *b = parts->pdata[i];
      if (a->spec.index == b->spec.index)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "shard %d/%d is given twice: '%s' and '%s'",
                       a->spec.index, a->spec.count, a->path, b->path);
          return FALSE;
        }
    }
  int n = first->spec.count;
  g_autofree gboolean *seen = g_new0 (gboolean, n);
  for (guint i = 0; i < parts->len; i++)
    seen[((AsShardPart *) parts->pdata[i])->spec.index] = TRUE;
  return check_complete (seen, n, error);
}
