/* test-compare-page.c — "The man hit the car" against "The car hit the man" on the Compare page
 * of the real window (tiny GPT-2 fixture under Xvfb), with the pairing of tokens computed here
 * from the token strings (the k-th occurrence of a token in A with the k-th in B):
 * - the difference panel's colour range is symmetric, ±max|B̃ − A| rounded up to two significant
 *   digits, and the range is printed on the figure (its colour bar's label, found in the exported
 *   PDF's text);
 * - the heads are listed by how much they change, |B̃ − A| over the cells (Frobenius), largest
 *   first, with the values computed here; clicking a row opens that head;
 * - A against itself: every head changes by exactly 0;
 * - on attnscope-mini the page's list is `attnscope compare --json`'s head_ranking, head for head
 *   and value for value, by token (the default of both) and by position: for the permutation
 *   pair (by token the window ranks layer 0 · head 7 first, by position layer 2 · head 6), for
 *   texts of different lengths (by position neither ranks), and A against itself (every change
 *   and every difference exactly 0 on both sides). */
#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attnscope-compare-page.h"
#include "figure-export.h"
#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000
#define TEXT_A "The man hit the car"
#define TEXT_B "The car hit the man"

static AttnscopeWindow *window;

static AttnscopeComparePage *
compare_page (void)
{
  AttnscopePage *p = attnscope_window_get_page (window, "compare");
  attnscope_window_show_page (window, "compare");
  g_assert_true (gui_test_wait_page (p, TIMEOUT_MS));
  return ATTNSCOPE_COMPARE_PAGE (p);
}

static void
set_texts (const char *a, const char *b)
{
  attnscope_window_set_text (window, a);
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)), b);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

/* PARTNER [T] = for each token of A the token of B that is the same string and occurrence. */
static int *
pairing (const AsTrace *a, const AsTrace *b)
{
  g_assert_cmpint (a->n_tokens, ==, b->n_tokens);
  int n = a->n_tokens;
  int *partner = g_new (int, n);
  for (int i = 0; i < n; i++)
    {
      int k = 0;
      for (int i2 = 0; i2 < i; i2++)
        k += g_str_equal (a->tokens[i2], a->tokens[i]);
      partner[i] = -1;
      for (int j = 0; j < n && partner[i] < 0; j++)
        if (g_str_equal (b->tokens[j], a->tokens[i]) && k-- == 0)
          partner[i] = j;
      g_assert_cmpint (partner[i], >=, 0);
    }
  return partner;
}

/* |B̃ − A| of head (LAYER, HEAD), B̃ = B's weights permuted into A's order; causal: the cells
 * masked in both are 0 in both. */
static double
head_change (const AsTrace *a, const AsTrace *b, const int *partner, int layer, int head)
{
  int n = a->n_tokens;
  const float *pa = as_trace_attn_matrices (a, layer, head),
              *pb = as_trace_attn_matrices (b, layer, head);
  double sum = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      {
        double d = (double) pb[partner[i] * n + partner[j]] - pa[i * n + j];
        sum += d * d;
      }
  return sqrt (sum);
}

static const char *row_text (GtkWidget *w);

/* The rows of the page's ranking list ("Layer L · head H: value"), top to bottom. */
static void
collect_rows (GtkWidget *w, GPtrArray *rows)
{
  if (GTK_IS_LIST_BOX_ROW (w))
    {
      const char *text = row_text (w);
      if (text != NULL && g_str_has_prefix (text, "Layer "))
        g_ptr_array_add (rows, w);
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_rows (c, rows);
}

/* The text of the first label under W. */
static const char *
row_text (GtkWidget *w)
{
  if (GTK_IS_LABEL (w))
    return gtk_label_get_text (GTK_LABEL (w));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      const char *t = row_text (c);
      if (t != NULL)
        return t;
    }
  return NULL;
}

