/* hf-json.c — tokenizer.json members with their JSON path in messages (hf-json-private.h). */
#include "hf-json-private.h"

#include "as-error.h"

gboolean
as_hf_json_fail (const AsHfJson *json, GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: %s: %s", json->file, json->path, message);
  return FALSE;
}

JsonObject *
as_hf_json_object (const AsHfJson *json, GError **error)
{
  if (json->node == NULL || !JSON_NODE_HOLDS_OBJECT (json->node))
    {
      as_hf_json_fail (json, error, "expected a JSON object");
      return NULL;
    }
  return json_node_get_object (json->node);
}

JsonNode *
as_hf_json_member (const AsHfJson *json, const char *name)
{
  if (json->node == NULL || !JSON_NODE_HOLDS_OBJECT (json->node))
    return NULL;
  JsonNode *member = json_object_get_member (json_node_get_object (json->node), name);
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    return NULL;
  return member;
}

char *
as_hf_json_child_path (const AsHfJson *json, const char *name, gint index)
{
  if (name == NULL)
    return g_strdup_printf ("%s[%d]", json->path, index);
  if (index < 0)
    return g_strdup_printf ("%s.%s", json->path, name);
  return g_strdup_printf ("%s.%s[%d]", json->path, name, index);
}

/* Fails naming member NAME and what it should have been. */
static gboolean
member_fail (const AsHfJson *json, const char *name, const char *expected, GError **error)
{
  return as_hf_json_fail (json, error, "\"%s\" must be %s", name, expected);
}

gboolean
as_hf_json_bool (const AsHfJson *json, const char *name, gboolean fallback, gboolean *out,
                 GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  *out = fallback;
  if (m == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_BOOLEAN)
    return member_fail (json, name, "true or false", error);
  *out = json_node_get_boolean (m);
  return TRUE;
}

gboolean
as_hf_json_int (const AsHfJson *json, const char *name, gint64 fallback, gint64 min, gint64 max,
                gint64 *out, GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  *out = fallback;
  if (m == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_INT64)
    return member_fail (json, name, "an integer", error);
  gint64 v = json_node_get_int (m);
  if (v < min || v > max)
    return as_hf_json_fail (json, error,
                            "\"%s\" is %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT
                            " to %" G_GINT64_FORMAT,
                            name, v, min, max);
  *out = v;
  return TRUE;
}

gboolean
as_hf_json_double (const AsHfJson *json, const char *name, double fallback, double *out,
                   GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  *out = fallback;
  if (m == NULL)
    return TRUE;
  GType t = JSON_NODE_HOLDS_VALUE (m) ? json_node_get_value_type (m) : G_TYPE_INVALID;
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return member_fail (json, name, "a number", error);
  *out = json_node_get_double (m);
  return TRUE;
}

gboolean
as_hf_json_string (const AsHfJson *json, const char *name, const char *fallback, const char **out,
                   GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  *out = fallback;
  if (m == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (m) || json_node_get_value_type (m) != G_TYPE_STRING)
    return member_fail (json, name, "a string", error);
  *out = json_node_get_string (m);
  return TRUE;
}

gboolean
as_hf_json_required_string (const AsHfJson *json, const char *name, const char **out,
                            GError **error)
{
  if (!as_hf_json_string (json, name, NULL, out, error))
    return FALSE;
  if (*out == NULL)
    return as_hf_json_fail (json, error, "missing \"%s\"", name);
  return TRUE;
}

gboolean
as_hf_json_type (const AsHfJson *json, const char **type, GError **error)
{
  if (as_hf_json_object (json, error) == NULL)
    return FALSE;
  return as_hf_json_required_string (json, "type", type, error);
}

gboolean
as_hf_json_array (const AsHfJson *json, const char *name, JsonArray **out, GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  if (m == NULL)
    return as_hf_json_fail (json, error, "missing \"%s\"", name);
  if (!JSON_NODE_HOLDS_ARRAY (m))
    return member_fail (json, name, "an array", error);
  *out = json_node_get_array (m);
  return TRUE;
}

gboolean
as_hf_json_char (const AsHfJson *json, const char *name, gunichar fallback, gunichar *out,
                 GError **error)
{
  const char *s = NULL;
  *out = fallback;
  if (!as_hf_json_string (json, name, NULL, &s, error))
    return FALSE;
  if (s == NULL)
    return TRUE;
  if (*s == '\0' || *g_utf8_next_char (s) != '\0')
    return member_fail (json, name, "a string of exactly one character", error);
  *out = g_utf8_get_char (s);
  return TRUE;
}

GPtrArray *
as_hf_json_read_list (const AsHfJson *json, const char *name, AsHfJsonReader read,
                      GDestroyNotify free_func, GError **error)
{
  JsonArray *items;
  if (!as_hf_json_array (json, name, &items, error))
    return NULL;
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (free_func);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      g_autofree char *path = as_hf_json_child_path (json, name, (gint) i);
      AsHfJson child = { json_array_get_element (items, i), json->file, path };
      gpointer item = read (&child, error);
      if (item == NULL)
        return NULL;
      g_ptr_array_add (list, item);
    }
  return g_steal_pointer (&list);
}
