/* config.c — reads and validates a Hugging Face config.json (as-config.h).
 *
 * model_type picks the architecture and the keys that must be present (FORMATS.md §2): "gpt2"
 * (GPT-2, DistilGPT-2) and "toy-attention" (the seeds' single attention layer). Every value is
 * checked before anything is allocated from it: sizes must be positive and sane, n_embd divisible
 * by n_head, eps positive and finite, and the weights the sizes imply must fit in memory. Errors
 * name the file and the key. */
#include "as-config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-trace.h"

#define SUPPORTED_MODEL_TYPES "gpt2, toy-attention"

/* Upper bounds far above any model this tool can run; larger values are typos or garbage. */
#define MAX_LAYERS 1024
#define MAX_HEADS 4096
#define MAX_WIDTH (1 << 20)
#define MAX_POSITIONS (1 << 22)
#define MAX_VOCAB 10000000

typedef struct
{
  const char *path;
  JsonObject *obj;
} ConfigReader;

static JsonNode *
config_member (ConfigReader *r, const char *key)
{
  JsonNode *node = json_object_get_member (r->obj, key);
  return node == NULL || JSON_NODE_HOLDS_NULL (node) ? NULL : node;
}

/* Reads integer KEY into OUT, within MIN..MAX. When the key is absent or null, uses DEFAULT_VALUE
 * if OPTIONAL, otherwise fails naming the key. */
static gboolean
config_get_int (ConfigReader *r, const char *key, gboolean optional, int default_value, int min,
                int max, int *out, GError **error)
{
  JsonNode *node = config_member (r, key);
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
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  double value = type == G_TYPE_INT64    ? (double) json_node_get_int (node)
                 : type == G_TYPE_DOUBLE ? json_node_get_double (node)
                                         : NAN;
  if (isnan (value) || value != floor (value))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be an integer", r->path,
                   key);
      return FALSE;
    }
  if (value < min || value > max)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is %.0f; expected an integer from %d to %d", r->path, key, value,
                   min, max);
      return FALSE;
    }
  *out = (int) value;
  return TRUE;
}

static gboolean
config_get_bool (ConfigReader *r, const char *key, gboolean *out, GError **error)
{
  JsonNode *node = config_member (r, key);
  *out = FALSE;
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

/* A string KEY, or NULL when absent; fails when present but not a string. */
static gboolean
config_get_string (ConfigReader *r, const char *key, const char **out, GError **error)
{
  JsonNode *node = config_member (r, key);
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

static gboolean
config_get_eps (ConfigReader *r, const char *key, float *out, GError **error)
{
  JsonNode *node = config_member (r, key);
  *out = 1e-5f;
  if (node == NULL)
    return TRUE;
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  double value = type == G_TYPE_DOUBLE  ? json_node_get_double (node)
                 : type == G_TYPE_INT64 ? (double) json_node_get_int (node)
                                        : NAN;
  if (isnan (value))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: key '%s' must be a number, e.g. 1e-05",
                   r->path, key);
      return FALSE;
    }
  if (!(value > 0 && value < 1))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key '%s' is %g; expected a number between 0 and 1 (exclusive)", r->path,
                   key, value);
      return FALSE;
    }
  *out = (float) value;
  return TRUE;
}

static gboolean
config_get_activation (ConfigReader *r, AsActivation *out, GError **error)
{
  const char *name;
  if (!config_get_string (r, "activation_function", &name, error))
    return FALSE;
  if (name == NULL || g_str_equal (name, "gelu_new"))
    *out = AS_ACT_GELU_NEW;
  else if (g_str_equal (name, "gelu"))
    *out = AS_ACT_GELU;
  else if (g_str_equal (name, "relu"))
    *out = AS_ACT_RELU;
  else
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: key 'activation_function' is \"%s\"; supported: gelu_new, gelu, relu",
                   r->path, name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
config_load_gpt2 (ConfigReader *r, AsConfig *c, GError **error)
{
  c->arch = AS_ARCH_GPT2;
  if (!config_get_int (r, "n_layer", FALSE, 0, 1, MAX_LAYERS, &c->n_layer, error)
      || !config_get_int (r, "n_head", FALSE, 0, 1, MAX_HEADS, &c->n_head, error)
      || !config_get_int (r, "n_embd", FALSE, 0, 1, MAX_WIDTH, &c->n_embd, error)
      || !config_get_int (r, "vocab_size", FALSE, 0, 1, MAX_VOCAB, &c->vocab_size, error))
    return FALSE;
  const char *pos_key = config_member (r, "n_positions") != NULL ? "n_positions" : "n_ctx";
  if (config_member (r, pos_key) == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG, "%s: missing key 'n_positions' (or 'n_ctx')",
                   r->path);
      return FALSE;
    }
  if (!config_get_int (r, pos_key, FALSE, 0, 1, MAX_POSITIONS, &c->n_positions, error)
      || !config_get_int (r, "n_inner", TRUE, 0, 1, MAX_WIDTH, &c->n_inner, error)
      || !config_get_eps (r, "layer_norm_epsilon", &c->layer_norm_eps, error)
      || !config_get_activation (r, &c->activation, error))
    return FALSE;
  if (c->n_embd % c->n_head != 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: n_embd (%d) is not divisible by n_head (%d)", r->path, c->n_embd,
                   c->n_head);
      return FALSE;
    }
  c->head_dim = c->n_embd / c->n_head;
  if (c->n_inner == 0)
    c->n_inner = 4 * c->n_embd;
  return TRUE;
}

