/* test-feedback.c — what the window says is never stale.
 *
 * The real window under Xvfb on the tiny GPT-2 fixture (context 32) unless said otherwise:
 * - an empty text shows the empty state ("Type a Sentence"): no trace, no figure, no token chips,
 *   no count — not the last text's;
 * - a text longer than the context shows its count and the message, and a fitting text pasted
 *   over it clears them, in the same call that set the text (no main-loop iteration between:
 *   the same frame);
 * - prediction bars are the probabilities on a 0 to 100 % scale (a bar's value is its
 *   probability, not its share of the top one's);
 * - with autoscale (the window's default) the first token's weight of 1, above the range, makes
 *   the figure "clipped": the cell carries a mark in its corner (white over the dark top colour,
 *   in the drawing the widget makes), its tooltip says "clipped", and a PDF export says
 *   "clipped" beside the colour bar (pdftotext);
 * - the Similarity table says "masked" for the tokens after the selected one;
 * - on attnscope-mini-en-de the Similarity figure, whose matrix holds the target's tokens, quotes
 *   the target in its subtitle. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-export-dialog.h"
#include "attnscope-predictions-page.h"
#include "attnscope-similarity-page.h"
#include "attnscope-similarity-row.h"
#include "check-close.h"
#include "figure-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"

static AttnscopeWindow *window;

static void
type_text (const char *text)
{
  attnscope_window_set_text (window, text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static AttnscopePage *
show (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  return page;
}

static void
test_empty_text (void)
{
  type_text (TEXT);
  g_assert_null (attnscope_window_get_status_title (window));
  g_autofree char *count = g_strdup_printf (
      "%d tokens", attnscope_run_get_trace (gui_test_main_run (window))->n_tokens);
  g_assert_cmpstr (attnscope_window_get_token_count (window), ==, count);
  attnscope_window_set_text (window, "");
  /* at once, and after the main loop ran */
  for (int round = 0; round < 2; round++)
    {
      g_assert_null (attnscope_run_get_trace (gui_test_main_run (window)));
      g_assert_cmpstr (attnscope_window_get_status_title (window), ==, "Type a Sentence");
      g_assert_cmpstr (attnscope_window_get_token_count (window), ==, "");
      g_assert_null (attnscope_window_get_input_message (window));
      g_assert_cmpuint (
          attnscope_token_strip_get_n_chips (attnscope_window_get_token_strip (window)), ==, 0);
      ArFigure figure;
      g_assert_false (
          attnscope_page_get_figure (attnscope_window_get_page (window, "attention"), &figure));
      g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
      g_assert_true (gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS));
    }
  type_text (TEXT);
  g_assert_null (attnscope_window_get_status_title (window));
}

static void
test_same_frame (void)
{
  type_text (TEXT);
  /* 41 tokens, the context is 32 */
  g_autoptr (GString) text = g_string_new ("a");
  for (int i = 0; i < 40; i++)
    g_string_append (text, " the");
  attnscope_window_set_text (window, text->str);
  const char *message = attnscope_window_get_input_message (window);
  g_test_message ("too long: %s · %s", attnscope_window_get_token_count (window), message);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "41 tokens"));
  g_assert_cmpstr (attnscope_window_get_token_count (window), ==, "41 tokens");
  g_assert_true (attnscope_run_get_too_long (gui_test_main_run (window)));
  /* a fitting text pasted over it: the message goes and the count changes before any frame */
  attnscope_window_set_text (window, TEXT " again");
  g_assert_null (attnscope_window_get_input_message (window));
  g_autofree char *count = g_strdup (attnscope_window_get_token_count (window));
  g_assert_false (attnscope_run_get_too_long (gui_test_main_run (window)));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_autofree char *want = g_strdup_printf (
      "%d tokens", attnscope_run_get_trace (gui_test_main_run (window))->n_tokens);
  g_assert_cmpstr (count, ==, want);
}

static void
test_bars (void)
{
  type_text (TEXT);
  AttnscopePredictionsPage *page = ATTNSCOPE_PREDICTIONS_PAGE (show ("predictions"));
  int n = attnscope_predictions_page_get_n_predictions (page);
  g_assert_cmpint (n, ==, 10);
  for (int i = 0; i < n; i++)
    {
      double p = attnscope_predictions_page_get_probability (page, i);
      double bar = attnscope_predictions_page_get_bar (page, i);
      g_test_message ("%d: %s p %.4f bar %.4f", i, attnscope_predictions_page_get_token (page, i),
                      p, bar);
      g_assert_cmpfloat_with_epsilon (bar, p, 1e-9);
    }
  /* the tiny model spreads its probability thin: the top bar is far from full */
  g_assert_cmpfloat (attnscope_predictions_page_get_bar (page, 0), <, 0.5);
}

