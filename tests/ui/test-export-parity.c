/* test-export-parity.c — "export draws what the window shows", checked end to end: for every
 * figure kind in several view states, the window's export of a page (gui_export_write) and
 * `attnscope export` with the options that spell out the same state write byte-identical PNG
 * files. Both go through the same ui/render figure builders; this test fails as soon as either
 * side builds a figure of its own, words a title differently or picks another colour range.
 *
 * The real window under Xvfb on the tiny GPT-2 fixture (2 layers, 2 heads), then on the shipped
 * attnscope-mini-bert with a sentence pair (--pair, the sentence filter --segments, the encoder's
 * heads grid, two pairs compared with --compare-pair). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "as-predict.h"
#include "attnscope-attention-page.h"
#include "attnscope-attribution-page.h"
#include "attnscope-embeddings-page.h"
#include "attnscope-lens-page.h"
#include "attnscope-compare-page.h"
#include "attnscope-scan-page.h"
#include "attnscope-similarity-page.h"
#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000
#define TEXT "The man hit the car"

static AttnscopeWindow *window;
static char *fixture;
static char *tmpdir;
/* The model and text the window shows (the tiny GPT-2 and TEXT, then attnscope-mini-bert). */
static const char *current_model;
static const char *current_text;

/* The view state every case starts from: layer 0, head 0, one head, nothing selected, YlGnBu,
 * annotation on, raw tokens and autoscale off — the command line's defaults. */
static void
reset_view (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (v, 0);
  attnscope_view_state_set_head (v, 0);
  attnscope_view_state_set_selected_token (v, -1);
  attnscope_view_state_set_colormap (v, "ylgnbu");
  attnscope_view_state_set_annotate (v, TRUE);
  attnscope_view_state_set_raw_tokens (v, FALSE);
  attnscope_view_state_set_autoscale (v, FALSE);
  for (int f = 0; f < ATTNSCOPE_VIEW_N_FLAGS; f++)
    attnscope_view_state_set_flag (v, f, FALSE);
}

static void
set_compare_text (const char *text)
{
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)),
                          text);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

/* The file at PATH, or a failure. */
/* What an export option of the window's dialog changes in the page's view (the dialog's labels
 * and space-mark choices are not part of the view state). */
typedef struct
{
  int labels; /* ArLabelMode, or -1: the page's */
  gboolean no_space_marks;
} DialogChoices;

/* Appends `attnscope COMMAND --model M --text T -o CLI_PNG OPTIONS... ARGS...` to ARGV (which may
 * hold a prefix such as env), runs it and asserts its file has WINDOW_PNG's bytes. */
static void
assert_command_png (const char *name, GPtrArray *argv, const char *command,
                    const char *const *options, const char *const *args, const char *window_png,
                    const char *cli_png)
{
  const char *head[] = {
    g_getenv ("ATTNSCOPE_BIN"),
    command,
    "--model",
    current_model,
    "--text",
    current_text,
    "-o",
    cli_png,
  };
  for (gsize i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (char *) head[i]);
  for (int i = 0; options != NULL && options[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) options[i]);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  gui_test_assert_same_png (name, (const char *const *) argv->pdata, window_png, cli_png);
}

/* Exports page PAGE_NAME of the window with the dialog's CHOICES (NULL: as shown) and runs
 * `attnscope export --model FIXTURE --text TEXT ARGS... -o FILE --scale SCALE`; asserts both wrote
 * the same bytes, and that the command the window records for the export (its sidecar's) holds
 * every look option of ARGS. */
