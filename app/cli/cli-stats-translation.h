/* cli-stats-translation.h — `attnscope stats` for a translation (encoder–decoder) model, called
 * by cli-stats.c when the model is one. */
#pragma once

#include "as-model.h"

G_BEGIN_DECLS

/* `stats` for a translation model: KIND "encoder", "decoder" or "cross" (NULL: cross) over TEXT
 * with TARGET (NULL: the model's greedy translation), or over every non-blank line of LINES
 * ("source" or "source<TAB>target"). Returns the exit status. */
int cli_stats_translation (AsModel *model, const char *text, const char *target, const char *lines,
                           const char *kind, gboolean json);

G_END_DECLS
