/* test-sentences.c — the embeddings page with many sentences, in the real window under Xvfb on
 * the shipped attnscope-mini: the lecture's "spring" as a season, a source and a coil.
 *
 * Text A is "My favorite season is spring" (the lecture's "Spring is my favorite season"
 * rephrased: attnscope-mini splits "Spring" into "Sp" + "ring", and the static point needs the
 * token " spring" in every sentence); the page's list adds "The water of the spring is very
 * clean" and "Last night I broke one spring in my bed". Every expected value is computed here
 * from the core's own forward passes (as_forward_text on the same model), not from the page:
 *
 *   - the points are the tokens of all three sentences (their total count, their labels), the
 *     highlighted points exactly the " spring" tokens (by vocabulary id);
 *   - static beside contextual: the token embeddings of the three " spring" are the same bits,
 *     and the figure draws them at one point (distinct count 1); their hidden states after
 *     layer 2 differ pairwise (distance > 0 in the trace) and so do their projected points;
 *   - PCA and UMAP in the window give exactly the coordinates of the core's as_pca_fit /
 *     as_umap_run (seed 0, the defaults of `attnscope project --method umap`) on the distinct
 *     rows of the same vectors;
 *   - adding and removing a sentence updates the points; a sentence longer than the context
 *     keeps the previous figure and names the sentence; a file of sentences loads its non-blank
 *     lines, a binary file is refused and the list stays;
 *   - tooltips name the token, its sentence and a short excerpt; labels do not overlap and stay
 *     in their panel; with 14 sentences the legend stays inside the figure ("+ N more"). */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-pca.h"
#include "as-tokenizer.h"
#include "as-umap.h"
#include "as-unique-rows.h"
#include "attnscope-embeddings-page.h"
#include "gui-test-util.h"
#include "projection-figure.h"
#include "token-label.h"

#define TIMEOUT_MS 120000
#define N_SENSES 3
#define PAGE_LAYER 2 /* the page's layer 2 of hidden states = hidden[3], after layer 2 */

static const char *const senses[N_SENSES] = {
  "My favorite season is spring",
  "The water of the spring is very clean",
  "Last night I broke one spring in my bed",
};

static AttnscopeWindow *window;
static AttnscopeEmbeddingsPage *page;
static AsModel *model;          /* the core's own copy of the model */
static AsTrace *core[N_SENSES]; /* the core's traces of the three sentences */
static int spring_id;

static const ArScatterFigure *
shown_figure (void)
{
  ArBuiltFigure *built
      = attnscope_scatter_view_get_figure (attnscope_embeddings_page_get_scatter (page));
  g_assert_nonnull (built);
  return &ar_built_figure_get_parts (built)->scatter;
}

static void
wait_page (void)
{
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_true (gui_test_wait_page (ATTNSCOPE_PAGE (page), TIMEOUT_MS));
}

/* The spring sentences: text A and two in the list; hidden states of page layer 2 beside the
 * token embeddings, "spring" highlighted, METHOD. */
static void
show_spring (AttnscopeProjection method)
{
  /* Setting the entry runs the text again (a new trace and analysis): only when it changes. */
  AttnscopeRun *main_run = attnscope_session_get_main (attnscope_window_get_session (window));
  if (g_strcmp0 (attnscope_run_get_text (main_run), senses[0]) != 0)
    {
      attnscope_window_set_text (window, senses[0]);
      g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
    }
  const char *const more[] = { senses[1], senses[2], NULL };
  attnscope_sentences_set_all (attnscope_embeddings_page_get_sentences (page), more);
  attnscope_embeddings_page_set_source (page, AS_VECTORS_HIDDEN);
  attnscope_view_state_set_layer (gui_test_view_state (window), PAGE_LAYER);
  attnscope_view_state_set_selected_token (gui_test_view_state (window), -1);
  attnscope_embeddings_page_set_static_beside (page, TRUE);
  attnscope_embeddings_page_set_highlight (page, "spring");
  attnscope_embeddings_page_set_method (page, method);
  wait_page ();
}

static int
total_tokens (void)
{
  int n = 0;
  for (int s = 0; s < N_SENSES; s++)
    n += core[s]->n_tokens;
  return n;
}

