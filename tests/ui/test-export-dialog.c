/* test-export-dialog.c — the window's "Export Figure" dialog writes what it says, checked in the
 * files it writes:
 * - each format: the file has the chosen format (its magic bytes) and the name's extension
 *   follows the format choice;
 * - a PDF 85 mm wide with 8 pt text: pdfinfo's page width is 85 mm in points, and the text
 *   matrices in the page's content stream give the font sizes: tick labels 8 pt, the title 4/3
 *   of it, nothing smaller than 7/8 of it;
 * - a PNG at 300 dpi: 85 mm is 1004 pixels wide and its pHYs chunk says 11811 pixels per metre;
 * - the subtitle is the text the data came from, and a cleared entry leaves no figure;
 * - readable tokens: "猫 é 👍" is drawn with the three characters, without byte mojibake;
 * - the selected token's outline is left out when asked (the drawing differs only then);
 * - the dialog remembers its folder and its choices for the next export.
 *
 * The real window under Xvfb on the tiny GPT-2 fixture (byte-level BPE, 2 layers, 2 heads). */
#define _GNU_SOURCE /* memmem */
#include <adwaita.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "attnscope-export-dialog.h"
#include "gui-test-util.h"
#include "check-close.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"
#define MM_TO_PT(mm) ((mm) / 25.4 * 72.0)

static AttnscopeWindow *window;
static char *tmpdir;

static AttnscopePage *
attention_page (void)
{
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  return page;
}

static AttnscopeExportDialog *
new_dialog (const char *name, ArExportFormat format)
{
  AttnscopeExportDialog *d = attnscope_export_dialog_new (window, attention_page ());
  attnscope_export_dialog_set_folder (d, tmpdir);
  attnscope_export_dialog_set_name (d, name);
  attnscope_export_dialog_set_format (d, format);
  attnscope_export_dialog_set_sidecar (d, FALSE);
  return d;
}

/* Exports with D and closes it; returns the path written. */
static char *export(AttnscopeExportDialog *d)
{
  char *path = attnscope_export_dialog_dup_path (d);
  g_autoptr (GError) error = NULL;
  gboolean ok = attnscope_export_dialog_export (d, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  gui_test_destroy_window (GTK_WINDOW (d), FALSE, TIMEOUT_MS);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  return path;
}

/* The standard output of ARGV; the test is skipped (NULL) when the tool is missing. */
static char *
run_tool (const char *tool, const char *arg)
{
  g_autofree char *exe = g_find_program_in_path (tool);
  if (exe == NULL)
    {
      g_test_skip ("poppler-utils is not installed; bash .ci/install-deps test");
      return NULL;
    }
  const char *argv[] = { exe, arg, "-", NULL };
  if (g_str_equal (tool, "pdfinfo"))
    argv[2] = NULL;
  char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  g_free (err);
  return out;
}

/* Every text size in the PDF's content streams: the scale of each "a 0 0 -a x y Tm" (cairo sets
 * the font size in the text matrix and uses "1 Tf"), inflated with zlib. */
static GArray *
pdf_font_sizes (GBytes *pdf)
{
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (double));
  gsize n;
  const char *data = g_bytes_get_data (pdf, &n);
  g_autoptr (GRegex) stream = g_regex_new ("(?<!end)stream\r?\n", G_REGEX_RAW, 0, NULL);
  g_autoptr (GRegex) tm
      = g_regex_new ("([0-9.]+) 0 0 -([0-9.]+) [-0-9.]+ [-0-9.]+ Tm", G_REGEX_RAW, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_regex_match_full (stream, data, (gssize) n, 0, 0, &m, NULL);
  while (g_match_info_matches (m))
    {
      int start, end;
      g_match_info_fetch_pos (m, 0, &start, &end);
      /* memmem: the compressed stream holds NUL bytes, where a string search would stop */
      const char *stop = memmem (data + end, n - (gsize) end, "endstream", 9);
      g_assert_nonnull (stop);
      g_autoptr (GConverter) z
          = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_ZLIB));
      gsize in_len = (gsize) (stop - (data + end)), out_cap = in_len * 40 + 4096, read, written;
      g_autofree char *out = g_malloc (out_cap + 1);
      GConverterResult r = g_converter_convert (z, data + end, in_len, out, out_cap,
                                                G_CONVERTER_INPUT_AT_END, &read, &written, NULL);
      if (r == G_CONVERTER_FINISHED || r == G_CONVERTER_CONVERTED)
        {
          out[written] = '\0';
          g_autoptr (GMatchInfo) t = NULL;
          g_regex_match_full (tm, out, (gssize) written, 0, 0, &t, NULL);
          while (g_match_info_matches (t))
            {
              g_autofree char *a = g_match_info_fetch (t, 1);
              double v = g_ascii_strtod (a, NULL);
              g_array_append_val (sizes, v);
              g_match_info_next (t, NULL);
            }
        }
      g_match_info_next (m, NULL);
    }
  return sizes;
}

