/* hf-added.c — tokenizer.json's added tokens (hf-added-private.h; src/tokenizer/
 * added_vocabulary.rs, find_matches and extract_and_normalize). */
#include "hf-added-private.h"

#include <string.h>

#include "hf-split-private.h"
#include "hf-unicode-private.h"

struct _AsHfAdded
{
  GArray *tokens;           /* AsHfAddedToken, file order, one per id */
  GHashTable *ids;          /* content (owned) → GINT_TO_POINTER (id) */
  GPtrArray *index[2][256]; /* [pass][first byte]: indices (GUINT_TO_POINTER) of the tokens */
};

static void
token_clear (gpointer data)
{
  AsHfAddedToken *t = data;
  g_free (t->content);
  g_free (t->normalized);
}

AsHfAdded *
as_hf_added_new (void)
{
  AsHfAdded *added = g_new0 (AsHfAdded, 1);
  added->tokens = g_array_new (FALSE, FALSE, sizeof (AsHfAddedToken));
  g_array_set_clear_func (added->tokens, token_clear);
  added->ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return added;
}

void
as_hf_added_free (AsHfAdded *added)
{
  if (added == NULL)
    return;
  g_array_unref (added->tokens);
  g_hash_table_unref (added->ids);
  for (guint p = 0; p < 2; p++)
    for (guint b = 0; b < 256; b++)
      g_clear_pointer (&added->index[p][b], g_ptr_array_unref);
  g_free (added);
}

/* Enters T (taking its strings): a token with the same id is replaced, as in HF's map. */
static void
enter (AsHfAdded *added, AsHfAddedToken *t)
{
  g_hash_table_replace (added->ids, g_strdup (t->content), GINT_TO_POINTER (t->id));
  for (guint i = 0; i < added->tokens->len; i++)
    {
      AsHfAddedToken *old = &g_array_index (added->tokens, AsHfAddedToken, i);
      if (old->id == t->id)
        {
          token_clear (old);
          *old = *t;
          return;
        }
    }
  g_array_append_val (added->tokens, *t);
}

void
as_hf_added_add (AsHfAdded *added, const char *content, int32_t id, gboolean special)
{
  AsHfAddedToken t = { g_strdup (content), NULL, id, special, FALSE, FALSE, FALSE, !special };
  enter (added, &t);
}

/* The id HF gives a token (AddedVocabulary::add_tokens): its id when its content was added
 * before, else its model id, else the next free one. The "id" written in tokenizer.json is not
 * used (HF only warns when it differs). */
static int32_t
assign_id (AsHfAdded *added, const AsHfModel *model, const char *content, int32_t *next_id)
{
  gpointer value;
  if (g_hash_table_lookup_extended (added->ids, content, NULL, &value))
    return GPOINTER_TO_INT (value);
  int32_t id = as_hf_model_lookup (model, content, strlen (content));
  return id >= 0 ? id : (*next_id)++;
}

gboolean
as_hf_added_read (AsHfAdded *added, const AsHfJson *json, const AsHfNormalizer *normalizer,
                  const AsHfModel *model, GError **error)
{
  int32_t next_id = as_hf_model_vocab_size (model);
  if (json->node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (json->node))
    return as_hf_json_fail (json, error, "expected an array of added tokens");
  JsonArray *items = json_node_get_array (json->node);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      g_autofree char *path = as_hf_json_child_path (json, NULL, (gint) i);
      AsHfJson sub = { json_array_get_element (items, i), json->file, path };
      const char *content;
      gint64 id;
      AsHfAddedToken t = { 0 };
      if (as_hf_json_object (&sub, error) == NULL
          || !as_hf_json_required_string (&sub, "content", &content, error)
          || !as_hf_json_int (&sub, "id", -1, 0, (1 << 24) - 1, &id, error)
          || !as_hf_json_bool (&sub, "special", FALSE, &t.special, error)
          || !as_hf_json_bool (&sub, "lstrip", FALSE, &t.lstrip, error)
          || !as_hf_json_bool (&sub, "rstrip", FALSE, &t.rstrip, error)
          || !as_hf_json_bool (&sub, "single_word", FALSE, &t.single_word, error)
          || !as_hf_json_bool (&sub, "normalized", !t.special, &t.is_normalized, error))
        return FALSE;
      if (id < 0)
        return as_hf_json_fail (&sub, error, "missing \"id\"");
      if (*content == '\0')
        continue; /* HF ignores empty tokens */
      t.content = g_strdup (content);
      t.id = assign_id (added, model, content, &next_id);
      if (t.is_normalized && normalizer != NULL)
        {
          g_autoptr (GString) n = g_string_new (content);
          as_hf_normalizer_apply (normalizer, n);
          if (strcmp (n->str, content) != 0)
            t.normalized = g_strdup (n->str);
        }
      enter (added, &t);
    }
  return TRUE;
}

const GArray *
as_hf_added_get_tokens (const AsHfAdded *added)
{
  return added->tokens;
}