/* Reads "Layer L · head H: VALUE" (a ranking row's text). */
static gboolean
parse_row (const char *text, int *layer, int *head, double *value)
{
  g_autoptr (GRegex) re = g_regex_new ("^Layer ([0-9]+) · head ([0-9]+): ([-0-9.e]+)$", 0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  if (!g_regex_match (re, text, 0, &m))
    return FALSE;
  g_autofree char *l = g_match_info_fetch (m, 1), *h = g_match_info_fetch (m, 2),
                  *v = g_match_info_fetch (m, 3);
  *layer = atoi (l), *head = atoi (h), *value = g_ascii_strtod (v, NULL);
  return TRUE;
}

/* The difference panel: symmetric, ±max|B̃ − A| rounded up to 2 significant digits, the range in
 * the colour bar's label and in the exported figure's text. */
static void
test_difference_range (void)
{
  set_texts (TEXT_A, TEXT_B);
  attnscope_view_state_set_aggregate (gui_test_view_state (window), ATTNSCOPE_AGGREGATE_HEAD);
  attnscope_view_state_set_layer (gui_test_view_state (window), 1);
  attnscope_view_state_set_head (gui_test_view_state (window), 1);
  AttnscopeComparePage *page = compare_page ();
  ArBuiltFigure *built = attnscope_compare_view_get_figure (attnscope_compare_page_get_view (page));
  g_assert_nonnull (built);
  const ArCompareFigure *fig = &ar_built_figure_get_parts (built)->compare;
  g_assert_nonnull (fig->diff);
  const ArHeatmapFigure *d = fig->diff;
  AsTrace *a = attnscope_run_get_trace (
      attnscope_session_get_main (attnscope_window_get_session (window)));
  AsTrace *b = attnscope_run_get_trace (
      attnscope_session_get_compare (attnscope_window_get_session (window)));
  g_autofree int *partner = pairing (a, b);
  int n = a->n_tokens;
  const float *pa = as_trace_attn_matrices (a, 1, 1), *pb = as_trace_attn_matrices (b, 1, 1);
  double largest = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      largest = MAX (largest, fabs ((double) pb[partner[i] * n + partner[j]] - pa[i * n + j]));
  g_assert_cmpfloat (largest, >, 0.01);
  /* two significant digits, rounded up */
  double unit = pow (10, floor (log10 (largest)) - 1);
  double range = ceil (largest / unit - 1e-9) * unit;
  g_test_message ("max |B̃ − A| = %.6f, range ±%g", largest, range);
  g_assert_cmpfloat (d->vmax, ==, -d->vmin);
  g_assert_cmpfloat_with_epsilon (d->vmax, range, 1e-9);
  g_assert_cmpfloat (d->vmax, >=, largest);
  g_assert_cmpint (d->colormap, ==, AR_COLORMAP_RDBU_R);
  int decimals = MAX (2, (int) (1 - floor (log10 (range))));
  g_autofree char *printed = g_strdup_printf ("B − A (±%.*f)", decimals, range);
  g_assert_cmpstr (d->colorbar_label, ==, printed);

  /* The exported figure carries the range in its text. */
  g_autofree char *tmpdir = g_dir_make_tmp ("attnscope-compare-XXXXXX", NULL);
  g_autofree char *pdf = g_build_filename (tmpdir, "compare.pdf", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (gui_export_write (window, ATTNSCOPE_PAGE (page), pdf, 1, &error));
  g_assert_no_error (error);
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  if (pdftotext != NULL)
    {
      g_autofree char *out = NULL;
      int status = 0;
      const char *argv[] = { pdftotext, pdf, "-", NULL };
      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                   NULL, &out, NULL, &status, NULL));
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_autofree char *number = g_strdup_printf ("±%.*f", decimals, range);
      g_assert_nonnull (strstr (out, number));
      g_assert_nonnull (strstr (out, "Difference B − A"));
    }
  g_unlink (pdf);
  g_rmdir (tmpdir);
}

