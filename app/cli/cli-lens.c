/* cli-lens.c — `attnscope lens`: the logit lens (as-lens.h). Every hidden state read through the
 * model's own final norm and output head: the top K tokens at each position, and with --token /
 * --target-id one token's rank and probability through the layers.
 *
 *   lens --model M (--text T | --ids 1,2,3) [--target TGT] [--top K]
 *        [--token WORD | --target-id N] [--position I] [--with LENS.h5] [--truncate] [--json]
 *   lens --model M --fit CORPUS [--save LENS.h5] [--ridge R] [--force] [--json]
 *
 * --fit fits the fitted lens on the corpus's non-blank lines and prints the held-out KL per hidden
 * state (cli-lens-fit.c); --with reads hidden states 0..L-1 through a saved fitted lens instead
 * of the final norm.
 *
 * Positions: --position I, else a masked-LM encoder's mask positions when the text has any,
 * else every position. A translation model reads its decoder over --target (the decoder input
 * is the start token and TGT's tokens). */
#include <stdio.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-lens.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-json.h"
#include "cli-lens-fit.h"

#define LENS_MAX_TOP 100

typedef struct
{
  char *model, *text, *ids, *target, *token, *fit, *save, *with;
  int top, position, target_id;
  double ridge;
  gboolean truncate, json, force;
} LensArgs;

/* The trace the lens reads: every position's logits. */
static AsTrace *
lens_forward (AsModel *model, const LensArgs *a, GError **error)
{
  AsForwardOptions options = { .all_logits = TRUE };
  if (as_model_get_config (model)->encoder_decoder)
    return as_forward_translation_text (model, a->text, a->target, &options, error);
  return cli_forward_text_or_ids (model, a->text, a->ids, a->truncate, &options, error);
}

/* The positions to read: --position, the mask positions of a masked-LM input, or all. */
static GArray *
lens_positions (const AsTrace *trace, int position, GError **error)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (int));
  if (position >= 0)
    {
      if (position >= trace->n_tokens)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "--position %d is out of range: the text has %d tokens (0..%d)", position,
                       trace->n_tokens, trace->n_tokens - 1);
          g_array_unref (out);
          return NULL;
        }
      g_array_append_val (out, position);
      return out;
    }
  int32_t mask = trace->causal ? -1 : trace->special_ids[AS_SPECIAL_MASK];
  for (int t = 0; mask >= 0 && t < trace->n_tokens; t++)
    if (trace->ids[t] == mask)
      g_array_append_val (out, t);
  if (out->len == 0)
    for (int t = 0; t < trace->n_tokens; t++)
      g_array_append_val (out, t);
  return out;
}

