/* tokenizer-hf.c — a Hugging Face fast tokenizer as a tokenizer kind (tokenizer-hf-private.h):
 * encoding runs the pipeline (hf-tokenizer.c), the post-processor adds the special tokens,
 * decoding runs the decoder over the tokens, and the token texts come from the decoder run on one
 * token (core/README.md, "Token texts"). */
#include "tokenizer-hf-private.h"

#include <string.h>

static gboolean
hf_encode (AsTokenizer *tokenizer, const char *text, gsize length, gboolean target, GArray *ids,
           GError **error)
{
  return as_hf_tokenizer_encode_sequence (tokenizer->data, text, length, ids, error);
}

static void
hf_post_process (const AsTokenizer *tokenizer, const GArray *a, const GArray *b,
                 gboolean add_special, AsEncoding *encoding)
{
  const AsHfTokenizer *hf = tokenizer->data;
  as_hf_postprocessor_apply (hf->postprocessor, a, b, add_special, encoding->ids,
                             encoding->type_ids, encoding->special_mask);
}

/* HF's decode: each id's token through the decoder. */
static char *
hf_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids)
{
  const AsHfTokenizer *hf = tokenizer->data;
  g_autoptr (GPtrArray) tokens = g_ptr_array_new ();
  for (gsize i = 0; i < n_ids; i++)
    g_ptr_array_add (tokens, (gpointer) as_tokenizer_get_token (tokenizer, ids[i]));
  gsize length;
  return as_hf_decoder_decode (hf->decoder, tokens, FALSE, &length);
}

static gboolean
hf_is_special (const AsTokenizer *tokenizer, int32_t id)
{
  const AsHfAddedToken *t
      = as_hf_added_find_id (((const AsHfTokenizer *) tokenizer->data)->added, id);
  return t != NULL && t->special;
}

/* A special token is its own string; any other token what the decoder makes of it alone, as a
 * token that follows another. */
static char *
hf_token_text (const AsTokenizer *tokenizer, int32_t id)
{
  const AsHfTokenizer *hf = tokenizer->data;
  const AsHfAddedToken *added = as_hf_added_find_id (hf->added, id);
  if (added != NULL && added->special)
    return g_strdup (added->content);
  const char *token = as_tokenizer_get_token (tokenizer, id);
  GPtrArray one = { (gpointer *) &token, 1 };
  gsize length;
  char *text = as_hf_decoder_decode (hf->decoder, &one, TRUE, &length);
  if (strlen (text) != length || length == 0)
    g_clear_pointer (&text, g_free); /* holds byte 0, or stands for nothing */
  return text;
}

static guint64
hf_data_bytes (const AsTokenizer *tokenizer)
{
  return as_hf_tokenizer_bytes (tokenizer->data);
}

static const AsTokenizerClass hf_class = {
  .name = "tokenizer.json",
  .encode = hf_encode,
  .post_process = hf_post_process,
  .decode = hf_decode,
  .token_text = hf_token_text,
  .is_special = hf_is_special,
  .data_bytes = hf_data_bytes,
  .clear = (void (*) (gpointer)) as_hf_tokenizer_free,
};

AsTokenizer *
as_tokenizer_hf_new (const char *source, AsHfTokenizer *hf)
{
  AsTokenizer *tokenizer = as_tokenizer_new (&hf_class, source);
  tokenizer->data = hf;
  return tokenizer;
}
