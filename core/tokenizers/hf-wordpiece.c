/* hf-wordpiece.c — tokenizer.json's WordPiece and WordLevel models.
 *
 * WordPiece (src/models/wordpiece/mod.rs): a piece of more than max_input_chars_per_word
 * characters is the unknown token; otherwise greedy longest-match-first from the left, every
 * match but the first looked up with continuing_subword_prefix ("##"); when some position has
 * no match the whole piece is one unknown token. WordLevel (src/models/wordlevel/mod.rs): the
 * piece's id, or the unknown token. Both need their unknown token in the vocabulary ("[UNK]"
 * and "<unk>" by default); attnscope checks that at load, HF when it is first needed.
 *
 * HF finds the longest match by trying every end from the piece's end down, hashing each
 * candidate: cubic in the length of a piece, and max_input_chars_per_word may be 2^31 (a word of
 * 4,000 characters took 13.8 s). Here the vocabulary is a trie (byte-trie-private.h) walked from
 * the start of the match — from the root for a piece's first match, from the node of the prefix
 * for the others — remembering the last token passed: the same longest match, found in as many
 * steps as the longest token that starts there has bytes. */
#include "hf-wordpiece-private.h"

#include <string.h>

#include "as-error.h"
#include "byte-trie-private.h"

/* The trie of MODEL's tokens, each under its id (a token listed twice under the id
 * token_to_id gives it), and the node of the continuation prefix. */
static void
build_trie (AsHfModel *model)
{
  guint n = model->id_to_token->len;
  g_autofree const char **keys = g_new (const char *, MAX (n, 1));
  g_autofree gsize *lengths = g_new (gsize, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const char *token = g_ptr_array_index (model->id_to_token, i);
      gsize length = token != NULL ? strlen (token) : 0;
      gboolean current = length > 0 && as_hf_model_lookup (model, token, length) == (int32_t) i;
      keys[i] = token;
      lengths[i] = current ? length : 0;
    }
  model->trie = as_byte_trie_new (keys, lengths, n, FALSE);
  const char *prefix = model->continuing_subword_prefix;
  model->continuation = as_byte_trie_walk (model->trie, 0, prefix, strlen (prefix));
}

static gboolean
wordpiece_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  const char *prefix;
  if (!as_hf_json_string (json, "continuing_subword_prefix", "##", &prefix, error)
      || !as_hf_json_int (json, "max_input_chars_per_word", 100, 0, G_MAXINT32,
                          &model->max_input_chars_per_word, error)
      || !as_hf_model_read_vocab (model, json, error))
    return FALSE;
  model->continuing_subword_prefix = g_strdup (prefix);
  if (!as_hf_model_read_unk (model, json, "[UNK]", error))
    return FALSE;
  build_trie (model);
  return TRUE;
}

static gboolean
wordlevel_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  return as_hf_model_read_vocab (model, json, error)
         && as_hf_model_read_unk (model, json, "<unk>", error);
}

/* The id of the longest token that PIECE[START..] starts with, walking from NODE; *END is where
 * it ends. -1 when none does. */
static int32_t
longest_match (const AsHfModel *model, guint32 node, const char *piece, gsize length, gsize start,
               gsize *end)
{
  int32_t found = -1;
  for (gsize p = start; p < length && node != AS_BYTE_TRIE_NONE; p++)
    {
      node = as_byte_trie_child (model->trie, node, (guint8) piece[p]);
      if (node != AS_BYTE_TRIE_NONE && as_byte_trie_key (model->trie, node) >= 0)
        {
          found = as_byte_trie_key (model->trie, node);
          *end = p + 1;
        }
    }
  return found;
}

static gboolean
wordpiece_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  if (g_utf8_strlen (piece, (gssize) length) > model->max_input_chars_per_word)
    {
      g_array_append_val (ids, model->unk_id);
      return TRUE;
    }
  guint first = ids->len;
  for (gsize start = 0, end = 0; start < length; start = end)
    {
      guint32 node = start == 0 ? 0 : model->continuation;
      int32_t found = longest_match (model, node, piece, length, start, &end);
      if (found < 0)
        {
          g_array_set_size (ids, first);
          g_array_append_val (ids, model->unk_id);
          return TRUE;
        }
      g_array_append_val (ids, found);
    }
  return TRUE;
}

/* The tokenize of both: WordLevel's is a lookup. */
static gboolean
wordlevel_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  int32_t id = as_hf_model_lookup (model, piece, length);
  id = id >= 0 ? id : model->unk_id;
  g_array_append_val (ids, id);
  return TRUE;
}

const AsHfModelClass as_hf_model_wordpiece = {
  .type = "WordPiece",
  .marker = "continuing_subword_prefix",
  .read = wordpiece_read,
  .tokenize = wordpiece_tokenize,
};

const AsHfModelClass as_hf_model_wordlevel = {
  .type = "WordLevel",
  .marker = "unk_token",
  .read = wordlevel_read,
  .tokenize = wordlevel_tokenize,
};

AsHfModel *
as_hf_wordpiece_new_vocab (GPtrArray *vocab, const char *unk_token, const char *source,
                           GError **error)
{
  g_autoptr (AsHfModel) model = as_hf_model_new (&as_hf_model_wordpiece);
  AsHfJson json = { NULL, source, "vocab" };
  for (guint i = 0; i < vocab->len; i++)
    {
      const char *token = g_ptr_array_index (vocab, i);
      if (g_hash_table_contains (model->token_to_id, token))
        {
          /* vocab.txt: a repeated line keeps the later id (HF's BertTokenizer dict) */
          g_ptr_array_set_size (model->id_to_token, i + 1);
          char *copy = g_strdup (token);
          g_ptr_array_index (model->id_to_token, i) = copy;
          g_hash_table_replace (model->token_to_id, copy, GINT_TO_POINTER ((int32_t) i));
          continue;
        }
      if (!as_hf_model_add_token (model, token, i, &json, error))
        return NULL;
    }
  model->continuing_subword_prefix = g_strdup ("##");
  model->max_input_chars_per_word = 100;
  model->unk_id = as_hf_model_lookup (model, unk_token, strlen (unk_token));
  if (model->unk_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the unknown token \"%s\" is not in the vocabulary", source, unk_token);
      return NULL;
    }
  build_trie (model);
  return g_steal_pointer (&model);
}
