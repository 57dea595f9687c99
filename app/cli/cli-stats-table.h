/* cli-stats-table.h — the head statistics table of `attnscope stats`, shared by cli-stats.c (one
 * text or a --lines file, any model) and cli-stats-translation.c (translation models: the
 * encoder's or the decoder's heads). */
#pragma once

#include "as-head-stats.h"

G_BEGIN_DECLS

/* The statistics table of S (text) or its JSON with the model's name. */
void cli_stats_print_text (const AsHeadStats *s);
void cli_stats_print_json (const AsHeadStats *s, const char *model_name);
/* The same appended to OUT. */
void cli_stats_format_text (GString *out, const AsHeadStats *s);
void cli_stats_format_json (GString *out, const AsHeadStats *s, const char *model_name);

G_END_DECLS
