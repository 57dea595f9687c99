/* tokenizer-marian.c — Hugging Face's MarianTokenizer (transformers v4, tokenization_marian.py
 * with tokenization_utils.py's tokenize()), id for id.
 *
 * Encoding (core/tokenizers/README.md, "Marian tokenizer"):
 *   1. the special tokens written in the text (</s>, <unk>, <pad>) are split out first, and the
 *      text beside each loses its adjacent white space (Python's str.strip set);
 *   2. in every other piece a leading language code ">>xx<<" (regex >>.+<< at the start, greedy
 *      within the line) is kept as one token and every match of the regex is removed;
 *   3. the rest is encoded as SentencePiece piece strings with source.spm, or target.spm for
 *      target text;
 *   4. pieces map to ids through vocab.json (not the SentencePiece ids); a piece vocab.json lacks
 *      becomes <unk>;
 *   5. </s> is appended as MarianTokenizer.build_inputs_with_special_tokens does: after the text
 *      (and a pair's second text) when special tokens are added, never with
 *      add_special_tokens=False; target text always gets it (text_target adds it:
 *      as_tokenizer_encode_target post-processes with the special tokens).
 * Decoding follows convert_tokens_to_string with the target model, then transformers'
 * clean_up_tokenization.
 *
 * Folder files: source.spm (source text), target.spm (target text), vocab.json (piece → id, the
 * ids the model uses; not the SentencePiece ids), tokenizer_config.json and
 * special_tokens_map.json (the special token strings, default </s>, <unk>, <pad>). */
#include "tokenizer-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "json-file-private.h"
#include "spm-processor-private.h"
#include "vocab-json-private.h"
#include "tokenizer-work-private.h"

typedef enum
{
  AS_MARIAN_EOS,
  AS_MARIAN_UNK,
  AS_MARIAN_PAD,
  AS_MARIAN_N_SPECIAL,
} AsMarianSpecial;

/* The kind's state (AsTokenizer.data). */
typedef struct
{
  AsSpmProcessor *source;                  /* source.spm */
  AsSpmProcessor *target;                  /* target.spm */
  char *special[AS_MARIAN_N_SPECIAL];      /* the special tokens' strings */
  int32_t special_id[AS_MARIAN_N_SPECIAL]; /* their ids in vocab.json; pad -1 when absent */
} AsMarianVocab;

/* "▁" (U+2581), SentencePiece's word-start mark. */
#define SPIECE_UNDERLINE "\xe2\x96\x81"

static const char *const special_keys[AS_MARIAN_N_SPECIAL]
    = { "eos_token", "unk_token", "pad_token" };
static const char *const special_defaults[AS_MARIAN_N_SPECIAL] = { "</s>", "<unk>", "<pad>" };

/* --- loading ---------------------------------------------------------------------------------- */

/* FOLDER/NAME, which must exist (owned), or NULL with ERROR naming what the tokenizer needs. */
static char *
required_file (const char *folder, const char *name, GError **error)
{
  char *path = g_build_filename (folder, name, NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return path;
  g_set_error (error, AS_ERROR, AS_ERROR_NOT_FOUND,
               "%s has no %s (a Marian tokenizer needs source.spm, target.spm and vocab.json)",
               folder, name);
  g_free (path);
  return NULL;
}

/* The special token strings of FOLDER's FILE (tokenizer_config.json or special_tokens_map.json)
 * into SPECIAL, when the file exists; a value is a string or an object with "content". */
static gboolean
read_special_tokens (const char *folder, const char *file, char **special, gboolean *separate,
                     GError **error)
{
  g_autofree char *path = g_build_filename (folder, file, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autoptr (JsonNode) root = as_json_load_object_file (path, AS_LIMIT_CONFIG_BYTES, error);
  if (root == NULL)
    return FALSE;
  JsonObject *obj = json_node_get_object (root);
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    {
      JsonNode *node = json_object_get_member (obj, special_keys[k]);
      if (node == NULL || JSON_NODE_HOLDS_NULL (node))
        continue;
      if (JSON_NODE_HOLDS_OBJECT (node))
        node = json_object_get_member (json_node_get_object (node), "content");
      if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
          || json_node_get_value_type (node) != G_TYPE_STRING
          || *json_node_get_string (node) == '\0')
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: '%s' must be a token string (or an object with \"content\")", path,
                       special_keys[k]);
          return FALSE;
        }
      g_free (special[k]);
      special[k] = g_strdup (json_node_get_string (node));
    }
  JsonNode *sep = json_object_get_member (obj, "separate_vocabs");
  if (sep != NULL && JSON_NODE_HOLDS_VALUE (sep)
      && json_node_get_value_type (sep) == G_TYPE_BOOLEAN)
    *separate = json_node_get_boolean (sep);
  return TRUE;
}

