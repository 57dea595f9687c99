/* hf-bpe.c — tokenizer.json's BPE model (src/models/bpe/model.rs, serialization.rs, word.rs).
 *
 * A piece is cut into characters; every character but the first gets continuing_subword_prefix,
 * the last gets end_of_word_suffix; each becomes its vocabulary id, or with byte_fallback one
 * "<0xXX>" token per UTF-8 byte, or the unknown token (consecutive unknowns fused into one with
 * fuse_unk), or nothing when there is no unknown token. The ids are merged by the shared loop
 * (bpe-merges-private.h). With ignore_merges a piece that is itself a token is that token.
 * "merges" are "a b" strings or ["a", "b"] pairs; a merge's rank is its index; its parts and
 * its result (a + b without b's continuing_subword_prefix) must be tokens. dropout is ignored
 * (as HF does when it is 0; attnscope never samples). */
#include "hf-vocab-private.h"

#include <string.h>

/* Reads merge I (a JsonNode) into *A, *B (borrowed or owned in *OWNED). */
static gboolean
merge_parts (const AsHfJson *json, JsonNode *node, guint i, const char **a, const char **b,
             char **owned, GError **error)
{
  g_autofree char *path = as_hf_json_child_path (json, "merges", (gint) i);
  AsHfJson sub = { node, json->file, path };
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *line = json_node_get_string (node);
      const char *space = strchr (line, ' ');
      if (space == NULL || strchr (space + 1, ' ') != NULL)
        return as_hf_json_fail (&sub, error,
                                "merge \"%s\" is not two tokens separated by one space", line);
      *owned = g_strdup (line);
      (*owned)[space - line] = '\0';
      *a = *owned;
      *b = *owned + (space - line) + 1;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) == 2)
    {
      JsonArray *pair = json_node_get_array (node);
      JsonNode *x = json_array_get_element (pair, 0), *y = json_array_get_element (pair, 1);
      if (JSON_NODE_HOLDS_VALUE (x) && json_node_get_value_type (x) == G_TYPE_STRING
          && JSON_NODE_HOLDS_VALUE (y) && json_node_get_value_type (y) == G_TYPE_STRING)
        {
          *a = json_node_get_string (x);
          *b = json_node_get_string (y);
          return TRUE;
        }
    }
  return as_hf_json_fail (&sub, error, "a merge must be \"a b\" or [\"a\", \"b\"]");
}

static gboolean
read_merges (AsHfModel *model, const AsHfJson *json, GError **error)
{
  JsonArray *merges;
  if (!as_hf_json_array (json, "merges", &merges, error))
    return FALSE;
  guint n = json_array_get_length (merges);
  gsize prefix_len
      = model->continuing_subword_prefix != NULL ? strlen (model->continuing_subword_prefix) : 0;
  model->merges = as_bpe_merges_new_vocab (model->id_to_token->len, n);
  for (guint i = 0; i < n; i++)
    {
      const char *a = NULL, *b = NULL;
      g_autofree char *owned = NULL;
      if (!merge_parts (json, json_array_get_element (merges, i), i, &a, &b, &owned, error))
        return FALSE;
      g_autofree char *path = as_hf_json_child_path (json, "merges", (gint) i);
      AsHfJson sub = { NULL, json->file, path };
      int32_t left = as_hf_model_lookup (model, a, strlen (a));
      int32_t right = as_hf_model_lookup (model, b, strlen (b));
      const char *b_tail = strlen (b) >= prefix_len ? b + prefix_len : b;
      g_autofree char *joined = g_strconcat (a, b_tail, NULL);
      int32_t merged = as_hf_model_lookup (model, joined, strlen (joined));
      const char *missing = left < 0 ? a : right < 0 ? b : merged < 0 ? joined : NULL;
      if (missing != NULL)
        return as_hf_json_fail (
            &sub, error, "merge \"%s\" + \"%s\": \"%s\" is not in the vocabulary", a, b, missing);
      as_bpe_merges_set (model->merges, i, left, right, merged);
    }
  return TRUE;
}

