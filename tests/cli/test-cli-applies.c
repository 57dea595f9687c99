/* test-cli-applies.c — the "does not apply" table: for every family × method (the logit lens,
 * direct logit attribution, the attention norms, the query–key view) the command either works or
 * says why in one line. The table below is what the families support today: a method marked as
 * working must exit 0 with output, one marked as refused must fail with exactly one error line
 * that names the model and gives the reason after a colon. */
#include <math.h>
#include <string.h>

#include "bart-models.h"
#include "cli-support.h"
#include "t5-models.h"

typedef enum
{
  WORKS,
  REFUSED,
} Outcome;

typedef struct
{
  const char *family;
  char *model;
  gboolean translation;
  Outcome lens, attribution, norms, qk;
} Row;

/* The command for METHOD on ROW, run. */
static Run
run_method (const Row *row, const char *method)
{
  GPtrArray *argv = g_ptr_array_new ();
  const char *text = "the cat sat on the mat";
  if (strcmp (method, "lens") == 0)
    g_ptr_array_add (argv, "lens");
  else if (strcmp (method, "attribution") == 0)
    g_ptr_array_add (argv, "attribute");
  else if (strcmp (method, "norms") == 0)
    g_ptr_array_add (argv, "stats");
  else
    g_ptr_array_add (argv, "qk");
  const char *common[] = { "--model", row->model, "--text", text, "--json", NULL };
  for (int i = 0; common[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) common[i]);
  if (row->translation)
    {
      g_ptr_array_add (argv, "--target");
      g_ptr_array_add (argv, "die katze");
    }
  if (strcmp (method, "attribution") == 0)
    {
      g_ptr_array_add (argv, "--target-id");
      g_ptr_array_add (argv, "3");
    }
  else if (strcmp (method, "norms") == 0)
    g_ptr_array_add (argv, "--norms");
  else if (strcmp (method, "qk") == 0)
    {
      const char *more[] = { "--layer", "0", "--head", "0", NULL };
      for (int i = 0; more[i] != NULL; i++)
        g_ptr_array_add (argv, (gpointer) more[i]);
    }
  g_ptr_array_add (argv, NULL);
  Run r = run_cli_argv ((const char *const *) argv->pdata);
  g_ptr_array_free (argv, TRUE);
  return r;
}

static void
check_cell (const Row *row, const char *method, Outcome want)
{
  g_auto (Run) r = run_method (row, method);
  g_test_message ("%s × %s: exit %d %s", row->family, method, r.status, r.err);
  if (want == WORKS)
    {
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpuint (strlen (r.out), >, 2);
      /* the method's own output, not another command's (stats of a translation model printed
       * its cross-attention statistics and dropped --norms) */
      const char *member = strcmp (method, "norms") == 0         ? "\"value_norms\""
                           : strcmp (method, "qk") == 0          ? "\"products\""
                           : strcmp (method, "attribution") == 0 ? "\"heads\""
                                                                 : "\"hidden\"";
      g_assert_nonnull (strstr (r.out, member));
      return;
    }
  assert_error (&r, 1, NULL);
  /* the reason: after a colon, past the family's name */
  const char *family = strstr (r.err, row->family);
  g_assert_nonnull (family);
  g_assert_nonnull (strstr (family, ": "));
  g_assert_true (strstr (r.err, "does not apply") != NULL
                 || strstr (r.err, "not available") != NULL);
}

static void
test_table (void)
{
  g_autofree char *bart = bart_model ("bart-post", bart_post);
  g_autofree char *mbart = bart_model ("mbart", bart_mbart);
  g_autofree char *t5 = t5_model_with_tokenizer ();
  if (bart == NULL || mbart == NULL || t5 == NULL)
    return;
  Row rows[] = {
    { "gpt2", "attnscope-mini", FALSE, WORKS, WORKS, WORKS, WORKS },
    { "bert", "attnscope-mini-bert", FALSE, WORKS, REFUSED, WORKS, WORKS },
    { "marian", "attnscope-mini-en-de", TRUE, WORKS, WORKS, WORKS, WORKS },
    { "bart", bart, TRUE, WORKS, WORKS, WORKS, WORKS },
    { "bart", mbart, TRUE, WORKS, WORKS, WORKS, WORKS },
    { "t5", t5, TRUE, WORKS, WORKS, WORKS, WORKS },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      check_cell (&rows[i], "lens", rows[i].lens);
      check_cell (&rows[i], "attribution", rows[i].attribution);
      check_cell (&rows[i], "norms", rows[i].norms);
      check_cell (&rows[i], "qk", rows[i].qk);
    }
}

/* T5's query–key view: no scaling, and the layer's relative position bias added to q·k — each
 * score is Σ_d q_d·k_jd + bias_j, and the softmax of the scores the query sees is the head's
 * attention row as the forward pass computed it (every layer and head of the decoder, the last
 * target token). */
static void
test_t5_qk (void)
{
  g_autofree char *t5 = t5_model_with_tokenizer ();
  if (t5 == NULL)
    return;
  int checked = 0;
  for (int layer = 0; layer < 2; layer++)
    for (int head = 0; head < 2; head++)
      {
        g_autofree char *l = g_strdup_printf ("%d", layer), *h = g_strdup_printf ("%d", head);
        g_auto (Run) r
            = run_cli ("qk", "--model", t5, "--text", "the cat sat on the mat", "--target",
                       "die katze sass", "--layer", l, "--head", h, "--json", NULL);
        g_assert_cmpint (r.status, ==, 0);
        g_autoptr (JsonNode) root = parse_json (r.out);
        JsonObject *o = json_node_get_object (root);
        g_assert_cmpfloat (json_object_get_double_member (o, "scale"), ==, 1.0);
        g_assert_true (json_object_has_member (o, "bias"));
        JsonArray *bias
            = json_array_get_array_element (json_object_get_array_member (o, "bias"), 0);
        JsonArray *scores
            = json_array_get_array_element (json_object_get_array_member (o, "scores"), 0);
        JsonArray *products = json_object_get_array_member (o, "products");
        JsonArray *probs
            = json_array_get_array_element (json_object_get_array_member (o, "probs"), 0);
        guint S = json_array_get_length (probs);
        double top = -G_MAXDOUBLE, sum = 0.0;
        for (guint j = 0; j < S; j++)
          {
            if (json_node_is_null (json_array_get_element (scores, j)))
              continue;
            JsonArray *pj = json_array_get_array_element (products, j);
            double dot = 0.0;
            for (guint d = 0; d < json_array_get_length (pj); d++)
              dot += json_array_get_double_element (pj, d);
            double score = json_array_get_double_element (scores, j);
            g_assert_cmpfloat (fabs (score - (dot + json_array_get_double_element (bias, j))), <=,
                               1e-4 * MAX (1.0, fabs (score)));
            top = MAX (top, score);
          }
        for (guint j = 0; j < S; j++)
          if (!json_node_is_null (json_array_get_element (scores, j)))
            sum += exp (json_array_get_double_element (scores, j) - top);
        for (guint j = 0; j < S; j++)
          {
            double p = json_node_is_null (json_array_get_element (scores, j))
                           ? 0.0
                           : exp (json_array_get_double_element (scores, j) - top) / sum;
            g_assert_cmpfloat (fabs (p - json_array_get_double_element (probs, j)), <=, 1e-5);
          }
        checked++;
      }
  g_test_message ("T5 qk: %d heads, scores = q·k + bias, softmax = the pass's attention", checked);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/applies/table", test_table);
  g_test_add_func ("/cli/applies/t5-qk", test_t5_qk);
  return g_test_run ();
}
