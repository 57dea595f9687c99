/* make-screenshots.c — drives the real application under Xvfb and saves one screenshot of each
 * page with ImageMagick's `import -window root` (tests/ui/make-screenshots.sh runs it).
 *
 * Usage: make-screenshots OUTDIR MODEL TEXT COMPARE-TEXT COMPARE-A COMPARE-B [dark]
 *        make-screenshots OUTDIR MODEL SOURCE --translation
 * TEXT and COMPARE-TEXT are shown on every page but the compare page, which shows COMPARE-A
 * against COMPARE-B (short texts keep the per-layer chart on screen).
 * Writes OUTDIR/attention.png, heads.png, similarity.png, embeddings.png (the three "spring"
 * sentences: static token embeddings beside contextual hidden states, UMAP), compare.png,
 * predictions.png, attention-zoom.png (the heatmap zoomed in with the keyboard, the cursor cell
 * and the minimap), export.png (the export dialog set to one journal column); with "dark",
 * attention-dark.png and heads-dark.png.
 *
 *        make-screenshots OUTDIR ENCODER SENTENCE-A SENTENCE-B MASKED-TEXT encoder
 * An encoder (attnscope-mini-bert): the pair (A, B) on the attention page with the sentence
 * filter A → B (encoder-pair.png), the same pair's heads (encoder-heads.png), and the masked
 * predictions of MASKED-TEXT (encoder-predictions.png); with "dark" after "encoder" only the
 * pair, in dark mode (encoder-pair-dark.png).
 *
 *        make-screenshots OUTDIR MODEL SOURCE --translation
 * A translation model: the window translates SOURCE with the Translate button and writes
 * translation-cross.png (the cross-attention heatmap) and translation-alignment.png. */
#include <adwaita.h>

#include "attnscope-attention-page.h"
#include "attnscope-embeddings-page.h"
#include "attnscope-export-dialog.h"
#include "gui-test-util.h"

/* The lecture's three senses of "spring" (the first rephrased so that it holds the token
 * " spring": attnscope-mini splits "Spring" into "Sp" + "ring"). */
static const char *const spring_sentences[] = {
  "My favorite season is spring",
  "The water of the spring is very clean",
  "Last night I broke one spring in my bed",
};

static const char *const pages[]
    = { "attention", "heads", "similarity", "embeddings", "compare", "predictions", "lens" };

static void
shoot (const char *path)
{
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "import", "-window", "root", path, NULL };
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                     &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    g_error ("import %s: %s", path, error->message);
  g_print ("wrote %s\n", path);
}

static void
set_texts (AttnscopeWindow *window, const char *text, const char *compare)
{
  attnscope_window_set_text (window, text);
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)),
                          compare);
  gui_test_wait_runs (window, 60000);
}

static void
prepare_page (AttnscopeWindow *window, const char *page, char **argv)
{
  AttnscopeViewState *view = attnscope_session_get_view (attnscope_window_get_session (window));
  if (g_str_equal (page, "compare"))
    set_texts (window, argv[5], argv[6]);
  else if (g_str_equal (page, "predictions"))
    set_texts (window, argv[3], argv[4]);
  if (g_str_equal (page, "attention"))
    {
      attnscope_view_state_set_layer (view, 1);
      attnscope_view_state_set_head (view, 1);
      attnscope_view_state_set_selected_token (view, 2);
    }
  else if (g_str_equal (page, "similarity"))
    attnscope_view_state_set_selected_token (view, 1);
  else if (g_str_equal (page, "embeddings"))
    {
      /* The lecture's "spring": static token embeddings beside the hidden states after layer 2,
       * by UMAP, every " spring" highlighted. */
      AttnscopeEmbeddingsPage *emb
          = ATTNSCOPE_EMBEDDINGS_PAGE (attnscope_window_get_page (window, "embeddings"));
      const char *const more[] = { spring_sentences[1], spring_sentences[2], NULL };
      attnscope_window_set_text (window, spring_sentences[0]);
      gui_test_wait_runs (window, 60000);
      attnscope_sentences_set_all (attnscope_embeddings_page_get_sentences (emb), more);
      attnscope_view_state_set_selected_token (view, -1);
      attnscope_view_state_set_layer (view, 2);
      attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_UMAP);
      attnscope_embeddings_page_set_static_beside (emb, TRUE);
      attnscope_embeddings_page_set_highlight (emb, "spring");
    }
}

static void
show_and_shoot (AttnscopeWindow *window, const char *page, const char *outdir, const char *name)
{
  attnscope_window_show_page (window, page);
  gui_test_wait_page (attnscope_window_get_page (window, page), 60000);
  gui_test_spin (1500);
  g_autofree char *path = g_build_filename (outdir, name, NULL);
  shoot (path);
}

