/* cli-export-patch.h — `attnscope export --patch`: activation patching between --text A and
 * --compare B, as the Compare page's patching panel draws it (ui/render/patch-figure.h). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The patching options of export (NULL / FALSE: not given). */
typedef struct
{
  gboolean patch;   /* --patch */
  char *token;      /* --patch-token W1 */
  char *vs_token;   /* --patch-vs-token W2 */
  char *what;       /* --patch-what heads|mlps|resid (default heads) */
  gboolean reverse; /* --patch-reverse: A's activations into B's pass */
} CliExportPatch;

/* Checks the options that need no model (COMPARE: --compare was given); -1 when fine, else the
 * exit code. */
int cli_export_patch_check (const CliExportPatch *patch, gboolean compare);

/* The patching figure of A and B (MODEL's traces; only their ids are used: the model as it is).
 * Fails on a word that is not one token, texts of different lengths (naming both counts), the
 * same logit difference on both texts. */
ArBuiltFigure *cli_export_patch_figure (AsModel *model, const AsTrace *a, const AsTrace *b,
                                        const CliExportPatch *patch, const ArViewSelection *view,
                                        const ArFigureTexts *texts, GError **error);

void cli_export_patch_clear (CliExportPatch *patch);

G_END_DECLS