static void
check_parity_with (const char *name, const char *page_name, double scale,
                   const DialogChoices *choices, const char *const *args)
{
  AttnscopePage *page = attnscope_window_get_page (window, page_name);
  attnscope_window_show_page (window, page_name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));

  g_autofree char *window_png = g_strdup_printf ("%s/%s-window.png", tmpdir, name);
  g_autoptr (GError) error = NULL;
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  if (choices != NULL)
    {
      if (choices->labels >= 0)
        view.labels = (ArLabelMode) choices->labels;
      view.no_space_marks = choices->no_space_marks;
    }
  ArExportOptions options;
  ar_export_options_init (&options);
  options.dpi = AR_EXPORT_NATURAL_DPI * scale;
  g_assert_true (gui_export_write_full (window, page, window_png, &view, &options, FALSE, &error));
  g_assert_no_error (error);
  g_auto (GStrv) recorded = gui_export_dup_command (window, page, &view, &options, "x.png");
  for (int i = 0; args[i] != NULL; i++)
    {
      /* --autoscale is recorded as what it means, --color-scale shared; defaults are left out */
      const char *option = g_str_equal (args[i], "--autoscale") ? "--color-scale" : args[i];
      gboolean is_default
          = args[i + 1] != NULL
            && ((g_str_equal (option, "--color-scale") && g_str_equal (args[i + 1], "fixed"))
                || (g_str_equal (option, "--labels") && g_str_equal (args[i + 1], "thinned")));
      /* the look options (the texts may be spelled otherwise: --lines for repeated --text) */
      static const char *const look[]
          = { "--color-scale", "--normalize-rows", "--log-colors", "--words",
              "--labels",      "--no-space-marks", "--colormap",   NULL };
      if (g_strv_contains (look, option) && !is_default
          && !g_strv_contains ((const char *const *) recorded, option))
        g_error ("%s: the recorded command lacks %s", name, option);
    }

  g_autofree char *cli_png = g_strdup_printf ("%s/%s-cli.png", tmpdir, name);
  g_autofree char *scale_arg = g_strdup_printf ("%g", scale);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  /* $ATTNSCOPE_PARITY_CLI_ATTENTION: the command line keeps its attention that way (the window
   * another: the same files whether the figures read matrices or compute tiles on demand) */
  g_autofree char *cli_attention = g_strdup (g_getenv ("ATTNSCOPE_PARITY_CLI_ATTENTION"));
  g_autofree char *cli_env = g_strdup_printf ("ATTNSCOPE_ATTENTION=%s", cli_attention);
  if (cli_attention != NULL)
    {
      g_ptr_array_add (argv, (char *) "env");
      g_ptr_array_add (argv, cli_env);
    }
  const char *scale_options[] = { "--scale", scale_arg, NULL };
  assert_command_png (name, argv, "export", scale_options, args, window_png, cli_png);
}

/* The same for the page as it is shown. */
static void
check_parity (const char *name, const char *page_name, double scale, const char *const *args)
{
  check_parity_with (name, page_name, scale, NULL, args);
}

/* The page's export as shown against `attnscope attribute --model M --text T ARGS... -o FILE`
 * (the command's figure option, at scale 1): the same bytes. */
static void
check_attribute_parity (const char *name, const char *const *args)
{
  AttnscopePage *page = attnscope_window_get_page (window, "attribution");
  attnscope_window_show_page (window, "attribution");
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_autofree char *window_png = g_strdup_printf ("%s/%s-window.png", tmpdir, name);
  g_autofree char *cli_png = g_strdup_printf ("%s/%s-cli.png", tmpdir, name);
  g_autoptr (GError) error = NULL;
  g_assert_true (gui_export_write (window, page, window_png, 1, &error));
  g_assert_no_error (error);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  assert_command_png (name, argv, "attribute", NULL, args, window_png, cli_png);
}

/* The bytes of the window's export of PAGE_NAME as shown, to compare two views. */
static GBytes *
window_export (const char *page_name)
{
  AttnscopePage *page = attnscope_window_get_page (window, page_name);
  attnscope_window_show_page (window, page_name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_autofree char *path = g_strdup_printf ("%s/compare-views.png", tmpdir);
  g_autoptr (GError) error = NULL;
  g_assert_true (gui_export_write (window, page, path, 1, &error));
  g_assert_no_error (error);
  GBytes *bytes = gui_test_read_file (path);
  g_unlink (path);
  return bytes;
}

static void
test_attention (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  attnscope_view_state_set_layer (v, 1);
  check_parity ("head", "attention", 1, (const char *[]){ "--layer", "1", "--head", "0", NULL });
  /* norm weighting: the page's Norms button, --weighting norm */
  AttnscopeAttentionPage *attention
      = ATTNSCOPE_ATTENTION_PAGE (attnscope_window_get_page (window, "attention"));
  attnscope_attention_page_set_norm_weighted (attention, TRUE);
  check_parity ("head-norm", "attention", 1,
                (const char *[]){ "--layer", "1", "--head", "0", "--weighting", "norm", NULL });
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  check_parity ("mean-norm", "attention", 2,
                (const char *[]){ "--mean", "1", "--weighting", "norm", NULL });
  attnscope_attention_page_set_norm_weighted (attention, FALSE);
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_HEAD);

  attnscope_view_state_set_head (v, 1);
  attnscope_view_state_set_selected_token (v, 2);
  attnscope_view_state_set_colormap (v, "viridis");
  attnscope_view_state_set_autoscale (v, TRUE);
  attnscope_view_state_set_raw_tokens (v, TRUE);
  check_parity ("head-styled", "attention", 2,
                (const char *[]){ "--layer", "1", "--head", "1", "--token", "2", "--colormap",
                                  "viridis", "--autoscale", "--raw-tokens", NULL });

  reset_view ();
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_annotate (v, FALSE);
  check_parity ("mean", "attention", 1,
                (const char *[]){ "--mean", "1", "--annotate", "never", NULL });

  reset_view ();
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_ROLLOUT);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_autoscale (v, TRUE);
  attnscope_view_state_set_selected_token (v, 4);
  check_parity ("rollout", "attention", 1,
                (const char *[]){ "--rollout", "1", "--autoscale", "--token", "4", NULL });
}

