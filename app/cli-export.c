/* cli-export.c — `attnscope export`: the figure the GUI shows, written to a PNG, SVG or PDF file
 * without a display, through the same ui/render drawing functions as the widgets.
 *
 *   export --model M --text T (--layer L --head H | --grid | --mean L | --rollout L)
 *          -o FILE.png|.svg|.pdf [--scale S] [--compare T2] [--colormap NAME] [--raw-tokens]
 *          [--annotate auto|always|never] [--autoscale] [--truncate]
 *
 * --layer/--head: one head's attention, queries as rows, keys as columns (the seed figure);
 * --mean L: the mean over the heads of layer L; --rollout L: attention rollout through layers
 * 0..L (core/as-rollout.h); --grid: every head of every layer with its pattern label
 * (core/as-head-stats.h). Colours span 0..1 unless --autoscale (the data's min..max, as seaborn
 * does by default).
 *
 * --compare T2 (not with --grid): the same view for T2 next to T, and when both texts have the
 * same number of tokens the difference T2 − T in the diverging map; a chart of the per-layer
 * cosine similarity of the tokens both texts share (core/as-compare.h) goes underneath. When the
 * token counts differ the figure shows the two heatmaps side by side only, says so in a note
 * line on the figure, and the command prints "attnscope: note: ..." on stderr and succeeds.
 *
 * Errors (exit 1, "attnscope: error: ..."): a layer or head out of range (naming the valid
 * range), an unknown colour map, a file name without .png/.svg/.pdf, a folder that cannot be
 * written, empty text, a scale outside 0.25..8. Usage errors (exit 2): missing or conflicting
 * options. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-compare.h"
#include "as-error.h"
#include "as-head-stats.h"
#include "as-rollout.h"
#include "cli-analysis.h"
#include "cli.h"
#include "figure-export.h"
#include "token-label.h"

/* The chart shows at most this many shared tokens (the palette's colours). */
#define MAX_CHART_SERIES 10

typedef enum
{
  VIEW_HEAD,
  VIEW_MEAN,
  VIEW_ROLLOUT,
  VIEW_GRID,
} View;

typedef struct
{
  View view;
  int layer, head;
  ArColormap colormap;
  ArAnnotate annotate;
  gboolean raw_tokens, autoscale, truncate, force;
  double scale;
  const char *model_name;
} ExportRequest;

/* One text's trace with what the figures borrow from it. */
typedef struct
{
  AsTrace *trace;
  char **labels; /* [T] token labels */
  float *matrix; /* [T][T] the view's matrix (not for the grid) */
  char *text;
} Side;

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->trace, as_trace_unref);
  g_clear_pointer (&side->labels, g_strfreev);
  g_clear_pointer (&side->matrix, g_free);
  g_clear_pointer (&side->text, g_free);
}

static gboolean
check_index (const char *option, int value, int count, const char *what, GError **error)
{
  if (value >= 0 && value < count)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "%s %d is out of range: the model has %d %s%s (0..%d)", option, value, count, what,
               count == 1 ? "" : "s", count - 1);
  return FALSE;
}

/* The [T][T] matrix of REQ's view (head, mean or rollout) of TRACE, newly allocated. */
static float *
view_matrix (const AsTrace *trace, const ExportRequest *req)
{
  gsize tt = (gsize) trace->n_tokens * trace->n_tokens;
  float *out = g_new (float, tt); /* [T][T] */
  if (req->view == VIEW_HEAD)
    memcpy (out, as_trace_attn (trace, req->layer, req->head), tt * sizeof (float));
  else
    {
      g_autofree float *all = req->view == VIEW_MEAN ? as_trace_mean_heads (trace)
                                                     : as_trace_rollout (trace); /* [L][T][T] */
      memcpy (out, all + (gsize) req->layer * tt, tt * sizeof (float));
    }
  return out;
}

