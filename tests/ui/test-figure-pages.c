/* test-figure-pages.c — every figure kind fits a page at the article presets and cuts no text.
 *
 * `attnscope export --preset one-column` and `--preset two-columns` write each figure kind — a
 * head's heatmap, the heads grid, a similarity matrix, a PCA projection, a comparison (three
 * panels and the chart), and for the translation model attnscope-mini-en-de the cross-attention
 * heatmap, its heads grid and the alignment — for a 5-token text and a long one: 1,008 GPT-2
 * tokens (tests/fixtures/long-text.txt) on a random GPT-2 of DistilGPT-2's layers, heads and
 * context (gpt2-models.h; width 96 to keep the passes short: a figure's layout depends on the
 * tokens, layers and heads, not on the width), and its first 40 words (98 source tokens, the
 * translation model reads at most 128) on attnscope-mini-en-de. For each PDF:
 * - `pdfinfo`: the page is the preset's width and at most 279.4 mm (792 pt, a US Letter page;
 *   an A4 page is 297 mm) tall;
 * - `pdftotext -bbox`: every word's box lies inside the page, and no word was cut: the layout
 *   (pango) ends a cut word with "…", while a text the figure's builder shortened
 *   (ar_quote_excerpt: the subtitle's and the panel titles' quotes) has its "…" between spaces,
 *   a word of its own;
 * - a long text's subtitle takes at most two lines, and one column wide the heatmap — everything
 *   below the title block — takes at least 70 % of the page.
 * Without poppler-utils (pdfinfo, pdftotext) or the reference's Python the tests report a skip
 * saying so. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "figure-export.h"
#include "figure-subtitle.h"
#include "gpt2-models.h"

#define MM_TO_PT(mm) ((mm) / AR_MM_PER_INCH * AR_PT_PER_INCH)
#define SLACK_PT 0.5

static char *gpt2;        /* the model folder */
static char *long_text;   /* 1,008 tokens */
static char *long_source; /* its first 40 words */

static const struct
{
  const char *name;
  double width_mm;
} presets[] = { { "one-column", 85 }, { "two-columns", 175 } };

typedef struct
{
  double x0, y0, x1, y1;
  char *text;
} Word;

static void
word_clear (gpointer data)
{
  g_free (((Word *) data)->text);
}

/* Runs ARGV; returns its stdout (owned) or NULL with the test skipped when the tool is missing. */
static char *
run_tool (const char *const *argv)
{
  g_autofree char *path = g_find_program_in_path (argv[0]);
  if (path == NULL)
    {
      g_autofree char *why
          = g_strdup_printf ("%s is not installed (Debian: poppler-utils)", argv[0]);
      g_test_skip (why);
      return NULL;
    }
  g_autoptr (GPtrArray) full = g_ptr_array_new ();
  g_ptr_array_add (full, path);
  for (const char *const *a = argv + 1; *a != NULL; a++)
    g_ptr_array_add (full, (gpointer) *a);
  g_ptr_array_add (full, NULL);
  char *out = NULL;
  g_autofree char *err = NULL;
  int status = test_spawn ((const char *const *) full->pdata, &out, &err);
  if (status != 0)
    g_test_message ("%s: %s", argv[0], err);
  g_assert_cmpint (status, ==, 0);
  return out;
}

