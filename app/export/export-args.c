/* export-args.c — the look-and-file options of `attnscope export`, parsed and written back (see
 * export-args.h). */
#include "export-args.h"

#include <math.h>
#include <string.h>

#include "as-error.h"

/* The names of the choices, in the order of their enums (NULL-terminated). */
static const char *const annotate_names[] = { "auto", "always", "never", NULL };
static const char *const label_names[] = { "thinned", "all", "words", NULL };
static const char *const align_names[] = { "tokens", "positions", NULL };
static const char *const scale_names[] = { "fixed", "shared", "each", NULL };
static const char *const preset_names[] = { "one-column", "two-columns", NULL };

void
export_args_init (ExportArgs *args)
{
  *args = (ExportArgs){ .token = -1, .font_size = -1, .dpi = -1, .scale = -1 };
}

void
export_args_clear (ExportArgs *args)
{
  g_clear_pointer (&args->colormap, g_free);
  g_clear_pointer (&args->annotate, g_free);
  g_clear_pointer (&args->color_scale, g_free);
  g_clear_pointer (&args->labels, g_free);
  g_clear_pointer (&args->align, g_free);
  g_clear_pointer (&args->segments, g_free);
  g_clear_pointer (&args->preset, g_free);
  g_clear_pointer (&args->width, g_free);
  g_clear_pointer (&args->max_height, g_free);
  g_clear_pointer (&args->title, g_free);
  g_clear_pointer (&args->subtitle, g_free);
}

GOptionEntry *
export_args_entries (ExportArgs *args)
{
  const GOptionEntry entries[] = {
    { "token", 0, 0, G_OPTION_ARG_INT, &args->token,
      "Outline token I of the text (as a click in the window does)", "I" },
    { "no-outline", 0, 0, G_OPTION_ARG_NONE, &args->no_outline,
      "Do not outline the --token (its other effects stay)", NULL },
    { "colormap", 0, 0, G_OPTION_ARG_STRING, &args->colormap,
      "ylgnbu (default), viridis, magma, greys or rdbu_r", "NAME" },
    { "annotate", 0, 0, G_OPTION_ARG_STRING, &args->annotate,
      "Cell values: auto (when they fit their cells), always, never", "MODE" },
    { "autoscale", 0, 0, G_OPTION_ARG_NONE, &args->autoscale,
      "Colours span the data's min..max instead of 0..1 (= --color-scale shared)", NULL },
    { "color-scale", 0, 0, G_OPTION_ARG_STRING, &args->color_scale,
      "fixed (0..1), shared (the data's range, one for all panels) or each (per panel/head)",
      "SCALE" },
    { "normalize-rows", 0, 0, G_OPTION_ARG_NONE, &args->normalize_rows,
      "Attention: divide each query's row by its largest weight", NULL },
    { "log-colors", 0, 0, G_OPTION_ARG_NONE, &args->log_colors, "Colours on a log scale", NULL },
    { "pool-mean", 0, 0, G_OPTION_ARG_NONE, &args->pool_mean,
      "A long text's heatmap in blocks (attention on demand): each block's mean, not its maximum",
      NULL },
    { "words", 0, 0, G_OPTION_ARG_NONE, &args->words,
      "Words instead of tokens (attention summed over a word's keys, averaged over its queries)",
      NULL },
    { "labels", 0, 0, G_OPTION_ARG_STRING, &args->labels,
      "Tick labels: thinned (default), all, or words (one per word)", "MODE" },
    { "no-space-marks", 0, 0, G_OPTION_ARG_NONE, &args->no_space_marks,
      "Token labels without the space mark ('the' instead of '\u2423the')", NULL },
    { "raw-tokens", 0, 0, G_OPTION_ARG_NONE, &args->raw_tokens,
      "Show vocabulary strings as they are ('\u0120the' instead of '\u2423the')", NULL },
    { "align", 0, 0, G_OPTION_ARG_STRING, &args->align,
      "With --compare: tokens (B in A's token order, default) or positions", "HOW" },
    { "segments", 0, 0, G_OPTION_ARG_STRING, &args->segments,
      "A pair's attention: all (default), or the queries of one sentence and the keys of one: "
      "a-a, a-b, b-a, b-b",
      "FILTER" },
    { "preset", 0, 0, G_OPTION_ARG_STRING, &args->preset,
      "one-column (85 mm, 8 pt, 300 dpi) or two-columns (175 mm, 9 pt, 300 dpi)", "NAME" },
    { "width", 0, 0, G_OPTION_ARG_STRING, &args->width,
      "Figure width: 85mm, 8.5cm, 3.5in, or 1200px (of the PNG at its --dpi)", "W" },
    { "max-height", 0, 0, G_OPTION_ARG_STRING, &args->max_height,
      "With a width: at most this tall (279.4mm with a preset: a Letter page), the figure laid "
      "out to fit",
      "H" },
    { "font-size", 0, 0, G_OPTION_ARG_DOUBLE, &args->font_size,
      "Tick labels in PT points, other text in proportion (default 12)", "PT" },
    { "dpi", 0, 0, G_OPTION_ARG_DOUBLE, &args->dpi,
      "PNG resolution, written into the file (default 72 = scale 1)", "D" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &args->scale,
      "PNG pixels per point (1, 2, 4; = --dpi 72 x S)", "S" },
    { "no-titles", 0, 0, G_OPTION_ARG_NONE, &args->no_titles, "Leave out the title and subtitle",
      NULL },
    { "title", 0, 0, G_OPTION_ARG_STRING, &args->title, "The figure's title instead of its own",
      "T" },
    { "subtitle", 0, 0, G_OPTION_ARG_STRING, &args->subtitle,
      "The figure's subtitle instead of its own", "S" },
    { "svg-text", 0, 0, G_OPTION_ARG_NONE, &args->svg_text,
      "SVG: write text as text an editor can change (Inkscape, Illustrator), not as outlines",
      NULL },
    { "sidecar", 0, 0, G_OPTION_ARG_NONE, &args->sidecar,
      "Also write FILE.json: this command, the model and its weight file's SHA-256", NULL },
    { NULL },
  };
  return g_memdup2 (entries, sizeof entries);
}