static gboolean
side_run (Side *side, AsModel *model, const char *text, const char *argument,
          const ExportRequest *req, GError **error)
{
  side->trace = cli_analysis_forward (model, text, argument, req->truncate, error);
  if (side->trace == NULL)
    return FALSE;
  const AsTrace *t = side->trace;
  const char *layer_option = req->view == VIEW_MEAN      ? "--mean"
                             : req->view == VIEW_ROLLOUT ? "--rollout"
                                                         : "--layer";
  if (!check_index (layer_option, req->layer, t->n_layer, "layer", error)
      || (req->view == VIEW_HEAD && !check_index ("--head", req->head, t->n_head, "head", error)))
    return FALSE;
  side->labels = ar_token_labels_from_trace (t, req->raw_tokens);
  if (req->view != VIEW_GRID)
    side->matrix = view_matrix (t, req);
  side->text = g_strdup (text);
  return TRUE;
}

static char *
view_title (const ExportRequest *req, const AsTrace *trace)
{
  switch (req->view)
    {
    case VIEW_HEAD:
      return g_strdup_printf ("Layer %d \u00b7 Head %d", req->layer, req->head);
    case VIEW_MEAN:
      return g_strdup_printf ("Layer %d \u00b7 mean of %d heads", req->layer, trace->n_head);
    case VIEW_ROLLOUT:
      return req->layer == 0
                 ? g_strdup ("Attention rollout \u00b7 layer 0")
                 : g_strdup_printf ("Attention rollout \u00b7 layers 0\u2013%d", req->layer);
    case VIEW_GRID:
      return g_strdup_printf ("All heads \u00b7 %d layer%s \u00d7 %d head%s", trace->n_layer,
                              trace->n_layer == 1 ? "" : "s", trace->n_head,
                              trace->n_head == 1 ? "" : "s");
    }
  g_assert_not_reached ();
}

static void
value_range (const float *values, gsize n, gboolean autoscale, double *vmin, double *vmax)
{
  *vmin = 0, *vmax = 1;
  if (!autoscale)
    return;
  double lo = INFINITY, hi = -INFINITY;
  for (gsize i = 0; i < n; i++)
    lo = MIN (lo, values[i]), hi = MAX (hi, values[i]);
  if (hi > lo)
    *vmin = lo, *vmax = hi;
}

/* A heatmap of SIDE's matrix with the request's colours and labels. */
static void
side_heatmap (ArHeatmapFigure *fig, const Side *side, const ExportRequest *req)
{
  const AsTrace *t = side->trace;
  ar_heatmap_figure_init (fig);
  fig->n_rows = fig->n_cols = t->n_tokens;
  fig->values = side->matrix;
  fig->row_labels = (const char *const *) side->labels;
  fig->col_labels = (const char *const *) side->labels;
  fig->colormap = req->colormap;
  fig->annotate = req->annotate;
  fig->mask_upper = t->causal;
  fig->colorbar_label = req->view == VIEW_ROLLOUT ? "Rollout weight" : "Attention weight";
  value_range (side->matrix, (gsize) t->n_tokens * t->n_tokens, req->autoscale, &fig->vmin,
               &fig->vmax);
}

static int
write_figure (const ArFigure *fig, const char *path, const ExportRequest *req)
{
  GError *error = NULL;
  AsOutputFlags flags = req->force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT;
  if (!ar_figure_export_full (fig, path, req->scale, flags, &error))
    return cli_fail (error);
  ArExportFormat format = AR_EXPORT_PNG;
  ar_export_format_from_path (path, &format, NULL);
  int w, h;
  ar_figure_get_pixel_size (fig, format == AR_EXPORT_PNG ? req->scale : 1.0, &w, &h);
  printf ("wrote %s (%d x %d %s)\n", path, w, h, format == AR_EXPORT_PDF ? "pt" : "px");
  return CLI_EXIT_OK;
}

static char *
quoted (const char *text)
{
  return g_strdup_printf ("\u201c%s\u201d", text);
}