static void
marian_clear (gpointer data)
{
  AsMarianVocab *m = data;
  g_clear_pointer (&m->source, as_spm_processor_free);
  g_clear_pointer (&m->target, as_spm_processor_free);
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    g_free (m->special[k]);
  g_free (m);
}

static const AsTokenizerClass marian_class;

AsTokenizer *
as_tokenizer_load_marian (const char *folder, GError **error)
{
  g_return_val_if_fail (folder != NULL, NULL);
  g_autofree char *source = required_file (folder, "source.spm", error);
  g_autofree char *target = source ? required_file (folder, "target.spm", error) : NULL;
  g_autofree char *vocab = target ? required_file (folder, "vocab.json", error) : NULL;
  if (vocab == NULL)
    return NULL;

  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_new (&marian_class, vocab);
  AsMarianVocab *m = tokenizer->data = g_new0 (AsMarianVocab, 1);
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    m->special[k] = g_strdup (special_defaults[k]);
  gboolean separate = FALSE;
  if (!read_special_tokens (folder, "tokenizer_config.json", m->special, &separate, error)
      || !read_special_tokens (folder, "special_tokens_map.json", m->special, &separate, error))
    return NULL;
  if (separate)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_CONFIG,
                   "%s/tokenizer_config.json: separate_vocabs is true (a second vocabulary for "
                   "the target side); attnscope reads Marian models with one joint vocab.json",
                   folder);
      return NULL;
    }
  if (!as_tokenizer_load_vocab_json (tokenizer, vocab, error))
    return NULL;
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    {
      m->special_id[k] = as_tokenizer_lookup (tokenizer, m->special[k]);
      if (m->special_id[k] < 0 && k != AS_MARIAN_PAD)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s has no token \"%s\" (the %s every Marian vocabulary holds)", vocab,
                       m->special[k], special_keys[k]);
          return NULL;
        }
    }
  m->source = as_spm_processor_load (source, error);
  if (m->source == NULL)
    return NULL;
  m->target = as_spm_processor_load (target, error);
  if (m->target == NULL)
    return NULL;
  return as_tokenizer_finish (g_steal_pointer (&tokenizer), error);
}

/* --- encoding --------------------------------------------------------------------------------- */

/* Python's str.isspace() for one code point (Unicode White_Space plus the separators 0x1C-0x1F
 * that Python also counts). */
static gboolean
py_isspace (gunichar c)
{
  return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0
         || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f
         || c == 0x205f || c == 0x3000;
}

/* Narrows [*BEGIN, *END) by Python's lstrip (LEFT) and rstrip (RIGHT). */
static void
py_strip (const char **begin, const char **end, gboolean left, gboolean right)
{
  while (left && *begin < *end && py_isspace (g_utf8_get_char (*begin)))
    *begin = g_utf8_next_char (*begin);
  while (right && *begin < *end)
    {
      const char *prev = g_utf8_find_prev_char (*begin, *end);
      if (prev == NULL || !py_isspace (g_utf8_get_char (prev)))
        break;
      *end = prev;
    }
}

/* The line around the current position and the last "<<" on it, so that each position is
 * matched in constant time: a text of ">>>>…" made every position scan its line. */
typedef struct
{
  const char *end;       /* the text's end */
  const char *line_end;  /* the end of the line the cache is for; NULL before the first */
  const char *last_code; /* the start of the last "<<" on that line, or NULL */
} LangCodeScan;

/* The end of the match of >>.+<< (greedy; '.' is any character but a newline) that starts at P,
 * or NULL when none starts there. P never moves backwards between calls. */
static const char *
lang_code_match (LangCodeScan *scan, const char *p)
{
  if (scan->end - p < 5 || p[0] != '>' || p[1] != '>')
    return NULL;
  if (scan->line_end == NULL || p >= scan->line_end)
    {
      const char *line_end = memchr (p, '\n', (gsize) (scan->end - p));
      scan->line_end = line_end != NULL ? line_end : scan->end;
      scan->last_code = NULL;
      for (const char *q = scan->line_end - 2; q >= p && scan->last_code == NULL; q--)
        if (q[0] == '<' && q[1] == '<')
          scan->last_code = q;
    }
  /* the last "<<" on the line, with at least one character after the ">>" */
  return scan->last_code != NULL && scan->last_code >= p + 3 ? scan->last_code + 2 : NULL;
}

