/* cli-export-lens.h — `attnscope export --lens`: the logit lens's figures, as the Lens page draws
 * them (ui/render/lens-figure.h). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The lens options of export (G_MININT / NULL: not given). */
typedef struct
{
  gboolean lens; /* --lens: the table of hidden states × positions */
  char *follow;  /* --follow WORD: the chart of this token (one token of the vocabulary) */
  int follow_id; /* --follow-id N: the chart of the token with this id */
  int position;  /* --position I: the position the chart follows (default: the last) */
} CliExportLens;

#define CLI_EXPORT_LENS_INIT                                                                       \
  {                                                                                                \
    FALSE, NULL, G_MININT, G_MININT                                                                \
  }

/* Checks the options that need no model; returns -1 when fine, else the exit code. */
int cli_export_lens_check (const CliExportLens *lens);

/* The figure --lens asks for of TRACE (MODEL's): the table under VIEW, or with --follow /
 * --follow-id the chart of that token at --position. Fails on a word the vocabulary splits, an
 * id or position out of range, a model without an output head. */
ArBuiltFigure *cli_export_lens_figure (AsModel *model, const AsTrace *trace,
                                       const CliExportLens *lens, const ArViewSelection *view,
                                       const ArFigureTexts *texts, GError **error);

void cli_export_lens_clear (CliExportLens *lens);

G_END_DECLS