/* The index of NAME in NAMES (NULL-terminated; case-insensitive), or -1. */
static int
lookup (const char *name, const char *const *names)
{
  for (int i = 0; names[i] != NULL; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      return i;
  return -1;
}

/* Parses the choice OPTION = VALUE among NAMES into *OUT (unchanged when VALUE is NULL). */
static gboolean
choose (const char *option, const char *value, const char *const *names, int *out, GError **error)
{
  if (value == NULL)
    return TRUE;
  int i = lookup (value, names);
  if (i < 0)
    {
      g_autofree char *known = g_strjoinv (", ", (char **) names);
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s '%s' is not one of %s", option, value,
                   known);
      return FALSE;
    }
  *out = i;
  return TRUE;
}

/* --max-height TEXT (a length in mm, cm or in) into OPTIONS. */
static gboolean
parse_max_height (const char *text, ArExportOptions *options, GError **error)
{
  ArWidthUnit unit;
  double mm;
  if (!ar_export_parse_width (text, &unit, &mm, NULL) || unit != AR_WIDTH_MM
      || mm < AR_EXPORT_MIN_HEIGHT_MM)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--max-height '%s' is not a length of at least %g mm (279.4mm, 11in, 25cm)",
                   text, AR_EXPORT_MIN_HEIGHT_MM);
      return FALSE;
    }
  options->max_height = mm;
  return TRUE;
}

gboolean
export_args_apply (const ExportArgs *args, ArViewSelection *view, ArExportOptions *options,
                   gboolean *usage, GError **error)
{
  *usage = FALSE;
  int annotate = view->annotate, labels = view->labels, align = view->alignment, scale = -1,
      preset = -1;
  if ((args->dpi > 0 && args->scale > 0) || (args->autoscale && args->color_scale != NULL))
    {
      *usage = TRUE;
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s",
                   args->autoscale ? "--autoscale and --color-scale are the same choice: give one"
                                   : "--dpi and --scale are the same choice: give one");
      return FALSE;
    }
  if (!choose ("--annotate", args->annotate, annotate_names, &annotate, error)
      || !choose ("--labels", args->labels, label_names, &labels, error)
      || !choose ("--align", args->align, align_names, &align, error)
      || !choose ("--color-scale", args->color_scale, scale_names, &scale, error)
      || !choose ("--preset", args->preset, preset_names, &preset, error))
    return FALSE;
  if (args->segments != NULL && !ar_segments_from_string (args->segments, &view->segments))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--segments '%s' is not one of all, a-a, a-b, b-a, b-b", args->segments);
      return FALSE;
    }
  if (args->colormap != NULL && !ar_colormap_from_string (args->colormap, &view->colormap, error))
    return FALSE;
  if (args->token < -1)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--token %d is out of range: a token index is 0 or more", args->token);
      return FALSE;
    }
  view->selected_token = args->no_outline ? -1 : args->token;
  view->annotate = (ArAnnotate) annotate;
  view->labels = (ArLabelMode) labels;
  view->alignment = (AsAlign) align;
  view->autoscale = args->autoscale || scale >= 1;
  view->autoscale_each = scale == 2;
  view->normalize_rows = args->normalize_rows;
  view->log_colors = args->log_colors;
  view->pool_words = args->words;
  view->pool_mean = args->pool_mean;
  view->no_space_marks = args->no_space_marks;
  view->raw_tokens = args->raw_tokens;

  if (preset >= 0)
    ar_export_options_set_preset (options, (ArExportPreset) preset);
  if (args->width != NULL
      && !ar_export_parse_width (args->width, &options->width_unit, &options->width, error))
    return FALSE;
  if (args->max_height != NULL && !parse_max_height (args->max_height, options, error))
    return FALSE;
  if (args->font_size != -1)
    options->font_size = args->font_size;
  if (args->dpi != -1)
    options->dpi = args->dpi;
  if (args->scale != -1)
    {
      if (!(args->scale >= AR_EXPORT_SCALE_MIN && args->scale <= AR_EXPORT_SCALE_MAX))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "--scale %g is out of range (expected %g to %g)", args->scale,
                       AR_EXPORT_SCALE_MIN, AR_EXPORT_SCALE_MAX);
          return FALSE;
        }
      options->dpi = AR_EXPORT_NATURAL_DPI * args->scale;
    }
  if (options->font_size != 0
      && !(options->font_size >= AR_EXPORT_FONT_MIN && options->font_size <= AR_EXPORT_FONT_MAX))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--font-size %g is out of range (expected %g to %g)", options->font_size,
                   AR_EXPORT_FONT_MIN, AR_EXPORT_FONT_MAX);
      return FALSE;
    }
  if (!(options->dpi >= AR_EXPORT_DPI_MIN && options->dpi <= AR_EXPORT_DPI_MAX))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "--dpi %g is out of range (expected %g to %g)",
                   options->dpi, AR_EXPORT_DPI_MIN, AR_EXPORT_DPI_MAX);
      return FALSE;
    }
  options->titles = !args->no_titles;
  options->svg_text = args->svg_text;
  options->title = args->title;
  options->subtitle = args->subtitle;
  return TRUE;
}

