/* test-export.c — figures written to PNG, SVG and PDF files (ui/render/figure-export.h): valid
 * files of the expected size for every scale, the PNG identical pixel for pixel to the same
 * figure drawn directly into an image surface (what the widgets show), atomic writes that leave
 * nothing behind on failure, errors that name the path, a PDF whose document information
 * names the figure (title, subject, author, creator), and the CLI's seed figure equal to the
 * library's drawing of the seed with the cell colours of the published attention weights. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "check-close.h"
#include "figure-export.h"
#include "render-fixtures.h"
#include "token-label.h"

static char *
tmp_file (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

/* Asserts A and B hold the same pixels (same size, every byte of every row). */
static void
assert_same_pixels (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  int differing = 0;
  for (int y = 0; y < h; y++)
    {
      const unsigned char *ra
          = cairo_image_surface_get_data (a) + (gsize) y * cairo_image_surface_get_stride (a);
      const unsigned char *rb
          = cairo_image_surface_get_data (b) + (gsize) y * cairo_image_surface_get_stride (b);
      if (memcmp (ra, rb, (gsize) w * 4) != 0)
        differing++;
    }
  g_test_message ("%d x %d pixels, %d differing rows", w, h, differing);
  g_assert_cmpint (differing, ==, 0);
}

static cairo_surface_t *
read_png (const char *path)
{
  cairo_surface_t *image = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  return image;
}

/* Exports FIGURE as PNG at SCALE and compares the file with a direct drawing. */
static void
check_png_matches_direct (const ArFigure *figure, double scale, const char *name)
{
  g_autofree char *path = tmp_file (name);
  GError *error = NULL;
  g_assert_true (ar_figure_export (figure, path, scale, &error));
  g_assert_no_error (error);
  double w, h;
  ar_figure_get_size (figure, &w, &h);
  cairo_surface_t *file = read_png (path);
  g_assert_cmpint (cairo_image_surface_get_width (file), ==, (int) ceil (w * scale));
  g_assert_cmpint (cairo_image_surface_get_height (file), ==, (int) ceil (h * scale));
  cairo_surface_t *direct = draw_figure (figure, w, h, scale);
  assert_same_pixels (file, direct);
  cairo_surface_destroy (file);
  cairo_surface_destroy (direct);
}

static void
test_png_scales (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a2_head0);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  double w, h;
  ar_figure_get_size (&figure, &w, &h);
  g_assert_cmpfloat (w, ==, floor (w));
  const double scales[] = { 1, 2, 4 };
  for (gsize i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      g_autofree char *name = g_strdup_printf ("seed-x%g.png", scales[i]);
      check_png_matches_direct (&figure, scales[i], name);
      int pw, ph;
      ar_figure_get_pixel_size (&figure, scales[i], &pw, &ph);
      g_assert_cmpint (pw, ==, (int) (w * scales[i]));
      g_assert_cmpint (ph, ==, (int) (h * scales[i]));
    }
}

