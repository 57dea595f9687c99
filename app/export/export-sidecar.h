/* export-sidecar.h — the small JSON file written beside an exported figure so that it can be
 * reproduced: FIGURE.json for FIGURE.png (the figure's own name with ".json" added), holding
 *
 *   {"attnscope": "0.1.0",
 *    "command": ["attnscope", "export", "--model", ..., "-o", "figure.png"],
 *    "command_line": "attnscope export --model ... -o figure.png",   (shell-quoted)
 *    "model": {"name": ..., "path": ..., "type": "gpt2", "weights": "/…/tf_model.h5",
 *              "sha256": "…"},
 *    "figure": {"file": "figure.png", "format": "png", "width_pt": …, "height_pt": …,
 *               "width_px": …, "height_px": …, "dpi": …}}
 *
 * The command is exactly the `attnscope export` that writes the same file (the window's export
 * spells its view out with export-args.h); "-o" names the file without its folder, so the command
 * runs where the figure is. The weight file's SHA-256 identifies the weights the figure was drawn
 * from. Written atomically, like the figure. */
#pragma once

#include "as-model.h"
#include "figure-export.h"

G_BEGIN_DECLS

/* FIGURE_PATH + ".json". Newly allocated. */
char *export_sidecar_path (const char *figure_path);

/* The SHA-256 of the file PATH as lowercase hex, read in blocks (a 330 MB file takes about a
 * second: callers on the UI thread run it in a task). Newly allocated; NULL with ERROR. */
char *export_sidecar_hash_file (const char *path, GError **error);

/* Writes the sidecar of the figure at FIGURE_PATH, drawn from MODEL (whose weight file hashes to
 * SHA256) with GEOMETRY, by the command ARGV (NULL-terminated, argv[0] = "attnscope"). */
gboolean export_sidecar_write (const char *figure_path, const char *const *argv,
                               const AsModel *model, const char *sha256,
                               const ArExportOptions *options, const ArExportGeometry *geometry,
                               GError **error);

G_END_DECLS