static int
count_near (GArray *sizes, double value)
{
  int k = 0;
  for (guint i = 0; i < sizes->len; i++)
    k += fabs (g_array_index (sizes, double, i) - value) < 0.01;
  return k;
}

/* The PNG's pixel size and pHYs pixels per metre (0 when absent). */
static void
png_info (GBytes *png, int *width, int *height, guint32 *ppm_x, guint32 *ppm_y)
{
  gsize n;
  const guint8 *p = g_bytes_get_data (png, &n);
  g_assert_cmpuint (n, >, 33);
  g_assert_cmpmem (p, 8, "\x89PNG\r\n\x1a\n", 8);
  *ppm_x = *ppm_y = 0;
  for (gsize at = 8; at + 12 <= n;)
    {
      guint32 len = (guint32) p[at] << 24 | (guint32) p[at + 1] << 16 | (guint32) p[at + 2] << 8
                    | p[at + 3];
      const guint8 *type = p + at + 4, *body = p + at + 8;
      if (memcmp (type, "IHDR", 4) == 0)
        {
          *width = (int) ((guint32) body[0] << 24 | (guint32) body[1] << 16 | (guint32) body[2] << 8
                          | body[3]);
          *height = (int) ((guint32) body[4] << 24 | (guint32) body[5] << 16
                           | (guint32) body[6] << 8 | body[7]);
        }
      else if (memcmp (type, "pHYs", 4) == 0)
        {
          *ppm_x = (guint32) body[0] << 24 | (guint32) body[1] << 16 | (guint32) body[2] << 8
                   | body[3];
          *ppm_y = (guint32) body[4] << 24 | (guint32) body[5] << 16 | (guint32) body[6] << 8
                   | body[7];
          g_assert_cmpuint (body[8], ==, 1); /* the unit is the metre */
        }
      at += 12 + (gsize) len;
    }
}

