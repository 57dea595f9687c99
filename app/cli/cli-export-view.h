/* cli-export-view.h — which figure `attnscope export` draws: the view its options choose, and
 * the request the rest of the command carries out (cli-export.c). */
#pragma once

#include "as-projection.h"
#include "as-trace-vectors.h"
#include "cli-export-attribution.h"
#include "cli-export-lens.h"
#include "cli-export-patch.h"
#include "cli-export-scan.h"
#include "cli-translation.h"
#include "figure-export.h"
#include "view-selection.h"

G_BEGIN_DECLS

typedef enum
{
  VIEW_ATTENTION, /* head, mean or rollout (ArViewSelection.aggregate) */
  VIEW_GRID,
  VIEW_SIMILARITY,
  VIEW_PROJECTION,
  VIEW_ALIGNMENT,     /* a translation's source and target linked by cross-attention */
  VIEW_LENS,          /* the logit lens (cli-export-lens.h) */
  VIEW_POSITION_BIAS, /* the trace's position bias of one head, [T][T] (T5) */
  VIEW_ABLATION_SCAN, /* each single head switched off: its effect (cli-export-scan.h) */
  VIEW_PATCH,         /* activation patching between A and B (cli-export-patch.h) */
  VIEW_ATTRIBUTION,   /* direct logit attribution (cli-export-attribution.h) */
  VIEW_QK,            /* the query–key view of one head and query (cli-export-qk.h) */
} View;

typedef struct
{
  View view;
  ArViewSelection selection;
  AsVectorSource source; /* similarity and projection */
  int vectors_layer, vectors_head;
  AsProjectionMethod method;
  gboolean has_also; /* projection: a second panel of the vectors also_source */
  AsVectorSource also_source;
  int also_layer, also_head;
  const char *highlight; /* projection: the word whose tokens are marked, or NULL */
  GPtrArray *more_texts; /* projection: the texts after T (and T2), or NULL */
  gboolean no_labels, truncate, sidecar, force;
  ArExportOptions options;
  const char *target;    /* translation models: the target text (NULL: the model's translation) */
  CliAttentionKind kind; /* translation models: which attention the figure shows */
  CliExportLens lens;
  CliExportScan scan;
  CliExportPatch patch;
  CliExportAttribution attribution; /* its position: lens.position */
  gboolean qk;                      /* --qk: with --layer, --head and --token as the query */
} ExportRequest;

/* The options that choose the view, as given on the command line (G_MININT / NULL: not given). */
typedef struct
{
  int layer, head, mean, rollout, position_bias;
  gboolean grid, alignment;
  const char *similarity, *project, *of, *also, *highlight;
  gboolean more_texts; /* --project with several texts (--text repeated, --lines) */
} ViewOptions;

/* Chooses REQ's view from V (COMPARE: --compare was given); returns -1 when fine, else the exit
 * code after printing the usage error. */
int cli_export_choose_view (ExportRequest *req, const ViewOptions *v, gboolean compare);

G_END_DECLS