/* Appends PIECE's id (vocab.json; <unk> when absent) to IDS. */
static void
append_piece (const AsTokenizer *tokenizer, const char *piece, gsize length, GArray *ids)
{
  int32_t id = as_tokenizer_lookup_len (tokenizer, piece, length);
  if (id < 0)
    id = ((const AsMarianVocab *) tokenizer->data)->special_id[AS_MARIAN_UNK];
  g_array_append_val (ids, id);
}

/* One piece of text between special tokens: language code, then SentencePiece. */
static gboolean
encode_text_piece (AsTokenizer *tokenizer, const char *begin, const char *end, gboolean target,
                   GArray *ids, GError **error)
{
  as_tokenizer_work_add ((gsize) (end - begin)); /* the language-code scan reads each line once */
  LangCodeScan first = { end, NULL, NULL };
  const char *code_end = lang_code_match (&first, begin);
  if (code_end != NULL)
    append_piece (tokenizer, begin, (gsize) (code_end - begin), ids);
  /* re.sub(">>.+<<", "", text): every match removed, scanning left to right */
  g_autoptr (GString) rest = g_string_new (NULL);
  LangCodeScan scan = { end, NULL, NULL };
  for (const char *p = begin; p < end;)
    {
      const char *m = lang_code_match (&scan, p);
      if (m != NULL)
        p = m;
      else
        g_string_append_c (rest, *p++);
    }
  const AsMarianVocab *mv = tokenizer->data;
  g_autoptr (GPtrArray) pieces = g_ptr_array_new_with_free_func (g_free);
  as_tokenizer_work_add (rest->len);
  if (!as_spm_processor_encode (target ? mv->target : mv->source, rest->str, rest->len, pieces,
                                error))
    return FALSE;
  for (guint i = 0; i < pieces->len; i++)
    {
      const char *piece = g_ptr_array_index (pieces, i);
      append_piece (tokenizer, piece, strlen (piece), ids);
    }
  return TRUE;
}

/* The special token that starts at P (the longest when several do), or -1. */
static int
special_at (const AsMarianVocab *m, const char *p, const char *end)
{
  int best = -1;
  gsize best_len = 0;
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    {
      gsize n = strlen (m->special[k]);
      if (n > best_len && n <= (gsize) (end - p) && memcmp (p, m->special[k], n) == 0)
        best = k, best_len = n;
    }
  return best;
}

/* The ids of TEXT as source text, or as target text (target.spm) when TARGET; the </s> after
 * either comes from marian_post_process (as_tokenizer_encode_target always adds it). */
static gboolean
marian_encode (AsTokenizer *tokenizer, const char *text, gsize length, gboolean target, GArray *ids,
               GError **error)
{
  const AsMarianVocab *m = tokenizer->data;
  const char *end = text + length;
  const char *piece = text;       /* start of the text piece being collected */
  gboolean after_special = FALSE; /* the piece follows a special token: lstrip it */
  for (const char *p = text; p <= end;)
    {
      int k = p < end ? special_at (m, p, end) : -1;
      if (k < 0 && p < end)
        {
          p = g_utf8_next_char (p);
          continue;
        }
      /* the text piece [piece, p) ends here, at a special token or at the end */
      const char *b = piece, *e = p;
      py_strip (&b, &e, after_special, k >= 0);
      if (b < e && !encode_text_piece (tokenizer, b, e, target, ids, error))
        return FALSE;
      if (k < 0)
        break;
      int32_t id = m->special_id[k] >= 0 ? m->special_id[k] : m->special_id[AS_MARIAN_UNK];
      g_array_append_val (ids, id);
      p += strlen (m->special[k]);
      piece = p;
      after_special = TRUE;
    }
  return TRUE;
}

/* MarianTokenizer.build_inputs_with_special_tokens: A, then B, then </s> when ADD_SPECIAL; type
 * ids all 0 (Marian models take none). */
static void
marian_post_process (const AsTokenizer *tokenizer, const GArray *a, const GArray *b,
                     gboolean add_special, AsEncoding *encoding)
{
  const AsMarianVocab *m = tokenizer->data;
  const int32_t type = 0;
  guint8 special = 0;
  for (int side = 0; side < 2; side++)
    {
      const GArray *ids = side == 0 ? a : b;
      for (guint i = 0; ids != NULL && i < ids->len; i++)
        {
          g_array_append_val (encoding->ids, g_array_index (ids, int32_t, i));
          g_array_append_val (encoding->type_ids, type);
          g_array_append_val (encoding->special_mask, special);
        }
    }
  if (!add_special)
    return;
  special = 1;
  g_array_append_val (encoding->ids, m->special_id[AS_MARIAN_EOS]);
  g_array_append_val (encoding->type_ids, type);
  g_array_append_val (encoding->special_mask, special);
}

