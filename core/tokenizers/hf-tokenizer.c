/* hf-tokenizer.c — the encode pipeline of a Hugging Face tokenizer (hf-tokenizer-private.h). */
#include "hf-tokenizer-private.h"

#include "hf-split-private.h"

void
as_hf_tokenizer_free (AsHfTokenizer *hf)
{
  if (hf == NULL)
    return;
  g_clear_pointer (&hf->normalizer, as_hf_normalizer_free);
  g_clear_pointer (&hf->pretokenizer, as_hf_pretokenizer_free);
  g_clear_pointer (&hf->model, as_hf_model_free);
  g_clear_pointer (&hf->added, as_hf_added_free);
  g_clear_pointer (&hf->postprocessor, as_hf_postprocessor_free);
  g_clear_pointer (&hf->decoder, as_hf_decoder_free);
  g_free (hf);
}

guint64
as_hf_tokenizer_bytes (const AsHfTokenizer *hf)
{
  return sizeof *hf + (hf->model != NULL ? as_hf_model_bytes (hf->model) : 0)
         + (hf->added != NULL ? as_hf_added_bytes (hf->added) : 0);
}

gboolean
as_hf_tokenizer_encode_sequence (const AsHfTokenizer *hf, const char *text, gsize length,
                                 GArray *ids, GError **error)
{
  g_autoptr (GArray) splits
      = as_hf_added_extract_and_normalize (hf->added, hf->normalizer, text, length, error);
  if (splits == NULL)
    return FALSE;
  if (hf->pretokenizer != NULL && !as_hf_pretokenizer_apply (hf->pretokenizer, &splits, error))
    return FALSE;
  for (guint i = 0; i < splits->len; i++)
    {
      const AsHfSplit *s = &g_array_index (splits, AsHfSplit, i);
      if (s->id >= 0)
        g_array_append_val (ids, s->id);
      else if (!as_hf_model_tokenize (hf->model, s->text->str, s->text->len, ids, error))
        return FALSE;
    }
  return TRUE;
}