/* The rows SOURCE at LAYER of the three core traces, stacked: [n][*dim]. */
static float *
core_vectors (AsVectorSource source, int layer, int *n, int *dim)
{
  g_autoptr (GByteArray) data = g_byte_array_new ();
  *n = 0;
  for (int s = 0; s < N_SENSES; s++)
    {
      int rows = 0;
      g_autoptr (GError) error = NULL;
      const float *v = as_trace_vectors_get (core[s], source, layer, -1, &rows, dim, &error);
      g_assert_no_error (error);
      g_byte_array_append (data, (const guint8 *) v, (guint) (rows * *dim * sizeof (float)));
      *n += rows;
    }
  return (float *) g_byte_array_free (g_steal_pointer (&data), FALSE);
}

/* The point indices of the " spring" tokens, by the core's ids: [N_SENSES]. */
static void
spring_points (int *points)
{
  int offset = 0;
  for (int s = 0; s < N_SENSES; s++)
    {
      points[s] = -1;
      for (int t = 0; t < core[s]->n_tokens; t++)
        if (core[s]->ids[t] == spring_id)
          points[s] = offset + t;
      g_assert_cmpint (points[s], >=, 0);
      offset += core[s]->n_tokens;
    }
}

static double
distance (const float *a, const float *b, int dim)
{
  double d2 = 0;
  for (int j = 0; j < dim; j++)
    d2 += ((double) a[j] - b[j]) * ((double) a[j] - b[j]);
  return sqrt (d2);
}

static void
test_static_vs_contextual (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  const ArScatterFigure *fig = shown_figure ();
  int n = total_tokens ();
  g_assert_cmpint (n, ==, 24); /* 6 + 8 + 10 tokens */
  g_assert_cmpint (fig->n_points, ==, n);
  g_assert_cmpint (ar_scatter_get_n_panels (fig), ==, 2);
  g_assert_cmpint (fig->n_groups, ==, N_SENSES);
  g_assert_cmpstr (fig->panel_titles[0], ==, "Token embeddings (before positions)");
  g_assert_cmpstr (fig->panel_titles[1], ==, "Hidden states after layer 2");
  g_assert_cmpstr (fig->title, ==,
                   "PCA of the token embeddings and the hidden states after layer 2");

  /* Marked: exactly the " spring" tokens; every other point greyed. */
  int spring[N_SENSES];
  spring_points (spring);
  int n_marked = 0;
  for (int i = 0; i < n; i++)
    n_marked += fig->marked[i];
  g_assert_cmpint (n_marked, ==, N_SENSES);
  g_assert_true (fig->dim_unmarked);
  for (int s = 0; s < N_SENSES; s++)
    {
      int i = spring[s];
      g_assert_true (fig->marked[i]);
      g_assert_cmpint (fig->groups[i], ==, s);
      g_autofree char *label = g_strdup_printf ("␣spring ·%d", s + 1);
      g_assert_cmpstr (fig->labels[i], ==, label);
    }

  /* Static: one vector, so one point; contextual: three vectors, three points. */
  int rows = 0, dim = 0, hrows = 0, hdim = 0;
  g_autofree float *te = core_vectors (AS_VECTORS_TOKEN_EMBEDDINGS, 0, &rows, &dim);
  g_autofree float *hidden = core_vectors (AS_VECTORS_HIDDEN, PAGE_LAYER + 1, &hrows, &hdim);
  g_assert_cmpint (rows, ==, n);
  g_assert_cmpint (hrows, ==, n);
  g_autofree float *marked_te = g_new (float, (gsize) N_SENSES *dim);
  for (int s = 0; s < N_SENSES; s++)
    memcpy (marked_te + (gsize) s * dim, te + (gsize) spring[s] * dim, dim * sizeof (float));
  int inverse[N_SENSES], distinct = 0;
  g_autofree float *unique = as_unique_rows (marked_te, N_SENSES, dim, inverse, &distinct);
  g_assert_cmpint (distinct, ==, 1);
  for (int s = 1; s < N_SENSES; s++)
    {
      g_assert_cmpfloat (fig->xy[2 * spring[s]], ==, fig->xy[2 * spring[0]]);
      g_assert_cmpfloat (fig->xy[2 * spring[s] + 1], ==, fig->xy[2 * spring[0] + 1]);
    }
  for (int s = 0; s < N_SENSES; s++)
    for (int o = s + 1; o < N_SENSES; o++)
      {
        double d
            = distance (hidden + (gsize) spring[s] * hdim, hidden + (gsize) spring[o] * hdim, hdim);
        double d2 = hypot (fig->xy2[2 * spring[s]] - fig->xy2[2 * spring[o]],
                           fig->xy2[2 * spring[s] + 1] - fig->xy2[2 * spring[o] + 1]);
        g_test_message ("\" spring\" %d and %d: hidden distance %.3f, PCA distance %.3f", s + 1,
                        o + 1, d, d2);
        g_assert_cmpfloat (d, >, 1.0);
        g_assert_cmpfloat (d2, >, 0);
      }

  /* The PCA of the window is the core's PCA of the same vectors. */
  g_autoptr (GError) error = NULL;
  g_autoptr (AsPca) pca = as_pca_fit (hidden, n, hdim, 2, &error);
  g_assert_no_error (error);
  g_autoptr (AsPca) pca_static = as_pca_fit (te, n, dim, 2, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 2 * n; i++)
    {
      g_assert_cmpfloat_with_epsilon (fig->xy2[i], pca->coords[i], 1e-4);
      g_assert_cmpfloat_with_epsilon (fig->xy[i], pca_static->coords[i], 1e-4);
    }
  g_autofree char *x_axis
      = g_strdup_printf ("PC 1 (%.0f %%)", 100 * pca->explained_variance_ratio[0]);
  g_assert_cmpstr (fig->x_axis2, ==, x_axis);

  /* Labels: the core's tokens, in order, as the view labels them. */
  ArViewSelection view;
  attnscope_view_state_get_selection (gui_test_view_state (window), &view);
  for (int s = 0, i = 0; s < N_SENSES; s++)
    {
      g_auto (GStrv) labels
          = ar_token_labels_from_trace (core[s], ar_view_selection_label_flags (&view));
      for (int t = 0; t < core[s]->n_tokens; t++, i++)
        if (!fig->marked[i])
          g_assert_cmpstr (fig->labels[i], ==, labels[t]);
    }
}