/* The Lens page: the table (with a selected token and another colour map) and the chart of a
 * followed token (export --lens, --follow-id, --position). */
static void
test_lens (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeLensPage *lens = ATTNSCOPE_LENS_PAGE (attnscope_window_get_page (window, "lens"));
  reset_view ();
  attnscope_lens_page_show_chart (lens, FALSE);
  check_parity ("lens-table", "lens", 1, (const char *[]){ "--lens", NULL });
  attnscope_view_state_set_selected_token (v, 2);
  attnscope_view_state_set_colormap (v, "viridis");
  attnscope_view_state_set_raw_tokens (v, TRUE);
  check_parity (
      "lens-table-styled", "lens", 2,
      (const char *[]){ "--lens", "--token", "2", "--colormap", "viridis", "--raw-tokens", NULL });
  reset_view ();
  attnscope_lens_page_follow (lens, 3, 17);
  check_parity ("lens-chart", "lens", 1,
                (const char *[]){ "--lens", "--follow-id", "17", "--position", "3", NULL });
  attnscope_lens_page_show_chart (lens, FALSE);
}

/* The Attribution page: the predicted token at the last position (export --attribution), then
 * the difference of two of the text's tokens at another position without numbers in the cells
 * (--target-id, --vs-id, --position, --annotate never). */
static void
test_attribution (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeAttributionPage *page
      = ATTNSCOPE_ATTRIBUTION_PAGE (attnscope_window_get_page (window, "attribution"));
  reset_view ();
  attnscope_attribution_page_set_tokens (page, NULL, NULL);
  attnscope_attribution_page_set_position (page, -1);
  check_parity ("attribution", "attribution", 1, (const char *[]){ "--attribution", NULL });
  /* the same figure from `attribute -o` with the predicted token spelled out */
  g_autofree char *predicted
      = g_strdup_printf ("%d", attnscope_attribution_page_get_attribution (page)->target_id);
  check_attribute_parity ("attribute", (const char *[]){ "--target-id", predicted, NULL });

  AsTrace *trace = attnscope_run_get_trace (gui_test_main_run (window));
  const AsTokenizer *tokenizer = as_model_get_tokenizer (
      attnscope_session_get_model (attnscope_window_get_session (window)));
  g_autofree char *man = as_predict_dup_ids_text (tokenizer, &trace->ids[1], 1);
  g_autofree char *car = as_predict_dup_ids_text (tokenizer, &trace->ids[4], 1);
  attnscope_attribution_page_set_tokens (page, man, car);
  attnscope_attribution_page_set_position (page, 2);
  attnscope_view_state_set_annotate (v, FALSE);
  g_autofree char *target = g_strdup_printf ("%d", trace->ids[1]);
  g_autofree char *vs = g_strdup_printf ("%d", trace->ids[4]);
  check_parity ("attribution-vs", "attribution", 2,
                (const char *[]){ "--attribution", "--target-id", target, "--vs-id", vs,
                                  "--position", "2", "--annotate", "never", NULL });
  attnscope_view_state_set_annotate (v, TRUE);
  check_attribute_parity ("attribute-vs", (const char *[]){ "--target-id", target, "--vs-id", vs,
                                                            "--position", "2", NULL });
  const AsAttribution *at = attnscope_attribution_page_get_attribution (page);
  g_assert_cmpint (at->target_id, ==, trace->ids[1]);
  g_assert_cmpint (at->vs_id, ==, trace->ids[4]);
  g_assert_cmpint (at->position, ==, 2);
  attnscope_attribution_page_set_tokens (page, NULL, NULL);
  attnscope_attribution_page_set_position (page, -1);

  /* the query–key view of the view's head and selected token (export --qk) */
  reset_view ();
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 1);
  attnscope_view_state_set_selected_token (v, 3);
  attnscope_attribution_page_show_qk (page, TRUE);
  check_parity ("qk", "attribution", 1,
                (const char *[]){ "--qk", "--layer", "1", "--head", "1", "--token", "3", NULL });
  attnscope_attribution_page_show_qk (page, FALSE);
  reset_view ();
}