/* The encoder's screenshots (see the top). */
static int
encoder_shots (int argc, char **argv)
{
  const char *outdir = argv[1];
  gboolean dark = argc > 7 && g_str_equal (argv[7], "dark");
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
  AttnscopeWindow *window;
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_wait_model (window, 60000);
  attnscope_window_open_model (window, argv[2]);
  gui_test_wait_model (window, 60000);
  attnscope_window_set_pair (window, argv[4]);
  attnscope_window_set_text (window, argv[3]);
  gui_test_wait_runs (window, 60000);
  g_mkdir_with_parents (outdir, 0755);
  gui_test_park_pointer ();
  AttnscopeViewState *view = attnscope_session_get_view (attnscope_window_get_session (window));
  attnscope_view_state_set_layer (view, 2);
  attnscope_view_state_set_head (view, 1);
  attnscope_view_state_set_segments (view, AR_SEGMENTS_A_B);
  show_and_shoot (window, "attention", outdir, dark ? "encoder-pair-dark.png" : "encoder-pair.png");
  if (dark)
    {
      gtk_window_destroy (GTK_WINDOW (window));
      return 0;
    }
  attnscope_view_state_set_segments (view, AR_SEGMENTS_ALL);
  show_and_shoot (window, "heads", outdir, "encoder-heads.png");
  attnscope_window_set_pair (window, NULL);
  attnscope_window_set_text (window, argv[5]);
  gui_test_wait_runs (window, 60000);
  show_and_shoot (window, "predictions", outdir, "encoder-predictions.png");
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static gboolean
translated (gpointer user_data)
{
  AttnscopeRun *run = attnscope_session_get_main (attnscope_window_get_session (user_data));
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && attnscope_run_get_trace (run) != NULL;
}

/* The translation window: SOURCE, the Translate button, then the cross-attention heatmap and the
 * alignment of one head. */
static int
translation_shots (const char *outdir, const char *model, const char *source)
{
  AttnscopeWindow *window;
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_wait_model (window, 60000);
  attnscope_window_open_model (window, model);
  gui_test_wait_model (window, 60000);
  attnscope_window_set_text (window, source);
  attnscope_window_set_target (window, "");
  g_signal_emit_by_name (attnscope_window_get_translate_button (window), "clicked");
  gui_test_wait_until (translated, window, 60000);
  g_mkdir_with_parents (outdir, 0755);
  gui_test_park_pointer ();
  AttnscopeViewState *view = attnscope_session_get_view (attnscope_window_get_session (window));
  attnscope_view_state_set_attention_kind (view, AR_ATTENTION_CROSS);
  attnscope_view_state_set_aggregate (view, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (view, 2);
  attnscope_view_state_set_head (view, 2);
  const char *shots[][2]
      = { { "attention", "translation-cross.png" }, { "alignment", "translation-alignment.png" } };
  for (gsize i = 0; i < G_N_ELEMENTS (shots); i++)
    {
      attnscope_window_show_page (window, shots[i][0]);
      gui_test_wait_page (attnscope_window_get_page (window, shots[i][0]), 60000);
      gui_test_spin (1500);
      g_autofree char *path = g_build_filename (outdir, shots[i][1], NULL);
      shoot (path);
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

int
main (int argc, char **argv)
{
  gtk_init ();
  adw_init ();
  if (argc == 5 && g_str_equal (argv[4], "--translation"))
    return translation_shots (argv[1], argv[2], argv[3]);
  if (argc > 6 && g_str_equal (argv[6], "encoder"))
    return encoder_shots (argc, argv);
  if (argc < 7)
    {
      g_printerr ("usage: %s OUTDIR MODEL TEXT COMPARE-TEXT COMPARE-A COMPARE-B [dark]\n", argv[0]);
      return 2;
    }
  const char *outdir = argv[1];
  gboolean dark = argc > 7 && g_str_equal (argv[7], "dark");
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
  AttnscopeWindow *window;
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_wait_model (window, 60000);
  attnscope_window_open_model (window, argv[2]);
  gui_test_wait_model (window, 60000);
  set_texts (window, argv[3], argv[4]);
  g_mkdir_with_parents (outdir, 0755);
  gui_test_park_pointer ();
  for (gsize i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      /* In dark mode the attention and heads pages show what changes. */
      if (dark && i > 1)
        break;
      prepare_page (window, pages[i], argv);
      attnscope_window_show_page (window, pages[i]);
      /* The page's analyses and the redraw. */
      gui_test_wait_page (attnscope_window_get_page (window, pages[i]), 60000);
      gui_test_spin (1500);
      g_autofree char *name = g_strdup_printf ("%s%s.png", pages[i], dark ? "-dark" : "");
      g_autofree char *path = g_build_filename (outdir, name, NULL);
      shoot (path);
    }
  if (!dark)
    {
      /* Zoomed in around a cursor cell, as the arrow keys and + leave it. */
      set_texts (window, argv[3], argv[4]);
      prepare_page (window, "attention", argv);
      attnscope_window_show_page (window, "attention");
      AttnscopePage *page = attnscope_window_get_page (window, "attention");
      gui_test_wait_page (page, 60000);
      AttnscopeHeatmapView *heatmap
          = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
      attnscope_heatmap_view_set_cursor (heatmap, 7, 4);
      attnscope_heatmap_view_zoom (heatmap, 0.5);
      gtk_widget_grab_focus (GTK_WIDGET (heatmap));
      gui_test_spin (1500);
      g_autofree char *path = g_build_filename (outdir, "attention-zoom.png", NULL);
      shoot (path);

      /* The export dialog, one journal column wide, as a PDF. */
      attnscope_heatmap_view_set_view (heatmap, 0, 0, 0);
      AttnscopeExportDialog *dialog = attnscope_export_dialog_new (window, page);
      attnscope_export_dialog_set_format (dialog, AR_EXPORT_PDF);
      attnscope_export_dialog_set_size (dialog, ATTNSCOPE_EXPORT_SIZE_ONE_COLUMN);
      attnscope_export_dialog_set_folder (dialog, g_get_tmp_dir ());
      gtk_window_present (GTK_WINDOW (dialog));
      gui_test_spin (2000);
      g_autofree char *export_path = g_build_filename (outdir, "export.png", NULL);
      shoot (export_path);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}
