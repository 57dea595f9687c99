/* generation-config.c — generation_config.json (or config.json's legacy keys) into
 * AsGenerationConfig (generation-config-private.h). Defaults are transformers' GenerationConfig
 * (v4.40): num_beams 1, max_length 20, min_length 0, length_penalty 1.0, early_stopping false,
 * renormalize_logits false, no bad words, no forced tokens, no_repeat_ngram_size 0;
 * decoder_start_token_id falls back to config.json's. */
#include "generation-config-private.h"

#include <string.h>

#include "as-error.h"
#include "config-reader-private.h"
#include "file-read-private.h"
#include "json-file-private.h"

/* A token id KEY: an integer, or a list holding one (newer files allow lists of end tokens). */
static gboolean
read_token (const AsConfigReader *r, const char *key, int vocab_size, int *out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, key);
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *list = json_node_get_array (node);
      if (json_array_get_length (list) != 1)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                       "%s: key '%s' lists %u tokens; attnscope generates with one", r->path, key,
                       json_array_get_length (list));
          return FALSE;
        }
      g_autoptr (JsonObject) one = json_object_new ();
      json_object_set_member (one, key, json_node_copy (json_array_get_element (list, 0)));
      AsConfigReader sub = { r->path, one };
      return as_config_reader_int (&sub, key, TRUE, -1, 0, vocab_size - 1, out, error);
    }
  return as_config_reader_int (r, key, TRUE, -1, 0, vocab_size - 1, out, error);
}

/* bad_words_ids: a list of lists of token ids. */
static gboolean
read_bad_words (const AsConfigReader *r, int vocab_size, GPtrArray *out, GError **error)
{
  JsonNode *node = as_config_reader_member (r, "bad_words_ids");
  if (node == NULL)
    return TRUE;
  JsonArray *words = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  for (guint i = 0; words != NULL && i < json_array_get_length (words); i++)
    {
      JsonNode *w = json_array_get_element (words, i);
      JsonArray *ids = JSON_NODE_HOLDS_ARRAY (w) ? json_node_get_array (w) : NULL;
      if (ids == NULL || json_array_get_length (ids) == 0)
        {
          words = NULL;
          break;
        }
      GArray *word = g_array_new (FALSE, FALSE, sizeof (int32_t));
      g_ptr_array_add (out, word);
      for (guint j = 0; j < json_array_get_length (ids); j++)
        {
          JsonNode *id = json_array_get_element (ids, j);
          if (!JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64
              || json_node_get_int (id) < 0 || json_node_get_int (id) >= vocab_size)
            {
              g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                           "%s: bad_words_ids[%u][%u] is not a token id (0..%d)", r->path, i, j,
                           vocab_size - 1);
              return FALSE;
            }
          int32_t v = (int32_t) json_node_get_int (id);
          g_array_append_val (word, v);
        }
    }
  if (words == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: bad_words_ids must be a list of non-empty lists of token ids", r->path);
      return FALSE;
    }
  return TRUE;
}

/* Fails when KEY holds anything but its neutral value NEUTRAL (a number). */
static gboolean
refuse_number (const AsConfigReader *r, const char *key, double neutral, GError **error)
{
  double value;
  if (!as_config_reader_double (r, key, neutral, -1e30, 1e30, &value, error))
    return FALSE;
  if (value == neutral)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
               "%s: %s is %g; attnscope generates without it (supported: greedy and beam search "
               "with bad words, min_length, forced first and last tokens, no-repeat n-grams, "
               "length penalty)",
               r->path, key, value);
  return FALSE;
}

static gboolean
read_settings (AsGenerationConfig *g, const AsConfigReader *r, const AsConfig *c, GError **error)
{
  int V = c->vocab_size, max_new = 0;
  gboolean sample = FALSE;
  JsonNode *early = as_config_reader_member (r, "early_stopping");
  if (early != NULL
      && !(JSON_NODE_HOLDS_VALUE (early) && json_node_get_value_type (early) == G_TYPE_BOOLEAN))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: early_stopping must be true or false (\"never\" is not supported)",
                   r->path);
      return FALSE;
    }
  if (!as_config_reader_int (r, "num_beams", TRUE, 1, 1, 1024, &g->num_beams, error)
      || !as_config_reader_int (r, "max_length", TRUE, 20, 1, AS_CONFIG_MAX_POSITIONS,
                                &g->max_length, error)
      || !as_config_reader_int (r, "max_new_tokens", TRUE, 0, 1, AS_CONFIG_MAX_POSITIONS, &max_new,
                                error)
      || !as_config_reader_int (r, "min_length", TRUE, 0, 0, AS_CONFIG_MAX_POSITIONS,
                                &g->min_length, error)
      || !read_token (r, "decoder_start_token_id", V, &g->decoder_start_token_id, error)
      || !read_token (r, "eos_token_id", V, &g->eos_token_id, error)
      || !read_token (r, "pad_token_id", V, &g->pad_token_id, error)
      || !read_token (r, "forced_eos_token_id", V, &g->forced_eos_token_id, error)
      || !read_token (r, "forced_bos_token_id", V, &g->forced_bos_token_id, error)
      || !as_config_reader_int (r, "no_repeat_ngram_size", TRUE, 0, 0, AS_CONFIG_MAX_POSITIONS,
                                &g->no_repeat_ngram_size, error)
      || !read_bad_words (r, V, g->bad_words, error)
      || !as_config_reader_double (r, "length_penalty", 1.0, -1e6, 1e6, &g->length_penalty, error)
      || !as_config_reader_bool (r, "early_stopping", FALSE, &g->early_stopping, error)
      || !as_config_reader_bool (r, "renormalize_logits", FALSE, &g->renormalize_logits, error)
      || !as_config_reader_bool (r, "do_sample", FALSE, &sample, error)
      || !refuse_number (r, "num_beam_groups", 1, error)
      || !refuse_number (r, "repetition_penalty", 1, error)
      || !refuse_number (r, "encoder_no_repeat_ngram_size", 0, error)
      || !refuse_number (r, "encoder_repetition_penalty", 1, error))
    return FALSE;
  if (sample)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s: do_sample is true; attnscope translates with greedy and beam search only",
                   r->path);
      return FALSE;
    }
  if (max_new > 0)
    g->max_length = max_new + 1; /* the decoder's prompt is the start token */
  if (g->decoder_start_token_id < 0)
    g->decoder_start_token_id = c->decoder_start_token_id;
  return TRUE;
}

gboolean
as_generation_config_load (AsGenerationConfig *out, const char *folder, const AsConfig *config,
                           GError **error)
{
  memset (out, 0, sizeof *out);
  out->bad_words = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree char *path = g_build_filename (folder, "generation_config.json", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      path = g_build_filename (folder, "config.json", NULL);
    }
  out->source = g_strdup (path);
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_CONFIG_BYTES, error);
  if (root == NULL)
    return FALSE;
  AsConfigReader r = { path, json_node_get_object (root) };
  return read_settings (out, &r, config, error);
}

void
as_generation_config_clear (AsGenerationConfig *generation)
{
  g_clear_pointer (&generation->bad_words, g_ptr_array_unref);
  g_clear_pointer (&generation->source, g_free);
}
