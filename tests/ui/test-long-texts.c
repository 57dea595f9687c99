/* test-long-texts.c — a text of a thousand tokens is readable in the window and in its exports.
 *
 * The real window under Xvfb (1280 × 800) on a random GPT-2 of DistilGPT-2's shape (6 layers,
 * 12 heads, D 768, 1,024 positions, GPT-2's vocabulary; gpt2-models.h) with
 * tests/fixtures/long-text.txt, 1,008 tokens of English:
 * - the Attention and the Similarity pages give their heatmap widget at least 60 % of the page's
 *   height (the widgets' allocations), and its cells at least 40 % (the plot's rectangle, from
 *   the first and last cells' rectangles; the rest is the title block, two lines, and the room of
 *   the widest of the thousand tick labels, which a zooming view keeps): the title block no longer
 *   takes the page;
 * - their subtitle is the one rule's (ar_figure_subtitle: the text shortened in the middle and
 *   "1,008 tokens") and draws within two lines;
 * - the Attention page's one-column PDF export (the export dialog's preset) is at most 297 mm
 *   tall (in fact at most 279.4 mm) and the heatmap — everything below the title block, measured
 *   with `pdftotext -bbox` — takes at least 70 % of the page;
 * - after "Use the First 1,024 Tokens" on a text of 2,016 tokens the subtitle quotes only the
 *   part of the text the 1,024 tokens stand for and says "first 1,024 tokens".
 * The numbers measured are printed (g_test_message). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-export-dialog.h"
#include "attnscope-similarity-page.h"
#include "check-close.h"
#include "figure-export.h"
#include "figure-subtitle.h"
#include "gpt2-models.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 180000

static AttnscopeApplication *app;
static AttnscopeWindow *window;
static char *model;
static char *text;

/* The window on the model and the long text, made by the first test that needs it; FALSE with the
 * test skipped when the model cannot be made (gpt2_model says why). */
static gboolean
ready (void)
{
  if (window != NULL)
    return TRUE;
  if (model == NULL && (model = gpt2_model (GPT2_DISTIL_SHAPE)) == NULL)
    return FALSE;
  app = gui_test_app_new (1280, 800, &window);
  gui_test_park_pointer ();
  gui_test_open (window, model, text, TIMEOUT_MS);
  return TRUE;
}

static gboolean
allocated (gpointer page)
{
  return gtk_widget_get_mapped (page) && gtk_widget_get_height (page) > 300;
}

/* Shows page NAME and waits for its figure, laid out. */
static AttnscopePage *
show (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (allocated, page, TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (page), TIMEOUT_MS));
  return page;
}

/* The heatmap of PAGE takes its share of the page; returns its figure's subtitle (borrowed). */
static const char *
check_heatmap_share (AttnscopePage *page, AttnscopeHeatmapView *heatmap, const char *what)
{
  double page_h = gtk_widget_get_height (GTK_WIDGET (page));
  g_assert_cmpfloat (page_h, >, 300);
  double view_h = gtk_widget_get_height (GTK_WIDGET (heatmap));
  int n = attnscope_heatmap_view_get_n_rows (heatmap);
  g_assert_cmpint (n, ==, 1008);
  double x0, y0, w0, h0, x1, y1, w1, h1;
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, 0, 0, &x0, &y0, &w0, &h0));
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, n - 1, n - 1, &x1, &y1, &w1, &h1));
  double plot_h = y1 + h1 - y0;
  g_test_message ("%s: page %.0f px, heatmap widget %.0f px (%.1f %%), its cells %.0f px "
                  "(%.1f %%)",
                  what, page_h, view_h, 100 * view_h / page_h, plot_h, 100 * plot_h / page_h);
  g_assert_cmpfloat (view_h, >=, 0.60 * page_h);
  g_assert_cmpfloat (plot_h, >=, 0.40 * page_h);
  ArBuiltFigure *figure = attnscope_heatmap_view_get_figure (heatmap);
  const ArHeatmapFigure *fig = &ar_built_figure_get_parts (figure)->heatmap;
  return fig->subtitle;
}

/* SUBTITLE is the rule's for the whole long text, and PAGE's drawing of it takes one line (the
 * window is wide): the wrapped title block is no taller than the title and one subtitle line. */
static void
check_subtitle (const char *subtitle)
{
  g_autofree char *name = g_path_get_basename (model);
  g_autofree char *want = ar_figure_subtitle (name, text, 1008, FALSE);
  g_test_message ("subtitle: %s", subtitle);
  g_assert_cmpstr (subtitle, ==, want);
  g_assert_nonnull (strstr (subtitle, " … "));
  g_assert_true (g_str_has_suffix (subtitle, " · 1,008 tokens"));
  g_assert_cmpint (g_utf8_strlen (subtitle, -1), <, 120);
}

static void
test_attention (void)
{
  if (!ready ())
    return;
  AttnscopePage *page = show ("attention");
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  check_subtitle (check_heatmap_share (page, heatmap, "attention"));
}

