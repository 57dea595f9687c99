/* vocab-txt.c — BERT's vocab.txt as a Hugging Face tokenizer (as-tokenizer.h).
 *
 * transformers' BertTokenizer (tokenization_bert.py: BasicTokenizer, WordpieceTokenizer) and its
 * fast conversion (convert_slow_tokenizer.py, BertConverter) agree: clean text (drop NUL,
 * U+FFFD and control characters; white space → space), spaces around CJK ideographs, lower-case
 * and strip accents when do_lower_case (strip_accents follows it unless set), split on white
 * space and punctuation, then WordPiece with "##" continuations and the 100-character rule; the
 * special tokens written in the text are kept whole; "[CLS] A [SEP]" and "[CLS] A [SEP] B [SEP]".
 * So the folder gets exactly that pipeline: BertNormalizer, BertPreTokenizer, WordPiece,
 * TemplateProcessing, the WordPiece decoder. vocab.txt: one token per line, id = line index. */
#include "tokenizer-hf-private.h"

#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "hf-wordpiece-private.h"
#include "tokenizer-config-private.h"

static const char *const default_roles[AS_TOKENIZER_N_ROLES] = {
  NULL, NULL, "[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]",
};

static GPtrArray *
read_lines (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize size = 0;
  if (!as_file_read_all (path, AS_LIMIT_VOCABULARY_BYTES, &contents, &size, error))
    return NULL;
  if (!g_utf8_validate_len (contents, size, NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the vocabulary is not valid UTF-8", path);
      return NULL;
    }
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  gsize pos = 0;
  while (pos < size)
    {
      const char *nl = memchr (contents + pos, '\n', size - pos);
      gsize end = nl != NULL ? (gsize) (nl - contents) : size;
      gsize stop = end > pos && contents[end - 1] == '\r' ? end - 1 : end;
      g_ptr_array_add (lines, g_strndup (contents + pos, stop - pos));
      pos = end + 1;
    }
  if (lines->len == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the vocabulary is empty", path);
      return NULL;
    }
  return g_steal_pointer (&lines);
}

/* The pipeline BertTokenizer implies for LINES (the tokens in id order) and CONFIG. */
static AsHfTokenizer *
bert_pipeline (GPtrArray *lines, const AsTokenizerConfig *config, const char *path, GError **error)
{
  const char *roles[AS_TOKENIZER_N_ROLES];
  for (guint i = 0; i < AS_TOKENIZER_N_ROLES; i++)
    roles[i] = config->role_tokens[i] != NULL ? config->role_tokens[i] : default_roles[i];

  g_autoptr (AsHfTokenizer) hf = g_new0 (AsHfTokenizer, 1);
  hf->model = as_hf_wordpiece_new_vocab (lines, roles[AS_TOKENIZER_ROLE_UNK], path, error);
  if (hf->model == NULL)
    return NULL;
  gboolean lowercase = config->lowercase != 0; /* BertTokenizer: do_lower_case=True */
  hf->normalizer
      = as_hf_normalizer_new_bert (TRUE, config->chinese != 0, config->strip_accents, lowercase);
  hf->pretokenizer = as_hf_pretokenizer_new_bert ();
  hf->decoder = as_hf_decoder_new_wordpiece ();
  hf->added = as_hf_added_new ();
  for (guint i = 0; i < AS_TOKENIZER_N_ROLES; i++)
    {
      int32_t id
          = roles[i] != NULL ? as_hf_model_lookup (hf->model, roles[i], strlen (roles[i])) : -1;
      if (id >= 0)
        as_hf_added_add (hf->added, roles[i], id, TRUE);
    }
  as_hf_added_index (hf->added);
  const char *cls = roles[AS_TOKENIZER_ROLE_CLS], *sep = roles[AS_TOKENIZER_ROLE_SEP];
  int32_t cls_id = as_hf_model_lookup (hf->model, cls, strlen (cls));
  int32_t sep_id = as_hf_model_lookup (hf->model, sep, strlen (sep));
  if (cls_id < 0 || sep_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: the %s token \"%s\" is not in the vocabulary", path,
                   cls_id < 0 ? "cls" : "sep", cls_id < 0 ? cls : sep);
      return NULL;
    }
  hf->postprocessor = as_hf_postprocessor_new_bert (cls_id, sep_id);
  return g_steal_pointer (&hf);
}

AsTokenizer *
as_tokenizer_load_vocab_txt (const char *folder, GError **error)
{
  g_autofree char *path = g_build_filename (folder, "vocab.txt", NULL);
  g_autoptr (GPtrArray) lines = read_lines (path, error);
  if (lines == NULL)
    return NULL;
  AsTokenizerConfig config;
  AsHfTokenizer *hf = as_tokenizer_config_read (&config, folder, error)
                          ? bert_pipeline (lines, &config, path, error)
                          : NULL;
  as_tokenizer_config_clear (&config);
  if (hf == NULL)
    return NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_hf_new (path, hf);
  as_tokenizer_init_vocabulary (tokenizer);
  for (guint i = 0; i < hf->model->id_to_token->len; i++)
    {
      char *copy = g_strdup (g_ptr_array_index (hf->model->id_to_token, i));
      g_ptr_array_add (tokenizer->id_to_token, copy);
      if (copy != NULL)
        g_hash_table_replace (tokenizer->token_to_id, copy, GINT_TO_POINTER ((int32_t) i));
    }
  return as_tokenizer_finish (g_steal_pointer (&tokenizer), error);
}
