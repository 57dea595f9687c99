/* test-applies-pages.c — "where a method does not apply, the page says why in one line", in the
 * window (the command line's table is cli/test-cli-applies.c). Under Xvfb the window walks the
 * families of that table that ship with attnscope: attnscope-mini (GPT-2: every method works),
 * attnscope-mini-bert (BERT: post-norm, direct logit attribution refused), attnscope-mini-en-de
 * (Marian, with a target: every method works, the cross-attention heads beside the heads), a
 * random BART and T5 (tests/reference, with their tokenizers; skipped without Python), then BERT
 * again after the translation models. For each model, on the Lens page, the Attribution page,
 * the Attention page with its Norms button down and the Attribution page's query–key view:
 * either the result is shown — a figure whose subtitle names the model now open, so no figure is
 * left from the model before — or there is no figure and one line (no newline) says why, naming
 * the reason. On the translation model the Norms button on the cross-attention shows the weights
 * and one line saying norm weighting does not apply there, and on its encoder the weights and the
 * core's reason in one line. */
#include <adwaita.h>
#include <string.h>

#include "attnscope-attention-page.h"
#include "attnscope-attribution-page.h"
#include "attnscope-lens-page.h"
#include "attnscope-qk-panel.h"
#include "bart-models.h"
#include "gui-test-util.h"
#include "t5-models.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"
#define SOURCE "The group went home."
#define TARGET "Die Gruppe ging nach Hause."

static AttnscopeWindow *window;

static AttnscopePage *
show (const char *name)
{
  return gui_test_show_page (window, name, TIMEOUT_MS);
}

/* HEATMAP shows a figure of MODEL (its subtitle names it); returns the figure's parts. */
static const ArFigureParts *
assert_figure_of (const char *what, AttnscopeHeatmapView *heatmap, const char *model)
{
  ArBuiltFigure *built = attnscope_heatmap_view_get_figure (heatmap);
  if (built == NULL)
    g_error ("%s of %s: no figure", what, model);
  const ArFigureParts *parts = ar_built_figure_get_parts (built);
  g_test_message ("%s of %s: %s", what, model, parts->heatmap.subtitle);
  /* "MODEL · text": attnscope-mini's name is the start of the others' */
  const char *subtitle = parts->heatmap.subtitle;
  if (subtitle == NULL || !g_str_has_prefix (subtitle, model)
      || !g_str_has_prefix (subtitle + strlen (model), " · "))
    g_error ("%s of %s: the figure is of another model: %s", what, model, parts->heatmap.subtitle);
  return parts;
}

/* TEXT is one line holding NEEDLE. */
static void
assert_one_line (const char *what, const char *text, const char *needle)
{
  g_test_message ("%s: %s", what, text != NULL ? text : "(none)");
  g_assert_nonnull (text);
  g_assert_null (strchr (text, '\n'));
  if (strstr (text, needle) == NULL)
    g_error ("%s: '%s' does not say '%s'", what, text, needle);
}

static void
check_lens (const char *model)
{
  AttnscopeLensPage *lens = ATTNSCOPE_LENS_PAGE (attnscope_window_get_page (window, "lens"));
  attnscope_lens_page_show_chart (lens, FALSE);
  show ("lens");
  g_test_message ("lens status: %s", attnscope_lens_page_get_status (lens));
  assert_figure_of ("lens", attnscope_lens_page_get_heatmap (lens), model);
}

static void
check_attribution (const char *model, gboolean works, gboolean translation)
{
  AttnscopeAttributionPage *page
      = ATTNSCOPE_ATTRIBUTION_PAGE (attnscope_window_get_page (window, "attribution"));
  attnscope_attribution_page_show_qk (page, FALSE);
  show ("attribution");
  AttnscopeHeatmapView *cross = attnscope_attribution_page_get_cross_heatmap (page);
  if (works)
    {
      g_assert_nonnull (attnscope_attribution_page_get_attribution (page));
      assert_figure_of ("attribution", attnscope_attribution_page_get_heatmap (page), model);
      g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cross)) == translation);
      if (translation)
        assert_figure_of ("cross heads", cross, model);
      g_assert_nonnull (
          gtk_list_box_get_row_at_index (attnscope_attribution_page_get_parts (page), 0));
      return;
    }
  /* no figure, no cross heads, no list of parts: one line with the reason */
  const char *status = attnscope_attribution_page_get_status (page);
  assert_one_line ("attribution", status, "post-norm");
  g_assert_nonnull (strstr (status, "does not apply"));
  g_assert_nonnull (strstr (status, model));
  g_assert_null (attnscope_attribution_page_get_attribution (page));
  g_assert_null (attnscope_heatmap_view_get_figure (attnscope_attribution_page_get_heatmap (page)));
  g_assert_null (attnscope_heatmap_view_get_figure (cross));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (cross)));
  g_assert_null (gtk_list_box_get_row_at_index (attnscope_attribution_page_get_parts (page), 0));
}