static void
test_similarity (void)
{
  if (!ready ())
    return;
  AttnscopePage *page = show ("similarity");
  AttnscopeHeatmapView *heatmap
      = attnscope_similarity_page_get_heatmap (ATTNSCOPE_SIMILARITY_PAGE (page));
  check_subtitle (check_heatmap_share (page, heatmap, "similarity"));
}

/* STDOUT of ARGV[0] found in PATH with the rest of ARGV; NULL with the test skipped. */
static char *
run_tool (const char *const *argv)
{
  g_autofree char *exe = g_find_program_in_path (argv[0]);
  if (exe == NULL)
    {
      g_test_skip ("poppler-utils (pdfinfo, pdftotext) is not installed");
      return NULL;
    }
  g_autoptr (GPtrArray) full = g_ptr_array_new ();
  g_ptr_array_add (full, exe);
  for (const char *const *a = argv + 1; *a != NULL; a++)
    g_ptr_array_add (full, (gpointer) *a);
  g_ptr_array_add (full, NULL);
  char *out = NULL;
  g_autofree char *err = NULL;
  g_assert_cmpint (test_spawn ((const char *const *) full->pdata, &out, &err), ==, 0);
  return out;
}

static void
test_one_column_pdf (void)
{
  if (!ready ())
    return;
  AttnscopePage *page = show ("attention");
  AttnscopeExportDialog *d = attnscope_export_dialog_new (window, page);
  attnscope_export_dialog_set_folder (d, test_tmpdir ());
  attnscope_export_dialog_set_name (d, "long");
  attnscope_export_dialog_set_format (d, AR_EXPORT_PDF);
  attnscope_export_dialog_set_sidecar (d, FALSE);
  attnscope_export_dialog_set_size (d, ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN);
  g_autofree char *path = attnscope_export_dialog_dup_path (d);
  g_autoptr (GError) error = NULL;
  g_assert_true (attnscope_export_dialog_export (d, &error));
  g_assert_no_error (error);
  gtk_window_destroy (GTK_WINDOW (d));
  const char *info_argv[] = { "pdfinfo", path, NULL };
  g_autofree char *info = run_tool (info_argv);
  if (info == NULL)
    return;
  double w = 0, h = 0;
  g_assert_cmpint (sscanf (strstr (info, "Page size:"), "Page size: %lf x %lf pts", &w, &h), ==, 2);
  g_test_message ("one column: %.1f × %.1f mm", w / 72 * 25.4, h / 72 * 25.4);
  g_assert_cmpfloat (h / 72 * 25.4, <=, 297.0);
  g_assert_cmpfloat (h / 72 * 25.4, <=, AR_EXPORT_PAGE_HEIGHT_MM + 0.01);
  const char *bbox_argv[] = { "pdftotext", "-bbox", path, "-", NULL };
  g_autofree char *xml = run_tool (bbox_argv);
  /* the title block ends with the subtitle's "tokens" */
  const char *tokens = strstr (xml, ">tokens</word>");
  g_assert_nonnull (tokens);
  const char *word = g_strrstr_len (xml, tokens - xml, "<word ");
  double y1 = 0;
  g_assert_nonnull (word);
  const char *ymax = strstr (word, "yMax=\"");
  g_assert_nonnull (ymax);
  y1 = g_ascii_strtod (ymax + 6, NULL);
  double share = (h - y1) / h;
  g_test_message ("one column: the title block ends at %.1f pt of %.1f; the heatmap takes "
                  "%.1f %% of the page",
                  y1, h, 100 * share);
  g_assert_cmpfloat (share, >=, 0.70);
  g_unlink (path);
}

static void
test_truncated (void)
{
  if (!ready ())
    return;
  g_autofree char *twice = g_strconcat (text, " ", text, NULL);
  AttnscopeRun *run = gui_test_main_run (window);
  attnscope_window_set_text (window, twice);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_run_get_too_long (run));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.truncate-text", NULL);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_run_get_truncated (run));
  AttnscopePage *page = show ("attention");
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  g_assert_cmpint (attnscope_heatmap_view_get_n_rows (heatmap), ==, 1024);
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_test_message ("truncated: %s", fig->subtitle);
  g_assert_true (g_str_has_suffix (fig->subtitle, " · first 1,024 tokens"));
  /* the quote ends where the 1,024th token does: in the second copy, not at the text's end */
  g_autofree char *tail = g_strdup (strstr (fig->subtitle, " … ") + strlen (" … "));
  *strstr (tail, "”") = '\0';
  g_assert_false (g_str_has_suffix (text, tail));
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  text = gpt2_long_text ();
  g_test_add_func ("/ui/long-texts/attention", test_attention);
  g_test_add_func ("/ui/long-texts/similarity", test_similarity);
  g_test_add_func ("/ui/long-texts/one-column-pdf", test_one_column_pdf);
  g_test_add_func ("/ui/long-texts/truncated", test_truncated);
  int status = g_test_run ();
  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  test_tmpdir_cleanup ();
  g_free (model);
  g_free (text);
  return status;
}