static void
add_cell_json (JsonBuilder *b, const AsLens *lens, const AsLensCell *cell, int position)
{
  json_builder_begin_object (b);
  cli_json_set_int (b, "position", position);
  json_builder_set_member_name (b, "top");
  json_builder_begin_array (b);
  for (int k = 0; k < cell->n_top; k++)
    {
      json_builder_begin_object (b);
      cli_json_set_int (b, "id", cell->top[k].id);
      cli_json_set_string (b, "token", cell->top[k].token);
      cli_json_set_number (b, "prob", cell->top[k].probability);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (lens->target_id >= 0)
    {
      json_builder_set_member_name (b, "target");
      json_builder_begin_object (b);
      cli_json_set_int (b, "id", lens->target_id);
      cli_json_set_int (b, "rank", cell->target_rank);
      cli_json_set_number (b, "prob", cell->target_probability);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static void
print_json (const AsTrace *trace, const AsLens *lens)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ids");
  json_builder_begin_array (b);
  for (int t = 0; t < trace->n_tokens; t++)
    json_builder_add_int_value (b, trace->ids[t]);
  json_builder_end_array (b);
  cli_json_set_tokens (b, "tokens", trace);
  if (trace->source != NULL)
    {
      /* a translation: the decoder is read; its input's source */
      json_builder_set_member_name (b, "source_ids");
      json_builder_begin_array (b);
      for (int t = 0; t < trace->source->n_tokens; t++)
        json_builder_add_int_value (b, trace->source->ids[t]);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "hidden");
  json_builder_begin_array (b);
  for (int i = 0; i < lens->n_hidden; i++)
    {
      json_builder_begin_object (b);
      cli_json_set_int (b, "index", i);
      json_builder_set_member_name (b, "positions");
      json_builder_begin_array (b);
      for (int p = 0; p < lens->n_positions; p++)
        add_cell_json (b, lens, as_lens_cell (lens, i, p), lens->positions[p]);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  cli_json_print (b);
}

/* Per position, a line per hidden state: its top tokens, and the target's rank. */
static void
print_text (const AsTrace *trace, const AsLens *lens, const char *target_text)
{
  GString *out = g_string_new (NULL);
  for (int p = 0; p < lens->n_positions; p++)
    {
      int t = lens->positions[p];
      g_autofree char *quoted = cli_json_quote (trace->token_texts[t]);
      g_string_append_printf (out, "%sposition %d %s\n", p > 0 ? "\n" : "", t, quoted);
      for (int i = 0; i < lens->n_hidden; i++)
        {
          const AsLensCell *cell = as_lens_cell (lens, i, p);
          g_string_append_printf (out, "  hidden %2d ", i);
          for (int k = 0; k < cell->n_top; k++)
            {
              g_autofree char *token = cli_json_quote (cell->top[k].token);
              g_string_append_printf (out, " %s %.4f", token, cell->top[k].probability);
            }
          if (lens->target_id >= 0)
            g_string_append_printf (out, "   | %s rank %d, %.4g", target_text, cell->target_rank,
                                    cell->target_probability);
          g_string_append_c (out, '\n');
        }
    }
  fwrite (out->str, 1, out->len, stdout);
  g_string_free (out, TRUE);
}

static int
check_fit_args (const LensArgs *a)
{
  if (a->save != NULL && a->fit == NULL)
    return cli_usage_printf ("lens", "--save goes with --fit CORPUS");
  if (a->fit == NULL)
    return -1;
  if (a->text != NULL || a->ids != NULL || a->with != NULL || a->token != NULL || a->target_id >= 0
      || a->position >= 0 || a->target != NULL)
    return cli_usage_printf ("lens", "--fit CORPUS goes without --text, --ids, --with, --token, "
                                     "--target-id, --position and --target");
  if (!(a->ridge > 0.0))
    return cli_usage_printf ("lens", "--ridge %g is out of range: it must be above 0", a->ridge);
  return -1;
}

static int
check_args (const LensArgs *a)
{
  int code = check_fit_args (a);
  if (code >= 0 || a->fit != NULL)
    return code;
  if ((a->text == NULL) == (a->ids == NULL))
    return cli_usage_printf ("lens", "give exactly one of --text T or --ids 1,2,3");
  if (a->target != NULL && a->text == NULL)
    return cli_usage_printf ("lens", "--target goes with --text");
  if (a->token != NULL && a->target_id >= 0)
    return cli_usage_printf ("lens", "--token and --target-id name the same thing: give one");
  if (a->top < 1 || a->top > LENS_MAX_TOP)
    return cli_usage_printf ("lens", "--top %d is out of range (1..%d)", a->top, LENS_MAX_TOP);
  if (a->position < -1)
    return cli_usage_printf ("lens", "--position %d is out of range: positions start at 0",
                             a->position);
  if (a->target_id < -1)
    return cli_usage_printf ("lens", "--target-id %d is out of range: ids start at 0",
                             a->target_id);
  return -1;
}

/* The target token: --token's single id, --target-id, or -1. */
static gboolean
resolve_target (AsModel *model, const LensArgs *a, int32_t *id, GError **error)
{
  *id = a->target_id;
  if (a->token == NULL)
    return TRUE;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  return tokenizer != NULL && as_tokenizer_word_id (tokenizer, a->token, id, error);
}

static int
run_lens (const LensArgs *a)
{
  GError *error = NULL;
  if (a->text != NULL && !cli_check_text (a->text, "--text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  gboolean translation = as_model_get_config (model)->encoder_decoder;
  if (translation && a->target == NULL)
    return cli_usage_printf ("lens", "%s is a translation model: give --text SRC --target TGT",
                             as_model_get_name (model));
  if (!translation && a->target != NULL)
    return cli_usage_printf ("lens", "%s is not a translation model: --target needs one",
                             as_model_get_name (model));
  int32_t target_id;
  if (!resolve_target (model, a, &target_id, &error))
    return cli_fail (error);
  g_autoptr (AsTrace) trace = lens_forward (model, a, &error);
  if (trace == NULL)
    return cli_fail (error);
  g_autoptr (GArray) positions = lens_positions (trace, a->position, &error);
  if (positions == NULL)
    return cli_fail (error);
  g_autoptr (AsFittedLens) fitted
      = a->with != NULL ? as_fitted_lens_load (a->with, model, &error) : NULL;
  if (a->with != NULL && fitted == NULL)
    return cli_fail (error);
  int *at = &g_array_index (positions, int, 0), n = (int) positions->len;
  g_autoptr (AsLens) lens
      = fitted != NULL
            ? as_lens_compute_fitted (model, trace, fitted, at, n, a->top, target_id, NULL, &error)
            : as_lens_compute (model, trace, at, n, a->top, target_id, NULL, &error);
  if (lens == NULL)
    return cli_fail (error);
  if (a->json)
    print_json (trace, lens);
  else
    {
      g_autofree char *target_text
          = target_id >= 0 ? as_predict_dup_ids_text (as_model_get_tokenizer (model), &target_id, 1)
                           : NULL;
      g_autofree char *quoted = target_text != NULL ? cli_json_quote (target_text) : NULL;
      print_text (trace, lens, quoted);
    }
  return CLI_EXIT_OK;
}

int
cli_lens (int argc, char **argv)
{
  LensArgs a = { .top = 5, .position = -1, .target_id = -1, .ridge = AS_FITTED_LENS_RIDGE };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &a.model, "Model folder, shipped name or hub id", "M" },
    CLI_STRICT_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &a.text, "The text (a translation model's source)",
      "T" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &a.ids, "Input token ids, comma separated", "1,2,3" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &a.target,
      "A translation model's target text: its decoder is read", "TGT" },
    { "top", 'k', 0, G_OPTION_ARG_INT, &a.top, "Tokens per hidden state and position (default 5)",
      "K" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &a.token,
      "Follow this token (its text, one token of the vocabulary, e.g. \" car\") through the "
      "layers",
      "WORD" },
    { "target-id", 0, 0, G_OPTION_ARG_INT, &a.target_id, "Follow the token with this id", "N" },
    { "position", 'p', 0, G_OPTION_ARG_INT, &a.position,
      "Only this position (default: the masks of a masked-LM input, else every position)", "I" },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when the text is longer than the context", NULL },
    { "with", 0, 0, G_OPTION_ARG_FILENAME, &a.with,
      "Read hidden states through this fitted lens (made with --fit --save)", "LENS.h5" },
    { "fit", 0, 0, G_OPTION_ARG_FILENAME, &a.fit,
      "Fit a lens on this corpus (one text a line) and print its held-out KL per layer", "CORPUS" },
    { "save", 0, 0, G_OPTION_ARG_FILENAME, &a.save, "With --fit: write the fitted lens here",
      "LENS.h5" },
    { "ridge", 0, 0, G_OPTION_ARG_DOUBLE, &a.ridge,
      "With --fit: the ridge, relative to the mean squared hidden value (default 0.001)", "R" },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &a.force, "With --save: replace a read-only file", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("lens", "",
                          "The logit lens: what the model would predict from each layer's "
                          "hidden state, read through its own final norm and output head "
                          "(hidden 0 = the embeddings, the last = the model's own prediction). "
                          "--fit fits a lens of affine maps on a corpus (least squares).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    code = cli_usage_printf ("lens", "unexpected argument '%s'", argv[1]);
  else if ((code = check_args (&a)) < 0)
    code = a.fit != NULL ? cli_lens_fit (a.model, a.fit, a.save, a.ridge, a.force, a.json)
                         : run_lens (&a);
  g_free (a.model);
  g_free (a.text);
  g_free (a.ids);
  g_free (a.target);
  g_free (a.token);
  g_free (a.fit);
  g_free (a.save);
  g_free (a.with);
  return code;
}