static int
export_single (const Side *a, const ExportRequest *req, const char *path)
{
  ArHeatmapFigure fig;
  side_heatmap (&fig, a, req);
  g_autofree char *title = view_title (req, a->trace);
  g_autofree char *text = quoted (a->text);
  g_autofree char *subtitle = g_strdup_printf ("%s \u00b7 %s", req->model_name, text);
  fig.title = title;
  fig.subtitle = subtitle;
  ArFigure figure = ar_figure_from_heatmap (&fig);
  return write_figure (&figure, path, req);
}

static int
export_grid (const Side *a, const ExportRequest *req, const char *path)
{
  const AsTrace *t = a->trace;
  g_autoptr (AsHeadStats) stats = as_head_stats_compute (t);
  ArGridFigure fig;
  ar_grid_figure_init (&fig);
  g_autofree char *title = view_title (req, t);
  g_autofree char *text = quoted (a->text);
  g_autofree char *subtitle = g_strdup_printf ("%s \u00b7 %s", req->model_name, text);
  fig.title = title;
  fig.subtitle = subtitle;
  fig.n_layers = t->n_layer;
  fig.n_heads = t->n_head;
  fig.n_tokens = t->n_tokens;
  fig.attn = t->attn;
  fig.patterns = stats->patterns;
  fig.colormap = req->colormap;
  fig.mask_upper = t->causal;
  fig.colorbar_label = "Attention weight";
  value_range (t->attn, (gsize) t->n_layer * t->n_head * t->n_tokens * t->n_tokens, req->autoscale,
               &fig.vmin, &fig.vmax);
  ArFigure figure = ar_figure_from_grid (&fig);
  return write_figure (&figure, path, req);
}

/* DIFF [T][T] = B - A; its symmetric colour range ±max|d| rounded up to 2 decimals. */
static double
difference (float *diff, const float *a, const float *b, gsize n)
{
  double max_abs = 0;
  for (gsize i = 0; i < n; i++)
    {
      diff[i] = b[i] - a[i];
      max_abs = MAX (max_abs, fabs (diff[i]));
    }
  return MAX (ceil (max_abs * 100 - 1e-9) / 100, 0.01);
}

/* The chart of per-layer similarity of the tokens A and B share: VALUES [series][L+1]. */
typedef struct
{
  ArLineFigure fig;
  double *values;
  char **names;
  char *title;
} Chart;

static void
chart_clear (Chart *chart)
{
  g_free (chart->values);
  g_strfreev (chart->names);
  g_free (chart->title);
}

static gboolean
chart_build (Chart *chart, const AsComparison *c, const Side *a)
{
  int n_series = MIN (c->n_pairs, MAX_CHART_SERIES), n_x = c->n_layer + 1;
  if (n_series == 0)
    return FALSE;
  chart->values = g_new (double, (gsize) n_series *n_x);
  chart->names = g_new0 (char *, n_series + 1);
  for (int s = 0; s < n_series; s++)
    {
      AsTokenPair p = c->pairs[s];
      chart->names[s] = g_strdup_printf ("%s (%d\u2192%d)", a->labels[p.a], p.a, p.b);
      for (int l = 0; l < n_x; l++)
        chart->values[(gsize) s * n_x + l] = c->hidden_similarity[(gsize) l * c->n_pairs + s];
    }
  ar_line_figure_init (&chart->fig);
  chart->title = c->n_pairs > n_series
                     ? g_strdup_printf ("Hidden-state similarity of shared tokens (first %d of %d)",
                                        n_series, c->n_pairs)
                     : g_strdup ("Hidden-state similarity of shared tokens");
  chart->fig.title = chart->title;
  chart->fig.n_series = n_series;
  chart->fig.n_x = n_x;
  chart->fig.values = chart->values;
  chart->fig.series_names = (const char *const *) chart->names;
  chart->fig.x_axis = "Hidden state (0 = embeddings)";
  return TRUE;
}

