/* test-cli-export.c — `attnscope export` as a user runs it: the seed figure to PNG, SVG and PDF,
 * the scale, the all-heads grid, the layer mean, rollout, a comparison with and without a
 * difference panel, raw tokens; and every bad input with its exit code, one error line and no
 * file left behind. Runs $ATTNSCOPE_BIN on the shipped seed-two-heads model and the tiny GPT-2
 * fixture. (Pixel-level checks of the same figures are in tests/ui.) */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

#define SEED_TEXT "May the force be with you"

static char *tiny;

/* Runs `attnscope export` with the NULL-terminated arguments. */
static Run
run_export (const char *first, ...)
{
  const char *prefix[] = { "export", NULL };
  va_list ap;
  va_start (ap, first);
  Run r = run_cli_valist (prefix, first, ap);
  va_end (ap);
  return r;
}

static char *
out_path (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

/* The width and height in a PNG's IHDR chunk (after checking the signature). */
static void
png_size (const char *path, int *width, int *height)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpuint (length, >, 33);
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  g_assert_cmpmem (data + 12, 4, "IHDR", 4);
  const guint8 *p = (const guint8 *) data + 16;
  *width = (int) ((guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3]);
  *height = (int) ((guint32) p[4] << 24 | (guint32) p[5] << 16 | (guint32) p[6] << 8 | p[7]);
}

/* A successful run: exit 0, "wrote PATH (W x H UNIT)" on stdout. */
static void
assert_wrote (Run *r, const char *path, int *width, int *height, const char *unit)
{
  g_assert_cmpint (r->status, ==, 0);
  g_autofree char *prefix = g_strdup_printf ("wrote %s (", path);
  g_assert_true (g_str_has_prefix (r->out, prefix));
  /* A PNG also names its resolution: "(W x H px, 144 dpi)". */
  g_autofree char *suffix
      = g_str_equal (unit, "px") ? g_strdup (" dpi)\n") : g_strdup_printf (" %s)\n", unit);
  g_assert_true (g_str_has_suffix (r->out, suffix));
  g_autofree char *with_unit = g_strdup_printf (" %s", unit);
  g_assert_nonnull (strstr (r->out, with_unit));
  g_assert_cmpint (sscanf (r->out + strlen (prefix), "%d x %d", width, height), ==, 2);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

static void
test_seed_png (void)
{
  int w1, h1, w2, h2, pw, ph;
  g_autofree char *p1 = out_path ("seed.png");
  Run r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--layer", "0", "--head",
                      "0", "-o", p1, NULL);
  assert_wrote (&r, p1, &w1, &h1, "px");
  png_size (p1, &pw, &ph);
  g_assert_cmpint (pw, ==, w1);
  g_assert_cmpint (ph, ==, h1);
  /* Six word tokens with annotated cells: a figure of a few hundred units. */
  g_assert_cmpint (w1, >, 400);
  g_assert_cmpint (w1, <, 900);
  run_clear (&r);

  const char *scales[] = { "2", "4" };
  for (gsize i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      g_autofree char *name = g_strdup_printf ("seed-x%s.png", scales[i]);
      g_autofree char *p2 = out_path (name);
      r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--layer", "0", "--head",
                      "0", "-o", p2, "--scale", scales[i], NULL);
      assert_wrote (&r, p2, &w2, &h2, "px");
      png_size (p2, &pw, &ph);
      int s = atoi (scales[i]);
      g_assert_cmpint (pw, ==, s * w1);
      g_assert_cmpint (ph, ==, s * h1);
      run_clear (&r);
    }
}