/* UMAP of the distinct rows of X [n][dim] with the figure's settings, copied to every row. */
static float *
core_umap (const float *x, int n, int dim)
{
  g_autofree int *inverse = g_new (int, n);
  int m = 0;
  g_autofree float *unique = as_unique_rows (x, n, dim, inverse, &m);
  AsUmapOptions options;
  as_umap_options_init (&options);
  g_assert_cmpint (options.seed, ==, 0);
  options.n_neighbors = MIN (options.n_neighbors, m);
  g_autofree float *y = g_new (float, 2 * (gsize) m);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_umap_run (y, NULL, unique, m, dim, &options, &error));
  g_assert_no_error (error);
  float *out = g_new (float, 2 * (gsize) n);
  for (int i = 0; i < n; i++)
    out[2 * i] = y[2 * inverse[i]], out[2 * i + 1] = y[2 * inverse[i] + 1];
  return out;
}

typedef struct
{
  int last_done, total, messages;
} Progress;

static void
on_progress (AttnscopeAnalysis *analysis, int done, int total, Progress *p)
{
  p->last_done = done;
  p->total = total;
  p->messages++;
}

/* The last progress report (they reach the main loop after the result may have) says done. */
static gboolean
umap_reported_all (gpointer user_data)
{
  const Progress *p = user_data;
  return p->total > 0 && p->last_done == p->total;
}