/* The words of PDF with their boxes, and the page size *W × *H (points). NULL when skipped. */
static GArray *
pdf_words (const char *pdf, double *w, double *h)
{
  const char *argv[] = { "pdftotext", "-bbox", pdf, "-", NULL };
  g_autofree char *xml = run_tool (argv);
  if (xml == NULL)
    return NULL;
  g_autoptr (GRegex) page
      = g_regex_new ("<page width=\"([0-9.]+)\" height=\"([0-9.]+)\"", 0, 0, NULL);
  g_autoptr (GMatchInfo) pm = NULL;
  g_assert_true (g_regex_match (page, xml, 0, &pm));
  g_autofree char *ws = g_match_info_fetch (pm, 1), *hs = g_match_info_fetch (pm, 2);
  *w = g_ascii_strtod (ws, NULL), *h = g_ascii_strtod (hs, NULL);
  g_autoptr (GRegex) word = g_regex_new ("<word xMin=\"([-0-9.]+)\" yMin=\"([-0-9.]+)\" "
                                         "xMax=\"([-0-9.]+)\" yMax=\"([-0-9.]+)\">([^<]*)</word>",
                                         0, 0, NULL);
  GArray *words = g_array_new (FALSE, TRUE, sizeof (Word));
  g_array_set_clear_func (words, word_clear);
  g_autoptr (GMatchInfo) m = NULL;
  for (g_regex_match (word, xml, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      Word wd;
      double *v[] = { &wd.x0, &wd.y0, &wd.x1, &wd.y1 };
      for (int k = 0; k < 4; k++)
        {
          g_autofree char *s = g_match_info_fetch (m, k + 1);
          *v[k] = g_ascii_strtod (s, NULL);
        }
      g_autofree char *raw = g_match_info_fetch (m, 5);
      /* the entities pdftotext writes */
      g_autoptr (GString) text = g_string_new (raw);
      const char *entities[][2] = {
        { "&apos;", "'" }, { "&quot;", "\"" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }
      };
      for (gsize e = 0; e < G_N_ELEMENTS (entities); e++)
        g_string_replace (text, entities[e][0], entities[e][1], 0);
      wd.text = g_string_free (g_steal_pointer (&text), FALSE);
      g_array_append_val (words, wd);
    }
  return words;
}

/* PDF's page size from pdfinfo (points); FALSE when skipped. */
static gboolean
pdf_page_size (const char *pdf, double *w, double *h)
{
  const char *argv[] = { "pdfinfo", pdf, NULL };
  g_autofree char *info = run_tool (argv);
  if (info == NULL)
    return FALSE;
  const char *line = strstr (info, "Page size:");
  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "Page size: %lf x %lf pts", w, h), ==, 2);
  return TRUE;
}

/* Runs `attnscope export` with ARGS (NULL-terminated) and PRESET into a new PDF (owned). */
static char *
export_pdf (const char *name, const char *preset, const char *const *args)
{
  g_autofree char *file = g_strdup_printf ("%s-%s.pdf", name, preset);
  char *path = g_build_filename (test_tmpdir (), file, NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("ATTNSCOPE_BIN"));
  g_ptr_array_add (argv, "export");
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, "--preset");
  g_ptr_array_add (argv, (gpointer) preset);
  g_ptr_array_add (argv, "-o");
  g_ptr_array_add (argv, path);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    g_test_message ("export %s: %s", name, err);
  g_assert_cmpint (status, ==, 0);
  return path;
}

/* The "…" of the builder's shortened quotes of TEXTS (NULL-terminated). */
static int
quote_ellipses (const char *const *texts)
{
  int n = 0;
  for (const char *const *t = texts; *t != NULL; t++)
    {
      gboolean shortened;
      g_autofree char *quote = ar_quote_excerpt (*t, AR_QUOTE_WHOLE_MAX, &shortened);
      n += shortened;
    }
  return n;
}

/* The subtitle's lines of a long text: from the word MODEL to the first "tokens" (its count). */
static int
subtitle_lines (GArray *words, const char *model, double *bottom)
{
  int lines = 0;
  double last_y = -1;
  gboolean in = FALSE;
  for (guint i = 0; i < words->len; i++)
    {
      Word *w = &g_array_index (words, Word, i);
      in = in || g_str_equal (w->text, model);
      if (!in)
        continue;
      if (fabs (w->y0 - last_y) > 1)
        lines++, last_y = w->y0;
      *bottom = MAX (*bottom, w->y1);
      if (g_str_has_prefix (w->text, "tokens"))
        return lines;
    }
  return -1;
}

/* The checks of the top on PDF, exported at PRESETS[P] of a figure about TEXTS (NULL-terminated;
 * NULL: texts not known, the model's translation); LONG: a long text, whose subtitle names MODEL;
 * HEATMAP: a heatmap whose share of the page is checked one column wide. */
