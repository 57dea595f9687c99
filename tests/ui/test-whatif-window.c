/* test-whatif-window.c — interventions in the real window (under Xvfb):
 * - Shift+click on a head of the Heads page (the grid's "head-toggled") switches it off: the grid
 *   draws it crossed out, the chip under the text says "1 head ablated", the last trace stays
 *   while the ablated pass runs, and then the Predictions page shows exactly the probabilities of
 *   `attnscope predict --ablate L.H --json` (and not the clean ones);
 * - the context menu's action switches a second head off ("2 heads ablated"); a window export of
 *   the page names both heads in its command (--ablate);
 * - the chip's reset switches every head on again: the chip hides and the predictions are the
 *   clean ones again, bit for bit;
 * - "No positions" (win.no-positions) on the shipped BERT: "The man hit the car" against "The car
 *   hit the man" aligned by token is the same vectors in another order — every head's change and
 *   the difference panel within 1e-5 of zero — while with positions they differ; on GPT-2 the
 *   Compare page says why a causal model's orders still differ (the mask);
 * - the Ablation page's scan on attnscope-mini equals `attnscope ablate --scan --json` (every
 *   effect and the clean value, to the bit); Cancel stops a scan and keeps the last figure; a new
 *   text cancels the scan in flight and scans the new text;
 * - the Compare page's patching panel equals `attnscope patch --json` (heads, and the residual
 *   stream from A into B), to the bit; texts of different lengths get one message naming both
 *   counts. */
#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "attnscope-compare-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-predictions-page.h"
#include "attnscope-scan-page.h"
#include "attnscope-whatif-chip.h"
#include "figure-export.h"
#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"
#define TEXT_B "The car hit the man"

static AttnscopeWindow *window;
static char *fixture;

static AttnscopeWhatif *
whatif (void)
{
  return attnscope_session_get_whatif (attnscope_window_get_session (window));
}

static AttnscopePage *
page (const char *name)
{
  AttnscopePage *p = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return p;
}

static const char *
chip_text (void)
{
  return attnscope_whatif_chip_get_text (attnscope_window_get_whatif_chip (window));
}

/* The Predictions page's probabilities and ids, in order. */
typedef struct
{
  int n;
  int32_t ids[16];
  double p[16];
} Shown;

static Shown
shown (void)
{
  AttnscopePredictionsPage *pp = ATTNSCOPE_PREDICTIONS_PAGE (page ("predictions"));
  Shown s = { .n = MIN (attnscope_predictions_page_get_n_predictions (pp), 16) };
  g_assert_cmpint (s.n, >, 0);
  for (int i = 0; i < s.n; i++)
    {
      s.ids[i] = attnscope_predictions_page_get_id (pp, i);
      s.p[i] = attnscope_predictions_page_get_probability (pp, i);
    }
  return s;
}

/* `attnscope predict --model FIXTURE --text TEXT --json [--ablate SPEC]`'s predictions. */
static Shown
cli_predictions (const char *spec)
{
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "predict",
                         "--model",
                         fixture,
                         "--text",
                         TEXT,
                         "--top",
                         "10",
                         "--json",
                         spec != NULL ? "--ablate" : NULL,
                         spec,
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  gui_test_spawn (argv, &out, &err, &status);
  g_autoptr (GError) error = NULL;
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("predict failed: %s", err);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  JsonArray *top = json_object_get_array_member (
      json_node_get_object (json_parser_get_root (parser)), "predictions");
  Shown s = { .n = MIN ((int) json_array_get_length (top), 16) };
  for (int i = 0; i < s.n; i++)
    {
      JsonObject *o = json_array_get_object_element (top, i);
      s.ids[i] = (int32_t) json_object_get_int_member (o, "id");
      s.p[i] = json_object_get_double_member (o, "probability");
    }
  return s;
}

static void
assert_same (const Shown *a, const Shown *b, double tolerance)
{
  g_assert_cmpint (a->n, ==, b->n);
  for (int i = 0; i < a->n; i++)
    {
      g_assert_cmpint (a->ids[i], ==, b->ids[i]);
      if (tolerance == 0)
        g_assert_cmpfloat (a->p[i], ==, b->p[i]);
      else
        g_assert_cmpfloat_with_epsilon (a->p[i], b->p[i], tolerance);
    }
}