static void
test_umap_matches_core (void)
{
  /* UMAP reports its epochs while it runs (the page's progress bar). */
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  AttnscopeAnalysis *analysis
      = g_object_ref (attnscope_session_get_analysis (attnscope_window_get_session (window)));
  Progress progress = { 0 };
  gulong handler = g_signal_connect (analysis, "progress", G_CALLBACK (on_progress), &progress);
  show_spring (ATTNSCOPE_PROJECTION_UMAP);
  g_assert_true (gui_test_wait_until (umap_reported_all, &progress, TIMEOUT_MS));
  g_assert_true (analysis
                 == attnscope_session_get_analysis (attnscope_window_get_session (window)));
  g_signal_handler_disconnect (analysis, handler);
  g_object_unref (analysis);
  g_test_message ("UMAP progress: %d messages, last %d of %d", progress.messages,
                  progress.last_done, progress.total);
  g_assert_cmpint (progress.total, ==, as_umap_epochs_for (0, total_tokens ()));
  g_assert_cmpint (progress.last_done, ==, progress.total);
  g_assert_cmpint (progress.messages, >=, 2 * progress.total / 10);
  const ArScatterFigure *fig = shown_figure ();
  int n = 0, dim = 0, tn = 0, tdim = 0;
  g_autofree float *hidden = core_vectors (AS_VECTORS_HIDDEN, PAGE_LAYER + 1, &n, &dim);
  g_autofree float *te = core_vectors (AS_VECTORS_TOKEN_EMBEDDINGS, 0, &tn, &tdim);
  g_assert_cmpint (fig->n_points, ==, n);
  g_autofree float *expected = core_umap (hidden, n, dim);
  g_autofree float *expected_static = core_umap (te, tn, tdim);
  for (int i = 0; i < 2 * n; i++)
    {
      g_assert_cmpfloat (fig->xy2[i], ==, expected[i]);
      g_assert_cmpfloat (fig->xy[i], ==, expected_static[i]);
    }
  g_assert_cmpstr (fig->x_axis, ==, "UMAP 1");
  g_assert_cmpstr (fig->y_axis2, ==, "UMAP 2");
  int spring[N_SENSES];
  spring_points (spring);
  for (int s = 1; s < N_SENSES; s++)
    {
      g_assert_cmpfloat (fig->xy[2 * spring[s]], ==, fig->xy[2 * spring[0]]);
      g_assert_true (fig->xy2[2 * spring[s]] != fig->xy2[2 * spring[0]]
                     || fig->xy2[2 * spring[s] + 1] != fig->xy2[2 * spring[0] + 1]);
    }
  /* The drawn labels overlap neither each other nor leave their panel. */
  double w = 1100, h = 560;
  /* Hit-testing: where each " spring" is drawn in either panel (the static three spread around
   * their common spot), a click finds that point; the second panel's are numbered n + i. */
  for (int panel = 0; panel < 2; panel++)
    for (int s = 0; s < N_SENSES; s++)
      {
        int k = panel * n + spring[s], hit = -1;
        double x = 0, y = 0;
        ar_scatter_get_point_position (fig, w, h, k, &x, &y);
        g_assert_true (isfinite (x) && isfinite (y));
        g_assert_cmpfloat (x, <, panel == 0 ? w / 2 : w);
        g_assert_cmpfloat (x, >, panel == 0 ? 0 : w / 2);
        g_assert_true (ar_scatter_hit (fig, w, h, x, y, &hit));
        g_assert_cmpint (hit, ==, k);
      }
  g_autofree double *boxes = g_new (double, 8 * (gsize) n);
  int n_boxes = ar_scatter_get_label_boxes (fig, w, h, boxes, NULL);
  g_assert_cmpint (n_boxes, >=, 2 * N_SENSES);
  for (int a = 0; a < n_boxes; a++)
    {
      g_assert_cmpfloat (boxes[4 * a], >=, 0);
      g_assert_cmpfloat (boxes[4 * a] + boxes[4 * a + 2], <=, w);
      for (int b = a + 1; b < n_boxes; b++)
        {
          const double *p = boxes + 4 * a, *q = boxes + 4 * b;
          gboolean overlap = p[0] < q[0] + q[2] && q[0] < p[0] + p[2] && p[1] < q[1] + q[3]
                             && q[1] < p[1] + p[3];
          g_assert_false (overlap);
        }
    }
}

static void
test_tooltips (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  const ArScatterFigure *fig = shown_figure ();
  int spring[N_SENSES];
  spring_points (spring);
  g_assert_nonnull (fig->tooltips);
  const char *tip = fig->tooltips[spring[2]];
  g_test_message ("tooltip: %s", tip);
  g_autofree char *head = g_strdup_printf ("␣spring · sentence 3 · token %d\n",
                                           spring[2] - core[0]->n_tokens - core[1]->n_tokens);
  g_assert_true (g_str_has_prefix (tip, head));
  /* A short excerpt around the token, not the whole sentence. */
  g_assert_nonnull (strstr (tip, "“…I broke one spring in my bed”"));
  g_assert_null (strstr (tip, "Last night"));
  g_assert_nonnull (strstr (fig->tooltips[spring[1]], "sentence 2"));
}

