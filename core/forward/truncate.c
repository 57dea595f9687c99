/* truncate.c — fitting an input into the model's context as Hugging Face's tokenizers do: a
 * single text keeps its first tokens, a pair loses tokens from the longer text first, and the
 * special tokens around the texts stay (core/README.md, "Sentence pairs"). Works on token ids, so
 * `run --ids --truncate` and the text paths share it. */
#include "as-forward.h"

#include "as-error.h"

void
as_truncate_longest_first (int n_a, int n_b, int max_tokens, int *keep_a, int *keep_b)
{
  g_return_if_fail (n_a >= 0 && n_b >= 0 && max_tokens >= 0);
  if (n_a + n_b <= max_tokens)
    {
      *keep_a = n_a;
      *keep_b = n_b;
      return;
    }
  /* n1 the shorter, n2 the longer; A counts as the shorter on a tie */
  gboolean swap = n_a > n_b;
  int n1 = swap ? n_b : n_a;
  int n2;
  if (n1 > max_tokens)
    n2 = n1;
  else
    n2 = MAX (n1, max_tokens - n1);
  if (n1 + n2 > max_tokens)
    {
      n1 = max_tokens / 2;
      n2 = n1 + max_tokens % 2;
    }
  *keep_a = swap ? n2 : n1;
  *keep_b = swap ? n1 : n2;
}

/* Is ID one of MODEL's special tokens that frame the texts ([CLS], [SEP])? */
static gboolean
is_frame_token (const AsModel *model, int32_t id)
{
  return id >= 0
         && (id == as_model_get_special_id (model, AS_SPECIAL_CLS)
             || id == as_model_get_special_id (model, AS_SPECIAL_SEP));
}

/* Drops the last DROP text (non-frame) tokens in positions [BEGIN, END) from KEEP [n]. */
static void
drop_text_tokens (const AsModel *model, const int32_t *ids, gboolean *keep, int begin, int end,
                  int drop)
{
  for (int i = end - 1; i >= begin && drop > 0; i--)
    if (!is_frame_token (model, ids[i]))
      {
        keep[i] = FALSE;
        drop--;
      }
}

gboolean
as_truncate_input (const AsModel *model, GArray *ids, GArray *type_ids, int max_tokens,
                   GError **error)
{
  g_return_val_if_fail (type_ids == NULL || type_ids->len == ids->len, FALSE);
  int n = (int) ids->len;
  if (n <= max_tokens)
    return TRUE;
  const int32_t *id = (const int32_t *) ids->data; /* [n] */
  int b = as_segment_b_start (id, type_ids != NULL ? (const int32_t *) type_ids->data : NULL, n,
                              as_model_get_special_id (model, AS_SPECIAL_SEP));
  int end_a = b >= 0 ? b : n;
  int text_a = 0, text_b = 0;
  for (int i = 0; i < n; i++)
    {
      if (is_frame_token (model, id[i]))
        continue;
      if (i < end_a)
        text_a++;
      else
        text_b++;
    }
  int n_special = n - text_a - text_b;
  if (max_tokens < n_special)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "cannot truncate the input to %d tokens: it has %d special tokens", max_tokens,
                   n_special);
      return FALSE;
    }
  int keep_a = MIN (text_a, max_tokens - n_special), keep_b = 0;
  if (b >= 0)
    as_truncate_longest_first (text_a, text_b, max_tokens - n_special, &keep_a, &keep_b);

  g_autofree gboolean *keep = g_new (gboolean, n); /* [n] */
  for (int i = 0; i < n; i++)
    keep[i] = TRUE;
  drop_text_tokens (model, id, keep, 0, end_a, text_a - keep_a);
  drop_text_tokens (model, id, keep, end_a, n, text_b - keep_b);
  for (int i = n - 1; i >= 0; i--)
    if (!keep[i])
      {
        g_array_remove_index (ids, i);
        if (type_ids != NULL)
          g_array_remove_index (type_ids, i);
      }
  return TRUE;
}