static void
test_png_every_kind (void)
{
  /* Grid, scatter, line chart and comparison go through the same path. */
  float attn[2 * 2 * 6 * 6]; /* [2][2][6][6] */
  for (int e = 0; e < 4; e++)
    memcpy (attn + e * 36, e % 2 ? seed_a2_head0 : seed_a1_attention, sizeof seed_a1_attention);
  AsHeadPattern patterns[4] = { AS_HEAD_PATTERN_MIXED, AS_HEAD_PATTERN_FIRST, AS_HEAD_PATTERN_SELF,
                                AS_HEAD_PATTERN_PREVIOUS };
  ArGridFigure grid;
  ar_grid_figure_init (&grid);
  grid.title = "All heads";
  grid.n_layers = grid.n_heads = 2;
  grid.n_tokens = 6;
  grid.attn = attn;
  grid.patterns = patterns;
  ArFigure figure = ar_figure_from_grid (&grid);
  check_png_matches_direct (&figure, 2, "grid.png");

  const float xy[] = { 0, 0, 1, 2, -1, 0.5f };
  const char *labels[] = { "a", "b", "c" };
  ArScatterFigure scatter;
  ar_scatter_figure_init (&scatter);
  scatter.n_points = 3;
  scatter.xy = xy;
  scatter.labels = labels;
  figure = ar_figure_from_scatter (&scatter);
  check_png_matches_direct (&figure, 1, "scatter.png");

  const double values[] = { 1, 0.8, 0.5 };
  ArLineFigure lines;
  ar_line_figure_init (&lines);
  lines.n_series = 1;
  lines.n_x = 3;
  lines.values = values;
  figure = ar_figure_from_lines (&lines);
  check_png_matches_direct (&figure, 1, "lines.png");

  ArHeatmapFigure a, b;
  seed_heatmap (&a, seed_a1_attention);
  seed_heatmap (&b, seed_a2_head0);
  ArCompareFigure compare
      = { .title = "A and B", .note = "no difference", .a = &a, .b = &b, .chart = &lines };
  figure = ar_figure_from_compare (&compare);
  check_png_matches_direct (&figure, 1, "compare.png");
}

static void
test_svg (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a1_attention);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  double w, h;
  ar_figure_get_size (&figure, &w, &h);
  g_autofree char *path = tmp_file ("seed.SVG");
  GError *error = NULL;
  g_assert_true (ar_figure_export (&figure, path, 4, &error)); /* scale does not apply */
  g_assert_no_error (error);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_autofree char *size = g_strdup_printf ("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                                           "xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
                                           "width=\"%g\" height=\"%g\" viewBox=\"0 0 %g %g\"",
                                           w, h, w, h);
  g_test_message ("looking for %s", size);
  g_assert_nonnull (strstr (text, size));
  g_assert_nonnull (strstr (text, "</svg>"));
  /* Cells are vector rectangles in the map's colours: cell (0,0) 0.3388 -> #95d5b9. */
  g_assert_nonnull (strstr (text, "rgb(58.431373%,83.529412%,72.54902%)"));

  /* An independent SVG reader (librsvg) renders it at the same size, the cell in its colour. */
  g_autofree char *rsvg = g_find_program_in_path ("rsvg-convert");
  if (rsvg == NULL)
    {
      g_test_skip ("rsvg-convert (librsvg2-bin) is not installed; bash .ci/install-deps test");
      return;
    }
  g_autofree char *png = tmp_file ("seed-from-svg.png");
  const char *argv[] = { rsvg, "--dpi-x", "96", "--dpi-y", "96", "-o", png, path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  cairo_surface_t *image = read_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, (int) w);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, (int) h);
  double x, y, cw, ch;
  ar_heatmap_get_cell_rect (&fig, w, h, 0, 0, &x, &y, &cw, &ch);
  assert_pixel (image, (int) x + 3, (int) y + 3, (ArColor8){ 149, 213, 185 }, "svg cell (0, 0)");
  cairo_surface_destroy (image);
}

/* The text of every <text> element of an SVG document, and how many there are. */
typedef struct
{
  GString *texts; /* each element's text, one per line */
  int elements;
  gboolean in_text;
} SvgTexts;

static void
svg_start (GMarkupParseContext *context, const char *name, const char **names, const char **values,
           gpointer user_data, GError **error)
{
  SvgTexts *t = user_data;
  if (g_str_equal (name, "text"))
    t->in_text = TRUE, t->elements++;
}

static void
svg_end (GMarkupParseContext *context, const char *name, gpointer user_data, GError **error)
{
  SvgTexts *t = user_data;
  if (g_str_equal (name, "text"))
    t->in_text = FALSE, g_string_append_c (t->texts, '\n');
}

static void
svg_chars (GMarkupParseContext *context, const char *text, gsize length, gpointer user_data,
           GError **error)
{
  SvgTexts *t = user_data;
  if (t->in_text)
    g_string_append_len (t->texts, text, (gssize) length);
}