static void
test_add_remove (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  AttnscopeSentences *sentences = attnscope_embeddings_page_get_sentences (page);
  int n = total_tokens ();
  g_autofree float *before = g_memdup2 (shown_figure ()->xy2, 2 * n * sizeof (float));
  const char *fourth = "The spring in the garden is green";
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t4 = as_forward_text (model, fourth, FALSE, NULL, &error);
  g_assert_no_error (error);
  guint index = attnscope_sentences_add (sentences, fourth);
  g_assert_cmpuint (index, ==, 2);
  wait_page ();
  const ArScatterFigure *fig = shown_figure ();
  g_assert_cmpint (fig->n_points, ==, n + t4->n_tokens);
  g_assert_cmpint (fig->n_groups, ==, N_SENSES + 1);
  int n_marked = 0;
  for (int i = 0; i < fig->n_points; i++)
    n_marked += fig->marked[i];
  g_assert_cmpint (n_marked, ==, N_SENSES + 1);

  attnscope_sentences_remove (sentences, index);
  wait_page ();
  fig = shown_figure ();
  g_assert_cmpint (fig->n_points, ==, n);
  for (int i = 0; i < 2 * n; i++)
    g_assert_cmpfloat (fig->xy2[i], ==, before[i]);

  /* An empty sentence (just added) counts for nothing. */
  attnscope_sentences_add (sentences, "");
  wait_page ();
  g_assert_cmpint (shown_figure ()->n_points, ==, n);
  attnscope_sentences_remove (sentences, 2);
}

static void
test_too_long (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  AttnscopeSentences *sentences = attnscope_embeddings_page_get_sentences (page);
  ArBuiltFigure *before
      = attnscope_scatter_view_get_figure (attnscope_embeddings_page_get_scatter (page));
  g_autoptr (GString) longer = g_string_new ("");
  for (int i = 0; i < 200; i++)
    g_string_append (longer, "spring water ");
  attnscope_sentences_add (sentences, longer->str);
  wait_page ();
  const char *message = attnscope_embeddings_page_get_sentence_error (page);
  g_assert_nonnull (message);
  g_test_message ("%s", message);
  g_assert_true (g_str_has_prefix (message, "Sentence 4 “spring water"));
  /* in the window's words, not the command line's */
  g_assert_nonnull (
      strstr (message, "This text has 401 tokens; attnscope-mini reads at most 128."));
  g_assert_null (strstr (message, "--truncate"));
  /* The previous figure stays. */
  g_assert_true (attnscope_scatter_view_get_figure (attnscope_embeddings_page_get_scatter (page))
                 == before);
  g_assert_cmpint (shown_figure ()->n_points, ==, total_tokens ());

  attnscope_sentences_remove (sentences, 2);
  wait_page ();
  g_assert_null (attnscope_embeddings_page_get_sentence_error (page));
  g_assert_cmpint (shown_figure ()->n_points, ==, total_tokens ());
}