/* The Norms button down on head 0.0 of the decoder's (or the model's) self-attention: the
 * weighted figure; on a translation model's cross-attention the weights and one line why. */
static void
check_norms (const char *model, gboolean translation)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeAttentionPage *attention
      = ATTNSCOPE_ATTENTION_PAGE (attnscope_window_get_page (window, "attention"));
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 0);
  attnscope_view_state_set_head (v, 0);
  attnscope_attention_page_set_norm_weighted (attention, TRUE);
  show ("attention");
  const ArFigureParts *parts
      = assert_figure_of ("norms", attnscope_attention_page_get_heatmap (attention), model);
  g_assert_nonnull (strstr (parts->heatmap.title, "‖α·f(x)‖"));
  g_assert_null (attnscope_attention_page_get_notice (attention));
  if (translation)
    {
      attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
      show ("attention");
      parts = assert_figure_of ("cross norms", attnscope_attention_page_get_heatmap (attention),
                                model);
      g_assert_null (strstr (parts->heatmap.title, "‖α·f(x)‖"));
      assert_one_line ("cross norms", attnscope_attention_page_get_notice (attention),
                       "does not apply to the cross-attention");
      /* the encoder: the core's reason why, the weights shown */
      attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
      show ("attention");
      parts = assert_figure_of ("encoder norms", attnscope_attention_page_get_heatmap (attention),
                                model);
      g_assert_null (strstr (parts->heatmap.title, "‖α·f(x)‖"));
      assert_one_line ("encoder norms", attnscope_attention_page_get_notice (attention),
                       "Norm weighting does not apply");
      attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
      show ("attention");
      g_assert_null (attnscope_attention_page_get_notice (attention));
    }
  attnscope_attention_page_set_norm_weighted (attention, FALSE);
  show ("attention");
  g_assert_null (attnscope_attention_page_get_notice (attention));
}

static void
check_qk (const char *model)
{
  AttnscopeAttributionPage *page
      = ATTNSCOPE_ATTRIBUTION_PAGE (attnscope_window_get_page (window, "attribution"));
  attnscope_view_state_set_selected_token (gui_test_view_state (window), 1);
  attnscope_attribution_page_show_qk (page, TRUE);
  show ("attribution");
  AttnscopeQkPanel *qk = attnscope_attribution_page_get_qk_panel (page);
  g_assert_null (attnscope_qk_panel_get_failure (qk));
  g_assert_nonnull (attnscope_qk_panel_get_qk (qk));
  assert_figure_of ("qk", attnscope_qk_panel_get_heatmap (qk), model);
  attnscope_attribution_page_show_qk (page, FALSE);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), -1);
}

/* The checks on the model now open (its name is what the figures' subtitles start with). */
static void
check_model (gboolean attribution_works, gboolean translation)
{
  const char *model
      = as_model_get_name (attnscope_session_get_model (attnscope_window_get_session (window)));
  g_test_message ("model %s", model);
  check_lens (model);
  check_attribution (model, attribution_works, translation);
  check_norms (model, translation);
  check_qk (model);
}

static void
test_gpt2 (void)
{
  gui_test_open (window, "attnscope-mini", TEXT, TIMEOUT_MS);
  check_model (TRUE, FALSE);
}

static void
test_bert (void)
{
  gui_test_open (window, "attnscope-mini-bert", TEXT, TIMEOUT_MS);
  check_model (FALSE, FALSE);
}

/* The translation model MODEL (a shipped name or a folder) on SOURCE and TARGET. */
static void
check_translation (const char *model)
{
  gui_test_open (window, model, NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, SOURCE);
  attnscope_window_set_target (window, TARGET);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  check_model (TRUE, TRUE);
}

static void
test_marian (void)
{
  check_translation ("attnscope-mini-en-de");
}

/* A random BART (post-norm, final_logits_bias) and T5 (RMS norms, the position bias). */
static void
test_bart (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir != NULL)
    check_translation (dir);
}

static void
test_t5 (void)
{
  g_autofree char *dir = t5_model_with_tokenizer ();
  if (dir != NULL)
    check_translation (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr (AttnscopeApplication) app = gui_test_start (&argc, &argv, &window, TIMEOUT_MS);
  g_test_add_func ("/ui/applies-pages/gpt2", test_gpt2);
  g_test_add_func ("/ui/applies-pages/bert", test_bert);
  g_test_add_func ("/ui/applies-pages/marian", test_marian);
  g_test_add_func ("/ui/applies-pages/bart", test_bart);
  g_test_add_func ("/ui/applies-pages/t5", test_t5);
  /* after the translation model's two heatmaps */
  g_test_add_func ("/ui/applies-pages/bert-again", test_bert);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
