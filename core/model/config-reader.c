/* config-reader.c — typed, range-checked reads of config.json keys (config-reader-private.h). */
#include "config-reader-private.h"

#include <math.h>

#include "as-error.h"

/* VALUE in the shortest form that reads back as the same double ("1e+300", not
 * "1.0000000000000001e+300"): the value as the file wrote it, for messages. */
static char *
format_double (double value)
{
  for (int digits = 1; digits < 17; digits++)
    {
      char *s = g_strdup_printf ("%.*g", digits, value);
      if (g_ascii_strtod (s, NULL) == value)
        return s;
      g_free (s);
    }
  return g_strdup_printf ("%.17g", value);
}

/* Fails unless VALUE stays what it is as the float32 the engine computes with: not 0 when it is
 * not 0, finite, and for an eps below 1 still below 1 (1e-300 is 0 as a float: an eps of 0 lets a
 * norm divide by zero). */
static gboolean
check_float (const AsConfigReader *r, const char *key, double value, gboolean below_one,
             GError **error)
{
  float f = (float) value;
  const char *becomes = value != 0 && f == 0     ? "0"
                        : isinf (f)              ? (f > 0 ? "infinity" : "-infinity")
                        : below_one && f >= 1.0f ? "1"
                                                 : NULL;
  if (becomes == NULL)
    return TRUE;
  g_autofree char *shown = format_double (value);
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s: key '%s' is %s, which is %s as a float32 (the precision the model computes "
               "in); expected a number float32 can hold",
               r->path, key, shown, becomes);
  return FALSE;
}

JsonNode *
as_config_reader_member (const AsConfigReader *r, const char *key)
{
  JsonNode *node = json_object_get_member (r->obj, key);
  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
}

/* The value of a JSON number NODE (integer or not), NAN for anything else. */
static double
node_number (JsonNode *node)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  return type == G_TYPE_DOUBLE  ? json_node_get_double (node)
         : type == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                : NAN;
}

/* Reads integer KEY into OUT, within MIN..MAX. When the key is absent or null, uses DEFAULT_VALUE
 * if OPTIONAL, otherwise fails naming the key. */
gboolean
as_config_reader_int (const AsConfigReader *r, const char *key, gboolean optional,
                      int default_value, int min, int max, int *out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  if (node == NULL)
    {
      if (optional)
        {
          *out = default_value;
          return TRUE;
        }
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: missing key '%s'", r->path, key);
      return FALSE;
    }
  double value = node_number (node);
  if (isnan (value) || value != floor (value))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be an integer", r->path,
                   key);
      return FALSE;
    }
  if (value < min || value > max)
    {
      /* the value as the file writes it: every int64 exactly, a float in its shortest form */
      g_autofree char *shown = json_node_get_value_type (node) == G_TYPE_INT64
                                   ? g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node))
                                   : format_double (value);
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is %s; expected an integer from %d to %d", r->path, key, shown,
                   min, max);
      return FALSE;
    }
  *out = (int) value;
  return TRUE;
}

gboolean
as_config_reader_bool (const AsConfigReader *r, const char *key, gboolean default_value,
                       gboolean *out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  *out = default_value;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be true or false", r->path,
                   key);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
as_config_reader_string (const AsConfigReader *r, const char *key, const char **out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be a string", r->path, key);
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}

gboolean
as_config_reader_eps (const AsConfigReader *r, const char *key, float default_value, float *out,
                      GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  *out = default_value;
  if (node == NULL)
    return TRUE;
  double value = node_number (node);
  if (isnan (value))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be a number, e.g. 1e-05",
                   r->path, key);
      return FALSE;
    }
  if (!(value > 0 && value < 1))
    {
      g_autofree char *shown = format_double (value);
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is %s; expected a number between 0 and 1 (exclusive)", r->path,
                   key, shown);
      return FALSE;
    }
  if (!check_float (r, key, value, TRUE, error))
    return FALSE;
  *out = (float) value;
  return TRUE;
}

gboolean
as_config_reader_activation (const AsConfigReader *r, const char *key, AsActivation default_value,
                             AsActivation *out, GError **error)
{
  const char *name;
  if (!as_config_reader_string (r, key, &name, error))
    return FALSE;
  if (name == NULL)
    *out = default_value;
  else if (g_str_equal (name, "gelu_new") || g_str_equal (name, "gelu_pytorch_tanh"))
    *out = AS_ACT_GELU_NEW; /* both the tanh approximation (Gemma's gelu_pytorch_tanh) */
  else if (g_str_equal (name, "gelu"))
    *out = AS_ACT_GELU;
  else if (g_str_equal (name, "relu"))
    *out = AS_ACT_RELU;
  else if (g_str_equal (name, "silu") || g_str_equal (name, "swish"))
    *out = AS_ACT_SILU; /* transformers' ACT2FN: both names are x·sigmoid(x) */
  else
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is \"%s\"; supported: gelu_new, gelu_pytorch_tanh, gelu, relu, "
                   "silu, swish",
                   r->path, key, name);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_config_reader_double (const AsConfigReader *r, const char *key, double default_value, double min,
                         double max, double *out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  *out = default_value;
  if (node == NULL)
    return TRUE;
  double value = node_number (node);
  if (isnan (value))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be a number", r->path, key);
      return FALSE;
    }
  if (!(value >= min && value <= max))
    {
      g_autofree char *shown = format_double (value);
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is %s; expected a number from %g to %g", r->path, key, shown, min,
                   max);
      return FALSE;
    }
  if (!check_float (r, key, value, FALSE, error))
    return FALSE;
  *out = value;
  return TRUE;
}

gboolean
as_config_reader_object (const AsConfigReader *r, const char *key, AsConfigReader *sub,
                         GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  sub->obj = NULL;
  sub->path = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be an object or null",
                   r->path, key);
      return FALSE;
    }
  sub->obj = json_node_get_object (node);
  sub->path = g_strdup_printf ("%s: %s", r->path, key);
  return TRUE;
}

void
as_config_reader_clear (AsConfigReader *sub)
{
  g_clear_pointer ((char **) &sub->path, g_free);
  sub->obj = NULL;
}