static gboolean
differs (const Shown *a, const Shown *b)
{
  for (int i = 0; i < MIN (a->n, b->n); i++)
    if (a->ids[i] != b->ids[i] || fabs (a->p[i] - b->p[i]) > 1e-6)
      return TRUE;
  return FALSE;
}

static const guint8 *
crossed (void)
{
  AttnscopeHeadsPage *hp = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  ArBuiltFigure *built = attnscope_head_grid_view_get_figure (attnscope_heads_page_get_grid (hp));
  g_assert_nonnull (built);
  return ar_built_figure_get_parts (built)->grid.crossed;
}

static void
test_ablate (void)
{
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);
  Shown clean = shown ();
  Shown cli_clean = cli_predictions (NULL);
  assert_same (&clean, &cli_clean, 1e-6);
  g_assert_cmpstr (chip_text (), ==, "");
  g_assert_null (crossed ());

  /* Shift+click on head 0.1 */
  AttnscopeHeadsPage *hp = ATTNSCOPE_HEADS_PAGE (page ("heads"));
  AsTrace *before = attnscope_run_get_trace (gui_test_main_run (window));
  g_signal_emit_by_name (attnscope_heads_page_get_grid (hp), "head-toggled", 0, 1);
  g_assert_cmpstr (chip_text (), ==, "1 head ablated");
  /* the last result stays until the ablated pass lands */
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == before);
  g_assert_true (attnscope_run_get_running (gui_test_main_run (window)));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) != before);
  const guint8 *x = crossed ();
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_nonnull (x);
  for (int l = 0; l < trace->n_layer; l++)
    for (int h = 0; h < trace->n_head; h++)
      g_assert_cmpint (x[l * trace->n_head + h], ==, l == 0 && h == 1);

  Shown ablated = shown ();
  Shown cli_ablated = cli_predictions ("0.1");
  g_test_message ("top probability clean %.9g, 0.1 ablated %.9g (CLI %.9g)", clean.p[0],
                  ablated.p[0], cli_ablated.p[0]);
  assert_same (&ablated, &cli_ablated, 1e-6);
  g_assert_true (differs (&ablated, &clean));

  /* the context menu's item: a second head */
  page ("heads");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (hp), "heads.toggle-head", "(ii)", 1, 0));
  g_assert_cmpstr (chip_text (), ==, "2 heads ablated");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  Shown two = shown ();
  Shown cli_two = cli_predictions ("0.1,1.0");
  assert_same (&two, &cli_two, 1e-6);
  ArViewSelection view;
  attnscope_page_get_selection (ATTNSCOPE_PAGE (hp), &view);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_auto (GStrv) argv
      = gui_export_dup_command (window, ATTNSCOPE_PAGE (hp), &view, &options, "grid.png");
  g_autofree char *joined = g_strjoinv (" ", argv);
  g_test_message ("%s", joined);
  g_assert_nonnull (strstr (joined, " --ablate 0.1,1.0 "));

  /* the chip's reset */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (attnscope_window_get_whatif_chip (window)),
                                             "chip.reset", NULL));
  g_assert_cmpstr (chip_text (), ==, "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  Shown back = shown ();
  assert_same (&back, &clean, 0);
  g_assert_null (crossed ());
}

/* The largest |difference| of the Compare page's difference panel, and of every head's change. */
static void
compare_differences (double *panel, double *heads, const char **note)
{
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (page ("compare"));
  ArBuiltFigure *built = attnscope_compare_view_get_figure (attnscope_compare_page_get_view (cp));
  g_assert_nonnull (built);
  const ArHeatmapFigure *d = ar_built_figure_get_parts (built)->compare.diff;
  g_assert_nonnull (d);
  *panel = 0;
  for (int i = 0; i < d->n_rows * d->n_cols; i++)
    if (!isnan (d->values[i]))
      *panel = MAX (*panel, fabs (d->values[i]));
  AttnscopeAnalysis *a = attnscope_page_get_analysis (ATTNSCOPE_PAGE (cp));
  AttnscopeAnalysis *b = attnscope_page_get_compare_analysis (ATTNSCOPE_PAGE (cp));
  const char *failure = NULL;
  const AsComparison *c
      = attnscope_analysis_want_comparison (a, attnscope_analysis_get_trace (b), &failure);
  g_assert_nonnull (c);
  *heads = 0;
  for (int i = 0; i < c->n_layer * c->n_head; i++)
    *heads = MAX (*heads, c->aligned_head_change[i]);
  *note = attnscope_compare_page_get_positions_note (cp);
}

