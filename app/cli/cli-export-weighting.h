/* cli-export-weighting.h — `attnscope export --weighting weight|norm` and `--qk-rope after|before`:
 * how an attention heatmap is weighted (the weights, or each weight times the norm of what its
 * key writes, as-attention-norms.h) and which query the query–key view shows. */
#pragma once

#include "cli-export-view.h"

G_BEGIN_DECLS

/* Sets REQ's selection from --weighting WEIGHTING and --qk-rope QK_ROPE (NULL: not given;
 * COMPARE: --compare was given); returns -1 when fine, else the exit code (2: norms weight one
 * head or a layer's mean of one text's self-attention; --qk-rope goes with --qk). */
int cli_export_weighting_check (ExportRequest *req, const char *weighting, const char *qk_rope,
                                gboolean compare);

G_END_DECLS