static void
check_page (const char *pdf, int p, const char *const *texts, gboolean long_text_,
            const char *model, gboolean heatmap)
{
  double w, h;
  if (!pdf_page_size (pdf, &w, &h))
    return;
  g_autofree char *base = g_path_get_basename (pdf);
  g_test_message ("%s: %.2f × %.2f pt (%.1f × %.1f mm)", base, w, h, w / MM_TO_PT (1),
                  h / MM_TO_PT (1));
  g_assert_cmpfloat_with_epsilon (w, MM_TO_PT (presets[p].width_mm), 0.05);
  g_assert_cmpfloat (h, <=, MM_TO_PT (AR_EXPORT_PAGE_HEIGHT_MM) + 0.01);
  double bw, bh;
  g_autoptr (GArray) words = pdf_words (pdf, &bw, &bh);
  if (words == NULL)
    return;
  g_assert_cmpuint (words->len, >, 3);
  int ellipses = 0;
  for (guint i = 0; i < words->len; i++)
    {
      Word *wd = &g_array_index (words, Word, i);
      if (wd->x0 < -SLACK_PT || wd->y0 < -SLACK_PT || wd->x1 > bw + SLACK_PT
          || wd->y1 > bh + SLACK_PT)
        g_error ("%s: \"%s\" at (%.1f, %.1f)–(%.1f, %.1f) leaves the %.1f × %.1f page", base,
                 wd->text, wd->x0, wd->y0, wd->x1, wd->y1, bw, bh);
      if (strstr (wd->text, "…") != NULL && !g_str_equal (wd->text, "…"))
        g_error ("%s: \"%s\" was cut by the layout", base, wd->text);
      ellipses += g_str_equal (wd->text, "…");
    }
  /* each shortened quote once (a comparison: in its panel's title) */
  if (texts != NULL)
    g_assert_cmpint (ellipses, ==, quote_ellipses (texts));
  if (!long_text_ || model == NULL)
    return;
  double bottom = 0;
  int lines = subtitle_lines (words, model, &bottom);
  g_test_message ("%s: the subtitle takes %d lines, to %.1f pt of %.1f", base, lines, bottom, bh);
  g_assert_cmpint (lines, >=, 1);
  g_assert_cmpint (lines, <=, 2);
  if (heatmap && p == 0)
    {
      double share = (bh - bottom) / bh;
      g_test_message ("%s: the heatmap below the title block takes %.1f %% of the page", base,
                      100 * share);
      g_assert_cmpfloat (share, >=, 0.70);
    }
}

/* One figure kind: ARGS (after --model M --text T) at both presets for the short and long text;
 * COMPARE: --compare with a second text. */
static void
check_kind (const char *kind, const char *const *args, gboolean compare, gboolean heatmap)
{
  if (gpt2 == NULL && (gpt2 = gpt2_model (6, 12, 96, 1024)) == NULL)
    return;
  const char *shorts[] = { "The man hit the car", "The car hit the man" };
  g_autofree char *long_b = g_strconcat (long_text, " The end", NULL);
  const char *longs[] = { long_text, long_b };
  for (int p = 0; p < (int) G_N_ELEMENTS (presets); p++)
    for (int l = 0; l < 2; l++)
      {
        const char *const *texts = l ? longs : shorts;
        g_autoptr (GPtrArray) argv = g_ptr_array_new ();
        const char *head[] = { "--model", gpt2, "--text", texts[0] };
        for (gsize k = 0; k < G_N_ELEMENTS (head); k++)
          g_ptr_array_add (argv, (gpointer) head[k]);
        if (compare)
          {
            g_ptr_array_add (argv, "--compare");
            g_ptr_array_add (argv, (gpointer) texts[1]);
          }
        for (const char *const *a = args; *a != NULL; a++)
          g_ptr_array_add (argv, (gpointer) *a);
        g_ptr_array_add (argv, NULL);
        g_autofree char *name = g_strdup_printf ("%s-%s", kind, l ? "long" : "short");
        g_autofree char *pdf
            = export_pdf (name, presets[p].name, (const char *const *) argv->pdata);
        const char *quoted[] = { texts[0], compare ? texts[1] : NULL, NULL };
        g_autofree char *model = g_path_get_basename (gpt2);
        check_page (pdf, p, quoted, l == 1, compare ? NULL : model, heatmap);
        if (g_test_failed ())
          return;
        g_unlink (pdf);
      }
}