static int
export_compare (const Side *a, const Side *b, const ExportRequest *req, const char *path)
{
  GError *error = NULL;
  g_autoptr (AsComparison) comparison = as_compare_traces (a->trace, b->trace, &error);
  if (comparison == NULL)
    return cli_fail (error);

  ArHeatmapFigure fa, fb, fd;
  side_heatmap (&fa, a, req);
  side_heatmap (&fb, b, req);
  if (req->autoscale)
    fa.vmin = fb.vmin = MIN (fa.vmin, fb.vmin), fa.vmax = fb.vmax = MAX (fa.vmax, fb.vmax);
  fa.colorbar = FALSE;
  g_autofree char *text_a = quoted (a->text), *text_b = quoted (b->text);
  g_autofree char *title_a = g_strdup_printf ("A: %s", text_a);
  g_autofree char *title_b = g_strdup_printf ("B: %s", text_b);
  fa.title = title_a;
  fb.title = title_b;

  int t = a->trace->n_tokens;
  g_autofree float *diff = NULL; /* [T][T] */
  g_autofree char *note = NULL;
  gboolean with_diff = comparison->attention_available;
  if (with_diff)
    {
      diff = g_new (float, (gsize) t *t);
      double range = difference (diff, a->matrix, b->matrix, (gsize) t * t);
      side_heatmap (&fd, a, req);
      fd.values = diff;
      fd.colormap = AR_COLORMAP_RDBU_R;
      fd.vmin = -range;
      fd.vmax = range;
      fd.title = "Difference B \u2212 A";
      fd.colorbar_label = "B \u2212 A";
    }
  else
    {
      note = g_strdup_printf ("No difference panel: the texts have %d and %d tokens; a difference "
                              "needs equal token counts.",
                              a->trace->n_tokens, b->trace->n_tokens);
      fprintf (stderr, "attnscope: note: %s\n", note);
    }

  Chart chart = { 0 };
  gboolean with_chart = chart_build (&chart, comparison, a);
  g_autofree char *title = view_title (req, a->trace);
  ArCompareFigure fig = {
    .title = title,
    .subtitle = req->model_name,
    .note = note,
    .a = &fa,
    .b = &fb,
    .diff = with_diff ? &fd : NULL,
    .chart = with_chart ? &chart.fig : NULL,
  };
  ArFigure figure = ar_figure_from_compare (&fig);
  int code = write_figure (&figure, path, req);
  chart_clear (&chart);
  return code;
}

/* Checks the options that need no model; returns -1 when fine, else the exit code. */
static int
check_options (ExportRequest *req, int argc, char **argv, const char *text, const char *output,
               gboolean grid, int mean, int rollout, const char *colormap, const char *annotate)
{
  if (argc > 1)
    return cli_usage_printf ("export", "unexpected argument '%s'", argv[1]);
  if (text == NULL)
    return cli_usage_printf ("export", "--text T is required");
  if (output == NULL)
    return cli_usage_printf ("export", "-o FILE.png|.svg|.pdf is required");
  gboolean head = req->layer != G_MININT || req->head != G_MININT;
  int views = head + grid + (mean != G_MININT) + (rollout != G_MININT);
  if (views != 1)
    return cli_usage_printf (
        "export", "give exactly one of --layer L --head H, --grid, --mean L, --rollout L");
  if (head && (req->layer == G_MININT || req->head == G_MININT))
    return cli_usage_printf ("export", "--layer L and --head H go together");
  req->view = head ? VIEW_HEAD : grid ? VIEW_GRID : mean != G_MININT ? VIEW_MEAN : VIEW_ROLLOUT;
  if (req->view == VIEW_MEAN)
    req->layer = mean;
  else if (req->view == VIEW_ROLLOUT)
    req->layer = rollout;
  else if (req->view == VIEW_GRID)
    req->layer = 0;

  GError *error = NULL;
  ArExportFormat format;
  if (!ar_export_format_from_path (output, &format, &error))
    return cli_fail (error);
  if (!(req->scale >= AR_EXPORT_SCALE_MIN && req->scale <= AR_EXPORT_SCALE_MAX))
    return cli_fail_printf ("--scale %g is out of range (expected %g to %g)", req->scale,
                            AR_EXPORT_SCALE_MIN, AR_EXPORT_SCALE_MAX);
  if (colormap != NULL && !ar_colormap_from_string (colormap, &req->colormap, &error))
    return cli_fail (error);
  if (annotate != NULL)
    {
      static const char *const modes[] = { "auto", "always", "never" };
      int m = 0;
      while (m < 3 && g_ascii_strcasecmp (annotate, modes[m]) != 0)
        m++;
      if (m == 3)
        return cli_fail_printf ("--annotate '%s' is not auto, always or never", annotate);
      req->annotate = (ArAnnotate) m;
    }
  return -1;
}

