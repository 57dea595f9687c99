/* cli-intervene.h — the options that change the model a command runs: --ablate, --ablation,
 * --mean-over (run, predict, perplexity, stats, export) and --no-positions (run, compare,
 * export). A command puts the entries in its option table; cli_load_model prepares them against
 * the model (a head it does not have, a wrong --ablation, an empty --mean-over file fail there)
 * and cli_forward_text, like a command's own as_forward call through cli_intervene_apply, runs
 * every pass with them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "as-forward.h"
#include "as-model.h"
#include "as-patching.h"

G_BEGIN_DECLS

typedef struct
{
  char *ablate;    /* --ablate 0.3,2.5,mlp3 */
  char *ablation;  /* --ablation zero|mean */
  char *mean_over; /* --mean-over FILE */
  gboolean no_positions;
} CliInterveneArgs;

extern CliInterveneArgs cli_intervene_args;

#define CLI_ABLATION_OPTIONS                                                                       \
  { "ablate",                                                                                      \
    0,                                                                                             \
    0,                                                                                             \
    G_OPTION_ARG_STRING,                                                                           \
    &cli_intervene_args.ablate,                                                                    \
    "Switch off heads and MLPs: LAYER.HEAD or mlpLAYER, comma-separated (e.g. 0.3,2.5,mlp3)",      \
    "LIST" },                                                                                      \
      { "ablation",                                                                                \
        0,                                                                                         \
        0,                                                                                         \
        G_OPTION_ARG_STRING,                                                                       \
        &cli_intervene_args.ablation,                                                              \
        "What replaces a switched-off part: zero (default) or mean (over --mean-over)",            \
        "zero|mean" },                                                                             \
  {                                                                                                \
    "mean-over", 0, 0, G_OPTION_ARG_FILENAME, &cli_intervene_args.mean_over,                       \
        "Texts (one a line) whose positions the mean ablation averages over", "FILE"               \
  }

#define CLI_NO_POSITIONS_OPTION                                                                    \
  {                                                                                                \
    "no-positions", 0, 0, G_OPTION_ARG_NONE, &cli_intervene_args.no_positions,                     \
        "Leave out the position embeddings (or the rotation of RoPE models)", NULL                 \
  }

/* Checks and prepares the options against MODEL (the means of --mean-over computed once).
 * Fails naming the option. Called by cli_load_model. */
gboolean cli_intervene_prepare (AsModel *model, GError **error);

/* OPTIONS with the prepared intervention and --no-positions (nothing when none was given). */
void cli_intervene_apply (AsForwardOptions *options);

/* Adds to the object being built the options given (ablate, ablation, mean_over, no_positions;
 * nothing when none was), so that merge refuses parts run with other interventions. */
void cli_intervene_add_part_options (JsonBuilder *builder);

/* How many heads and MLPs the options switch off (0 without --ablate). */
int cli_intervene_n_heads (void);
int cli_intervene_n_mlps (void);

/* When RESULT's texts barely differ in the measure (as_patch_gap_is_small): a warning that the
 * normalised effects are unstable, also printed to standard error (owned); otherwise NULL. */
char *cli_patch_gap_warning (const AsPatchResult *result);

G_END_DECLS

#include "as-ablation.h"

G_BEGIN_DECLS

/* The measure --token WORD [--vs-token W2] or --loss choose, the words as single tokens of
 * MODEL's vocabulary (as_tokenizer_word_id: a word it splits is refused with its pieces). */
gboolean cli_metric_from_words (AsModel *model, const char *token, const char *vs_token,
                                gboolean loss, AsMetric *metric, GError **error);

/* A CliLineFunc that appends a copy of each line to the GPtrArray USER_DATA. */
gboolean cli_collect_line (const char *line, gpointer user_data, GError **error);

/* O (zeroed by the caller) with the prepared --ablate as its base ablation and --no-positions:
 * the scan and patching run every pass on the model as the options change it. */
void cli_intervene_scan_options (AsScanOptions *o);

/* "logit(' car')", "logit(' car') − logit(' man')", "loss" (owned). */
char *cli_metric_describe (AsModel *model, const AsMetric *metric);

/* When RESULT's texts barely differ in the measure (as_patch_gap_is_small): a warning that the
 * normalised effects are unstable, also printed to standard error (owned); otherwise NULL. */
char *cli_patch_gap_warning (const AsPatchResult *result);

G_END_DECLS
