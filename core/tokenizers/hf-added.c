/* hf-added.c — tokenizer.json's added tokens (hf-added-private.h; src/tokenizer/
 * added_vocabulary.rs, find_matches and extract_and_normalize).
 *
 * HF finds the tokens with one Aho–Corasick automaton per pass (the aho-corasick crate,
 * MatchKind::LeftmostLongest): the match that starts leftmost, the longest there (the first
 * token among equal strings), then the search goes on where it ended. Matching every token at
 * every position instead took 16.7 s to load 200,000 tokens and over 60 s for a 30,000-character
 * text. Here each pass has one automaton, built once at load, over the tokens' strings reversed
 * (byte-trie-private.h): reading a piece backwards gives at every position the longest token
 * that starts there, in one step per byte; the leftmost-longest matches are then the greedy walk
 * forward over those positions. */
#include "hf-added-private.h"

#include <string.h>

#include "byte-trie-private.h"
#include "hf-split-private.h"
#include "hf-unicode-private.h"
#include "tokenizer-work-private.h"

struct _AsHfAdded
{
  GArray *tokens;      /* AsHfAddedToken, file order, one per id */
  GHashTable *ids;     /* content (owned) → GINT_TO_POINTER (id) */
  GHashTable *by_id;   /* GINT_TO_POINTER (id) → GUINT_TO_POINTER (index in TOKENS) */
  AsByteTrie *pass[2]; /* [normalized pass]: the tokens' reversed strings; key = token index */
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
  added->by_id = g_hash_table_new (g_direct_hash, g_direct_equal);
  return added;
}

void
as_hf_added_free (AsHfAdded *added)
{
  if (added == NULL)
    return;
  g_array_unref (added->tokens);
  g_hash_table_unref (added->ids);
  g_hash_table_unref (added->by_id);
  for (guint p = 0; p < 2; p++)
    g_clear_pointer (&added->pass[p], as_byte_trie_free);
  g_free (added);
}

guint64
as_hf_added_bytes (const AsHfAdded *added)
{
  /* per token: its strings, its slot, two hash entries */
  guint64 bytes = sizeof *added + (guint64) added->tokens->len * (sizeof (AsHfAddedToken) + 96);
  for (guint i = 0; i < added->tokens->len; i++)
    {
      const AsHfAddedToken *t = &g_array_index (added->tokens, AsHfAddedToken, i);
      bytes += 2 * (strlen (t->content) + 1) + (t->normalized != NULL ? strlen (t->normalized) : 0);
    }
  for (guint p = 0; p < 2; p++)
    if (added->pass[p] != NULL)
      bytes += as_byte_trie_bytes (added->pass[p]);
  return bytes;
}

/* Enters T (taking its strings): a token with the same id is replaced, as in HF's map. */
static void
enter (AsHfAdded *added, AsHfAddedToken *t)
{
  g_hash_table_replace (added->ids, g_strdup (t->content), GINT_TO_POINTER (t->id));
  gpointer index;
  if (g_hash_table_lookup_extended (added->by_id, GINT_TO_POINTER (t->id), NULL, &index))
    {
      AsHfAddedToken *old
          = &g_array_index (added->tokens, AsHfAddedToken, GPOINTER_TO_UINT (index));
      token_clear (old);
      *old = *t;
      return;
    }
  g_hash_table_insert (added->by_id, GINT_TO_POINTER (t->id),
                       GUINT_TO_POINTER (added->tokens->len));
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
          if (!as_hf_normalizer_apply (normalizer, n, error))
            {
              g_prefix_error (error, "%s: %s: normalizing \"%s\": ", json->file, path, content);
              token_clear (&t);
              return FALSE;
            }
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
  gpointer index;
  if (!g_hash_table_lookup_extended (added->by_id, GINT_TO_POINTER (id), NULL, &index))
    return NULL;
  return &g_array_index (added->tokens, AsHfAddedToken, GPOINTER_TO_UINT (index));
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
  guint n = added->tokens->len;
  g_autofree char **reversed = g_new0 (char *, MAX (n, 1)); /* [n] owned, or NULL */
  g_autofree gsize *lengths = g_new (gsize, MAX (n, 1));
  for (guint p = 0; p < 2; p++)
    {
      for (guint i = 0; i < n; i++)
        {
          const char *pattern = pattern_of (&g_array_index (added->tokens, AsHfAddedToken, i), p);
          lengths[i] = pattern != NULL ? strlen (pattern) : 0;
          reversed[i] = g_strreverse (g_strdup (pattern != NULL ? pattern : ""));
        }
      g_clear_pointer (&added->pass[p], as_byte_trie_free);
      added->pass[p] = as_byte_trie_new ((const char *const *) reversed, lengths, n, TRUE);
      for (guint i = 0; i < n; i++)
        g_free (reversed[i]);
    }
}