/* Parses the SVG document TEXT (asserting it is well-formed XML) and collects its <text>. */
static void
read_svg_texts (const char *text, SvgTexts *t)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_chars, NULL, NULL };
  *t = (SvgTexts){ .texts = g_string_new (NULL) };
  /* (GMarkup reads no XML declaration: skip it) */
  const char *root = strstr (text, "<svg");
  g_assert_nonnull (root);
  GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, t, NULL);
  GError *error = NULL;
  g_assert_true (g_markup_parse_context_parse (context, root, -1, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_markup_parse_context_free (context);
}

/* The share of pixels of A and B (same size) whose channels differ by more than 96. */
static double
share_differing (cairo_surface_t *a, cairo_surface_t *b)
{
  int w = cairo_image_surface_get_width (a), h = cairo_image_surface_get_height (a);
  g_assert_cmpint (cairo_image_surface_get_width (b), ==, w);
  g_assert_cmpint (cairo_image_surface_get_height (b), ==, h);
  long differing = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const guint8 *pa = cairo_image_surface_get_data (a)
                           + (gsize) y * cairo_image_surface_get_stride (a) + (gsize) x * 4;
        const guint8 *pb = cairo_image_surface_get_data (b)
                           + (gsize) y * cairo_image_surface_get_stride (b) + (gsize) x * 4;
        for (int c = 0; c < 4; c++)
          if (abs (pa[c] - pb[c]) > 96)
            {
              differing++;
              break;
            }
      }
  return (double) differing / ((double) w * h);
}