static void
test_grid (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 1);
  check_parity ("grid-head", "heads", 1,
                (const char *[]){ "--grid", "--layer", "1", "--head", "1", NULL });

  /* Not one head: no head outlined; autoscaled colours and the magma map. */
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_autoscale (v, TRUE);
  attnscope_view_state_set_colormap (v, "magma");
  check_parity ("grid", "heads", 1,
                (const char *[]){ "--grid", "--autoscale", "--colormap", "magma", NULL });
}

static void
test_similarity (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeSimilarityPage *sim
      = ATTNSCOPE_SIMILARITY_PAGE (attnscope_window_get_page (window, "similarity"));
  reset_view ();
  attnscope_similarity_page_set_source (sim, AS_VECTORS_CONTEXTS);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_selected_token (v, 1);
  check_parity ("similarity-contexts", "similarity", 1,
                (const char *[]){ "--similarity", "contexts", "--layer", "1", "--head", "0",
                                  "--token", "1", NULL });

  /* The page's layer 0 of hidden states is hidden[1], after layer 0 (the core's numbering). */
  reset_view ();
  attnscope_similarity_page_set_source (sim, AS_VECTORS_HIDDEN);
  attnscope_view_state_set_autoscale (v, TRUE);
  attnscope_view_state_set_annotate (v, FALSE);
  check_parity ("similarity-hidden", "similarity", 1,
                (const char *[]){ "--similarity", "hidden", "--layer", "1", "--autoscale",
                                  "--annotate", "never", NULL });
}

static void
test_projection (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  AttnscopeEmbeddingsPage *emb
      = ATTNSCOPE_EMBEDDINGS_PAGE (attnscope_window_get_page (window, "embeddings"));
  AttnscopeSentences *sentences = attnscope_embeddings_page_get_sentences (emb);
  reset_view ();
  set_compare_text (NULL);
  attnscope_sentences_set_all (sentences, NULL);
  attnscope_embeddings_page_set_static_beside (emb, FALSE);
  attnscope_embeddings_page_set_highlight (emb, NULL);
  attnscope_embeddings_page_set_source (emb, AS_VECTORS_HIDDEN);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_PCA);
  attnscope_view_state_set_selected_token (v, 3);
  check_parity ("pca", "embeddings", 1,
                (const char *[]){ "--project", "pca", "--of", "hidden", "--layer", "1", "--token",
                                  "3", NULL });

  /* Two sentences by t-SNE, the contexts of a head. */
  const char *const second[] = { "The car hit the man", NULL };
  attnscope_sentences_set_all (sentences, second);
  attnscope_embeddings_page_set_source (emb, AS_VECTORS_CONTEXTS);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_TSNE);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 1);
  attnscope_view_state_set_selected_token (v, -1);
  check_parity ("tsne-two", "embeddings", 1,
                (const char *[]){ "--project", "tsne", "--of", "contexts", "--layer", "1", "--head",
                                  "1", "--text", "The car hit the man", NULL });

  /* Static beside contextual by UMAP, a word highlighted, the further sentences from a file. */
  const char *const more[] = { "The man saw the car", "A car hit a man at the car park", NULL };
  attnscope_sentences_set_all (sentences, more);
  attnscope_embeddings_page_set_source (emb, AS_VECTORS_HIDDEN);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_UMAP);
  attnscope_embeddings_page_set_static_beside (emb, TRUE);
  attnscope_embeddings_page_set_highlight (emb, "car");
  attnscope_view_state_set_layer (v, 0);
  g_autofree char *lines = g_build_filename (tmpdir, "sentences.txt", NULL);
  g_assert_true (g_file_set_contents (
      lines, "The man saw the car\n\nA car hit a man at the car park\n", -1, NULL));
  check_parity ("umap-static", "embeddings", 1,
                (const char *[]){ "--project", "umap", "--of", "token-embeddings", "--also",
                                  "hidden", "--layer", "1", "--lines", lines, "--highlight", "car",
                                  NULL });
  g_unlink (lines);
  attnscope_sentences_set_all (sentences, NULL);
  attnscope_embeddings_page_set_static_beside (emb, FALSE);
  attnscope_embeddings_page_set_highlight (emb, NULL);
  attnscope_embeddings_page_set_method (emb, ATTNSCOPE_PROJECTION_PCA);
}

