/* cli-lens-fit.c — `attnscope lens --fit` (see cli-lens-fit.h). */
#include "cli-lens-fit.h"

#include <stdio.h>

#include "as-output-file.h"
#include "cli-common.h"
#include "cli-json.h"

static gboolean
add_line (const char *line, gpointer user_data, GError **error)
{
  g_ptr_array_add (user_data, g_strdup (line));
  return TRUE;
}

static void
print_json (const AsFittedLens *lens, const char *save)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "model", lens->model_name);
  if (save != NULL)
    cli_json_set_string (b, "saved", save);
  cli_json_set_number (b, "ridge", lens->ridge);
  cli_json_set_int (b, "train_lines", lens->n_train_lines);
  cli_json_set_int (b, "train_positions", lens->n_train_positions);
  cli_json_set_int (b, "heldout_lines", lens->n_heldout_lines);
  cli_json_set_int (b, "heldout_positions", lens->n_heldout_positions);
  json_builder_set_member_name (b, "hidden");
  json_builder_begin_array (b);
  for (int i = 0; i < lens->n_layer; i++)
    {
      json_builder_begin_object (b);
      cli_json_set_int (b, "index", i);
      cli_json_set_number (b, "kl_logit", lens->kl_logit[i]);
      cli_json_set_number (b, "kl_fitted", lens->kl_fitted[i]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  cli_json_print (b);
}

static void
print_text (const AsFittedLens *lens, const char *save)
{
  printf ("fitted lens of %s: %d training lines (%d positions), ridge %g\n", lens->model_name,
          lens->n_train_lines, lens->n_train_positions, lens->ridge);
  printf ("KL divergence to the final distribution (nats), %d held-out lines (%d positions):\n",
          lens->n_heldout_lines, lens->n_heldout_positions);
  printf ("  hidden   logit lens   fitted lens\n");
  for (int i = 0; i < lens->n_layer; i++)
    printf ("  %6d   %10.4f   %11.4f\n", i, lens->kl_logit[i], lens->kl_fitted[i]);
  if (save != NULL)
    printf ("wrote %s\n", save);
}

int
cli_lens_fit (const char *model_spec, const char *corpus, const char *save, double ridge,
              gboolean force, gboolean json)
{
  GError *error = NULL;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  if (!cli_foreach_text_line_named ("--fit", corpus, add_line, lines, &error))
    return cli_fail (error);
  if (save != NULL
      && !as_output_file_check (save, force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT, &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  g_autoptr (AsFittedLens) lens = as_fitted_lens_fit (model, (const char *const *) lines->pdata,
                                                      (int) lines->len, ridge, NULL, &error);
  if (lens == NULL)
    {
      g_prefix_error (&error, "--fit %s: ", corpus);
      return cli_fail (error);
    }
  if (save != NULL && !as_fitted_lens_save (lens, save, force, &error))
    return cli_fail (error);
  if (json)
    print_json (lens, save);
  else
    print_text (lens, save);
  return CLI_EXIT_OK;
}
