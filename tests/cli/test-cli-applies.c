/* test-cli-applies.c — the "does not apply" table: for every family × method (the logit lens,
 * direct logit attribution, the attention norms, the query–key view) the command either works or
 * says why in one line. The table below is what the families support today: a method marked as
 * working must exit 0 with output, one marked as refused must fail with exactly one error line
 * that names the model and gives the reason after a colon. */
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
    { "t5", t5, TRUE, WORKS, WORKS, WORKS, REFUSED },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      check_cell (&rows[i], "lens", rows[i].lens);
      check_cell (&rows[i], "attribution", rows[i].attribution);
      check_cell (&rows[i], "norms", rows[i].norms);
      check_cell (&rows[i], "qk", rows[i].qk);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/applies/table", test_table);
  return g_test_run ();
}