static void
test_compare (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  set_compare_text ("The car hit the man");
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_selected_token (v, 2);
  check_parity ("compare", "compare", 1,
                (const char *[]){ "--layer", "1", "--head", "0", "--compare", "The car hit the man",
                                  "--token", "2", NULL });

  /* Different token counts: no difference panel, a note instead. */
  reset_view ();
  set_compare_text ("The car");
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_autoscale (v, TRUE);
  check_parity ("compare-uneven", "compare", 1,
                (const char *[]){ "--mean", "0", "--compare", "The car", "--autoscale", NULL });
  set_compare_text (NULL);
}

/* A translation model: the attention page's three kinds, the cross heads grid and the alignment
 * page against `export --target TGT --kind K` and `export --alignment`. */
/* The export arguments page NAME records for its current view (what the export dialog's command
 * says) hold each of WANTED, in order. */
static void
assert_page_args (const char *name, const char *const *wanted)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  attnscope_page_append_export_args (page, &view, argv);
  guint at = 0;
  for (int i = 0; wanted[i] != NULL; i++)
    {
      while (at < argv->len && g_strcmp0 (g_ptr_array_index (argv, at), wanted[i]) != 0)
        at++;
      if (at == argv->len)
        g_error ("%s records no %s after the arguments before it", name, wanted[i]);
      at++;
    }
}

static void
test_translation (void)
{
  const char *target = "Die Gruppe ging nach Hause.";
  current_model = "attnscope-mini-en-de";
  current_text = "The group went home.";
  gui_test_open (window, current_model, NULL, TIMEOUT_MS);
  attnscope_window_set_text (window, current_text);
  attnscope_window_set_target (window, target);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (attnscope_run_get_trace_target (
                       attnscope_session_get_main (attnscope_window_get_session (window))),
                   ==, target);
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 2);
  check_parity ("cross-head", "attention", 1,
                (const char *[]){ "--target", target, "--kind", "cross", "--layer", "1", "--head",
                                  "2", NULL });
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_selected_token (v, 3);
  attnscope_view_state_set_autoscale (v, TRUE);
  check_parity ("cross-mean", "attention", 2,
                (const char *[]){ "--target", target, "--kind", "cross", "--mean", "1", "--token",
                                  "3", "--autoscale", NULL });
  reset_view ();
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_ENCODER);
  attnscope_view_state_set_head (v, 1);
  check_parity ("encoder-head", "attention", 1,
                (const char *[]){ "--target", target, "--kind", "encoder", "--layer", "0", "--head",
                                  "1", NULL });
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  check_parity ("decoder-head", "attention", 1,
                (const char *[]){ "--target", target, "--kind", "decoder", "--layer", "0", "--head",
                                  "1", NULL });
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  check_parity ("cross-grid", "heads", 1,
                (const char *[]){ "--target", target, "--kind", "cross", "--grid", "--layer", "0",
                                  "--head", "1", NULL });
  /* the Attribution page: the heads (decoder) and the cross-attention heads (cross) */
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_CROSS);
  check_parity ("attribution-cross", "attribution", 1,
                (const char *[]){ "--target", target, "--kind", "cross", "--attribution", NULL });
  assert_page_args ("attribution", (const char *[]){ "--target", "--kind", "cross", NULL });
  /* `attribute -o --kind cross` writes the page's cross heads figure, without --kind its heads */
  AttnscopeAttributionPage *attribution
      = ATTNSCOPE_ATTRIBUTION_PAGE (attnscope_window_get_page (window, "attribution"));
  g_autofree char *predicted
      = g_strdup_printf ("%d", attnscope_attribution_page_get_attribution (attribution)->target_id);
  check_attribute_parity (
      "attribute-cross",
      (const char *[]){ "--target", target, "--target-id", predicted, "--kind", "cross", NULL });
  attnscope_view_state_set_attention_kind (v, AR_ATTENTION_SELF);
  check_parity ("attribution-decoder", "attribution", 1,
                (const char *[]){ "--target", target, "--kind", "decoder", "--attribution", NULL });
  assert_page_args ("attribution", (const char *[]){ "--target", "--kind", "decoder", NULL });
  check_attribute_parity ("attribute-decoder",
                          (const char *[]){ "--target", target, "--target-id", predicted, NULL });
  check_parity (
      "alignment-head", "alignment", 1,
      (const char *[]){ "--target", target, "--alignment", "--layer", "0", "--head", "1", NULL });
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_layer (v, 2);
  attnscope_view_state_set_selected_token (v, 2);
  attnscope_view_state_set_autoscale (v, TRUE);
  check_parity ("alignment-mean", "alignment", 2,
                (const char *[]){ "--target", target, "--alignment", "--mean", "2", "--token", "2",
                                  "--autoscale", NULL });

  /* the sidecar's command spells out the same view */
  AttnscopePage *page = attnscope_window_get_page (window, "alignment");
  ArViewSelection view;
  attnscope_page_get_selection (page, &view);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_auto (GStrv) command = gui_export_dup_command (window, page, &view, &options, "f.png");
  g_autofree char *joined = g_strjoinv (" ", command);
  g_test_message ("sidecar command: %s", joined);
  g_assert_nonnull (strstr (joined, "--text The group went home. --target Die Gruppe ging nach "
                                    "Hause. --alignment --mean 2"));
}