static void
test_seed_vector (void)
{
  g_autofree char *svg = out_path ("seed.svg");
  g_autofree char *pdf = out_path ("seed.pdf");
  int w, h, pw, ph;
  Run r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--layer", "0", "--head",
                      "1", "-o", svg, NULL);
  assert_wrote (&r, svg, &w, &h, "pt");
  run_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_autofree char *size = g_strdup_printf ("width=\"%d\" height=\"%d\"", w, h);
  g_assert_nonnull (strstr (text, "<svg"));
  g_assert_nonnull (strstr (text, size));
  g_assert_null (strstr (text, "<text"));

  /* --svg-text: the words as <text>, the same size */
  g_autofree char *editable = out_path ("seed-text.svg");
  r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--layer", "0", "--head", "1",
                  "-o", editable, "--svg-text", NULL);
  int tw, th;
  assert_wrote (&r, editable, &tw, &th, "pt");
  run_clear (&r);
  g_assert_cmpint (tw, ==, w);
  g_assert_cmpint (th, ==, h);
  g_autofree char *words = NULL;
  g_assert_true (g_file_get_contents (editable, &words, NULL, NULL));
  g_assert_nonnull (strstr (words, size));
  g_assert_nonnull (strstr (words, ">Layer 0 · head 1</text>"));
  g_assert_null (strstr (words, "glyph"));

  r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--layer", "0", "--head", "1",
                  "-o", pdf, NULL);
  assert_wrote (&r, pdf, &pw, &ph, "pt");
  run_clear (&r);
  g_assert_cmpint (pw, ==, w);
  g_assert_cmpint (ph, ==, h);
  g_autofree char *data = NULL;
  g_assert_true (g_file_get_contents (pdf, &data, NULL, NULL));
  g_assert_true (g_str_has_prefix (data, "%PDF-"));
  g_autofree char *pdfinfo = g_find_program_in_path ("pdfinfo");
  if (pdfinfo == NULL)
    {
      g_test_skip ("pdfinfo (poppler-utils) is not installed; bash .ci/install-deps test");
      return;
    }
  const char *argv[] = { pdfinfo, pdf, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  g_autofree char *page = g_strdup_printf ("Page size:       %d x %d pts", w, h);
  g_assert_nonnull (strstr (out, "Pages:           1\n"));
  g_assert_nonnull (strstr (out, page));
}

static void
test_views (void)
{
  int w, h, gw, gh, pw, ph;
  g_autofree char *grid = out_path ("grid.png");
  Run r = run_export ("--model", tiny, "--text", "The man hit the car", "--grid", "-o", grid, NULL);
  assert_wrote (&r, grid, &gw, &gh, "px");
  png_size (grid, &pw, &ph);
  g_assert_cmpint (pw, ==, gw);
  run_clear (&r);

  const char *views[][2] = { { "--mean", "1" }, { "--rollout", "1" }, { "--rollout", "0" } };
  for (gsize i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_autofree char *name = g_strdup_printf ("view%zu.svg", i);
      g_autofree char *path = out_path (name);
      r = run_export ("--model", tiny, "--text", "The man hit the car", views[i][0], views[i][1],
                      "-o", path, "--colormap", "viridis", NULL);
      assert_wrote (&r, path, &w, &h, "pt");
      run_clear (&r);
    }
  /* The grid of the seed model: one layer, two heads. */
  r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--grid", "-o", grid, NULL);
  assert_wrote (&r, grid, &w, &h, "px");
  g_assert_cmpint (h, <, gh); /* one layer is shorter than the fixture's two */
  run_clear (&r);
}

static void
test_compare (void)
{
  int w, h, w1, h1;
  g_autofree char *single = out_path ("single.png");
  Run r = run_export ("--model", tiny, "--text", "The man hit the car", "--layer", "1", "--head",
                      "0", "-o", single, NULL);
  assert_wrote (&r, single, &w1, &h1, "px");
  run_clear (&r);

  /* Same token count: A, B, difference and chart; no note. */
  g_autofree char *both = out_path ("compare.png");
  r = run_export ("--model", tiny, "--text", "The man hit the car", "--compare",
                  "The car hit the man", "--layer", "1", "--head", "0", "-o", both, NULL);
  assert_wrote (&r, both, &w, &h, "px");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (w, >, 2 * w1);
  g_assert_cmpint (h, >, h1);
  run_clear (&r);

  /* Different token counts by token: the shared tokens are compared, no note. */
  g_autofree char *uneven = out_path ("uneven.pdf");
  r = run_export ("--model", tiny, "--text", "The man hit the car", "--compare",
                  "A man hit the old car", "--mean", "0", "-o", uneven, NULL);
  assert_wrote (&r, uneven, &w, &h, "pt");
  g_assert_cmpstr (r.err, ==, "");
  run_clear (&r);

  /* By position: side by side only, said on the figure and on stderr; exit 0. */
  r = run_export ("--model", tiny, "--text", "The man hit the car", "--compare",
                  "A man hit the old car", "--mean", "0", "--align", "positions", "-o", uneven,
                  NULL);
  assert_wrote (&r, uneven, &w, &h, "pt");
  g_assert_true (
      g_str_has_prefix (r.err, "attnscope: note: Aligned by position: no difference panel"));
  g_assert_nonnull (strstr (r.err, "tokens"));
  run_clear (&r);
}