/* Appends OPTION and, when not NULL, VALUE (copied). */
static void
add (GPtrArray *argv, const char *option, const char *value)
{
  g_ptr_array_add (argv, g_strdup (option));
  if (value != NULL)
    g_ptr_array_add (argv, g_strdup (value));
}

/* A number as the command line reads it (C locale, no trailing zeros). Newly allocated. */
static char *
number (double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_dtostr (buf, sizeof buf, value));
}

void
export_args_append (GPtrArray *argv, const ArViewSelection *view, const ArExportOptions *o)
{
  ArViewSelection d;
  ar_view_selection_init (&d);
  if (view->selected_token >= 0)
    {
      g_autofree char *token = g_strdup_printf ("%d", view->selected_token);
      add (argv, "--token", token);
    }
  if (view->colormap != d.colormap)
    add (argv, "--colormap", ar_colormap_to_string (view->colormap));
  if (view->annotate != d.annotate)
    add (argv, "--annotate", annotate_names[view->annotate]);
  if (view->autoscale)
    add (argv, "--color-scale", scale_names[view->autoscale_each ? 2 : 1]);
  if (view->normalize_rows)
    add (argv, "--normalize-rows", NULL);
  if (view->log_colors)
    add (argv, "--log-colors", NULL);
  if (view->pool_words)
    add (argv, "--words", NULL);
  if (view->pool_mean)
    add (argv, "--pool-mean", NULL);
  if (view->labels != d.labels)
    add (argv, "--labels", label_names[view->labels]);
  if (view->no_space_marks)
    add (argv, "--no-space-marks", NULL);
  if (view->raw_tokens)
    add (argv, "--raw-tokens", NULL);
  if (view->alignment != d.alignment)
    add (argv, "--align", align_names[view->alignment]);
  if (view->segments != d.segments)
    add (argv, "--segments", ar_segments_to_string (view->segments));

  ArExportOptions n;
  ar_export_options_init (&n);
  if (o->width_unit != AR_WIDTH_NATURAL)
    {
      g_autofree char *w = number (o->width);
      g_autofree char *width = g_strconcat (w, o->width_unit == AR_WIDTH_MM ? "mm" : "px", NULL);
      add (argv, "--width", width);
    }
  if (o->max_height > 0 && o->width_unit != AR_WIDTH_NATURAL)
    {
      g_autofree char *h = number (o->max_height);
      g_autofree char *height = g_strconcat (h, "mm", NULL);
      add (argv, "--max-height", height);
    }
  if (o->font_size > 0)
    {
      g_autofree char *pt = number (o->font_size);
      add (argv, "--font-size", pt);
    }
  if (o->dpi != n.dpi)
    {
      g_autofree char *dpi = number (o->dpi);
      add (argv, "--dpi", dpi);
    }
  if (o->svg_text)
    add (argv, "--svg-text", NULL);
  if (!o->titles)
    add (argv, "--no-titles", NULL);
  else
    {
      if (o->title != NULL)
        add (argv, "--title", o->title);
      if (o->subtitle != NULL)
        add (argv, "--subtitle", o->subtitle);
    }
}