static int
export_run (AsModel *model, const char *text, const char *compare, const char *output,
            ExportRequest *req)
{
  GError *error = NULL;
  Side a = { 0 }, b = { 0 };
  int code;
  req->model_name = as_model_get_name (model);
  if (!side_run (&a, model, text, "--text", req, &error))
    code = cli_fail (error);
  else if (compare != NULL && !side_run (&b, model, compare, "--compare", req, &error))
    code = cli_fail (error);
  else if (req->view == VIEW_GRID)
    code = export_grid (&a, req, output);
  else if (compare != NULL)
    code = export_compare (&a, &b, req, output);
  else
    code = export_single (&a, req, output);
  side_clear (&a);
  side_clear (&b);
  return code;
}

static const char export_summary[]
    = "Export the figure of a head (--layer, --head), a layer's mean (--mean), attention rollout\n"
      "(--rollout) or all heads (--grid) as PNG, SVG or PDF, drawn as the window draws it.\n"
      "With --compare the second text is drawn beside the first, with the difference T2 - T when\n"
      "both have the same number of tokens; otherwise side by side only, with a note.";

int
cli_export (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *text = NULL, *output = NULL, *compare = NULL;
  g_autofree char *colormap = NULL, *annotate = NULL;
  gboolean grid = FALSE;
  int mean = G_MININT, rollout = G_MININT;
  ExportRequest req = {
    .layer = G_MININT,
    .head = G_MININT,
    .colormap = AR_COLORMAP_YLGNBU,
    .scale = 1.0,
  };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "text", 't', 0, G_OPTION_ARG_STRING, &text, "Input text", "T" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &req.layer, "Layer of the head to draw (from 0)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &req.head, "Head to draw (from 0)", "H" },
    { "grid", 0, 0, G_OPTION_ARG_NONE, &grid, "Every head of every layer in one grid", NULL },
    { "mean", 0, 0, G_OPTION_ARG_INT, &mean, "Mean over the heads of layer L", "L" },
    { "rollout", 0, 0, G_OPTION_ARG_INT, &rollout, "Attention rollout through layers 0..L", "L" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output file: .png, .svg or .pdf", "FILE" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &req.scale, "PNG pixels per unit (1, 2, 4; default 1)",
      "S" },
    { "compare", 0, 0, G_OPTION_ARG_STRING, &compare,
      "Second text: side by side, difference when the token counts match", "T2" },
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &colormap,
      "ylgnbu (default), viridis, magma, greys or rdbu_r", "NAME" },
    { "annotate", 0, 0, G_OPTION_ARG_STRING, &annotate,
      "Cell values: auto (when cells are large enough), always, never", "MODE" },
    { "autoscale", 0, 0, G_OPTION_ARG_NONE, &req.autoscale,
      "Colours span the data's min..max instead of 0..1", NULL },
    { "raw-tokens", 0, 0, G_OPTION_ARG_NONE, &req.raw_tokens,
      "Show vocabulary strings as they are ('\u0120the' instead of '\u2423the')", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (req.truncate),
    { "force", 'f', 0, G_OPTION_ARG_NONE, &req.force, "Replace FILE even when it is read-only",
      NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("export", "", export_summary, entries, &argc, &argv, &code))
    return code;
  code = check_options (&req, argc, argv, text, output, grid, mean, rollout, colormap, annotate);
  if (code >= 0)
    return code;
  if (compare != NULL && req.view == VIEW_GRID)
    return cli_usage_printf ("export", "--compare works with --layer/--head, --mean and --rollout");

  GError *error = NULL;
  if (!as_output_file_check (output, req.force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT, &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  return export_run (model, text, compare, output, &req);
}
