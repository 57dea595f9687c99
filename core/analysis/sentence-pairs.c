/* sentence-pairs.c — which models read sentence pairs (see as-sentence-pairs.h). */
#include "as-sentence-pairs.h"

gboolean
as_model_takes_pairs (const AsModel *model)
{
  const AsConfig *c = as_model_get_config (model);
  return !c->causal_lm && !c->encoder_decoder
         && as_model_get_special_id (model, AS_SPECIAL_SEP) >= 0;
}