/* Renders the SVG file PATH to a PNG with librsvg (an independent reader). */
static cairo_surface_t *
rsvg_render (const char *rsvg, const char *path, const char *name)
{
  g_autofree char *png = tmp_file (name);
  const char *argv[] = { rsvg, "--dpi-x", "96", "--dpi-y", "96", "-o", png, path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  return read_png (png);
}

/* With svg_text the SVG's words are <text> elements an editor can change, in the figure's font,
 * and no glyph outlines; drawn by librsvg it looks like the outlined SVG. */
static void
test_svg_text (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a1_attention);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_autofree char *outlined = tmp_file ("outlined.svg");
  g_autofree char *texted = tmp_file ("texted.svg");
  GError *error = NULL;
  g_assert_true (
      ar_figure_export_with_options (&figure, outlined, &options, AS_OUTPUT_DEFAULT, &error));
  options.svg_text = TRUE;
  g_assert_true (
      ar_figure_export_with_options (&figure, texted, &options, AS_OUTPUT_DEFAULT, &error));
  g_assert_no_error (error);
  g_autofree char *a = NULL, *b = NULL;
  g_assert_true (g_file_get_contents (outlined, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (texted, &b, NULL, NULL));
  SvgTexts none, some;
  read_svg_texts (a, &none);
  read_svg_texts (b, &some);
  g_assert_cmpint (none.elements, ==, 0);
  g_assert_nonnull (strstr (a, "glyph"));
  g_assert_null (strstr (b, "glyph"));
  g_test_message ("%d text elements:\n%s", some.elements, some.texts->str);
  /* the title, every row and column label, the colour bar's ticks and each cell's value */
  g_assert_cmpint (some.elements, >=, 1 + 2 * fig.n_rows + fig.n_rows * (fig.n_rows + 1) / 2);
  g_autofree char *title_line = g_strconcat (fig.title, "\n", NULL);
  g_assert_nonnull (strstr (some.texts->str, title_line));
  g_assert_nonnull (strstr (some.texts->str, "\n0.34\n"));
  g_assert_nonnull (strstr (b, "font-family=\"'DejaVu Sans', sans-serif\""));
  g_string_free (none.texts, TRUE);
  g_string_free (some.texts, TRUE);

  g_autofree char *rsvg = g_find_program_in_path ("rsvg-convert");
  if (rsvg == NULL)
    {
      g_test_skip ("rsvg-convert (librsvg2-bin) is not installed; bash .ci/install-deps test");
      return;
    }
  cairo_surface_t *pa = rsvg_render (rsvg, outlined, "outlined.png");
  cairo_surface_t *pb = rsvg_render (rsvg, texted, "texted.png");
  double share = share_differing (pa, pb);
  g_test_message ("%.3f %% of the pixels differ", 100 * share);
  g_assert_cmpfloat (share, <, 0.001);
  cairo_surface_destroy (pa);
  cairo_surface_destroy (pb);
}

static void
test_pdf (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a1_attention);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  double w, h;
  ar_figure_get_size (&figure, &w, &h);
  g_autofree char *path = tmp_file ("seed.pdf");
  GError *error = NULL;
  g_assert_true (ar_figure_export (&figure, path, 1, &error));
  g_assert_no_error (error);
  g_autofree char *data = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpuint (length, >, 1000);
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  /* The trailer: the file ends with "%%EOF" and a line break. */
  g_assert_nonnull (strstr (data + length - 8, "%%EOF"));

  g_autofree char *pdfinfo = g_find_program_in_path ("pdfinfo");
  if (pdfinfo == NULL)
    {
      g_test_skip ("pdfinfo (poppler-utils) is not installed; bash .ci/install-deps test");
      return;
    }
  const char *argv[] = { pdfinfo, path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "Pages:           1\n"));
  g_autofree char *size = g_strdup_printf ("Page size:       %g x %g pts", w, h);
  g_assert_nonnull (strstr (out, size));
  /* The document information names the figure: its title, its subtitle as the subject. */
  g_assert_nonnull (strstr (out, "Title:           Layer 0 \u00b7 head 0\n"));
  g_assert_nonnull (strstr (out, "Subject:         seed-two-heads \u00b7 \u201cMay the force be "
                                 "with you\u201d\n"));
  g_assert_nonnull (strstr (out, "Creator:         attnscope\n"));
  const char *author = g_get_real_name ();
  if (*author != '\0' && !g_str_equal (author, "Unknown"))
    {
      g_autofree char *line = g_strdup_printf ("Author:          %s\n", author);
      g_assert_nonnull (strstr (out, line));
    }

  /* Titles left out of the drawing, or replaced: the metadata follows what the options say. */
  ArExportOptions options;
  ar_export_options_init (&options);
  options.title = "Attention of layer 0";
  g_assert_true (
      ar_figure_export_with_options (&figure, path, &options, AS_OUTPUT_DEFAULT, &error));
  g_assert_no_error (error);
  g_autofree char *out2 = NULL, *err2 = NULL;
  g_assert_cmpint (test_spawn (argv, &out2, &err2), ==, 0);
  g_assert_nonnull (strstr (out2, "Title:           Attention of layer 0\n"));
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in DIR (sorted, joined by spaces). */
static char *
list_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const char *n = g_dir_read_name (d); n != NULL; n = g_dir_read_name (d))
    g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