static void
test_load_file (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  AttnscopeSentences *sentences = attnscope_embeddings_page_get_sentences (page);
  g_autofree char *dir = g_dir_make_tmp ("attnscope-sentences-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "senses.txt", NULL);
  g_autofree char *contents = g_strdup_printf ("\n  %s  \n\n%s\n", senses[1], senses[2]);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_assert_true (attnscope_sentences_load_file (sentences, file, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (attnscope_sentences_get_n (sentences), ==, 2);
  g_assert_cmpstr (attnscope_sentences_get_text (sentences, 0), ==, senses[1]);
  g_assert_cmpstr (attnscope_sentences_get_text (sentences, 1), ==, senses[2]);
  wait_page ();
  g_assert_cmpint (shown_figure ()->n_points, ==, total_tokens ());

  /* A binary file is refused by name; the list stays. */
  g_autofree char *binary = g_build_filename (dir, "weights.bin", NULL);
  g_assert_true (g_file_set_contents (binary, "abc\0def", 7, NULL));
  g_autoptr (GFile) bad = g_file_new_for_path (binary);
  g_assert_false (attnscope_sentences_load_file (sentences, bad, &error));
  g_assert_nonnull (strstr (error->message, "weights.bin"));
  g_assert_nonnull (strstr (error->message, "not a text file"));
  g_assert_cmpuint (attnscope_sentences_get_n (sentences), ==, 2);
  g_unlink (path);
  g_unlink (binary);
  g_rmdir (dir);
}

/* The first widget of type TYPE under ROOT (depth first) whose tooltip is TOOLTIP (NULL: any). */
static GtkWidget *
find_widget (GtkWidget *root, GType type, const char *tooltip)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type)
      && (tooltip == NULL || g_strcmp0 (gtk_widget_get_tooltip_text (root), tooltip) == 0))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, tooltip);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The sentence panel's own widgets: "+" adds a row whose entry edits the new sentence, its "−"
 * removes it. */
static void
test_panel_widgets (void)
{
  show_spring (ATTNSCOPE_PROJECTION_PCA);
  AttnscopeSentences *sentences = attnscope_embeddings_page_get_sentences (page);
  int n = total_tokens ();
  GtkWidget *add = find_widget (GTK_WIDGET (page), GTK_TYPE_BUTTON, "Add a sentence");
  g_assert_nonnull (add);
  g_signal_emit_by_name (add, "clicked");
  g_assert_cmpuint (attnscope_sentences_get_n (sentences), ==, 3);
  g_assert_cmpstr (attnscope_sentences_get_text (sentences, 2), ==, "");
  /* The new row's entry has the focus; typing into it runs the sentence. */
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  GtkWidget *entry = GTK_IS_ENTRY (focus) ? focus : gtk_widget_get_ancestor (focus, GTK_TYPE_ENTRY);
  g_assert_nonnull (entry);
  const char *fourth = "Spring water is clean";
  gtk_editable_set_text (GTK_EDITABLE (entry), fourth);
  g_assert_cmpstr (attnscope_sentences_get_text (sentences, 2), ==, fourth);
  wait_page ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t4 = as_forward_text (model, fourth, FALSE, NULL, &error);
  g_assert_no_error (error);
  const ArScatterFigure *fig = shown_figure ();
  g_assert_cmpint (fig->n_points, ==, n + t4->n_tokens);
  /* "Spring" = "Sp" + "ring": both pieces are marked. */
  int n_marked = 0;
  for (int i = n; i < fig->n_points; i++)
    n_marked += fig->marked[i];
  g_assert_cmpint (n_marked, ==, 2);

  GtkWidget *row = gtk_widget_get_ancestor (entry, GTK_TYPE_LIST_BOX_ROW);
  GtkWidget *remove = find_widget (row, GTK_TYPE_BUTTON, "Remove the sentence");
  g_assert_nonnull (remove);
  g_signal_emit_by_name (remove, "clicked");
  g_assert_cmpuint (attnscope_sentences_get_n (sentences), ==, 2);
  wait_page ();
  g_assert_cmpint (shown_figure ()->n_points, ==, n);
}

