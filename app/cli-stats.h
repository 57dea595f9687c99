/* cli-stats.h — the parts of `attnscope stats` shared by its two files: cli-stats.c (one text or
 * a --lines file, any model) and cli-stats-translation.c (translation models: the encoder's,
 * the decoder's or the cross-attention heads). */
#pragma once

#include "as-head-stats.h"
#include "as-model.h"

G_BEGIN_DECLS

/* The statistics table of S (text) or its JSON with the model's name. */
void cli_stats_print_text (const AsHeadStats *s);
void cli_stats_print_json (const AsHeadStats *s, const char *model_name);

/* `stats` for a translation model: KIND "encoder", "decoder" or "cross" (NULL: cross) over TEXT
 * with TARGET (NULL: the model's greedy translation), or over every non-blank line of LINES
 * ("source" or "source<TAB>target"). Returns the exit status. */
int cli_stats_translation (AsModel *model, const char *text, const char *target, const char *lines,
                           const char *kind, gboolean json);

G_END_DECLS