/* An encoder's sentence pair: the sentence filter, the heads grid with the encoder's labels,
 * and two pairs compared (export --pair, --segments, --compare-pair). */
#define PAIR_A "the cat sat on the mat ."
#define PAIR_B "a small dog ran in the park ."

static void
test_encoder_pairs (void)
{
  current_model = "attnscope-mini-bert";
  current_text = PAIR_A;
  gui_test_open (window, current_model, NULL, TIMEOUT_MS);
  attnscope_window_set_pair (window, PAIR_B);
  attnscope_window_set_text (window, PAIR_A);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpint (
      attnscope_run_get_trace (attnscope_session_get_main (attnscope_window_get_session (window)))
          ->segment_b_start,
      ==, 9);
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 2);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_A_B);
  check_parity ("pair-a-b", "attention", 1,
                (const char *[]){ "--pair", PAIR_B, "--layer", "1", "--head", "2", "--segments",
                                  "a-b", NULL });

  reset_view ();
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_layer (v, 3);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_B_A);
  attnscope_view_state_set_selected_token (v, 11);
  attnscope_view_state_set_autoscale (v, TRUE);
  check_parity ("pair-b-a-mean", "attention", 1,
                (const char *[]){ "--pair", PAIR_B, "--mean", "3", "--segments", "b-a", "--token",
                                  "11", "--autoscale", NULL });

  reset_view ();
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_POOL_WORDS, TRUE);
  attnscope_view_state_set_segments (v, AR_SEGMENTS_A_B);
  attnscope_view_state_set_head (v, 1);
  check_parity ("pair-words-a-b", "attention", 1,
                (const char *[]){ "--pair", PAIR_B, "--layer", "0", "--head", "1", "--segments",
                                  "a-b", "--words", NULL });
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_POOL_WORDS, FALSE);

  reset_view ();
  attnscope_view_state_set_segments (v, AR_SEGMENTS_ALL);
  check_parity (
      "pair-grid", "heads", 1,
      (const char *[]){ "--pair", PAIR_B, "--grid", "--layer", "0", "--head", "0", NULL });

  AttnscopeRun *cmp = attnscope_session_get_compare (attnscope_window_get_session (window));
  attnscope_run_set_pair (cmp, "a big dog ran in the park .");
  set_compare_text ("the dog sat on the mat .");
  reset_view ();
  attnscope_view_state_set_layer (v, 2);
  attnscope_view_state_set_head (v, 1);
  check_parity ("compare-pairs", "compare", 1,
                (const char *[]){ "--pair", PAIR_B, "--layer", "2", "--head", "1", "--compare",
                                  "the dog sat on the mat .", "--compare-pair",
                                  "a big dog ran in the park .", NULL });
  attnscope_run_set_pair (cmp, NULL);
  set_compare_text (NULL);
  attnscope_window_set_pair (window, NULL);
}

/* The look options of `attnscope export`, each against the window's view with the same choice;
 * each case also differs from the figure without the option (the option is not ignored). */
