/* cli-export-write.h — the last step of `attnscope export`: BUILT written to PATH in the format
 * its suffix names with REQ's options (size, dpi, --force), the sidecar when REQ asks for one
 * (ARGV as given, MODEL and its weights' hash), and one line on stdout naming the file and its
 * size. Returns the command's exit status (an error is printed as one line). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "cli-export-view.h"

int cli_export_write_figure (ArBuiltFigure *built, const char *path, const ExportRequest *req,
                             const AsModel *model, char **argv);
