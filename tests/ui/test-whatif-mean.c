/* test-whatif-mean.c — the window's mean ablation and the what-if runs on the changed model
 * (under Xvfb, on attnscope-mini):
 * - "Mean over…" (the chip's attnscope_whatif_chip_mean_over, what its file chooser calls) with
 *   bad files: an empty file, a file that does not exist, a line longer than the context — each
 *   a message naming the file, the ablation and the predictions kept; then a good file: the chip
 *   says "2 heads ablated · mean over means.txt" and the Predictions page shows exactly
 *   `attnscope predict --ablate 0.1,1.0 --ablation mean --mean-over FILE --json` (1e-6), not the
 *   zero ablation's; a window export names --ablation mean --mean-over FILE; the chip's menu
 *   switches back to zero ablation (predictions as `predict --ablate 0.1,1.0`);
 * - the Ablation page's scan with heads switched off (mean ablation) equals `attnscope ablate
 *   --scan --ablate 0.1,1.0 --ablation mean --mean-over FILE --json` bit for bit, a switched-off
 *   head's effect is 0, and the status names the heads;
 * - the Compare page's patching with heads switched off equals `attnscope patch --ablate 0.1,1.0
 *   --ablation mean --mean-over FILE --json` bit for bit and says so; its Cancel stops a run
 *   ("Patching cancelled.", the panel idle at once);
 * - the keyboard-shortcuts window lists Alt+1 … Alt+9 and Alt+0 (Ablation) and Shift+click.
 * With $ATTNSCOPE_SHOT_DIR: screenshots of the chip's menu, the Ablation page and the patching
 * panel at 5 tokens, and of the Ablation page and the patching panel at about 1,000 tokens on a
 * random Llama-shaped model (tests/reference/decoder_reference.py). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "attnscope-compare-page.h"
#include "attnscope-predictions-page.h"
#include "attnscope-scan-page.h"
#include "attnscope-whatif-chip.h"
#include "decoder-models.h"
#include "figure-export.h"
#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 120000
#define TEXT "The man hit the"
#define TEXT_B "The car hit the"
#define HEADS "0.1,1.0"

static AttnscopeWindow *window;
static char *dir, *means_file;

static AttnscopeWhatif *
whatif (void)
{
  return attnscope_session_get_whatif (attnscope_window_get_session (window));
}

static AttnscopeWhatifChip *
chip (void)
{
  return attnscope_window_get_whatif_chip (window);
}

static AttnscopePage *
page (const char *name)
{
  AttnscopePage *p = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return p;
}

static void
maybe_shot (const char *name)
{
  const char *shots = g_getenv ("ATTNSCOPE_SHOT_DIR");
  if (shots == NULL)
    return;
  gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS);
  gui_test_spin (300);
  g_autofree char *file = g_strdup_printf ("%s/%s.png", shots, name);
  const char *argv[] = { "/usr/bin/import", "-window", "root", file, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  gui_test_spawn (argv, &out, &err, &status);
  g_test_message ("screenshot %s (status %d)", file, status);
}

/* Runs the attnscope command ARGV (after the binary) and parses its JSON output. */
static JsonObject *
cli_json (JsonParser *parser, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("ATTNSCOPE_BIN"));
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status;
  gui_test_spawn ((const char *const *) argv->pdata, &out, &err, &status);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", args[0], err);
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_node_get_object (json_parser_get_root (parser));
}

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

