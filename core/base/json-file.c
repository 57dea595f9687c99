/* json-file.c — JSON input with its size and nesting bounded (json-file-private.h). */
#include "json-file-private.h"

#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "file-read-private.h"

/* The deepest nesting of arrays and objects in DATA, stopping early past LIMIT; *LINE receives
 * the line where LIMIT was passed. Strings (with their escapes) are skipped. */
static int
json_depth (const char *data, gsize length, int limit, int *line)
{
  int depth = 0, deepest = 0, ln = 1;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];
      if (c == '\n')
        ln++;
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > deepest)
            deepest = depth;
          if (depth > limit)
            {
              *line = ln;
              return depth;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return deepest;
}

JsonNode *
as_json_parse (const char *what, const char *data, gsize length, GError **error)
{
  int line = 0;
  if (json_depth (data, length, AS_JSON_MAX_DEPTH, &line) > AS_JSON_MAX_DEPTH)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: arrays and objects nest more than %d levels deep (at line %d); refused "
                   "before parsing",
                   what, AS_JSON_MAX_DEPTH, line);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) json_error = NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) length, &json_error))
    {
      /* json-glib's message reads "<data>:LINE:COL: Parse error: WHAT". */
      const char *msg = json_error->message;
      int column = 0, consumed = 0;
      if (sscanf (msg, "<data>:%d:%d: %n", &line, &column, &consumed) == 2 && consumed > 0)
        {
          const char *why = msg + consumed;
          if (g_str_has_prefix (why, "Parse error: "))
            why += strlen ("Parse error: ");
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: malformed JSON at line %d, column %d: %s", what, line, column, why);
        }
      else
        g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: malformed JSON: %s", what, msg);
      return NULL;
    }
  JsonNode *root = json_parser_steal_root (parser);
  if (root == NULL)
    g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: empty JSON document", what);
  return root;
}

JsonNode *
as_json_load_file (const char *path, gsize max_bytes, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!as_file_read_all (path, max_bytes, &contents, &length, error))
    return NULL;
  return as_json_parse (path, contents, length, error);
}

JsonNode *
as_json_load_object_file (const char *path, gsize max_bytes, GError **error)
{
  JsonNode *root = as_json_load_file (path, max_bytes, error);
  if (root != NULL && !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: expected a JSON object at the top level",
                   path);
      g_clear_pointer (&root, json_node_unref);
    }
  return root;
}
