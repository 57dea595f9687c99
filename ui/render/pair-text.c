/* pair-text.c — sentence pairs' texts (see pair-text.h). */
#include "pair-text.h"

gboolean
ar_model_takes_pairs (const AsModel *model)
{
  const AsConfig *c = as_model_get_config (model);
  return !c->causal_lm && !c->encoder_decoder
         && as_model_get_special_id (model, AS_SPECIAL_SEP) >= 0;
}

char *
ar_pair_text_join (const char *text, const char *pair)
{
  if (pair == NULL || *pair == '\0')
    return g_strdup (text);
  return g_strconcat (text, " ‖ ", pair, NULL);
}