/* `predict --ablate HEADS [--ablation mean --mean-over FILE] --json`'s predictions. */
static Shown
cli_predictions (gboolean mean)
{
  const char *args[] = { "predict",
                         "--model",
                         "attnscope-mini",
                         "--text",
                         TEXT,
                         "--top",
                         "10",
                         "--json",
                         "--ablate",
                         HEADS,
                         mean ? "--ablation" : NULL,
                         "mean",
                         "--mean-over",
                         means_file,
                         NULL };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *top = json_object_get_array_member (cli_json (parser, args), "predictions");
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
assert_same (const Shown *a, const Shown *b)
{
  g_assert_cmpint (a->n, ==, b->n);
  for (int i = 0; i < a->n; i++)
    {
      g_assert_cmpint (a->ids[i], ==, b->ids[i]);
      g_assert_cmpfloat_with_epsilon (a->p[i], b->p[i], 1e-6);
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

static gboolean
chip_idle (gpointer user_data)
{
  return !attnscope_whatif_chip_get_busy (chip ());
}

/* "Mean over" PATH; waits for its end; returns the chip's message. */
static const char *
mean_over (const char *path)
{
  attnscope_whatif_chip_mean_over (chip (), path);
  g_assert_true (gui_test_wait_until (chip_idle, NULL, TIMEOUT_MS));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  const char *status = attnscope_whatif_chip_get_status (chip ());
  g_test_message ("Mean over %s: “%s”", path, status);
  return status;
}

static char *
write_file (const char *name, const char *contents)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

static void
switch_heads_off (void)
{
  g_assert_true (attnscope_whatif_toggle_head (whatif (), 0, 1));
  g_assert_true (attnscope_whatif_toggle_head (whatif (), 1, 0));
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static void
test_mean (void)
{
  gui_test_open (window, "attnscope-mini", TEXT, TIMEOUT_MS);
  switch_heads_off ();
  Shown zero = shown ();
  Shown cli_zero = cli_predictions (FALSE);
  assert_same (&zero, &cli_zero);
  AsTrace *before = attnscope_run_get_trace (gui_test_main_run (window));

  /* bad files: a message naming the file, the ablation as it was */
  g_autofree char *empty = write_file ("empty.txt", "\n  \n");
  g_assert_nonnull (strstr (mean_over (empty), "empty.txt: the file has no text"));
  g_autofree char *missing = g_build_filename (dir, "missing.txt", NULL);
  g_assert_nonnull (strstr (mean_over (missing), "missing.txt"));
  GString *longer = g_string_new ("A short line.\n");
  for (int i = 0; i < 200; i++)
    g_string_append (longer, " the car");
  g_string_append_c (longer, '\n');
  g_autofree char *too_long = write_file ("long.txt", longer->str);
  g_string_free (longer, TRUE);
  const char *message = mean_over (too_long);
  g_assert_nonnull (strstr (message, "long.txt"));
  g_assert_nonnull (strstr (message, "text 2"));
  g_assert_cmpint (attnscope_whatif_get_kind (whatif ()), ==, AS_ABLATION_ZERO);
  g_assert_null (attnscope_whatif_get_mean_over (whatif ()));
  g_assert_true (attnscope_run_get_trace (gui_test_main_run (window)) == before);
  g_assert_cmpstr (attnscope_whatif_chip_get_text (chip ()), ==, "2 heads ablated");

  /* a good file: mean ablation, the command line's numbers */
  g_assert_cmpstr (mean_over (means_file), ==, "");
  g_assert_cmpint (attnscope_whatif_get_kind (whatif ()), ==, AS_ABLATION_MEAN);
  g_assert_cmpstr (attnscope_whatif_chip_get_text (chip ()), ==,
                   "2 heads ablated · mean over means.txt");
  Shown mean = shown ();
  Shown cli_mean = cli_predictions (TRUE);
  g_test_message ("top probability: zero ablation %.9g, mean ablation %.9g (CLI %.9g)", zero.p[0],
                  mean.p[0], cli_mean.p[0]);
  assert_same (&mean, &cli_mean);
  g_assert_true (differs (&mean, &zero));
  AttnscopePage *pp = page ("predictions");
  ArViewSelection view;
  attnscope_page_get_selection (pp, &view);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_auto (GStrv) argv = gui_export_dup_command (window, pp, &view, &options, "p.png");
  g_autofree char *joined = g_strjoinv (" ", argv);
  g_autofree char *want
      = g_strdup_printf (" --ablate %s --ablation mean --mean-over %s ", HEADS, means_file);
  g_assert_nonnull (strstr (joined, want));
  if (g_getenv ("ATTNSCOPE_SHOT_DIR") != NULL)
    {
      page ("heads");
      gtk_menu_button_popup (attnscope_whatif_chip_get_menu_button (chip ()));
      maybe_shot ("whatif-chip-menu-mean");
      gtk_menu_button_popdown (attnscope_whatif_chip_get_menu_button (chip ()));
    }
  /* the chip's menu: zero ablation again */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chip ()), "ablation.kind", "s", "zero"));
  g_assert_cmpint (attnscope_whatif_get_kind (whatif ()), ==, AS_ABLATION_ZERO);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  Shown again = shown ();
  assert_same (&again, &cli_zero);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (chip ()), "ablation.kind", "s", "mean"));
  g_assert_cmpint (attnscope_whatif_get_kind (whatif ()), ==, AS_ABLATION_MEAN);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

static gboolean
scan_done (gpointer page)
{
  return !attnscope_scan_page_get_scanning (page);
}