/* The heads by change, largest first, with the values computed here; a click opens the head. */
static void
test_ranking (void)
{
  set_texts (TEXT_A, TEXT_B);
  AttnscopeComparePage *page = compare_page ();
  AsTrace *a = attnscope_run_get_trace (
      attnscope_session_get_main (attnscope_window_get_session (window)));
  AsTrace *b = attnscope_run_get_trace (
      attnscope_session_get_compare (attnscope_window_get_session (window)));
  g_autofree int *partner = pairing (a, b);
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  collect_rows (GTK_WIDGET (page), rows);
  int n_heads = a->n_layer * a->n_head;
  g_assert_cmpuint (rows->len, ==, n_heads);
  double before = INFINITY;
  gboolean seen[64] = { FALSE };
  for (guint k = 0; k < rows->len; k++)
    {
      const char *text = row_text (rows->pdata[k]);
      int layer = -1, head = -1;
      double value = -1;
      g_assert_true (parse_row (text, &layer, &head, &value));
      double want = head_change (a, b, partner, layer, head);
      g_test_message ("%s (computed %.6f)", text, want);
      g_assert_cmpfloat_with_epsilon (value, want, 0.0005 + 1e-6);
      g_assert_cmpfloat (want, <=, before + 1e-12);
      before = want;
      seen[layer * a->n_head + head] = TRUE;
    }
  for (int e = 0; e < n_heads; e++)
    g_assert_true (seen[e]);
  /* A click on the last row opens that head in one-head view. */
  attnscope_view_state_set_aggregate (gui_test_view_state (window), ATTNSCOPE_AGGREGATE_MEAN);
  GtkListBoxRow *last = rows->pdata[rows->len - 1];
  int layer, head;
  double value;
  g_assert_true (parse_row (row_text (GTK_WIDGET (last)), &layer, &head, &value));
  g_signal_emit_by_name (gtk_widget_get_parent (GTK_WIDGET (last)), "row-activated", last);
  g_assert_cmpint (attnscope_view_state_get_aggregate (gui_test_view_state (window)), ==,
                   ATTNSCOPE_AGGREGATE_HEAD);
  g_assert_cmpint (attnscope_view_state_get_layer (gui_test_view_state (window)), ==, layer);
  g_assert_cmpint (attnscope_view_state_get_head (gui_test_view_state (window)), ==, head);
}

/* A against itself: every head's change is exactly 0, and so is the difference. */
static void
test_self_is_zero (void)
{
  set_texts (TEXT_A, TEXT_A);
  AttnscopeComparePage *page = compare_page ();
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  collect_rows (GTK_WIDGET (page), rows);
  g_assert_cmpuint (rows->len, >, 0);
  for (guint k = 0; k < rows->len; k++)
    {
      int layer, head;
      double value = -1;
      g_assert_true (parse_row (row_text (rows->pdata[k]), &layer, &head, &value));
      g_assert_cmpfloat (value, ==, 0);
    }
  AttnscopeCompareView *view = attnscope_compare_page_get_view (page);
  AsTrace *a = attnscope_run_get_trace (
      attnscope_session_get_main (attnscope_window_get_session (window)));
  for (int i = 0; i < a->n_tokens; i++)
    for (int j = 0; j < a->n_tokens; j++)
      g_assert_cmpfloat (attnscope_compare_view_get_value (view, 2, i, j), ==, 0);
  attnscope_run_set_text (attnscope_session_get_compare (attnscope_window_get_session (window)),
                          NULL);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
}

/* `attnscope compare --model attnscope-mini --text A --text B --json --matrices --align ALIGN`,
 * parsed. */
static JsonNode *
cli_compare (const char *a, const char *b, const char *align)
{
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "compare",
                         "--model",
                         "attnscope-mini",
                         "--text",
                         a,
                         "--text",
                         b,
                         "--json",
                         "--matrices",
                         "--align",
                         align,
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = -1;
  g_autoptr (GError) error = NULL;
  gui_test_spawn (argv, &out, &err, &status);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("attnscope compare failed: %s", err);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (o, "align"), ==, align);
  return json_node_copy (json_parser_get_root (parser));
}

/* The page's list, in ALIGN, against the command's ranking of A and B: the same heads in the
 * same order with the values the list prints (3 decimals), FIRST ("L · head H", or "" for any)
 * at the top; FIRST NULL: neither ranks (by position for texts of different lengths). */