static void
test_heatmap (void)
{
  const char *args[] = { "--layer", "1", "--head", "1", NULL };
  check_kind ("head", args, FALSE, TRUE);
}

static void
test_grid (void)
{
  const char *args[] = { "--grid", NULL };
  check_kind ("grid", args, FALSE, FALSE);
}

static void
test_similarity (void)
{
  const char *args[] = { "--similarity", "hidden", "--layer", "2", NULL };
  check_kind ("similarity", args, FALSE, TRUE);
}

static void
test_projection (void)
{
  const char *args[] = { "--project", "pca", "--of", "hidden", "--layer", "2", NULL };
  check_kind ("projection", args, FALSE, FALSE);
}

static void
test_compare (void)
{
  const char *args[] = { "--layer", "1", "--head", "1", NULL };
  check_kind ("compare", args, TRUE, FALSE);
}

/* The translation figures: ARGS on attnscope-mini-en-de's translation of the short and the long
 * source. */
static void
check_translation (const char *kind, const char *const *args)
{
  const char *sources[] = { "The group went home.", long_source };
  for (int p = 0; p < (int) G_N_ELEMENTS (presets); p++)
    for (int l = 0; l < 2; l++)
      {
        g_autoptr (GPtrArray) argv = g_ptr_array_new ();
        const char *head[] = { "--model", "attnscope-mini-en-de", "--text", sources[l] };
        for (gsize k = 0; k < G_N_ELEMENTS (head); k++)
          g_ptr_array_add (argv, (gpointer) head[k]);
        for (const char *const *a = args; *a != NULL; a++)
          g_ptr_array_add (argv, (gpointer) *a);
        g_ptr_array_add (argv, NULL);
        g_autofree char *name = g_strdup_printf ("%s-%s", kind, l ? "long" : "short");
        g_autofree char *pdf
            = export_pdf (name, presets[p].name, (const char *const *) argv->pdata);
        /* the target is the model's translation: the quotes are not known here */
        check_page (pdf, p, NULL, l == 1, "attnscope-mini-en-de", FALSE);
        g_unlink (pdf);
      }
}

static void
test_cross (void)
{
  const char *args[] = { "--kind", "cross", "--layer", "1", "--head", "1", NULL };
  check_translation ("cross", args);
}

static void
test_cross_grid (void)
{
  const char *args[] = { "--kind", "cross", "--grid", NULL };
  check_translation ("cross-grid", args);
}

static void
test_alignment (void)
{
  const char *args[] = { "--alignment", "--layer", "1", "--head", "1", NULL };
  check_translation ("alignment", args);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  long_text = gpt2_long_text ();
  g_auto (GStrv) words = g_strsplit (long_text, " ", 41);
  g_free (words[40]);
  words[40] = NULL;
  long_source = g_strjoinv (" ", words);
  g_test_add_func ("/ui/figure-pages/heatmap", test_heatmap);
  g_test_add_func ("/ui/figure-pages/grid", test_grid);
  g_test_add_func ("/ui/figure-pages/similarity", test_similarity);
  g_test_add_func ("/ui/figure-pages/projection", test_projection);
  g_test_add_func ("/ui/figure-pages/compare", test_compare);
  g_test_add_func ("/ui/figure-pages/cross", test_cross);
  g_test_add_func ("/ui/figure-pages/cross-grid", test_cross_grid);
  g_test_add_func ("/ui/figure-pages/alignment", test_alignment);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (gpt2);
  g_free (long_text);
  g_free (long_source);
  return status;
}