/* The colour of pixel (X, Y) of IMAGE (ARGB32). */
static guint32
pixel (cairo_surface_t *image, int x, int y)
{
  const guint8 *data = cairo_image_surface_get_data (image);
  return *(const guint32 *) (data + (gsize) y * cairo_image_surface_get_stride (image) + 4 * x)
         & 0xffffff;
}

/* The heatmap is on screen at a size: its cells have rectangles to point at. */
static gboolean
heatmap_shown (gpointer data)
{
  GtkWidget *view = data;
  return gtk_widget_get_mapped (view) && gtk_widget_get_width (view) > 0
         && gtk_widget_get_height (view) > 0
         && attnscope_heatmap_view_get_figure (ATTNSCOPE_HEATMAP_VIEW (view)) != NULL;
}

static void
test_clipped (void)
{
  type_text (TEXT);
  AttnscopeViewState *view = gui_test_view_state (window);
  attnscope_view_state_set_autoscale (view, TRUE);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 1);
  attnscope_view_state_set_head (view, 0);
  AttnscopePage *page = show ("attention");
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  /* on a busy machine the page can be shown before the view has its size (no cell to hit) */
  g_assert_true (gui_test_wait_until (heatmap_shown, heatmap, TIMEOUT_MS));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_test_message ("range %.4f..%.4f, first cell %.4f", fig->vmin, fig->vmax, fig->values[0]);
  g_assert_cmpfloat (fig->values[0], >, fig->vmax);
  g_assert_true (fig->clipped);
  g_assert_true (ar_heatmap_cell_clipped (fig, 0, 0));
  g_assert_false (ar_heatmap_cell_clipped (fig, 1, 0));
  double x, y, w, h;
  g_assert_true (attnscope_heatmap_view_get_cell_rect (heatmap, 0, 0, &x, &y, &w, &h));
  g_autofree char *tip = attnscope_heatmap_view_dup_tooltip_at (heatmap, x + w / 2, y + h / 2);
  g_test_message ("tooltip: %s", tip);
  g_assert_nonnull (tip);
  g_assert_nonnull (strstr (tip, "clipped"));
  /* the figure as drawn: the mark in the first cell's top right corner, the top colour beside */
  ArFigure shown = ar_figure_from_heatmap (fig);
  g_autoptr (GError) error = NULL;
  cairo_surface_t *image = ar_figure_render_image (&shown, 1, &error);
  g_assert_no_error (error);
  double iw, ih;
  ar_figure_get_size (&shown, &iw, &ih);
  double cx, cy, cw, ch;
  ar_heatmap_get_cell_rect (fig, iw, ih, 0, 0, &cx, &cy, &cw, &ch);
  guint32 corner = pixel (image, (int) (cx + cw - 2), (int) (cy + 1));
  guint32 middle = pixel (image, (int) (cx + cw / 2), (int) (cy + ch * 0.75));
  g_test_message ("cell %.0f×%.0f: corner %06x, middle %06x", cw, ch, corner, middle);
  g_assert_cmphex (corner, ==, 0xffffff);
  g_assert_cmphex (middle, !=, 0xffffff);
  cairo_surface_destroy (image);
  /* the export says it */
  AttnscopeExportDialog *d = attnscope_export_dialog_new (window, page);
  attnscope_export_dialog_set_folder (d, test_tmpdir ());
  attnscope_export_dialog_set_name (d, "clipped");
  attnscope_export_dialog_set_format (d, AR_EXPORT_PDF);
  attnscope_export_dialog_set_sidecar (d, FALSE);
  g_autofree char *path = attnscope_export_dialog_dup_path (d);
  g_assert_true (attnscope_export_dialog_export (d, &error));
  gtk_window_destroy (GTK_WINDOW (d));
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  if (pdftotext == NULL)
    {
      g_test_skip ("pdftotext is not installed (Debian: poppler-utils)");
      return;
    }
  const char *argv[] = { pdftotext, path, "-", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "clipped"));
  g_unlink (path);
}