static void
set_texts (void)
{
  attnscope_window_set_text (window, TEXT);
  attnscope_run_set_text (gui_test_compare_run (window), TEXT_B);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static void
test_no_positions_bert (void)
{
  gui_test_open (window, "attnscope-mini-bert", NULL, TIMEOUT_MS);
  set_texts ();
  g_object_set (gui_test_view_state (window), "align-positions", FALSE, NULL);
  double panel, heads;
  const char *note;
  compare_differences (&panel, &heads, &note);
  g_test_message ("BERT with positions: panel %.3g, largest head change %.3g", panel, heads);
  g_assert_cmpfloat (heads, >, 1e-3);
  g_assert_null (note);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.no-positions", NULL));
  g_assert_true (attnscope_whatif_get_no_positions (whatif ()));
  g_assert_cmpstr (chip_text (), ==, "no positions");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  compare_differences (&panel, &heads, &note);
  g_test_message ("BERT without positions: panel %.3g, largest head change %.3g", panel, heads);
  g_assert_cmpfloat (panel, <, 1e-5);
  g_assert_cmpfloat (heads, <, 1e-5);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "difference is zero"));
}

static void
test_no_positions_gpt2 (void)
{
  gui_test_open (window, fixture, NULL, TIMEOUT_MS);
  /* a new model keeps the positions choice and resets the heads */
  g_assert_true (attnscope_whatif_get_no_positions (whatif ()));
  set_texts ();
  double panel, heads;
  const char *note;
  compare_differences (&panel, &heads, &note);
  g_test_message ("GPT-2 without positions: panel %.3g, largest head change %.3g", panel, heads);
  g_assert_cmpfloat (heads, >, 1e-3);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "the mask"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.no-positions", NULL));
  g_assert_false (attnscope_whatif_get_no_positions (whatif ()));
  g_assert_cmpstr (chip_text (), ==, "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static gboolean
scan_done (gpointer page)
{
  attnscope_page_ensure_updated (page);
  return !attnscope_scan_page_get_scanning (page);
}

/* Asserts that the page's effects are `attnscope ablate --scan --model attnscope-mini --text TEXT
 * --token " car" --vs-token " man" --json`'s. */
static void
assert_scan_equals_cli (AttnscopeScanPage *sp, const char *text)
{
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "ablate",
                         "--scan",
                         "--model",
                         "attnscope-mini",
                         "--text",
                         text,
                         "--token",
                         " car",
                         "--vs-token",
                         " man",
                         "--json",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  gui_test_spawn (argv, &out, &err, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  int L, H;
  double clean;
  const double *effects = attnscope_scan_page_get_effects (sp, &L, &H, &clean);
  g_assert_nonnull (effects);
  g_assert_cmpint (L, ==, json_object_get_int_member (root, "n_layer"));
  g_assert_cmpint (H, ==, json_object_get_int_member (root, "n_head"));
  g_assert_cmpfloat (clean, ==, json_object_get_double_member (root, "clean"));
  JsonArray *rows = json_object_get_array_member (root, "effects");
  double largest = 0;
  for (int l = 0; l < L; l++)
    for (int h = 0; h < H; h++)
      {
        double want = json_array_get_double_element (json_array_get_array_element (rows, l), h);
        g_assert_cmpfloat (effects[l * H + h], ==, want);
        largest = MAX (largest, fabs (want));
      }
  g_test_message ("scan of “%s”: clean %.6f, largest |effect| %.6f, %d × %d equal to the CLI's",
                  text, clean, largest, L, H);
}

static void
test_scan (void)
{
  gui_test_open (window, "attnscope-mini", "The man hit the", TIMEOUT_MS);
  AttnscopeScanPage *sp = ATTNSCOPE_SCAN_PAGE (attnscope_window_get_page (window, "ablation"));
  attnscope_window_show_page (window, "ablation");
  attnscope_page_ensure_updated (ATTNSCOPE_PAGE (sp));
  g_assert_false (attnscope_scan_page_scan (sp, AS_METRIC_LOGIT, "carwash", NULL));
  g_test_message ("status: %s", attnscope_scan_page_get_status (sp));
  g_assert_nonnull (strstr (attnscope_scan_page_get_status (sp), "not one token"));
  g_assert_true (attnscope_scan_page_scan (sp, AS_METRIC_LOGIT_DIFF, " car", " man"));
  g_assert_true (attnscope_scan_page_get_scanning (sp));
  g_assert_true (attnscope_page_get_busy (ATTNSCOPE_PAGE (sp)));
  g_assert_true (gui_test_wait_until (scan_done, sp, TIMEOUT_MS));
  g_assert_nonnull (attnscope_heatmap_view_get_figure (attnscope_scan_page_get_heatmap (sp)));
  assert_scan_equals_cli (sp, "The man hit the");

  /* Cancel keeps the last figure */
  ArBuiltFigure *shown = attnscope_heatmap_view_get_figure (attnscope_scan_page_get_heatmap (sp));
  attnscope_window_set_text (window, "The man who hit the");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  attnscope_page_ensure_updated (ATTNSCOPE_PAGE (sp));
  g_assert_true (attnscope_scan_page_get_scanning (sp));
  attnscope_scan_page_cancel (sp);
  g_assert_false (attnscope_scan_page_get_scanning (sp));
  g_assert_cmpstr (attnscope_scan_page_get_status (sp), ==, "Scan cancelled.");
  g_assert_true (attnscope_heatmap_view_get_figure (attnscope_scan_page_get_heatmap (sp)) == shown);

  /* a new text while a scan runs: that scan is dropped, the new text is scanned */
  g_assert_true (attnscope_scan_page_scan (sp, AS_METRIC_LOGIT_DIFF, " car", " man"));
  attnscope_window_set_text (window, "The car hit the");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (scan_done, sp, TIMEOUT_MS));
  assert_scan_equals_cli (sp, "The car hit the");
  attnscope_window_show_page (window, "attention");
}

static gboolean
patch_done (gpointer panel)
{
  return !attnscope_patch_panel_get_running (panel);
}

/* Asserts that PANEL shows `attnscope patch --model attnscope-mini --text A --text B --token " car"
 * --vs-token " man" --what WHAT [--reverse] --json`'s effects. */
static void
assert_patch_equals_cli (AttnscopePatchPanel *panel, const char *a, const char *b, const char *what,
                         gboolean reverse)
{
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "patch",
                         "--model",
                         "attnscope-mini",
                         "--text",
                         a,
                         "--text",
                         b,
                         "--token",
                         " car",
                         "--vs-token",
                         " man",
                         "--what",
                         what,
                         "--json",
                         reverse ? "--reverse" : NULL,
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status;
  gui_test_spawn (argv, &out, &err, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  int rows, cols;
  AsPatchResult r;
  const double *effects = attnscope_patch_panel_get_effects (panel, &rows, &cols, &r);
  g_assert_nonnull (effects);
  g_assert_cmpfloat (r.base, ==, json_object_get_double_member (root, "base"));
  g_assert_cmpfloat (r.source, ==, json_object_get_double_member (root, "source"));
  JsonArray *table = json_object_get_array_member (root, "effects");
  g_assert_cmpint (rows, ==, json_array_get_length (table));
  for (int i = 0; i < rows; i++)
    {
      JsonArray *row = json_array_get_array_element (table, i);
      g_assert_cmpint (cols, ==, json_array_get_length (row));
      for (int j = 0; j < cols; j++)
        g_assert_cmpfloat (effects[i * cols + j], ==, json_array_get_double_element (row, j));
    }
  g_test_message ("patching %s%s: %d × %d equal to the CLI's, base %.6f, source %.6f, range %g to "
                  "%g",
                  what, reverse ? " (A into B)" : "", rows, cols, r.base, r.source,
                  json_object_get_double_member (root, "min"),
                  json_object_get_double_member (root, "max"));
}

/* Opening the patching panel on the shown Compare page splits the height between the comparison
 * and the panel half and half (the panel had taken all it asked for); closing it gives the
 * comparison the height again. */
static gboolean
split_done (gpointer paned)
{
  gboolean set = FALSE;
  g_object_get (paned, "position-set", &set, NULL);
  return set;
}

/* The first widget of TYPE in WIDGET's tree (WIDGET included), or NULL. */
static GtkWidget *
find_descendant (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_descendant (c, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
assert_patching_shares_height (AttnscopeComparePage *cp)
{
  attnscope_window_show_page (window, "compare");
  /* a closed expander keeps its child out of the widget tree: both found from the page */
  GtkExpander *expander = GTK_EXPANDER (find_descendant (GTK_WIDGET (cp), GTK_TYPE_EXPANDER));
  GtkPaned *paned = GTK_PANED (find_descendant (GTK_WIDGET (cp), GTK_TYPE_PANED));
  g_assert_nonnull (expander);
  g_assert_nonnull (paned);
  gtk_expander_set_expanded (expander, TRUE);
  g_assert_true (gui_test_wait_until (split_done, paned, TIMEOUT_MS));
  gui_test_spin (200);
  int height = gtk_widget_get_height (GTK_WIDGET (paned));
  int comparison = gtk_widget_get_height (gtk_paned_get_start_child (paned));
  g_test_message ("patching open: the comparison %d of %d px", comparison, height);
  g_assert_cmpint (height, >, 200);
  /* half and half, give or take the height the page had when the panel opened */
  g_assert_cmpint (comparison, >=, height * 2 / 5);
  g_assert_cmpint (comparison, <=, height * 3 / 5);
  gtk_expander_set_expanded (expander, FALSE);
  g_assert_false (split_done (paned));
  gui_test_spin (200);
  int closed = gtk_widget_get_height (gtk_paned_get_start_child (paned));
  g_test_message ("patching closed: the comparison %d of %d px", closed, height);
  g_assert_cmpint (closed, >, height - 80);
  gtk_expander_set_expanded (expander, TRUE);
  g_assert_true (gui_test_wait_until (split_done, paned, TIMEOUT_MS));
}

static void
test_patch (void)
{
  gui_test_open (window, "attnscope-mini", "The man hit the", TIMEOUT_MS);
  attnscope_run_set_text (gui_test_compare_run (window), "The car hit the");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (page ("compare"));
  AttnscopePatchPanel *panel = attnscope_compare_page_get_patch_panel (cp);
  g_assert_true (attnscope_patch_panel_patch (panel, " car", " man", AS_PATCH_HEADS, FALSE));
  g_assert_true (gui_test_wait_until (patch_done, panel, TIMEOUT_MS));
  g_assert_nonnull (attnscope_patch_panel_get_figure (panel));
  assert_patching_shares_height (cp);
  assert_patch_equals_cli (panel, "The man hit the", "The car hit the", "heads", FALSE);
  g_assert_true (attnscope_patch_panel_patch (panel, " car", " man", AS_PATCH_RESID, TRUE));
  g_assert_true (gui_test_wait_until (patch_done, panel, TIMEOUT_MS));
  assert_patch_equals_cli (panel, "The man hit the", "The car hit the", "resid", TRUE);
  /* B changes: patched again */
  attnscope_run_set_text (gui_test_compare_run (window), "The dog hit the");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (patch_done, panel, TIMEOUT_MS));
  assert_patch_equals_cli (panel, "The man hit the", "The dog hit the", "resid", TRUE);
  /* different lengths: one message with both counts, no figure */
  attnscope_run_set_text (gui_test_compare_run (window), "The old car hit the");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_test_message ("%s", attnscope_patch_panel_get_status (panel));
  g_assert_cmpstr (attnscope_patch_panel_get_status (panel), ==,
                   "Patching needs texts of the same number of tokens: A has 4, B has 5.");
  g_assert_null (attnscope_patch_panel_get_figure (panel));
  attnscope_run_set_text (gui_test_compare_run (window), "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  fixture = gui_test_fixture_path ("tiny-gpt2");
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/whatif/ablate", test_ablate);
  g_test_add_func ("/ui/whatif/no-positions-bert", test_no_positions_bert);
  g_test_add_func ("/ui/whatif/no-positions-gpt2", test_no_positions_gpt2);
  g_test_add_func ("/ui/whatif/scan", test_scan);
  g_test_add_func ("/ui/whatif/patch", test_patch);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_free (fixture);
  return status;
}