/* The legend of 14 sentences stays inside the figure: the entries that fit and "+ N more". */
static void
test_legend_many_sentences (void)
{
  enum
  {
    N = 14
  };
  AsTrace *traces[N];
  char *texts[N];
  for (int s = 0; s < N; s++)
    {
      texts[s] = g_strdup_printf ("Sentence number %d is about the spring in the garden", s + 1);
      g_autoptr (GError) error = NULL;
      traces[s] = as_forward_text (model, texts[s], FALSE, NULL, &error);
      g_assert_no_error (error);
    }
  ArSentences sentences = { N, (const AsTrace *const *) traces, (const char *const *) texts };
  ArVectorChoice choice = { AS_VECTORS_HIDDEN, 2, -1 };
  int n = 0, dim = 0;
  g_autoptr (GError) error = NULL;
  g_autofree float *x = ar_projection_vectors (&sentences, &choice, &n, &dim, &error);
  g_assert_no_error (error);
  AsProjectionOptions options;
  as_projection_options_init (&options, AS_PROJECTION_PCA);
  g_autoptr (AsProjection) p = as_projection_run (x, n, dim, &options, &error);
  g_assert_no_error (error);
  ArProjectionPanel panel = { p, choice };
  ArViewSelection view;
  ar_view_selection_init (&view);
  ArFigureTexts figure_texts = { "attnscope-mini", texts[0], NULL };
  g_autoptr (ArBuiltFigure) built
      = ar_build_projection_figure (&panel, 1, &sentences, "spring", TRUE, &view, &figure_texts);
  const ArScatterFigure *fig = &ar_built_figure_get_parts (built)->scatter;
  g_assert_cmpint (fig->n_groups, ==, N);
  double w, h;
  ar_scatter_get_size (fig, &w, &h);
  double boxes[4 * (N + 1)], plot[4];
  int groups[N + 1];
  int entries = ar_scatter_get_legend_boxes (fig, w, h, boxes, groups, plot);
  g_test_message ("%d legend entries at %g x %g", entries, w, h);
  g_assert_cmpint (entries, >=, 2);
  g_assert_cmpint (entries, <=, N);
  g_assert_cmpint (groups[entries - 1], ==, -1); /* "+ N more" */
  for (int e = 0; e < entries; e++)
    {
      const double *b = boxes + 4 * e;
      g_assert_cmpfloat (b[0], >=, 0);
      g_assert_cmpfloat (b[0] + b[2], <=, w);
      g_assert_cmpfloat (b[1], >=, 0);
      g_assert_cmpfloat (b[1] + b[3], <=, plot[1]); /* above the plot, never over it */
      if (e < entries - 1)
        g_assert_cmpint (groups[e], ==, e);
    }
  /* Rows: at most AR_SCATTER_LEGEND_ROWS. */
  double top = boxes[1], bottom = boxes[1];
  for (int e = 0; e < entries; e++)
    top = MIN (top, boxes[4 * e + 1]), bottom = MAX (bottom, boxes[4 * e + 1]);
  g_assert_cmpfloat ((bottom - top) / boxes[3] + 1, <=, AR_SCATTER_LEGEND_ROWS + 0.01);
  for (int s = 0; s < N; s++)
    {
      as_trace_unref (traces[s]);
      g_free (texts[s]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  const char *src = g_getenv ("ATTNSCOPE_SOURCE_DIR");
  g_assert_nonnull (src);
  g_autofree char *mini = g_build_filename (src, "data", "models", "attnscope-mini", NULL);
  g_autoptr (GError) error = NULL;
  model = as_model_load (mini, &error);
  g_assert_no_error (error);
  spring_id = as_tokenizer_lookup (as_model_get_tokenizer (model), "Ġspring");
  g_assert_cmpint (spring_id, >=, 0);
  for (int s = 0; s < N_SENSES; s++)
    {
      core[s] = as_forward_text (model, senses[s], FALSE, NULL, &error);
      g_assert_no_error (error);
    }

  g_autoptr (AttnscopeApplication) app = gui_test_app_new (1280, 800, &window);
  g_assert_true (gui_test_wait_model (window, TIMEOUT_MS));
  gui_test_open (window, mini, NULL, TIMEOUT_MS);
  page = ATTNSCOPE_EMBEDDINGS_PAGE (attnscope_window_get_page (window, "embeddings"));
  attnscope_window_show_page (window, "embeddings");

  g_test_add_func ("/ui/sentences/static-vs-contextual", test_static_vs_contextual);
  g_test_add_func ("/ui/sentences/umap-matches-core", test_umap_matches_core);
  g_test_add_func ("/ui/sentences/tooltips", test_tooltips);
  g_test_add_func ("/ui/sentences/add-remove", test_add_remove);
  g_test_add_func ("/ui/sentences/too-long", test_too_long);
  g_test_add_func ("/ui/sentences/load-file", test_load_file);
  g_test_add_func ("/ui/sentences/panel-widgets", test_panel_widgets);
  g_test_add_func ("/ui/sentences/legend-many-sentences", test_legend_many_sentences);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  for (int s = 0; s < N_SENSES; s++)
    as_trace_unref (core[s]);
  as_model_unref (model);
  return status;
}