static gboolean
bpe_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  const char *prefix, *suffix;
  if (!as_hf_json_string (json, "continuing_subword_prefix", NULL, &prefix, error)
      || !as_hf_json_string (json, "end_of_word_suffix", NULL, &suffix, error)
      || !as_hf_json_bool (json, "fuse_unk", FALSE, &model->fuse_unk, error)
      || !as_hf_json_bool (json, "byte_fallback", FALSE, &model->byte_fallback, error)
      || !as_hf_json_bool (json, "ignore_merges", FALSE, &model->ignore_merges, error)
      || !as_hf_model_read_vocab (model, json, error))
    return FALSE;
  model->continuing_subword_prefix = g_strdup (prefix);
  model->end_of_word_suffix = g_strdup (suffix);
  if (!as_hf_model_read_unk (model, json, NULL, error) || !read_merges (model, json, error))
    return FALSE;
  as_hf_model_find_byte_tokens (model);
  return TRUE;
}

/* The string merge_word looks up for character piece[start, end): with the prefix unless it is
 * the first character, with the suffix when it is the last. Into SCRATCH. */
static void
char_string (const AsHfModel *model, const char *piece, gsize start, gsize end, gboolean first,
             gboolean last, GString *scratch)
{
  g_string_truncate (scratch, 0);
  if (!first && model->continuing_subword_prefix != NULL)
    g_string_append (scratch, model->continuing_subword_prefix);
  g_string_append_len (scratch, piece + start, (gssize) (end - start));
  if (last && model->end_of_word_suffix != NULL)
    g_string_append (scratch, model->end_of_word_suffix);
}

/* Byte fallback: appends the "<0xXX>" ids of S's bytes, or returns FALSE when one is missing. */
static gboolean
append_bytes (const AsHfModel *model, const GString *s, GArray *symbols)
{
  for (gsize k = 0; k < s->len; k++)
    if (model->byte_ids[(guint8) s->str[k]] < 0)
      return FALSE;
  for (gsize k = 0; k < s->len; k++)
    g_array_append_val (symbols, model->byte_ids[(guint8) s->str[k]]);
  return TRUE;
}

/* model.rs merge_word: the initial symbols of PIECE into SYMBOLS. An unknown character waits in
 * PENDING so that fuse_unk can grow it; byte-fallback tokens do not flush it (as in HF). */
static void
initial_symbols (const AsHfModel *model, const char *piece, gsize length, GArray *symbols)
{
  g_autoptr (GString) scratch = g_string_new (NULL);
  int32_t pending = -1;
  gsize pos = 0;
  while (pos < length)
    {
      gsize end = (gsize) (g_utf8_next_char (piece + pos) - piece);
      char_string (model, piece, pos, end, pos == 0, end >= length, scratch);
      int32_t id = as_hf_model_lookup (model, scratch->str, scratch->len);
      pos = end;
      if (id >= 0)
        {
          if (pending >= 0)
            g_array_append_val (symbols, pending);
          pending = -1;
          g_array_append_val (symbols, id);
          continue;
        }
      if (model->byte_fallback && append_bytes (model, scratch, symbols))
        continue;
      if (model->unk_id < 0)
        continue; /* no unknown token: the character is dropped */
      if (pending >= 0 && !model->fuse_unk)
        g_array_append_val (symbols, pending);
      pending = model->unk_id;
    }
  if (pending >= 0)
    g_array_append_val (symbols, pending);
}

static gboolean
bpe_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  if (model->ignore_merges)
    {
      int32_t id = as_hf_model_lookup (model, piece, length);
      if (id >= 0)
        {
          g_array_append_val (ids, id);
          return TRUE;
        }
    }
  if (as_word_cache_lookup (model->cache, piece, length, ids))
    return TRUE;
  g_autoptr (GArray) symbols = g_array_new (FALSE, FALSE, sizeof (int32_t));
  initial_symbols (model, piece, length, symbols);
  as_bpe_merges_apply_hf (model->merges, symbols);
  as_word_cache_insert (model->cache, piece, length, (const int32_t *) symbols->data, symbols->len);
  g_array_append_vals (ids, symbols->data, symbols->len);
  return TRUE;
}

const AsHfModelClass as_hf_model_bpe = {
  .type = "BPE",
  .marker = "merges",
  .read = bpe_read,
  .tokenize = bpe_tokenize,
};