static void
test_look_options (void)
{
  AttnscopeViewState *v = gui_test_view_state (window);
  reset_view ();
  attnscope_view_state_set_layer (v, 1);
  attnscope_view_state_set_head (v, 1);
  g_autoptr (GBytes) plain = window_export ("attention");
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_NORMALIZE_ROWS, TRUE);
  g_autoptr (GBytes) normalized = window_export ("attention");
  g_assert_false (g_bytes_equal (plain, normalized));
  check_parity ("normalize-rows", "attention", 1,
                (const char *[]){ "--layer", "1", "--head", "1", "--normalize-rows", NULL });

  reset_view ();
  attnscope_view_state_set_aggregate (v, ATTNSCOPE_AGGREGATE_MEAN);
  attnscope_view_state_set_autoscale (v, TRUE);
  g_autoptr (GBytes) linear = window_export ("attention");
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_LOG_COLORS, TRUE);
  g_autoptr (GBytes) logarithmic = window_export ("attention");
  g_assert_false (g_bytes_equal (linear, logarithmic));
  check_parity ("log-colors", "attention", 1,
                (const char *[]){ "--mean", "0", "--log-colors", "--color-scale", "shared", NULL });
  attnscope_view_state_set_autoscale (v, FALSE);
  check_parity ("log-colors-fixed", "attention", 1,
                (const char *[]){ "--mean", "0", "--log-colors", NULL });

  /* --color-scale: fixed (0..1), shared (the data's range), each (per head / per panel). */
  reset_view ();
  check_parity (
      "color-scale-fixed", "heads", 1,
      (const char *[]){ "--grid", "--layer", "0", "--head", "0", "--color-scale", "fixed", NULL });
  attnscope_view_state_set_autoscale (v, TRUE);
  g_autoptr (GBytes) shared = window_export ("heads");
  check_parity (
      "color-scale-shared", "heads", 1,
      (const char *[]){ "--grid", "--layer", "0", "--head", "0", "--color-scale", "shared", NULL });
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_AUTOSCALE_EACH, TRUE);
  g_autoptr (GBytes) each = window_export ("heads");
  g_assert_false (g_bytes_equal (shared, each));
  check_parity (
      "color-scale-each", "heads", 1,
      (const char *[]){ "--grid", "--layer", "0", "--head", "0", "--color-scale", "each", NULL });
  set_compare_text ("The car hit the man");
  check_parity ("color-scale-each-compare", "compare", 1,
                (const char *[]){ "--layer", "0", "--head", "0", "--compare", "The car hit the man",
                                  "--color-scale", "each", NULL });
  set_compare_text (NULL);

  /* --words: attention between words (the fixture splits the words into pieces). */
  reset_view ();
  attnscope_view_state_set_flag (v, ATTNSCOPE_VIEW_POOL_WORDS, TRUE);
  attnscope_view_state_set_selected_token (v, 2);
  check_parity ("words", "attention", 1,
                (const char *[]){ "--layer", "0", "--head", "0", "--words", "--token", "2", NULL });
  /* The page's layer 0 of hidden states is hidden[1], after layer 0 (the core's numbering). */
  attnscope_similarity_page_set_source (
      ATTNSCOPE_SIMILARITY_PAGE (attnscope_window_get_page (window, "similarity")),
      AS_VECTORS_HIDDEN);
  check_parity ("words-similarity", "similarity", 1,
                (const char *[]){ "--similarity", "hidden", "--layer", "1", "--words", "--token",
                                  "2", NULL });

  /* --labels and --no-space-marks: the export dialog's choices. */
  reset_view ();
  for (int mode = AR_LABELS_THINNED; mode <= AR_LABELS_WORDS; mode++)
    {
      static const char *const names[] = { "thinned", "all", "words" };
      g_autofree char *name = g_strdup_printf ("labels-%s", names[mode]);
      check_parity_with (
          name, "attention", 1, &(DialogChoices){ mode, FALSE },
          (const char *[]){ "--layer", "0", "--head", "0", "--labels", names[mode], NULL });
    }
  check_parity_with ("no-space-marks", "attention", 1, &(DialogChoices){ -1, TRUE },
                     (const char *[]){ "--layer", "0", "--head", "0", "--no-space-marks", NULL });
  check_parity_with ("no-space-marks-words", "similarity", 2,
                     &(DialogChoices){ AR_LABELS_WORDS, TRUE },
                     (const char *[]){ "--similarity", "hidden", "--layer", "1", "--labels",
                                       "words", "--no-space-marks", NULL });
  reset_view ();
}

/* The Ablation page: every head switched off in turn, measured on the loss and on a logit
 * difference (export --ablation-scan --scan-loss | --scan-token W --scan-vs-token W2). */
