/* test-long-views.c — the window's views of a text of thousands of tokens whose attention the
 * trace computes on demand (ui/README.md, "Attention at long lengths").
 *
 * The real window under Xvfb (1280 × 800) on a random Llama-shaped model (2 layers, 4 query / 2
 * key/value heads, D 64, 4,096 positions; tests/reference/decoder_reference.py) with a text of
 * more than 2,000 tokens, $ATTNSCOPE_ATTENTION_HELD_MAX at 1 MB so that the size rule picks the
 * on-demand trace:
 * - the Attention page shows the head pooled in blocks (at most 1,024 a side) whose values are the
 *   largest weight of each block, checked against tiles read here; the colour bar says
 *   "max over K×K"; zoomed in to 64 blocks the view draws;
 * - the Heads page draws every head's pooled thumbnail, equal to the maxima of their blocks;
 * - a new text typed while the thumbnails are computed: the grid then shows the new text's heads
 *   (the old computation was dropped, the window answered meanwhile).
 * The numbers measured are printed (g_test_message). */
#include <adwaita.h>
#include <string.h>

#include "as-attention-pool.h"
#include "attention-thumbnails.h"
#include "attnscope-attention-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-head-grid-view.h"
#include "decoder-models.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 240000

static AttnscopeWindow *window;
static char *model;

static const char *const llama_long[]
    = { "--family",   "llama", "--layers",    "2",    "--heads",        "4",
        "--kv-heads", "2",     "--hidden",    "64",   "--intermediate", "112",
        "--vocab",    "320",   "--positions", "4096", "--dtype",        "f32",
        NULL };

/* A text of N_SENTENCES sentences of the fixture's small vocabulary. */
static char *
long_text (int n_sentences, const char *first)
{
  GString *s = g_string_new (first);
  static const char *const sentences[]
      = { " The man hit the car.", " Then the car hit the man.", " He went home in the dark.",
          " The dog ran in the park." };
  for (int i = 0; i < n_sentences; i++)
    g_string_append (s, sentences[i % G_N_ELEMENTS (sentences)]);
  return g_string_free (s, FALSE);
}

static AsTrace *
main_trace (void)
{
  return attnscope_run_get_trace (gui_test_main_run (window));
}

/* The window on the model and a text of more than 2,000 tokens, made by the first test that
 * needs it; FALSE with the test skipped when the reference's Python cannot make the model. */
static gboolean
ready (void)
{
  static gboolean tried;
  if (!tried)
    {
      tried = TRUE;
      model = decoder_model ("llama-long-4096", llama_long, TRUE);
      if (model != NULL)
        {
          g_autofree char *text = long_text (150, "Once");
          gui_test_open (window, model, text, TIMEOUT_MS);
          g_assert_nonnull (main_trace ());
        }
    }
  if (model == NULL)
    g_test_skip ("the random model could not be made (tests/reference/decoder_reference.py)");
  return model != NULL;
}

static gboolean
page_has_figure (gpointer user_data)
{
  ArFigure figure;
  return attnscope_page_get_figure (ATTNSCOPE_PAGE (user_data), &figure);
}

static AttnscopePage *
show (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_until (page_has_figure, page, TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (page), TIMEOUT_MS));
  return page;
}

/* The largest weight of block (PI, PJ) of side K of head (L, H) of T, from a tile read here. */
static float
block_max (const AsTrace *t, int l, int h, int k, int pi, int pj)
{
  int T = t->n_tokens, r0 = pi * k, c0 = pj * k, nr = MIN (k, T - r0), nc = MIN (k, T - c0);
  g_autofree float *tile = g_new (float, (gsize) nr *nc);
  as_trace_attention_tile (t, l, h, r0, nr, c0, nc, tile, nc);
  float best = 0;
  for (int i = 0; i < nr * nc; i++)
    best = MAX (best, tile[i]);
  return best;
}