/* The format choice decides the file's format and its name's extension. */
static void
test_formats (void)
{
  const struct
  {
    ArExportFormat format;
    const char *ext, *magic;
  } cases[] = {
    { AR_EXPORT_PNG, ".png", "\x89PNG" },
    { AR_EXPORT_SVG, ".svg", "<?xml" },
    { AR_EXPORT_PDF, ".pdf", "%PDF-" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* The name was typed with another extension: the format choice wins. */
      AttnscopeExportDialog *d = new_dialog ("figure.png", AR_EXPORT_PDF);
      attnscope_export_dialog_set_format (d, cases[i].format);
      g_autofree char *want = g_strconcat ("figure", cases[i].ext, NULL);
      g_assert_cmpstr (attnscope_export_dialog_get_name (d), ==, want);
      g_autofree char *path = export(d);
      g_assert_true (g_str_has_suffix (path, want));
      g_autoptr (GBytes) data = gui_test_read_file (path);
      g_assert_cmpmem (g_bytes_get_data (data, NULL), strlen (cases[i].magic), cases[i].magic,
                       strlen (cases[i].magic));
      g_unlink (path);
    }
}

/* 85 mm and 8 pt in a PDF: the page is 240.94 pt wide and the tick labels are 8 pt. */
static void
test_pdf_width_and_font (void)
{
  AttnscopeExportDialog *d = new_dialog ("column", AR_EXPORT_PDF);
  attnscope_export_dialog_set_width (d, 85, AR_WIDTH_MM);
  attnscope_export_dialog_set_font_size (d, 8);
  g_autofree char *path = export(d);
  g_autofree char *info = run_tool ("pdfinfo", path);
  if (info == NULL)
    return;
  const char *line = strstr (info, "Page size:");
  g_assert_nonnull (line);
  double w = 0, h = 0;
  g_assert_cmpint (sscanf (line, "Page size: %lf x %lf pts", &w, &h), ==, 2);
  g_assert_cmpfloat_with_epsilon (w, MM_TO_PT (85), 0.01);
  g_assert_cmpfloat (h, >, 100);

  g_autoptr (GBytes) pdf = gui_test_read_file (path);
  g_autoptr (GArray) sizes = pdf_font_sizes (pdf);
  for (guint i = 0; i < sizes->len; i++)
    g_test_message ("text size %u: %.3f", i, g_array_index (sizes, double, i));
  /* cairo sets the size once per run of text in one font, not once per label */
  g_assert_cmpuint (sizes->len, >=, 5);
  double lo = INFINITY, hi = 0;
  for (guint i = 0; i < sizes->len; i++)
    {
      lo = MIN (lo, g_array_index (sizes, double, i));
      hi = MAX (hi, g_array_index (sizes, double, i));
    }
  /* The token labels are 8 pt, the title 4/3 of it, nothing below 7 pt (the colour bar's ticks). */
  g_assert_cmpint (count_near (sizes, 8.0), >=, 1);
  g_assert_cmpfloat_with_epsilon (hi, 8.0 * 4 / 3, 0.01);
  g_assert_cmpfloat (lo, >=, 7.0 - 0.01);
  g_unlink (path);
}

/* A PNG 85 mm wide at 300 dpi: 1004 pixels, and the file says 300 dpi. */
static void
test_png_dpi (void)
{
  AttnscopeExportDialog *d = new_dialog ("print", AR_EXPORT_PNG);
  attnscope_export_dialog_set_width (d, 85, AR_WIDTH_MM);
  attnscope_export_dialog_set_dpi (d, 300);
  g_autofree char *path = export(d);
  g_autoptr (GBytes) png = gui_test_read_file (path);
  int w = 0, h = 0;
  guint32 px, py;
  png_info (png, &w, &h, &px, &py);
  g_assert_cmpint (w, ==, (int) ceil (85 / 25.4 * 300 - 1e-6));
  g_assert_cmpuint (px, ==, (guint32) lround (300 / 0.0254));
  g_assert_cmpuint (py, ==, px);
  g_unlink (path);
}

/* The size presets: one column is 85 mm wide, two columns 175 mm (pdfinfo's page width), with
 * the preset's text size (8 and 9 pt tick labels). */
static void
test_presets (void)
{
  const struct
  {
    AttnscopeExportSize size;
    double mm, font;
  } presets[] = {
    { ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN, 85, 8 },
    { ATTNSCOPE_EXPORT_SIZE_TWO_COLUMNS, 175, 9 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      AttnscopeExportDialog *d = new_dialog ("preset", AR_EXPORT_PDF);
      attnscope_export_dialog_set_size (d, presets[i].size);
      ArExportOptions o;
      attnscope_export_dialog_get_options (d, &o);
      g_assert_cmpint (o.width_unit, ==, AR_WIDTH_MM);
      g_assert_cmpfloat (o.width, ==, presets[i].mm);
      g_assert_cmpfloat (o.font_size, ==, presets[i].font);
      g_autofree char *path = export(d);
      g_autofree char *info = run_tool ("pdfinfo", path);
      if (info == NULL)
        return;
      const char *line = strstr (info, "Page size:");
      g_assert_nonnull (line);
      double w = 0, h = 0;
      g_assert_cmpint (sscanf (line, "Page size: %lf x %lf pts", &w, &h), ==, 2);
      g_test_message ("preset %.0f mm: page %.2f × %.2f pt", presets[i].mm, w, h);
      g_assert_cmpfloat_with_epsilon (w, MM_TO_PT (presets[i].mm), 0.01);
      g_autoptr (GBytes) pdf = gui_test_read_file (path);
      g_autoptr (GArray) sizes = pdf_font_sizes (pdf);
      g_assert_cmpint (count_near (sizes, presets[i].font), >=, 1);
      g_unlink (path);
    }
}

/* The subtitle names the text the trace came from; clearing the entry leaves no figure to export
 * (the window shows its empty state), not the figure of a text no longer there. */
static void
test_subtitle_is_the_data (void)
{
  AttnscopeExportDialog *d = new_dialog ("typed", AR_EXPORT_PDF);
  g_autofree char *path = export(d);
  g_autofree char *text = run_tool ("pdftotext", path);
  attnscope_window_set_text (window, "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_null (
      attnscope_run_get_trace (attnscope_session_get_main (attnscope_window_get_session (window))));
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  ArFigure figure;
  g_assert_false (attnscope_page_get_figure (page, &figure));
  attnscope_window_set_text (window, TEXT);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  if (text == NULL)
    return;
  g_assert_nonnull (strstr (text, "“" TEXT "”"));
  g_unlink (path);
}

/* One column wide, a long text's subtitle wraps instead of being cut: the PDF holds all of it. */
static void
test_long_subtitle_wraps (void)
{
  const char *text = "The man hit the car and the car hit the man"; /* 23 tokens of 32 */
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeExportDialog *d = new_dialog ("long", AR_EXPORT_PDF);
  attnscope_export_dialog_set_size (d, ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN);
  g_autofree char *path = export(d);
  g_autofree char *out = run_tool ("pdftotext", path);
  attnscope_window_set_text (window, TEXT);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  if (out == NULL)
    return;
  /* pdftotext breaks the lines where the figure does: join them */
  g_autoptr (GRegex) space = g_regex_new ("\\s+", 0, 0, NULL);
  g_autofree char *joined = g_regex_replace_literal (space, out, -1, 0, " ", 0, NULL);
  g_test_message ("%s", joined);
  g_autofree char *quoted = g_strdup_printf ("“%s”", text);
  g_assert_nonnull (strstr (joined, quoted));
  g_assert_null (strstr (joined, "…”"));
  g_unlink (path);
}

/* "猫 é 👍": the byte-level tokens are drawn as the characters they encode. */
static void
test_readable_tokens (void)
{
  attnscope_window_set_text (window, "猫 é 👍");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  /* The fixture's BPE has no merges for these: one token per byte (tokenize gives ids 163 234
   * 104 220 127 102 220 172 253 239 235). Each character is shown once, on the token of its first
   * byte, "…" marking the tokens its bytes go on in; spaces are "␣". */
  const char *const want[] = { "猫…", "…", "…", "␣", "é…", "…", "␣", "👍…", "…", "…", "…" };
  const int parts[][3]
      = { /* token, part, of */
          { 0, 1, 3 }, { 1, 2, 3 }, { 2, 3, 3 }, { 4, 1, 2 }, { 5, 2, 2 }, { 7, 1, 4 }, { 10, 4, 4 }
        };
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  g_assert_cmpuint (attnscope_token_strip_get_n_chips (strip), ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpstr (attnscope_token_strip_get_chip_label (strip, i), ==, want[i]);
  const char *const split_chars[] = { "猫", "é", "👍" };
  for (gsize k = 0; k < G_N_ELEMENTS (parts); k++)
    {
      g_autofree char *tooltip = attnscope_token_strip_dup_chip_tooltip (strip, parts[k][0]);
      int c = parts[k][0] < 3 ? 0 : parts[k][0] < 7 ? 1 : 2;
      g_autofree char *says
          = g_strdup_printf ("part %d of %d of “%s”", parts[k][1], parts[k][2], split_chars[c]);
      g_assert_nonnull (strstr (tooltip, says));
    }
  /* A space token is no part of a character. */
  g_autofree char *space_tip = attnscope_token_strip_dup_chip_tooltip (strip, 3);
  g_assert_null (strstr (space_tip, "part "));
  /* The figure's tick labels are the same strings, on both axes. */
  AttnscopePage *page = attention_page ();
  ArFigure shown;
  g_assert_true (attnscope_page_get_figure (page, &shown));
  g_assert_cmpint (shown.kind, ==, AR_FIGURE_HEATMAP);
  g_assert_cmpint (shown.heatmap->n_rows, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_assert_cmpstr (shown.heatmap->row_labels[i], ==, want[i]);
      g_assert_cmpstr (shown.heatmap->col_labels[i], ==, want[i]);
    }
  /* Two columns wide, so that every one of the 11 tick labels is drawn (one column thins them). */
  AttnscopeExportDialog *d = new_dialog ("unicode", AR_EXPORT_PDF);
  attnscope_export_dialog_set_size (d, ATTNSCOPE_EXPORT_SIZE_TWO_COLUMNS);
  g_autofree char *path = export(d);
  g_autofree char *text = run_tool ("pdftotext", path);
  attnscope_window_set_text (window, TEXT);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  if (text == NULL)
    return;
  /* The subtitle once, and each character at least once more in the tick labels. */
  const char *chars[] = { "猫", "é", "👍" };
  for (gsize i = 0; i < G_N_ELEMENTS (chars); i++)
    {
      int k = 0;
      for (const char *p = strstr (text, chars[i]); p != NULL; p = strstr (p + 1, chars[i]))
        k++;
      g_assert_cmpint (k, >=, 2);
    }
  /* No byte-level mojibake: "ç" and "Ã" are what "猫" and "é" look like undecoded. */
  g_assert_null (strstr (text, "ç"));
  g_assert_null (strstr (text, "Ã"));
  g_assert_null (strstr (text, "Ġ"));
  g_unlink (path);
}

/* The outline of the selected token is drawn only when asked. */
static void
test_outline_choice (void)
{
  AttnscopeViewState *v = attnscope_session_get_view (attnscope_window_get_session (window));
  attnscope_view_state_set_selected_token (v, 2);
  AttnscopeExportDialog *d = new_dialog ("outline", AR_EXPORT_PNG);
  ArViewSelection view;
  attnscope_export_dialog_get_view (d, &view);
  gboolean outline_default = view.selected_token == 2;
  g_autofree char *with = NULL, *without = NULL;
  if (!outline_default)
    without = export(d);
  else
    with = export(d);
  /* The other choice, through the settings the dialog reads. */
  GSettings *settings = attnscope_application_get_settings (
      ATTNSCOPE_APPLICATION (gtk_window_get_application (GTK_WINDOW (window))));
  g_assert_nonnull (settings);
  g_settings_set_boolean (settings, "export-outline", !outline_default);
  d = new_dialog ("outline2", AR_EXPORT_PNG);
  attnscope_export_dialog_get_view (d, &view);
  g_assert_true ((view.selected_token == 2) == !outline_default);
  if (outline_default)
    without = export(d);
  else
    with = export(d);
  attnscope_view_state_set_selected_token (v, -1);
  g_autoptr (GBytes) a = gui_test_read_file (with), b = gui_test_read_file (without);
  g_assert_false (g_bytes_equal (a, b));
  /* Without a selection, the outline choice changes nothing. */
  d = new_dialog ("outline3", AR_EXPORT_PNG);
  g_autofree char *none = export(d);
  g_autoptr (GBytes) c = gui_test_read_file (none);
  g_assert_true (g_bytes_equal (b, c));
  g_settings_set_boolean (settings, "export-outline", FALSE);
  g_unlink (with);
  g_unlink (without);
  g_unlink (none);
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

/* "Editable text" writes an SVG's words as <text> and its sidecar says --svg-text; it is an SVG
 * choice only (off, and its row insensitive, for PNG and PDF). */
static void
test_svg_text (void)
{
  AttnscopeExportDialog *d = new_dialog ("editable", AR_EXPORT_SVG);
  attnscope_export_dialog_set_svg_text (d, TRUE);
  attnscope_export_dialog_set_sidecar (d, TRUE);
  ArExportOptions o;
  attnscope_export_dialog_get_options (d, &o);
  g_assert_true (o.svg_text);
  g_autofree char *svg = export(d);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<text"));
  g_assert_null (strstr (text, "glyph"));
  g_autofree char *json = g_strconcat (svg, ".json", NULL);
  g_autofree char *sidecar = NULL;
  /* the sidecar comes once the weights' SHA-256 is computed, in the background */
  g_assert_true (gui_test_wait_until (file_exists, json, TIMEOUT_MS));
  g_assert_true (g_file_get_contents (json, &sidecar, NULL, NULL));
  g_assert_nonnull (strstr (sidecar, "\"--svg-text\""));

  d = new_dialog ("not-svg", AR_EXPORT_PNG);
  attnscope_export_dialog_set_svg_text (d, TRUE);
  attnscope_export_dialog_get_options (d, &o);
  g_assert_false (o.svg_text);
  attnscope_export_dialog_set_svg_text (d, FALSE);
  gtk_window_destroy (GTK_WINDOW (d));
  g_unlink (svg);
  g_unlink (json);
}

/* The next dialog opens in the folder and with the choices of the last export. */
static void
test_remembers (void)
{
  g_autofree char *sub = g_build_filename (tmpdir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  AttnscopeExportDialog *d = attnscope_export_dialog_new (window, attention_page ());
  attnscope_export_dialog_set_folder (d, sub);
  attnscope_export_dialog_set_name (d, "remembered");
  attnscope_export_dialog_set_format (d, AR_EXPORT_SVG);
  attnscope_export_dialog_set_width (d, 120, AR_WIDTH_MM);
  attnscope_export_dialog_set_font_size (d, 9);
  attnscope_export_dialog_set_sidecar (d, FALSE);
  attnscope_export_dialog_set_colors (d, ATTNSCOPE_EXPORT_COLORS_EACH);
  attnscope_export_dialog_set_labels (d, AR_LABELS_WORDS);
  attnscope_export_dialog_set_space_marks (d, FALSE);
  attnscope_export_dialog_set_titles (d, FALSE);
  g_autofree char *path = export(d);

  d = attnscope_export_dialog_new (window, attention_page ());
  g_autofree char *next = attnscope_export_dialog_dup_path (d);
  g_autofree char *dir = g_path_get_dirname (next);
  g_assert_cmpstr (dir, ==, sub);
  g_assert_true (g_str_has_suffix (next, ".svg"));
  ArExportOptions o;
  attnscope_export_dialog_get_options (d, &o);
  g_assert_cmpint (o.width_unit, ==, AR_WIDTH_MM);
  g_assert_cmpfloat (o.width, ==, 120);
  g_assert_cmpfloat (o.font_size, ==, 9);
  g_assert_false (o.titles);
  ArViewSelection view;
  attnscope_export_dialog_get_view (d, &view);
  g_assert_true (view.autoscale && view.autoscale_each);
  g_assert_cmpint (view.labels, ==, AR_LABELS_WORDS);
  g_assert_true (view.no_space_marks);
  /* and back to the defaults for the cases that follow */
  attnscope_export_dialog_set_colors (d, ATTNSCOPE_EXPORT_COLORS_VIEW);
  attnscope_export_dialog_set_labels (d, AR_LABELS_THINNED);
  attnscope_export_dialog_set_space_marks (d, TRUE);
  attnscope_export_dialog_set_titles (d, TRUE);
  attnscope_export_dialog_set_size (d, ATTNSCOPE_EXPORT_SIZE_SCREEN);
  attnscope_export_dialog_set_format (d, AR_EXPORT_PNG);
  attnscope_export_dialog_set_name (d, "reset");
  g_autofree char *reset = export(d);
  g_unlink (reset);
  d = attnscope_export_dialog_new (window, attention_page ());
  attnscope_export_dialog_get_view (d, &view);
  g_assert_false (view.no_space_marks);
  g_assert_cmpint (view.labels, ==, AR_LABELS_THINNED);
  gtk_window_destroy (GTK_WINDOW (d));
  g_unlink (path);
  g_rmdir (sub);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autofree char *fixture = gui_test_fixture_path ("tiny-gpt2");
  tmpdir = g_dir_make_tmp ("attnscope-export-dialog-XXXXXX", NULL);
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);

  g_test_add_func ("/ui/export-dialog/formats", test_formats);
  g_test_add_func ("/ui/export-dialog/pdf-width-font", test_pdf_width_and_font);
  g_test_add_func ("/ui/export-dialog/png-dpi", test_png_dpi);
  g_test_add_func ("/ui/export-dialog/presets", test_presets);
  g_test_add_func ("/ui/export-dialog/subtitle", test_subtitle_is_the_data);
  g_test_add_func ("/ui/export-dialog/long-subtitle-wraps", test_long_subtitle_wraps);
  g_test_add_func ("/ui/export-dialog/readable-tokens", test_readable_tokens);
  g_test_add_func ("/ui/export-dialog/outline", test_outline_choice);
  g_test_add_func ("/ui/export-dialog/svg-text", test_svg_text);
  g_test_add_func ("/ui/export-dialog/remembers", test_remembers);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
