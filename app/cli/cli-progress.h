/* cli-progress.h — layer progress of a long forward pass on the terminal (run, predict, stats,
 * export): "attnscope: layer 12 of 30" on stderr, redrawn in place, once a pass has taken more
 * than half a second, only when stderr is a terminal and --quiet is not given; erased when the
 * pass ends or fails. Never on stdout (the --json output stays clean). */
#pragma once

#include <glib.h>

#include "as-forward.h"

G_BEGIN_DECLS

/* Set by --quiet. */
extern gboolean cli_progress_quiet;

#define CLI_QUIET_OPTION                                                                           \
  {                                                                                                \
    "quiet", 0, 0, G_OPTION_ARG_NONE, &cli_progress_quiet,                                         \
        "No layer progress on stderr (shown on a terminal when a pass takes more than 0.5 s)",     \
        NULL                                                                                       \
  }

/* Points OPTIONS' progress at the terminal's progress line, timed from now (nothing when stderr
 * is not a terminal or with --quiet). Call it just before the pass. */
void cli_progress_apply (AsForwardOptions *options);

/* Erases the progress line when one is drawn (before an error message or further output). */
void cli_progress_end (void);

G_END_DECLS
