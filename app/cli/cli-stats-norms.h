/* cli-stats-norms.h — `attnscope stats --text T --norms`: the head statistics with the
 * attention norms (as-attention-norms.h) beside them. */
#pragma once

#include "as-model.h"

G_BEGIN_DECLS

/* Runs MODEL over TEXT (PAIR: an encoder pair's second text, or NULL) with the values captured
 * and prints the statistics and, per head, its share of the layer's attention output and its
 * norm-weighted over weight-only attention on the first token; the heads that look at the first
 * token but write little from it are named. JSON: the statistics' object with a "norms" member
 * {"head_shares" [L][H], "first_ratios" [L][H], "value_norms" [L][H][T]}. Returns the exit
 * status. */
int cli_stats_norms (AsModel *model, const char *text, const char *pair, gboolean truncate,
                     gboolean json);

/* As cli_stats_norms for a translation model over source TEXT and TARGET (NULL: the model's own
 * translation): the statistics and norms of its decoder's self-attention. */
int cli_stats_norms_translation (AsModel *model, const char *text, const char *target,
                                 gboolean json);

G_END_DECLS