const AsHfAddedToken *
as_hf_added_find_id (const AsHfAdded *added, int32_t id)
{
  for (guint i = added->tokens->len; i-- > 0;)
    {
      const AsHfAddedToken *t = &g_array_index (added->tokens, AsHfAddedToken, i);
      if (t->id == id)
        return t;
    }
  return NULL;
}

/* The string a token is searched as in pass NORMALIZED_PASS, or NULL when it belongs to the
 * other pass. */
static const char *
pattern_of (const AsHfAddedToken *t, gboolean normalized_pass)
{
  if (t->is_normalized != normalized_pass)
    return NULL;
  return t->normalized != NULL ? t->normalized : t->content;
}

void
as_hf_added_index (AsHfAdded *added)
{
  for (guint p = 0; p < 2; p++)
    for (guint b = 0; b < 256; b++)
      g_clear_pointer (&added->index[p][b], g_ptr_array_unref);
  for (guint i = 0; i < added->tokens->len; i++)
    {
      const AsHfAddedToken *t = &g_array_index (added->tokens, AsHfAddedToken, i);
      for (guint p = 0; p < 2; p++)
        {
          const char *pattern = pattern_of (t, p);
          if (pattern == NULL)
            continue;
          GPtrArray **list = &added->index[p][(guint8) pattern[0]];
          if (*list == NULL)
            *list = g_ptr_array_new ();
          g_ptr_array_add (*list, GUINT_TO_POINTER (i));
        }
    }
}

/* The longest token of the pass that matches at TEXT + POS, or NULL. */
static const AsHfAddedToken *
match_at (const AsHfAdded *added, gboolean normalized_pass, const char *text, gsize length,
          gsize pos, gsize *match_len)
{
  const AsHfAddedToken *best = NULL;
  gsize best_len = 0;
  const GPtrArray *list = added->index[normalized_pass][(guint8) text[pos]];
  for (guint k = 0; list != NULL && k < list->len; k++)
    {
      const AsHfAddedToken *t
          = &g_array_index (added->tokens, AsHfAddedToken, GPOINTER_TO_UINT (list->pdata[k]));
      const char *p = pattern_of (t, normalized_pass);
      gsize n = strlen (p);
      if (n > best_len && n <= length - pos && memcmp (text + pos, p, n) == 0)
        {
          best = t;
          best_len = n;
        }
    }
  *match_len = best_len;
  return best;
}

static gboolean
word_before (const char *text, gsize pos)
{
  return pos > 0 && as_hf_is_word_char (g_utf8_get_char (g_utf8_prev_char (text + pos)));
}

static gboolean
word_after (const char *text, gsize length, gsize pos)
{
  return pos < length && as_hf_is_word_char (g_utf8_get_char (text + pos));
}

/* find_matches + split_with_indices for one piece: appends PIECE's parts to OUT. */
static void
split_piece (const AsHfAdded *added, gboolean normalized_pass, const AsHfSplit *piece, GArray *out)
{
  const char *text = piece->text->str;
  gsize length = piece->text->len, done = 0, pos = 0;
  while (pos < length)
    {
      gsize n;
      const AsHfAddedToken *t = match_at (added, normalized_pass, text, length, pos, &n);
      if (t == NULL)
        {
          pos++;
          continue;
        }
      gsize start = pos, stop = pos + n;
      pos = stop; /* the search goes on after this match, kept or not */
      if (t->single_word && (word_before (text, start) || word_after (text, length, stop)))
        continue;
      if (t->lstrip)
        {
          gsize s = start;
          while (s > 0)
            {
              const char *prev = g_utf8_prev_char (text + s);
              if (!as_hf_is_whitespace (g_utf8_get_char (prev)))
                break;
              s = (gsize) (prev - text);
            }
          start = MAX (s, done);
        }
      if (t->rstrip)
        while (stop < length && as_hf_is_whitespace (g_utf8_get_char (text + stop)))
          stop = (gsize) (g_utf8_next_char (text + stop) - text);
      if (done < start)
        as_hf_splits_append (out, text + done, start - done, -1, piece->at_start && done == 0);
      as_hf_splits_append (out, text + start, stop - start, t->id, FALSE);
      done = stop;
    }
  if (done < length)
    as_hf_splits_append (out, text + done, length - done, -1, piece->at_start && done == 0);
}

GArray *
as_hf_added_extract_and_normalize (const AsHfAdded *added, const AsHfNormalizer *normalizer,
                                   const char *text, gsize length)
{
  g_autoptr (GArray) first = as_hf_splits_new ();
  AsHfSplit whole = { g_string_new_len (text, (gssize) length), -1, TRUE };
  split_piece (added, FALSE, &whole, first);
  g_string_free (whole.text, TRUE);

  GArray *out = as_hf_splits_new ();
  for (guint i = 0; i < first->len; i++)
    {
      AsHfSplit *piece = &g_array_index (first, AsHfSplit, i);
      if (piece->id >= 0)
        {
          g_array_append_val (out, *piece);
          piece->text = NULL; /* moved */
          continue;
        }
      if (normalizer != NULL)
        as_hf_normalizer_apply (normalizer, piece->text);
      split_piece (added, TRUE, piece, out);
    }
  return out;
}