/* A position of a piece where a token starts: the longest one there. */
typedef struct
{
  gsize start;
  guint token; /* index in TOKENS */
} Start;

/* The positions of TEXT where a token of pass NORMALIZED_PASS starts, in increasing order, with
 * the longest token starting there: TEXT read backwards through the automaton of the reversed
 * strings, whose output after byte TEXT[i] is the longest token that is a prefix of
 * TEXT[i..]. */
static GArray *
find_starts (const AsHfAdded *added, gboolean normalized_pass, const char *text, gsize length)
{
  GArray *starts = g_array_new (FALSE, FALSE, sizeof (Start));
  const AsByteTrie *automaton = added->pass[normalized_pass];
  if (automaton == NULL)
    return starts;
  guint32 state = 0;
  for (gsize i = length; i-- > 0;)
    {
      state = as_byte_trie_step (automaton, state, (guint8) text[i]);
      int32_t token = as_byte_trie_output (automaton, state);
      if (token >= 0)
        {
          Start s = { i, (guint) token };
          g_array_append_val (starts, s);
        }
    }
  for (guint a = 0, b = starts->len; a + 1 < b; a++, b--) /* into increasing order */
    {
      Start t = g_array_index (starts, Start, a);
      g_array_index (starts, Start, a) = g_array_index (starts, Start, b - 1);
      g_array_index (starts, Start, b - 1) = t;
    }
  return starts;
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
  gsize run_from = 0, run_to = 0; /* the last white-space run an rstrip took: [run_from, run_to) */
  g_autoptr (GArray) starts = find_starts (added, normalized_pass, text, length);
  for (guint k = 0; k < starts->len; k++)
    {
      const Start *s = &g_array_index (starts, Start, k);
      as_tokenizer_work_add (1);
      if (s->start < pos)
        continue; /* inside the previous match: the search goes on after it */
      const AsHfAddedToken *t = &g_array_index (added->tokens, AsHfAddedToken, s->token);
      gsize start = s->start, stop = start + strlen (pattern_of (t, normalized_pass));
      pos = stop; /* the search goes on after this match, kept or not */
      if (t->single_word && (word_before (text, start) || word_after (text, length, stop)))
        continue;
      if (t->lstrip) /* white space before the token, not before the previous one's end */
        {
          gsize b = start;
          while (b > done)
            {
              const char *prev = g_utf8_prev_char (text + b);
              if (!as_hf_is_whitespace (g_utf8_get_char (prev)))
                break;
              b = (gsize) (prev - text);
            }
          start = MAX (b, done);
        }
      if (t->rstrip && stop >= run_from && stop < run_to)
        stop = run_to; /* inside the run the previous rstrip took: it ends there too */
      else if (t->rstrip)
        {
          run_from = stop;
          while (stop < length && as_hf_is_whitespace (g_utf8_get_char (text + stop)))
            stop = (gsize) (g_utf8_next_char (text + stop) - text);
          run_to = stop;
        }
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
                                   const char *text, gsize length, GError **error)
{
  g_autoptr (GArray) first = as_hf_splits_new ();
  AsHfSplit whole = { g_string_new_len (text, (gssize) length), -1, TRUE };
  split_piece (added, FALSE, &whole, first);
  g_string_free (whole.text, TRUE);

  g_autoptr (GArray) out = as_hf_splits_new ();
  for (guint i = 0; i < first->len; i++)
    {
      AsHfSplit *piece = &g_array_index (first, AsHfSplit, i);
      if (piece->id >= 0)
        {
          g_array_append_val (out, *piece);
          piece->text = NULL; /* moved */
          continue;
        }
      if (normalizer != NULL && !as_hf_normalizer_apply (normalizer, piece->text, error))
        return NULL;
      split_piece (added, TRUE, piece, out);
    }
  return g_steal_pointer (&out);
}