test_errors_and_atomic_writes (void)
{
  ArHeatmapFigure fig;
  seed_heatmap (&fig, seed_a1_attention);
  ArFigure figure = ar_figure_from_heatmap (&fig);
  g_autofree char *dir = tmp_file ("atomic");
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  GError *error = NULL;

  /* Unknown and missing extensions. */
  g_autofree char *jpg = g_build_filename (dir, "fig.jpg", NULL);
  g_assert_false (ar_figure_export (&figure, jpg, 1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, jpg));
  g_assert_nonnull (strstr (error->message, "'.jpg'"));
  g_clear_error (&error);
  g_autofree char *bare = g_build_filename (dir, "figure", NULL);
  g_assert_false (ar_figure_export (&figure, bare, 1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);

  /* A folder that does not exist, and a "folder" that is a file. */
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "fig.png", NULL);
  g_assert_false (ar_figure_export (&figure, missing, 1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);
  g_autofree char *file = g_build_filename (dir, "plain", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  g_autofree char *under_file = g_build_filename (file, "fig.pdf", NULL);
  g_assert_false (ar_figure_export (&figure, under_file, 1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_clear_error (&error);

  /* A scale out of range fails before anything is written. */
  g_autofree char *png = g_build_filename (dir, "fig.png", NULL);
  g_assert_false (ar_figure_export (&figure, png, 100, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);

  /* Renaming over a folder fails after the temporary file was written: it must be gone. */
  g_autofree char *blocker = g_build_filename (dir, "taken.svg", NULL);
  g_assert_cmpint (g_mkdir (blocker, 0755), ==, 0);
  g_assert_false (ar_figure_export (&figure, blocker, 1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_IO);
  g_assert_nonnull (strstr (error->message, blocker));
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  g_autofree char *names = list_dir (dir);
  g_assert_cmpstr (names, ==, "plain taken.svg");

  /* Success replaces an existing file as a whole and leaves no temporary file. */
  g_assert_true (g_file_set_contents (png, "old", 3, NULL));
  g_assert_true (ar_figure_export (&figure, png, 1, &error));
  g_assert_no_error (error);
  g_autofree char *after = list_dir (dir);
  g_assert_cmpstr (after, ==, "fig.png plain taken.svg");
  cairo_surface_t *image = read_png (png);
  cairo_surface_destroy (image);
}

/* The CLI's seed figure: the PNG `attnscope export` writes equals the library's drawing of the
 * seed heatmap built from the model's own trace, and its cells have the colours of the
 * published attention weights of head 0 (tests/README.md, "Published values"). */
static void
test_cli_seed_matches_render (void)
{
  g_autofree char *path = tmp_file ("cli-seed.png");
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "export",
                         "--model",
                         "seed-two-heads",
                         "--text",
                         "May the force be with you",
                         "--layer",
                         "0",
                         "--head",
                         "0",
                         "-o",
                         path,
                         "--scale",
                         "2",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);

  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load ("seed-two-heads", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) trace
      = as_forward_text (model, "May the force be with you", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->n_tokens, ==, 6);
  g_auto (GStrv) labels = ar_token_labels_from_trace (trace, FALSE);
  ArHeatmapFigure fig;
  seed_heatmap (&fig, as_trace_attn_matrices (trace, 0, 0));
  fig.row_labels = fig.col_labels = (const char *const *) labels;
  ArFigure figure = ar_figure_from_heatmap (&fig);
  double w, h;
  ar_figure_get_size (&figure, &w, &h);

  cairo_surface_t *file = read_png (path);
  cairo_surface_t *direct = draw_figure (&figure, w, h, 2);
  assert_same_pixels (file, direct);
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++)
      {
        double x, y, cw, ch;
        ar_heatmap_get_cell_rect (&fig, w, h, i, j, &x, &y, &cw, &ch);
        ArColor8 want = ar_colormap_color (AR_COLORMAP_YLGNBU, seed_a2_head0[i * 6 + j], 0, 1);
        assert_pixel (file, (int) (2 * x + 4), (int) (2 * y + 4), want, "seed head 0 cell");
      }
  cairo_surface_destroy (file);
  cairo_surface_destroy (direct);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/export/png/scales", test_png_scales);
  g_test_add_func ("/ui/export/png/every-kind", test_png_every_kind);
  g_test_add_func ("/ui/export/svg", test_svg);
  g_test_add_func ("/ui/export/svg-text", test_svg_text);
  g_test_add_func ("/ui/export/pdf", test_pdf);
  g_test_add_func ("/ui/export/errors-and-atomic-writes", test_errors_and_atomic_writes);
  g_test_add_func ("/ui/export/cli-seed-matches-render", test_cli_seed_matches_render);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