static void
test_raw_tokens (void)
{
  g_autofree char *marked = out_path ("marked.svg");
  g_autofree char *raw = out_path ("raw.svg");
  int w, h;
  Run r = run_export ("--model", tiny, "--text", "The man", "--layer", "0", "--head", "0", "-o",
                      marked, NULL);
  assert_wrote (&r, marked, &w, &h, "pt");
  run_clear (&r);
  r = run_export ("--model", tiny, "--text", "The man", "--layer", "0", "--head", "0", "-o", raw,
                  "--raw-tokens", NULL);
  assert_wrote (&r, raw, &w, &h, "pt");
  run_clear (&r);
  g_autofree char *a = NULL, *b = NULL;
  g_assert_true (g_file_get_contents (marked, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (raw, &b, NULL, NULL));
  /* 'Ġ' and '␣' are different glyphs, so the drawings differ. */
  g_assert_cmpstr (a, !=, b);
}

/* The lecture's "spring": --lines FILE gives the same figure as the texts one by one (the first
 * line is the text); static beside contextual is two panels wide. */
static void
test_project_sentences (void)
{
  g_autofree char *lines = out_path ("spring.txt");
  g_assert_true (g_file_set_contents (lines,
                                      "My favorite season is spring\n\n"
                                      "The water of the spring is very clean\n"
                                      "Last night I broke one spring in my bed\n",
                                      -1, NULL));
  g_autofree char *from_lines = out_path ("spring-lines.png");
  g_autofree char *from_texts = out_path ("spring-texts.png");
  g_autofree char *one_panel = out_path ("spring-one.png");
  Run r = run_export ("--model", "attnscope-mini", "--lines", lines, "--project", "umap", "--of",
                      "token-embeddings", "--also", "hidden", "--layer", "3", "--highlight",
                      "spring", "-o", from_lines, NULL);
  int w2 = 0, h2 = 0;
  assert_wrote (&r, from_lines, &w2, &h2, "px");
  run_clear (&r);
  r = run_export ("--model", "attnscope-mini", "--text", "My favorite season is spring", "--text",
                  "The water of the spring is very clean", "--text",
                  "Last night I broke one spring in my bed", "--project", "umap", "--of",
                  "token-embeddings", "--also", "hidden", "--layer", "3", "--highlight", "spring",
                  "-o", from_texts, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  g_assert_true (g_file_get_contents (from_lines, &a, &la, NULL));
  g_assert_true (g_file_get_contents (from_texts, &b, &lb, NULL));
  g_assert_cmpmem (a, la, b, lb);
  r = run_export ("--model", "attnscope-mini", "--lines", lines, "--project", "umap", "--of",
                  "hidden", "--layer", "3", "-o", one_panel, NULL);
  int w1 = 0, h1 = 0;
  assert_wrote (&r, one_panel, &w1, &h1, "px");
  run_clear (&r);
  g_test_message ("two panels %d x %d, one panel %d x %d", w2, h2, w1, h1);
  g_assert_cmpint (w2, >, w1 + 300);
}

static void
test_errors (void)
{
  g_autofree char *dir = out_path ("errors");
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_autofree char *png = g_build_filename (dir, "fig.png", NULL);
  g_autofree char *jpg = g_build_filename (dir, "fig.jpg", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "fig.png", NULL);
  struct
  {
    const char *args[12];
    int status;
    const char *needle;
  } cases[] = {
    { { "--layer", "3", "--head", "0", "-o", png }, 1, "--layer 3 is out of range" },
    { { "--layer", "0", "--head", "2", "-o", png }, 1, "0..1" },
    { { "--mean", "-1", "-o", png }, 1, "--mean -1 is out of range" },
    { { "--layer", "0", "--head", "0", "-o", png, "--colormap", "jet" }, 1, "'jet'" },
    { { "--layer", "0", "--head", "0", "-o", jpg }, 1, "'.jpg'" },
    { { "--layer", "0", "--head", "0", "-o", missing }, 1, missing },
    { { "--layer", "0", "--head", "0", "-o", png, "--scale", "0" }, 1, "--scale" },
    { { "--layer", "0", "--head", "0", "-o", png, "--annotate", "maybe" }, 1, "maybe" },
    { { "--layer", "0", "-o", png }, 2, "--head" },
    { { "--grid", "--mean", "0", "-o", png }, 2, "exactly one" },
    { { "--layer", "0", "--head", "0" }, 2, "-o" },
    { { "--grid", "-o", png, "--compare", "May the force" }, 2, "--compare" },
    { { "--layer", "zero", "--head", "0", "-o", png }, 2, NULL },
    { { "--layer", "0", "--head", "0", "-o", png, "--svg-text" }, 2, "--svg-text is for .svg" },
    { { "--project", "mds", "--of", "hidden", "--layer", "0", "-o", png }, 2, "pca, tsne or umap" },
    { { "--layer", "0", "--head", "0", "--highlight", "force", "-o", png }, 2, "--highlight" },
    { { "--project", "pca", "--of", "hidden", "--layer", "0", "--also", "nothing", "-o", png },
      2,
      "--also" },
    { { "--project", "pca", "--of", "hidden", "--layer", "0", "--highlight", "  ", "-o", png },
      2,
      "--highlight" },
    { { "--project", "pca", "--of", "hidden", "--layer", "0", "--lines", missing, "-o", png },
      1,
      "no-such-folder" },
    { { "--attribution", "-o", png }, 1, "direct logit attribution is not available" },
    { { "--attribution", "--follow-id", "3", "-o", png }, 2, "--follow" },
    { { "--attribution", "--target-id", "-2", "-o", png }, 2, "--target-id -2 is out of range" },
    { { "--layer", "0", "--head", "0", "--vs-id", "3", "-o", png }, 2, "go with --attribution" },
    { { "--attribution", "--grid", "-o", png }, 2, "exactly one" },
    { { "--qk", "--layer", "0", "-o", png }, 2, "--qk goes with --layer L --head H" },
    { { "--qk", "--layer", "0", "--head", "0", "-o", png }, 1, "query–key view" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      const char *base[] = { g_getenv ("ATTNSCOPE_BIN"), "export", "--model",
                             "seed-two-heads",           "--text", SEED_TEXT };
      for (gsize k = 0; k < G_N_ELEMENTS (base); k++)
        g_ptr_array_add (argv, (char *) base[k]);
      for (int k = 0; cases[i].args[k] != NULL; k++)
        g_ptr_array_add (argv, (char *) cases[i].args[k]);
      g_ptr_array_add (argv, NULL);
      Run r = { 0 };
      r.status = test_spawn ((const char *const *) argv->pdata, &r.out, &r.err);
      g_test_message ("case %zu: exit %d, %s", i, r.status, r.err);
      assert_error (&r, cases[i].status, cases[i].needle);
      run_clear (&r);
    }
  /* Empty text and a text the model cannot read. */
  Run r = run_export ("--model", "seed-two-heads", "--text", "", "--grid", "-o", png, NULL);
  assert_error (&r, 1, "--text is empty");
  run_clear (&r);
  r = run_export ("--model", "no-such-model-anywhere", "--text", SEED_TEXT, "--grid", "-o", png,
                  NULL);
  assert_error (&r, 1, "no-such-model-anywhere");
  run_clear (&r);

  /* Attribution and the query–key view: positions, ids and heads out of range. */
  r = run_export ("--model", "attnscope-mini", "--text", "a b", "--attribution", "--position", "9",
                  "-o", png, NULL);
  assert_error (&r, 1, "--position 9 is out of range: the text has 2 tokens");
  run_clear (&r);
  r = run_export ("--model", "attnscope-mini", "--text", "a b", "--attribution", "--target-id",
                  "6000", "-o", png, NULL);
  assert_error (&r, 1, "token id 6000 is outside the vocabulary");
  run_clear (&r);
  r = run_export ("--model", "attnscope-mini", "--text", "a b", "--qk", "--layer", "0", "--head",
                  "8", "-o", png, NULL);
  assert_error (&r, 1, "--head 8 is out of range");
  run_clear (&r);

  /* A further text longer than the context is named. */
  g_autoptr (GString) longer = g_string_new ("");
  for (int i = 0; i < 3000; i++)
    g_string_append (longer, "force ");
  r = run_export ("--model", "seed-two-heads", "--text", SEED_TEXT, "--text", longer->str,
                  "--project", "pca", "--of", "embeddings", "-o", png, NULL);
  assert_error (&r, 1, "text #2");
  run_clear (&r);

  /* Nothing was written, not even a temporary file. */
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  g_assert_null (g_dir_read_name (d));
}

/* The text of PDF file PATH with its line breaks as spaces (pdftotext), or NULL (the test is
 * skipped) when poppler-utils is missing. */
static char *
pdf_text (const char *path)
{
  g_autofree char *exe = g_find_program_in_path ("pdftotext");
  if (exe == NULL)
    {
      g_test_skip ("poppler-utils is not installed; bash .ci/install-deps test");
      return NULL;
    }
  const char *argv[] = { exe, path, "-", NULL };
  g_autofree char *out = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (GRegex) space = g_regex_new ("\\s+", 0, 0, NULL);
  return g_regex_replace_literal (space, out, -1, 0, " ", 0, NULL);
}

/* One journal column wide nothing is cut: attnscope-mini's 4 × 8 grid labels its heads with
 * initials and a key instead of "mi…", the long text's subtitle wraps, and a comparison stacks
 * its panels with their titles and values. */
static void
test_one_column (void)
{
  const char *text = "The man hit the car because the brakes failed on the wet road";
  g_autofree char *grid = out_path ("column-grid.pdf");
  Run r = run_export ("--model", "attnscope-mini", "--text", text, "--grid", "--preset",
                      "one-column", "-o", grid, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "wrote "));
  g_assert_nonnull (strstr (r.out, "(240.94 x "));
  run_clear (&r);
  g_autofree char *words = pdf_text (grid);
  if (words == NULL)
    return;
  g_test_message ("grid: %s", words);
  g_autofree char *quoted = g_strdup_printf ("“%s”", text);
  g_assert_nonnull (strstr (words, quoted));
  g_assert_nonnull (strstr (words, "p previous token · f first token · s self · m mixed"));
  g_assert_null (strstr (words, "…"));

  /* At its natural size the grid writes the full pattern names and no key. */
  r = run_export ("--model", "attnscope-mini", "--text", text, "--grid", "-o", grid, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *natural = pdf_text (grid);
  g_assert_nonnull (strstr (natural, "mixed"));
  g_assert_null (strstr (natural, "m mixed"));

  g_autofree char *cmp = out_path ("column-compare.pdf");
  r = run_export ("--model", "attnscope-mini", "--text", "The man hit the car", "--compare",
                  "The car hit the man", "--layer", "2", "--head", "3", "--preset", "one-column",
                  "-o", cmp, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *compared = pdf_text (cmp);
  g_test_message ("comparison: %s", compared);
  g_assert_nonnull (strstr (compared, "A: “The man hit the"));
  g_assert_nonnull (strstr (compared, "Difference B − A"));
  g_assert_nonnull (strstr (compared, "Aligned by token: B's weights in A's order, the k-th "
                                      "occurrence of a token with the k-th."));
  g_unlink (grid);
  g_unlink (cmp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tiny = test_source_path ("tests/fixtures/tiny-gpt2");
  g_test_add_func ("/cli/export/seed/png", test_seed_png);
  g_test_add_func ("/cli/export/seed/svg-pdf", test_seed_vector);
  g_test_add_func ("/cli/export/views", test_views);
  g_test_add_func ("/cli/export/compare", test_compare);
  g_test_add_func ("/cli/export/raw-tokens", test_raw_tokens);
  g_test_add_func ("/cli/export/project-sentences", test_project_sentences);
  g_test_add_func ("/cli/export/errors", test_errors);
  g_test_add_func ("/cli/export/one-column", test_one_column);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (tiny);
  return status;
}