static void
test_ablation_scan (void)
{
  reset_view ();
  AttnscopePage *page = attnscope_window_get_page (window, "ablation");
  attnscope_window_show_page (window, "ablation");
  g_assert_true (attnscope_scan_page_scan (ATTNSCOPE_SCAN_PAGE (page), AS_METRIC_LOSS, NULL, NULL));
  check_parity ("ablation-scan-loss", "ablation", 1,
                (const char *[]){ "--ablation-scan", "--scan-loss", NULL });
  /* the tiny fixture's vocabulary has single letters */
  g_assert_true (
      attnscope_scan_page_scan (ATTNSCOPE_SCAN_PAGE (page), AS_METRIC_LOGIT_DIFF, "c", "a"));
  check_parity (
      "ablation-scan-diff", "ablation", 2,
      (const char *[]){ "--ablation-scan", "--scan-token", "c", "--scan-vs-token", "a", NULL });
}

/* The Compare page's patching panel: its figure as the window exports figures, and `attnscope
 * export --patch ... --compare B` (heads from B into A; the residual stream from A into B). */
static void
check_patch_parity (const char *name, AsPatchWhat what, gboolean reverse, const char *const *args)
{
  AttnscopeComparePage *cp = ATTNSCOPE_COMPARE_PAGE (attnscope_window_get_page (window, "compare"));
  AttnscopePatchPanel *panel = attnscope_compare_page_get_patch_panel (cp);
  g_assert_true (attnscope_patch_panel_patch (panel, "c", "a", what, reverse));
  while (attnscope_patch_panel_get_running (panel))
    g_main_context_iteration (NULL, TRUE);
  ArBuiltFigure *built = attnscope_patch_panel_get_figure (panel);
  g_assert_nonnull (built);
  g_autofree char *window_png = g_strdup_printf ("%s/%s-window.png", tmpdir, name);
  ArExportOptions options;
  ar_export_options_init (&options);
  g_autoptr (GError) error = NULL;
  g_assert_true (ar_figure_export_with_options (ar_built_figure_get (built), window_png, &options,
                                                AS_OUTPUT_DEFAULT, &error));
  g_autofree char *cli_png = g_strdup_printf ("%s/%s-cli.png", tmpdir, name);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "export",
                         "--model",
                         current_model,
                         "--text",
                         current_text,
                         "--compare",
                         "The car hit the man",
                         "-o",
                         cli_png };
  for (gsize i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (char *) head[i]);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  gui_test_assert_same_png (name, (const char *const *) argv->pdata, window_png, cli_png);
}

static void
test_patch (void)
{
  reset_view ();
  set_compare_text ("The car hit the man");
  check_patch_parity (
      "patch-heads", AS_PATCH_HEADS, FALSE,
      (const char *[]){ "--patch", "--patch-token", "c", "--patch-vs-token", "a", NULL });
  check_patch_parity ("patch-resid", AS_PATCH_RESID, TRUE,
                      (const char *[]){ "--patch", "--patch-token", "c", "--patch-vs-token", "a",
                                        "--patch-what", "resid", "--patch-reverse", NULL });
  set_compare_text (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  fixture = gui_test_fixture_path ("tiny-gpt2");
  current_model = fixture;
  current_text = TEXT;
  tmpdir = g_dir_make_tmp ("attnscope-parity-XXXXXX", NULL);
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, fixture, TEXT, TIMEOUT_MS);

  g_test_add_func ("/ui/export-parity/attention", test_attention);
  g_test_add_func ("/ui/export-parity/grid", test_grid);
  g_test_add_func ("/ui/export-parity/lens", test_lens);
  g_test_add_func ("/ui/export-parity/ablation-scan", test_ablation_scan);
  g_test_add_func ("/ui/export-parity/patch", test_patch);
  g_test_add_func ("/ui/export-parity/attribution", test_attribution);
  g_test_add_func ("/ui/export-parity/similarity", test_similarity);
  g_test_add_func ("/ui/export-parity/projection", test_projection);
  g_test_add_func ("/ui/export-parity/compare", test_compare);
  g_test_add_func ("/ui/export-parity/look-options", test_look_options);
  g_test_add_func ("/ui/export-parity/encoder-pairs", test_encoder_pairs);
  /* last: it opens another model */
  g_test_add_func ("/ui/export-parity/translation", test_translation);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_rmdir (tmpdir);
  g_free (tmpdir);
  g_free (fixture);
  return status;
}
