/* cli-analysis.h — helpers shared by the analysis subcommands (similarity, stats, compare):
 * running the forward pass for a text argument, the vector selection options and CSV output
 * (JSON output is cli-json.h's). */
#pragma once

#include <glib.h>

#include "as-model.h"
#include "as-trace-vectors.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* Checks TEXT (naming ARGUMENT, e.g. "--text") and runs MODEL on it (last-position logits only);
 * with TRUNCATE a text longer than the context keeps its first tokens instead of failing. */
AsTrace *cli_analysis_forward (AsModel *model, const char *text, const char *argument,
                               gboolean truncate, GError **error);

/* The --truncate option entry every analysis subcommand offers. */
#define CLI_ANALYSIS_TRUNCATE_ENTRY(flag)                                                          \
  {                                                                                                \
    "truncate", 0, 0, G_OPTION_ARG_NONE, &(flag),                                                  \
        "Keep the first tokens when a text is longer than the context", NULL                       \
  }

/* Checks the vector selection --of OF --layer LAYER --head HEAD of COMMAND (G_MININT = not
 * given): OF must name a source, and the layer/head it needs must be given. Unneeded ones default
 * to LAYER 0 and HEAD -1. Returns CLI_EXIT_OK, or prints the usage error and returns its code. */
int cli_parse_vector_selection (const char *command, const char *of, AsVectorSource *source,
                                int *layer, int *head);

/* The same for a selection whose options are called OF_OPTION, LAYER_OPTION and HEAD_OPTION
 * (e.g. project's "--also", "--also-layer", "--also-head"), as the messages name them. */
int cli_parse_vector_selection_named (const char *command, const char *of_option,
                                      const char *layer_option, const char *head_option,
                                      const char *of, AsVectorSource *source, int *layer,
                                      int *head);

/* Appends S as one CSV field (RFC 4180: quoted when it holds a comma, quote or line break). */
void cli_csv_append_field (GString *buf, const char *s);

/* Writes BUF to stdout. */
void cli_print (const GString *buf);

G_END_DECLS
