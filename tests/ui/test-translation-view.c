/* test-translation-view.c — what the window shows first for a translation model.
 *
 * The real window under Xvfb on the shipped attnscope-mini-en-de: opening it shows
 * cross-attention (the view the Attention page is for: target tokens against source tokens),
 * the two token strips are captioned "Source" and "Target", and the decoder's first token — the
 * model's decoder start token, Marian's <pad> — says that it is the start token. Opening a
 * decoder-only model again shows its self-attention, and no captions. */
#include <adwaita.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;

/* Whether a visible label below W reads TEXT. */
static gboolean
shows_label (GtkWidget *w, const char *text)
{
  if (GTK_IS_LABEL (w) && gtk_widget_is_visible (w)
      && g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), text) == 0)
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    if (shows_label (c, text))
      return TRUE;
  return FALSE;
}

static gboolean
translated (gpointer user_data)
{
  AttnscopeRun *run = gui_test_main_run (window);
  return !attnscope_run_get_translating (run) && !attnscope_run_get_running (run)
         && attnscope_run_get_trace (run) != NULL && attnscope_run_get_trace (run)->source != NULL;
}

static void
test_defaults (void)
{
  gui_test_open (window, "attnscope-mini-en-de", NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, "The group went home.");
  attnscope_window_set_target (window, "Die Gruppe ging nach Hause.");
  g_assert_true (gui_test_wait_until (translated, NULL, TIMEOUT_MS));
  g_assert_cmpint (attnscope_view_state_get_attention_kind (gui_test_view_state (window)), ==,
                   AR_ATTENTION_CROSS);
  AttnscopePage *page = attnscope_window_get_page (window, "attention");
  attnscope_window_show_page (window, "attention");
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  g_test_message ("attention: %s", fig->title);
  g_assert_true (g_str_has_prefix (fig->title, "Cross-attention"));
  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  g_assert_cmpint (fig->n_rows, ==, trace->n_tokens);
  g_assert_cmpint (fig->n_cols, ==, trace->source->n_tokens);
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS));
  g_assert_true (shows_label (GTK_WIDGET (window), "Source"));
  g_assert_true (shows_label (GTK_WIDGET (window), "Target"));
  AttnscopeTokenStrip *strip = attnscope_window_get_token_strip (window);
  const char *first = attnscope_token_strip_get_chip_label (strip, 0);
  g_autofree char *tip = attnscope_token_strip_dup_chip_tooltip (strip, 0);
  g_test_message ("first target chip: %s · %s", first, tip);
  g_assert_true (g_str_has_suffix (first, " (start)"));
  g_assert_nonnull (strstr (tip, "start token"));
  /* the source's first chip is an ordinary token */
  const char *source_first
      = attnscope_token_strip_get_chip_label (attnscope_window_get_source_strip (window), 0);
  g_assert_null (strstr (source_first, "(start)"));
  /* a decoder-only model: its self-attention, no captions */
  g_autofree char *tiny = gui_test_fixture_path ("tiny-gpt2");
  gui_test_open (window, tiny, "The man hit the car", TIMEOUT_MS);
  g_assert_cmpint (attnscope_view_state_get_attention_kind (gui_test_view_state (window)), ==,
                   AR_ATTENTION_SELF);
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS));
  g_assert_false (shows_label (GTK_WIDGET (window), "Source"));
  g_assert_false (shows_label (GTK_WIDGET (window), "Target"));
  g_assert_null (strstr (attnscope_token_strip_get_chip_label (strip, 0), "(start)"));
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  gui_test_park_pointer ();
  g_test_add_func ("/ui/translation-view/defaults", test_defaults);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
