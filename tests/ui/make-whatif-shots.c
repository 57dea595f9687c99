/* make-whatif-shots.c — screenshots of the window's interventions (not a test): the heads grid
 * with two heads switched off and the chip, the Ablation page's scan (timed), the Compare page's
 * patching panel (timed) and No Positions. Run under Xvfb:
 *   make-whatif-shots OUTDIR PREFIX MODEL TEXT COMPARE-TEXT
 * Prints how long the scan and the patching took. */
#include <adwaita.h>

#include "attnscope-compare-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-scan-page.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 1800000

static void
shoot (const char *outdir, const char *prefix, const char *name)
{
  gui_test_spin (1500);
  g_autofree char *path = g_strdup_printf ("%s/%s-%s.png", outdir, prefix, name);
  const char *argv[] = { "import", "-window", "root", path, NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                     &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    g_error ("import %s: %s", path, error->message);
  g_print ("wrote %s\n", path);
}

static gboolean
scan_done (gpointer page)
{
  attnscope_page_ensure_updated (page);
  return !attnscope_scan_page_get_scanning (page);
}

static gboolean
patch_done (gpointer panel)
{
  return !attnscope_patch_panel_get_running (panel);
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

int
main (int argc, char **argv)
{
  if (argc != 6)
    {
      g_printerr ("usage: %s OUTDIR PREFIX MODEL TEXT COMPARE-TEXT\n", argv[0]);
      return 2;
    }
  const char *outdir = argv[1], *prefix = argv[2];
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  AttnscopeWindow *window;
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_wait_model (window, TIMEOUT_MS);
  gui_test_park_pointer ();
  gui_test_open (window, argv[3], argv[4], TIMEOUT_MS);
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  if (trace == NULL)
    {
      g_printerr ("the text did not run on %s (too long for its context?)\n", argv[3]);
      return 1;
    }
  g_print ("%d tokens\n", trace->n_tokens);

  AttnscopeHeadsPage *heads = ATTNSCOPE_HEADS_PAGE (attnscope_window_get_page (window, "heads"));
  attnscope_window_show_page (window, "heads");
  g_signal_emit_by_name (attnscope_heads_page_get_grid (heads), "head-toggled", 0, 1);
  g_signal_emit_by_name (attnscope_heads_page_get_grid (heads), "head-toggled", 1, 0);
  gui_test_wait_runs (window, TIMEOUT_MS);
  gui_test_wait_page (ATTNSCOPE_PAGE (heads), TIMEOUT_MS);
  shoot (outdir, prefix, "heads-ablated");
  gtk_widget_activate_action (GTK_WIDGET (attnscope_window_get_whatif_chip (window)), "chip.reset",
                              NULL);
  gui_test_wait_runs (window, TIMEOUT_MS);

  AttnscopeScanPage *scan = ATTNSCOPE_SCAN_PAGE (attnscope_window_get_page (window, "ablation"));
  attnscope_window_show_page (window, "ablation");
  gint64 start = g_get_monotonic_time ();
  attnscope_scan_page_scan (scan, AS_METRIC_LOSS, NULL, NULL);
  gui_test_spin (2000);
  shoot (outdir, prefix, "ablation-running");
  gui_test_wait_until (scan_done, scan, TIMEOUT_MS);
  g_print ("scan: %.1f s\n", (g_get_monotonic_time () - start) / 1e6);
  shoot (outdir, prefix, "ablation");

  attnscope_run_set_text (gui_test_compare_run (window), argv[5]);
  gui_test_wait_runs (window, TIMEOUT_MS);
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (attnscope_window_get_page (window, "compare"));
  attnscope_window_show_page (window, "compare");
  AttnscopePatchPanel *panel = attnscope_compare_page_get_patch_panel (cp);
  /* a collapsed expander holds its child outside the widget tree: find it from the page */
  gtk_expander_set_expanded (GTK_EXPANDER (find_expander (GTK_WIDGET (cp))), TRUE);
  start = g_get_monotonic_time ();
  if (attnscope_patch_panel_patch (panel, " car", " man", AS_PATCH_HEADS, FALSE))
    gui_test_wait_until (patch_done, panel, TIMEOUT_MS);
  g_print ("patching heads: %.1f s (%s)\n", (g_get_monotonic_time () - start) / 1e6,
           attnscope_patch_panel_get_status (panel));
  gui_test_wait_page (ATTNSCOPE_PAGE (cp), TIMEOUT_MS);
  shoot (outdir, prefix, "patching");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.no-positions", NULL);
  gui_test_wait_runs (window, TIMEOUT_MS);
  if (attnscope_patch_panel_get_running (panel))
    gui_test_wait_until (patch_done, panel, TIMEOUT_MS);
  gui_test_wait_page (ATTNSCOPE_PAGE (cp), TIMEOUT_MS);
  shoot (outdir, prefix, "no-positions");
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