static void
test_scan (void)
{
  /* after test_mean: heads 0.1 and 1.0 switched off, mean ablation over means.txt */
  g_assert_cmpint (attnscope_whatif_get_kind (whatif ()), ==, AS_ABLATION_MEAN);
  AttnscopeScanPage *sp = ATTNSCOPE_SCAN_PAGE (page ("ablation"));
  g_assert_true (attnscope_scan_page_scan (sp, AS_METRIC_LOGIT_DIFF, " car", " man"));
  g_assert_true (gui_test_wait_until (scan_done, sp, TIMEOUT_MS));
  const char *status = attnscope_scan_page_get_status (sp);
  g_test_message ("%s", status);
  g_assert_nonnull (strstr (status, "heads 0.1,1.0 switched off (mean ablation over means.txt)"));
  const char *args[]
      = { "ablate",     "--scan", "--model",     "attnscope-mini", "--text",   TEXT,
          "--token",    " car",   "--vs-token",  " man",           "--ablate", HEADS,
          "--ablation", "mean",   "--mean-over", means_file,       "--json",   NULL };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = cli_json (parser, args);
  int L, H;
  double clean;
  const double *effects = attnscope_scan_page_get_effects (sp, &L, &H, &clean);
  g_assert_nonnull (effects);
  g_assert_cmpstr (json_object_get_string_member (root, "ablated"), ==, HEADS);
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
  g_assert_cmpfloat (effects[0 * H + 1], ==, 0.0);
  g_assert_cmpfloat (effects[1 * H + 0], ==, 0.0);
  g_assert_cmpfloat (largest, >, 0.0);
  g_test_message ("scan on the mean-ablated model: clean %.6f, largest |effect| %.6f, %d × %d "
                  "equal to the CLI's",
                  clean, largest, L, H);
  maybe_shot ("whatif-ablation-page-5");
}