/* --- decoding --------------------------------------------------------------------------------- */

/* </s>, <unk> and <pad>. */
static gboolean
marian_is_special (const AsTokenizer *tokenizer, int32_t id)
{
  const AsMarianVocab *m = tokenizer->data;
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    if (id == m->special_id[k])
      return TRUE;
  return FALSE;
}

/* Whether TOKEN is one of the special token strings. */
static gboolean
is_special_string (const AsMarianVocab *m, const char *token)
{
  for (int k = 0; k < AS_MARIAN_N_SPECIAL; k++)
    if (g_str_equal (token, m->special[k]))
      return TRUE;
  return FALSE;
}

/* Replaces every occurrence of FROM in TEXT by TO, left to right (Python's str.replace). */
static void
replace_all (GString *text, const char *from, const char *to)
{
  gsize n = strlen (from), m = strlen (to);
  for (gsize at = 0; at + n <= text->len;)
    {
      const char *hit = strstr (text->str + at, from);
      if (hit == NULL)
        break;
      gsize pos = (gsize) (hit - text->str);
      g_string_erase (text, (gssize) pos, (gssize) n);
      g_string_insert (text, (gssize) pos, to);
      at = pos + m;
    }
}

/* Appends target.spm's decoding of PIECES to OUT and empties PIECES. */
static void
flush_pieces (const AsMarianVocab *m, GPtrArray *pieces, GString *out)
{
  if (pieces->len == 0)
    return;
  g_autofree char *text
      = as_spm_processor_decode (m->target, (const char *const *) pieces->pdata, pieces->len, NULL);
  if (text != NULL)
    g_string_append (out, text);
  g_ptr_array_set_size (pieces, 0);
}

/* MarianTokenizer.decode (IDS, skip_special_tokens=False) with the target model: special tokens
 * written as they are, clean-up of tokenization spaces. */
static char *
marian_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  const AsMarianVocab *m = tokenizer->data;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GPtrArray) pieces = g_ptr_array_new (); /* borrowed token strings */
  for (gsize i = 0; i < n_ids; i++)
    {
      const char *token = as_tokenizer_get_token (tokenizer, ids[i]);
      if (!is_special_string (m, token))
        {
          g_ptr_array_add (pieces, (gpointer) token);
          continue;
        }
      flush_pieces (m, pieces, out);
      g_string_append (out, token);
      g_string_append_c (out, ' ');
    }
  flush_pieces (m, pieces, out);
  replace_all (out, SPIECE_UNDERLINE, " ");
  const char *b = out->str, *e = out->str + out->len;
  py_strip (&b, &e, TRUE, TRUE);
  g_autoptr (GString) text = g_string_new_len (b, e - b);
  /* transformers' clean_up_tokenization, in its order */
  static const char *const cleanup[][2] = {
    { " .", "." },     { " ?", "?" },   { " !", "!" },   { " ,", "," },     { " ' ", "'" },
    { " n't", "n't" }, { " 'm", "'m" }, { " 's", "'s" }, { " 've", "'ve" }, { " 're", "'re" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cleanup); i++)
    replace_all (text, cleanup[i][0], cleanup[i][1]);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The text a piece stands for ("▁Haus" → " Haus"); a special token's string. */
static char *
marian_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  const char *token = as_tokenizer_get_token (tokenizer, id);
  if (is_special_string (tokenizer->data, token))
    return g_strdup (token);
  g_autoptr (GString) text = g_string_new (token);
  replace_all (text, SPIECE_UNDERLINE, " ");
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static guint64
marian_data_bytes (const AsTokenizer *tokenizer)
{
  const AsMarianVocab *m = tokenizer->data;
  return sizeof *m + as_spm_processor_bytes (m->source) + as_spm_processor_bytes (m->target);
}

static const AsTokenizerClass marian_class = {
  .name = "Marian SentencePiece",
  .encode = marian_encode,
  .post_process = marian_post_process,
  .decode = marian_decode,
  .token_text = marian_token_text,
  .is_special = marian_is_special,
  .data_bytes = marian_data_bytes,
  .clear = marian_clear,
};
