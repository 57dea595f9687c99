/* config.c — reads and validates a Hugging Face config.json (as-config.h).
 *
 * model_type picks the model family (model/family-private.h), which reads the keys its
 * architecture needs through config-reader-private.h. Every value is checked before anything is
 * allocated from it: sizes must be positive and sane, eps positive and finite, and the weights
 * the sizes imply must fit in memory. Errors name the file and the key. */
#include "as-config.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-trace.h"
#include "family-private.h"

static gboolean
config_check_size (const AsConfigReader *r, const AsConfig *c, GError **error)
{
  guint64 bytes = c->ops->count_weights (c) * sizeof (float);
  guint64 budget = as_memory_budget ();
  if (bytes <= budget)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s: n_layer %d, n_embd %d, n_inner %d, vocab_size %d, n_positions %d imply %.1f GB "
               "of weights, more than the %.1f GB of memory available",
               r->path, c->n_layer, c->n_embd, c->n_inner, c->vocab_size, c->n_positions,
               bytes / 1e9, budget / 1e9);
  return FALSE;
}

static gboolean
config_load_token_ids (const AsConfigReader *r, AsConfig *c, GError **error)
{
  int max_id = c->vocab_size - 1;
  return as_config_reader_int (r, "bos_token_id", TRUE, -1, 0, max_id, &c->bos_token_id, error)
         && as_config_reader_int (r, "eos_token_id", TRUE, -1, 0, max_id, &c->eos_token_id, error);
}

static JsonNode *
config_parse (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr (GError) io_error = NULL;
  if (!g_file_get_contents (path, &contents, &length, &io_error))
    {
      gboolean missing = g_error_matches (io_error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
      g_set_error (error, AS_ERROR, missing ? AS_ERROR_NOT_FOUND : AS_ERROR_IO, "%s: %s", path,
                   missing ? "no such file" : io_error->message);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) json_error = NULL;
  if (!json_parser_load_from_data (parser, contents, (gssize) length, &json_error))
    {
      /* json-glib's message reads "<data>:LINE:COL: Parse error: WHAT". */
      const char *msg = json_error->message;
      int line = 0, column = 0, consumed = 0;
      if (sscanf (msg, "<data>:%d:%d: %n", &line, &column, &consumed) == 2 && consumed > 0)
        {
          const char *what = msg + consumed;
          if (g_str_has_prefix (what, "Parse error: "))
            what += strlen ("Parse error: ");
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: malformed JSON at line %d, column %d: %s", path, line, column, what);
        }
      else
        g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: malformed JSON: %s", path, msg);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: expected a JSON object at the top level",
                   path);
      return NULL;
    }
  return json_node_copy (root);
}

gboolean
as_config_load (AsConfig *config, const char *path, GError **error)
{
  memset (config, 0, sizeof *config);
  g_autoptr (JsonNode) root = config_parse (path, error);
  if (root == NULL)
    return FALSE;
  AsConfigReader r = { .path = path, .obj = json_node_get_object (root) };

  const char *model_type = NULL;
  if (!as_config_reader_string (&r, "model_type", &model_type, error))
    return FALSE;
  const AsFamily *family = model_type != NULL ? as_family_find (model_type) : NULL;
  if (family == NULL)
    {
      g_autofree char *supported = as_family_dup_supported ();
      if (model_type == NULL)
        g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                     "%s: missing key 'model_type' (supported: %s)", path, supported);
      else
        g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                     "%s: model_type \"%s\" is not supported (supported: %s)", path, model_type,
                     supported);
      return FALSE;
    }
  AsConfig c = { .ops = family, .family = family->name };
  if (!family->read_config (&c, &r, error) || !config_load_token_ids (&r, &c, error)
      || !config_check_size (&r, &c, error))
    {
      as_config_clear (&c);
      return FALSE;
    }
  c.model_type = g_strdup (model_type);
  *config = c;
  return TRUE;
}

void
as_config_clear (AsConfig *config)
{
  g_clear_pointer (&config->model_type, g_free);
  if (config->settings != NULL && config->ops != NULL && config->ops->free_settings != NULL)
    config->ops->free_settings (config->settings);
  config->settings = NULL;
}