static void
check_ranking_as_cli (const char *a, const char *b, AsAlign align, const char *first)
{
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 align == AS_ALIGN_POSITIONS);
  set_texts (a, b);
  AttnscopeComparePage *page = compare_page ();
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  collect_rows (GTK_WIDGET (page), rows);
  g_autoptr (JsonNode) root = cli_compare (a, b, as_align_to_string (align));
  JsonObject *attention = json_object_get_object_member (json_node_get_object (root), "attention");
  g_assert_cmpstr (json_object_get_string_member (attention, "align"), ==,
                   as_align_to_string (align));
  if (first == NULL)
    {
      g_assert_false (json_object_get_boolean_member (attention, "available"));
      g_assert_cmpuint (rows->len, ==, 0);
      return;
    }
  g_assert_true (json_object_get_boolean_member (attention, "available"));
  JsonArray *ranking = json_object_get_array_member (attention, "head_ranking");
  g_assert_cmpuint (rows->len, ==, MIN (12, json_array_get_length (ranking)));
  for (guint k = 0; k < rows->len; k++)
    {
      JsonObject *r = json_array_get_object_element (ranking, k);
      int layer, head;
      double value;
      g_assert_true (parse_row (row_text (rows->pdata[k]), &layer, &head, &value));
      g_test_message ("%s | cli: layer %d head %d %.6f", row_text (rows->pdata[k]),
                      (int) json_object_get_int_member (r, "layer"),
                      (int) json_object_get_int_member (r, "head"),
                      json_object_get_double_member (r, "change"));
      g_assert_cmpint (layer, ==, json_object_get_int_member (r, "layer"));
      g_assert_cmpint (head, ==, json_object_get_int_member (r, "head"));
      g_assert_cmpfloat_with_epsilon (value, json_object_get_double_member (r, "change"),
                                      0.0005 + 1e-9);
    }
  g_autofree char *top = g_strdup_printf ("Layer %s: ", first);
  g_assert_true (*first == '\0' || g_str_has_prefix (row_text (rows->pdata[0]), top));
}

static void
test_ranking_as_cli (void)
{
  gui_test_open (window, "attnscope-mini", NULL, TIMEOUT_MS);
  check_ranking_as_cli (TEXT_A, TEXT_B, AS_ALIGN_TOKENS, "0 · head 7");
  check_ranking_as_cli (TEXT_A, TEXT_B, AS_ALIGN_POSITIONS, "2 · head 6");
  const char *longer = "The big car hit the man hard";
  check_ranking_as_cli (TEXT_A, longer, AS_ALIGN_TOKENS, "");
  check_ranking_as_cli (TEXT_A, longer, AS_ALIGN_POSITIONS, NULL);
  attnscope_view_state_set_flag (gui_test_view_state (window), ATTNSCOPE_VIEW_ALIGN_POSITIONS,
                                 FALSE);
}

/* A against itself on both sides: every change and every difference is exactly 0. */
static void
test_self_is_zero_as_cli (void)
{
  check_ranking_as_cli (TEXT_A, TEXT_A, AS_ALIGN_TOKENS, "");
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  collect_rows (GTK_WIDGET (compare_page ()), rows);
  for (guint k = 0; k < rows->len; k++)
    {
      int layer, head;
      double value = -1;
      g_assert_true (parse_row (row_text (rows->pdata[k]), &layer, &head, &value));
      g_assert_cmpfloat (value, ==, 0);
    }
  for (int align = AS_ALIGN_TOKENS; align <= AS_ALIGN_POSITIONS; align++)
    {
      g_autoptr (JsonNode) root = cli_compare (TEXT_A, TEXT_A, as_align_to_string (align));
      JsonObject *attention
          = json_object_get_object_member (json_node_get_object (root), "attention");
      JsonArray *heads = json_object_get_array_member (attention, "heads");
      g_assert_cmpuint (json_array_get_length (heads), ==, 32);
      for (guint e = 0; e < json_array_get_length (heads); e++)
        {
          JsonObject *h = json_array_get_object_element (heads, e);
          g_assert_cmpfloat (json_object_get_double_member (h, "change"), ==, 0);
          g_assert_cmpfloat (json_object_get_double_member (h, "max_abs_diff"), ==, 0);
          JsonArray *diff = json_object_get_array_member (h, "diff");
          for (guint i = 0; i < json_array_get_length (diff); i++)
            {
              JsonArray *row = json_array_get_array_element (diff, i);
              for (guint j = 0; j < json_array_get_length (row); j++)
                g_assert_cmpfloat (json_array_get_double_element (row, j), ==, 0);
            }
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  gui_test_disable_animations ();
  g_autofree char *fixture = gui_test_fixture_path ("tiny-gpt2");
  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, fixture, NULL, TIMEOUT_MS);

  g_test_add_func ("/ui/compare-page/difference-range", test_difference_range);
  g_test_add_func ("/ui/compare-page/ranking", test_ranking);
  g_test_add_func ("/ui/compare-page/self-is-zero", test_self_is_zero);
  /* last: these open attnscope-mini */
  g_test_add_func ("/ui/compare-page/ranking-as-cli", test_ranking_as_cli);
  g_test_add_func ("/ui/compare-page/self-is-zero-as-cli", test_self_is_zero_as_cli);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  return status;
}