static void
test_heatmap (void)
{
  if (!ready ())
    return;
  AsTrace *t = main_trace ();
  int T = t->n_tokens;
  g_assert_cmpint (T, >, 2000);
  g_assert_false (as_trace_attention_held (t));
  gint64 start = g_get_monotonic_time ();
  AttnscopePage *page = show ("attention");
  g_test_message ("%d tokens on demand: the attention page drew in %.0f ms", T,
                  (g_get_monotonic_time () - start) / 1e3);
  AttnscopeHeatmapView *heatmap
      = attnscope_attention_page_get_heatmap (ATTNSCOPE_ATTENTION_PAGE (page));
  const ArHeatmapFigure *fig
      = &ar_built_figure_get_parts (attnscope_heatmap_view_get_figure (heatmap))->heatmap;
  int k = as_pool_factor (T, 1024), P = as_pool_size (T, k);
  g_assert_cmpint (k, >, 1);
  g_assert_cmpint (fig->n_rows, ==, P);
  g_assert_cmpint (fig->n_cols, ==, P);
  g_autofree char *label = g_strdup_printf ("max over %d×%d", k, k);
  g_test_message ("colour bar: %s", fig->colorbar_label);
  g_assert_nonnull (strstr (fig->colorbar_label, label));
  /* blocks on the diagonal, below it and in the corner */
  const int probe[][2] = { { 0, 0 }, { P / 2, P / 2 }, { P - 1, 3 }, { P - 1, P - 1 }, { 5, 2 } };
  for (guint i = 0; i < G_N_ELEMENTS (probe); i++)
    g_assert_cmpfloat (fig->values[(gsize) probe[i][0] * P + probe[i][1]], ==,
                       block_max (t, 0, 0, k, probe[i][0], probe[i][1]));
  /* zoomed in: 64 blocks in view */
  start = g_get_monotonic_time ();
  attnscope_heatmap_view_set_view (heatmap, P / 2, P / 3, 64);
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (heatmap), TIMEOUT_MS));
  g_test_message ("zoomed to 64 blocks: drawn in %.0f ms", (g_get_monotonic_time () - start) / 1e3);
  g_assert_cmpint (attnscope_heatmap_view_get_zoom (heatmap), ==, 64);
}

static void
check_grid (AttnscopePage *page, const AsTrace *t)
{
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (ATTNSCOPE_HEADS_PAGE (page));
  const ArGridFigure *fig
      = &ar_built_figure_get_parts (attnscope_head_grid_view_get_figure (grid))->grid;
  int P = ar_attention_thumbnail_size (t), k = as_pool_factor (t->n_tokens, AR_THUMBNAIL_CELLS);
  g_assert_cmpint (fig->n_tokens, ==, P);
  g_assert_cmpint (fig->n_layers, ==, t->n_layer);
  for (int l = 0; l < t->n_layer; l++)
    for (int h = 0; h < t->n_head; h++)
      {
        const float *thumb = fig->attn + ((gsize) l * t->n_head + h) * P * P;
        g_assert_cmpfloat (thumb[0], ==, block_max (t, l, h, k, 0, 0));
        g_assert_cmpfloat (thumb[(gsize) (P - 1) * P + P / 2], ==,
                           block_max (t, l, h, k, P - 1, P / 2));
      }
}

static void
test_grid (void)
{
  if (!ready ())
    return;
  gint64 start = g_get_monotonic_time ();
  AttnscopePage *page = show ("heads");
  /* the thumbnails arrive head by head: wait for all of them */
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_test_message ("the heads grid drew in %.0f ms", (g_get_monotonic_time () - start) / 1e3);
  check_grid (page, main_trace ());
}

static gboolean
grid_shows (gpointer user_data)
{
  AttnscopePage *page = user_data;
  AttnscopeHeadGridView *grid = attnscope_heads_page_get_grid (ATTNSCOPE_HEADS_PAGE (page));
  ArBuiltFigure *f = attnscope_head_grid_view_get_figure (grid);
  AsTrace *t = main_trace ();
  /* the old text's grid stays on screen until the new one's thumbnails are there */
  return f != NULL && t != NULL && ar_built_figure_get_parts (f)->grid.attn != NULL
         && !attnscope_page_get_busy (page)
         && attnscope_run_get_trace_text (gui_test_main_run (window)) != NULL
         && g_str_has_prefix (attnscope_run_get_trace_text (gui_test_main_run (window)), "Now")
         && ar_built_figure_get_parts (f)->grid.n_tokens == ar_attention_thumbnail_size (t);
}

static void
test_text_change (void)
{
  if (!ready ())
    return;
  AttnscopePage *page = attnscope_window_get_page (window, "heads");
  attnscope_window_show_page (window, "heads");
  /* a first new text, then at once another: the first one's thumbnails are dropped */
  g_autofree char *first = long_text (155, "Before");
  g_autofree char *second = long_text (160, "Now");
  attnscope_window_set_text (window, first);
  gui_test_spin (50);
  attnscope_window_set_text (window, second);
  gint64 start = g_get_monotonic_time ();
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_until (grid_shows, page, TIMEOUT_MS));
  g_test_message ("after the text changed: the grid of the new text in %.0f ms",
                  (g_get_monotonic_time () - start) / 1e3);
  AsTrace *t = main_trace ();
  g_assert_false (as_trace_attention_held (t));
  check_grid (page, t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the size rule, with a small budget, keeps this text's attention on demand */
  g_setenv ("ATTNSCOPE_ATTENTION_HELD_MAX", "1000000", TRUE);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  g_test_add_func ("/ui/long-views/heatmap", test_heatmap);
  g_test_add_func ("/ui/long-views/grid", test_grid);
  g_test_add_func ("/ui/long-views/text-change", test_text_change);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_free (model);
  return status;
}
