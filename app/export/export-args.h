/* export-args.h — the options of `attnscope export` that say how a figure looks and how it is
 * written, both ways: parsed from a command line into an ArViewSelection and ArExportOptions
 * (the command), and written back as arguments from them (the window's export, whose sidecar
 * records the exact command that draws the same file). Keeping both directions here, over one
 * table of option names, is what keeps them from drifting; tests/ui/test-export-parity.c runs
 * the recorded commands and compares the files byte for byte.
 *
 *   --token I [--no-outline] --colormap NAME --annotate auto|always|never
 *   --color-scale fixed|shared|each (--autoscale = shared) --normalize-rows --log-colors --words
 *   --labels thinned|all|words --no-space-marks --raw-tokens --align tokens|positions
 *   --segments all|a-a|a-b|b-a|b-b --pool-mean
 *   --preset one-column|two-columns --width 85mm|1200px --max-height 279.4mm --font-size PT
 *   --dpi D | --scale S
 *   --no-titles --title T --subtitle S --svg-text --sidecar
 *
 * The view's layer, head and figure kind (--layer, --head, --mean, --grid, ...) are the
 * subcommand's own; see cli-export.c. */
#pragma once

#include <glib.h>

#include "figure-export.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The options as given (NULL / G_MININT / -1 / FALSE: not given). */
typedef struct
{
  int token;
  gboolean no_outline;
  char *colormap, *annotate, *color_scale, *labels, *align, *segments;
  gboolean autoscale, normalize_rows, log_colors, words, no_space_marks, raw_tokens;
  gboolean pool_mean;
  char *preset, *width, *max_height, *title, *subtitle;
  double font_size, dpi, scale;
  gboolean no_titles, svg_text, sidecar;
} ExportArgs;

void export_args_init (ExportArgs *args);
void export_args_clear (ExportArgs *args);

/* The GOptionEntry table that fills ARGS (NULL-terminated; free with g_free). */
GOptionEntry *export_args_entries (ExportArgs *args);

/* Applies ARGS to VIEW and OPTIONS (initialised by the caller). Fails (AS_ERROR_INPUT) naming
 * the option at fault; *USAGE is set for conflicting options (exit status 2). */
gboolean export_args_apply (const ExportArgs *args, ArViewSelection *view, ArExportOptions *options,
                            gboolean *usage, GError **error);

/* Appends to ARGV (char *, owned by the array's free function) the options that spell out VIEW
 * and OPTIONS, none for a default (a figure without an outline is one whose view selects no
 * token: no --token). */
void export_args_append (GPtrArray *argv, const ArViewSelection *view,
                         const ArExportOptions *options);

G_END_DECLS