/* The labels below WIDGET that are shown. */
static void
collect_labels (GtkWidget *widget, GPtrArray *labels)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget))
    g_ptr_array_add (labels, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_labels (c, labels);
}

typedef struct
{
  AttnscopePage *page;
  int n;
} MaskedShown;

/* Whether the page shows "masked" in WANT->n cells, each with the tooltip that says why, and no
 * other cell has that tooltip. */
static gboolean
masked_shown (gpointer user_data)
{
  const MaskedShown *want = user_data;
  g_autoptr (GPtrArray) labels = g_ptr_array_new ();
  collect_labels (GTK_WIDGET (want->page), labels);
  int shown = 0, explained = 0;
  for (guint i = 0; i < labels->len; i++)
    {
      gboolean masked = g_strcmp0 (gtk_label_get_text (labels->pdata[i]), "masked") == 0;
      const char *tooltip = gtk_widget_get_tooltip_text (labels->pdata[i]);
      gboolean says_why = g_strcmp0 (tooltip, "The model cannot attend to a later token") == 0;
      if (says_why != masked)
        return FALSE;
      shown += masked;
      explained += says_why;
    }
  return shown == want->n && explained == want->n;
}

static void
test_masked_in_table (void)
{
  type_text (TEXT);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), 1);
  AttnscopePage *page = show ("similarity");
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (page), TIMEOUT_MS));
  GListModel *rows = attnscope_similarity_page_get_rows (ATTNSCOPE_SIMILARITY_PAGE (page));
  int masked = 0;
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (AttnscopeSimilarityRow) row = g_list_model_get_item (rows, i);
      gboolean later = attnscope_similarity_row_get_index (row) > 1;
      g_assert_cmpint (attnscope_similarity_row_get_masked (row), ==, later);
      masked += later;
    }
  int n = attnscope_run_get_trace (gui_test_main_run (window))->n_tokens;
  g_assert_cmpint (masked, ==, n - 2);
  /* the table is short enough to show every row (its row widgets come with its layout) */
  MaskedShown want = { page, n - 2 };
  g_assert_true (gui_test_wait_until (masked_shown, &want, TIMEOUT_MS));
  /* the last token selected: nothing is masked, and the tooltips went with the word */
  attnscope_view_state_set_selected_token (gui_test_view_state (window), n - 1);
  MaskedShown none = { page, 0 };
  g_assert_true (gui_test_wait_until (masked_shown, &none, TIMEOUT_MS));
  attnscope_view_state_set_selected_token (gui_test_view_state (window), -1);
}

static gboolean
translated (gpointer user_data)
{
  AttnscopeRun *run = gui_test_main_run (window);
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && attnscope_run_get_trace (run) != NULL && attnscope_run_get_trace (run)->source != NULL;
}

static void
test_translation_similarity (void)
{
  gui_test_open (window, "attnscope-mini-en-de", NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, "The group went home.");
  attnscope_window_set_target (window, "Die Gruppe ging nach Hause.");
  g_assert_true (gui_test_wait_until (translated, NULL, TIMEOUT_MS));
  AttnscopePage *page = show ("similarity");
  AttnscopeHeatmapView *heatmap
      = attnscope_similarity_page_get_heatmap (ATTNSCOPE_SIMILARITY_PAGE (page));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_test_message ("similarity: %s", fig->subtitle);
  g_assert_cmpint (fig->n_rows, ==, attnscope_run_get_trace (gui_test_main_run (window))->n_tokens);
  g_assert_nonnull (strstr (fig->subtitle, "“Die Gruppe ging nach Hause.”"));
  g_assert_null (strstr (fig->subtitle, "The group"));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_park_pointer ();
  g_autofree char *tiny = gui_test_fixture_path ("tiny-gpt2");
  gui_test_open (window, tiny, TEXT, TIMEOUT_MS);
  g_test_add_func ("/ui/feedback/empty-text", test_empty_text);
  g_test_add_func ("/ui/feedback/same-frame", test_same_frame);
  g_test_add_func ("/ui/feedback/bars", test_bars);
  g_test_add_func ("/ui/feedback/clipped", test_clipped);
  g_test_add_func ("/ui/feedback/masked-in-table", test_masked_in_table);
  g_test_add_func ("/ui/feedback/translation-similarity", test_translation_similarity);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  test_tmpdir_cleanup ();
  return status;
}