static GtkWidget *
find_expander (GtkWidget *w)
{
  if (GTK_IS_EXPANDER (w))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_expander (c);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Compare page with its patching panel open (for the screenshots). */
static void
open_patch_panel (AttnscopeComparePage *cp)
{
  GtkWidget *expander = find_expander (GTK_WIDGET (cp));
  g_assert_nonnull (expander);
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
}

static gboolean
patch_done (gpointer panel)
{
  return !attnscope_patch_panel_get_running (panel);
}

static void
test_patch (void)
{
  attnscope_run_set_text (gui_test_compare_run (window), TEXT_B);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (page ("compare"));
  AttnscopePatchPanel *panel = attnscope_compare_page_get_patch_panel (cp);
  open_patch_panel (cp);
  g_assert_true (attnscope_patch_panel_patch (panel, " car", " man", AS_PATCH_HEADS, FALSE));
  g_assert_true (gui_test_wait_until (patch_done, panel, TIMEOUT_MS));
  const char *status = attnscope_patch_panel_get_status (panel);
  g_test_message ("%s", status);
  g_assert_cmpstr (status, ==,
                   "Patched on the model with heads 0.1,1.0 switched off (mean ablation over "
                   "means.txt).");
  const char *args[]
      = { "patch",   "--model",     "attnscope-mini", "--text", TEXT,       "--text", TEXT_B,
          "--token", " car",        "--vs-token",     " man",   "--ablate", HEADS,    "--ablation",
          "mean",    "--mean-over", means_file,       "--json", NULL };
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = cli_json (parser, args);
  int rows, cols;
  AsPatchResult r;
  const double *effects = attnscope_patch_panel_get_effects (panel, &rows, &cols, &r);
  g_assert_nonnull (effects);
  g_assert_cmpfloat (r.base, ==, json_object_get_double_member (root, "base"));
  g_assert_cmpfloat (r.source, ==, json_object_get_double_member (root, "source"));
  JsonArray *table = json_object_get_array_member (root, "effects");
  g_assert_cmpint (rows, ==, json_array_get_length (table));
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      g_assert_cmpfloat (
          effects[i * cols + j], ==,
          json_array_get_double_element (json_array_get_array_element (table, i), j));
  /* the switched-off heads are the same in both passes: patching them changes nothing */
  g_assert_cmpfloat (effects[0 * cols + 1], ==, 0.0);
  g_assert_cmpfloat (effects[1 * cols + 0], ==, 0.0);
  g_test_message ("patching on the mean-ablated model: %d × %d equal to the CLI's, base %.6f, "
                  "source %.6f",
                  rows, cols, r.base, r.source);
  maybe_shot ("whatif-patch-panel-5");
  /* Cancel stops the run at once */
  g_assert_true (attnscope_patch_panel_patch (panel, " car", " man", AS_PATCH_RESID, TRUE));
  g_assert_true (attnscope_patch_panel_get_running (panel));
  attnscope_patch_panel_cancel (panel);
  g_assert_false (attnscope_patch_panel_get_running (panel));
  g_assert_cmpstr (attnscope_patch_panel_get_status (panel), ==, "Patching cancelled.");
  /* the heads result stays */
  g_assert_true (attnscope_patch_panel_get_effects (panel, &rows, &cols, &r) != NULL);
  attnscope_run_set_text (gui_test_compare_run (window), "");
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

/* Every GtkShortcutsShortcut below WIDGET: "accelerator|title" lines into OUT. */
static void
collect_shortcuts (GtkWidget *widget, GString *out)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      g_autofree char *accel = NULL, *title = NULL;
      g_object_get (widget, "accelerator", &accel, "title", &title, NULL);
      g_string_append_printf (out, "%s|%s\n", accel != NULL ? accel : "", title);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_shortcuts (c, out);
}

static void
test_shortcuts (void)
{
  GtkShortcutsWindow *overlay
      = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_assert_nonnull (overlay);
  g_autoptr (GString) all = g_string_new (NULL);
  collect_shortcuts (GTK_WIDGET (overlay), all);
  for (int i = 0; i <= 9; i++)
    {
      g_autofree char *accel = g_strdup_printf ("<Alt>%d|", i);
      g_assert_nonnull (strstr (all->str, accel));
    }
  g_assert_nonnull (strstr (all->str, "<Alt>0|Ablation\n"));
  g_assert_nonnull (strstr (all->str, "<Alt>9|Attribution\n"));
  g_assert_nonnull (strstr (all->str, "Shift+click a head"));
  g_assert_nonnull (strstr (all->str, "Mean over…"));
}

static const char *const llama_long[]
    = { "--family",   "llama", "--layers",    "2",    "--heads",        "4",
        "--kv-heads", "2",     "--hidden",    "64",   "--intermediate", "112",
        "--vocab",    "320",   "--positions", "4096", "--dtype",        "f32",
        NULL };

/* The Ablation page and the patching panel at about 1,000 tokens (screenshots only). */
static void
test_long_shots (void)
{
  if (g_getenv ("ATTNSCOPE_SHOT_DIR") == NULL)
    {
      g_test_skip ("screenshots only: set ATTNSCOPE_SHOT_DIR");
      return;
    }
  g_autofree char *model = decoder_model ("llama-long-4096", llama_long, TRUE);
  if (model == NULL)
    {
      g_test_skip ("the random model could not be made (tests/reference/decoder_reference.py)");
      return;
    }
  GString *a = g_string_new ("Once");
  static const char *const sentences[]
      = { " The man hit the car.", " Then the car hit the man.", " He went home in the dark.",
          " The dog ran in the park." };
  for (int i = 0; i < 70; i++)
    g_string_append (a, sentences[i % 4]);
  /* B: the last two sentences swapped (the same tokens, the same number) */
  g_autofree char *b
      = g_strconcat (a->str, " Then the car hit the man. The man hit the car.", NULL);
  g_string_append (a, " The man hit the car. Then the car hit the man.");
  gui_test_open (window, model, a->str, TIMEOUT_MS);
  switch_heads_off ();
  AsTrace *t = attnscope_run_get_trace (gui_test_main_run (window));
  g_test_message ("long text: %d tokens", t->n_tokens);
  AttnscopeScanPage *sp = ATTNSCOPE_SCAN_PAGE (page ("ablation"));
  g_assert_true (attnscope_scan_page_scan (sp, AS_METRIC_LOSS, NULL, NULL));
  g_assert_true (gui_test_wait_until (scan_done, sp, TIMEOUT_MS));
  g_test_message ("%s", attnscope_scan_page_get_status (sp));
  maybe_shot ("whatif-ablation-page-1000");
  attnscope_run_set_text (gui_test_compare_run (window), b);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (page ("compare"));
  AttnscopePatchPanel *panel = attnscope_compare_page_get_patch_panel (cp);
  open_patch_panel (cp);
  const char *words[][2] = { { " car", " man" }, { "car", "man" }, { " the", " a" } };
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (attnscope_patch_panel_patch (panel, words[i][0], words[i][1], AS_PATCH_HEADS, FALSE))
      break;
  g_assert_true (gui_test_wait_until (patch_done, panel, TIMEOUT_MS));
  g_test_message ("%s", attnscope_patch_panel_get_status (panel));
  maybe_shot ("whatif-patch-panel-1000");
  g_string_free (a, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  dir = g_dir_make_tmp ("attnscope-whatif-mean-XXXXXX", NULL);
  means_file = g_build_filename (dir, "means.txt", NULL);
  g_assert_true (g_file_set_contents (means_file,
                                      "The cat sat on the mat.\n\nA dog ran in the park and "
                                      "barked\r\nShe went home in the dark.\n",
                                      -1, NULL));
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/whatif-mean/mean", test_mean);
  g_test_add_func ("/ui/whatif-mean/scan", test_scan);
  g_test_add_func ("/ui/whatif-mean/patch", test_patch);
  g_test_add_func ("/ui/whatif-mean/shortcuts", test_shortcuts);
  g_test_add_func ("/ui/whatif-mean/long-shots", test_long_shots);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  const char *names[] = { "means.txt", "empty.txt", "long.txt" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
  g_free (means_file);
  g_free (dir);
  return status;
}