static gboolean
config_load_toy (ConfigReader *r, AsConfig *c, GError **error)
{
  c->arch = AS_ARCH_TOY_ATTENTION;
  c->n_layer = 1;
  c->activation = AS_ACT_GELU_NEW;
  if (!config_get_int (r, "n_embd", FALSE, 0, 1, MAX_WIDTH, &c->n_embd, error)
      || !config_get_int (r, "n_head", FALSE, 0, 1, MAX_HEADS, &c->n_head, error)
      || !config_get_int (r, "vocab_size", FALSE, 0, 1, MAX_VOCAB, &c->vocab_size, error)
      || !config_get_int (r, "n_positions", TRUE, 512, 1, MAX_POSITIONS, &c->n_positions, error)
      || !config_get_bool (r, "use_projections", &c->toy_use_projections, error)
      || !config_get_bool (r, "use_output_projection", &c->toy_use_output, error)
      || !config_get_bool (r, "scale_scores", &c->toy_scale_scores, error)
      || !config_get_bool (r, "sinusoidal_positions", &c->toy_sinusoidal, error)
      || !config_get_bool (r, "causal", &c->toy_causal, error)
      || !config_get_eps (r, "layer_norm_epsilon", &c->layer_norm_eps, error))
    return FALSE;
  int default_hd = c->n_embd % c->n_head == 0 ? c->n_embd / c->n_head : 0;
  if (!config_get_int (r, "head_dim", default_hd != 0, default_hd, 1, MAX_WIDTH, &c->head_dim,
                       error))
    return FALSE;
  if (!c->toy_use_projections && c->head_dim != c->n_embd)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: head_dim (%d) must equal n_embd (%d) when use_projections is false "
                   "(queries, keys and values are the embeddings themselves)",
                   r->path, c->head_dim, c->n_embd);
      return FALSE;
    }
  return TRUE;
}

/* Weights the configuration implies, in floats (the GPT-2 count matches HF num_parameters). */
static guint64
config_weight_count (const AsConfig *c)
{
  guint64 D = (guint64) c->n_embd, F = (guint64) c->n_inner, V = (guint64) c->vocab_size;
  guint64 P = (guint64) c->n_positions, H = (guint64) c->n_head, hd = (guint64) c->head_dim;
  if (c->arch == AS_ARCH_TOY_ATTENTION)
    return V * D + 3 * H * D * hd + H * hd * D;
  guint64 per_layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
  return V * D + P * D + (guint64) c->n_layer * per_layer + 2 * D;
}

static gboolean
config_check_size (ConfigReader *r, const AsConfig *c, GError **error)
{
  guint64 bytes = config_weight_count (c) * sizeof (float);
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
config_load_token_ids (ConfigReader *r, AsConfig *c, GError **error)
{
  int max_id = c->vocab_size - 1;
  return config_get_int (r, "bos_token_id", TRUE, -1, 0, max_id, &c->bos_token_id, error)
         && config_get_int (r, "eos_token_id", TRUE, -1, 0, max_id, &c->eos_token_id, error);
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
  ConfigReader r = { .path = path, .obj = json_node_get_object (root) };

  const char *model_type = NULL;
  if (!config_get_string (&r, "model_type", &model_type, error))
    return FALSE;
  if (model_type == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: missing key 'model_type' (supported: " SUPPORTED_MODEL_TYPES ")", path);
      return FALSE;
    }
  AsConfig c = { 0 };
  gboolean ok;
  if (g_str_equal (model_type, "gpt2"))
    ok = config_load_gpt2 (&r, &c, error);
  else if (g_str_equal (model_type, "toy-attention"))
    ok = config_load_toy (&r, &c, error);
  else
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: model_type \"%s\" is not supported (supported: " SUPPORTED_MODEL_TYPES ")",
                   path, model_type);
      return FALSE;
    }
  if (!ok || !config_load_token_ids (&r, &c, error) || !config_check_size (&r, &c, error))
    return FALSE;
  c.model_type = g_strdup (model_type);
  *config = c;
  return TRUE;
}

void
as_config_clear (AsConfig *config)
{
  g_clear_pointer (&config->model_type, g_free);
}

const char *
as_arch_to_string (AsArch arch)
{
  switch (arch)
    {
    case AS_ARCH_GPT2:
      return "gpt2";
    case AS_ARCH_TOY_ATTENTION:
      return "toy-attention";
    default:
      return "unknown";
    }
}
