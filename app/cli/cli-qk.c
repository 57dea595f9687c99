/* cli-qk.c — `attnscope qk`: the query–key view (as-qk.h) of one head and one query token: the
 * query, every key, their per-dimension products, the scores before and after the softmax and
 * the dimensions that add most to the score.
 *
 *   qk --model M (--text T | --ids 1,2,3) [--target TGT] --layer L --head H [--token I]
 *      [--top N] [--truncate] [--json]
 *
 * --token is the query's position (default: the last token). JSON: {"layer", "head", "kv_head",
 * "token", "tokens", "scale", "softcap", "q" [hd] (after RoPE), ["q_before_rope" [hd] where the
 * model rotates,] "keys" [T][hd], "products" [T][hd], ["bias" [T] where the layer adds one to
 * the scores (T5's relative position bias),] "scores" [T] (null where the query does not see the
 * key), "probs" [T], "dims" [hd], "top_dims"}. */
#include <math.h>
#include <stdio.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-qk.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-json.h"

typedef struct
{
  char *model, *text, *ids, *target;
  int layer, head, token, top;
  gboolean truncate, json;
} QkArgs;

static AsTrace *
qk_forward (AsModel *model, const QkArgs *a, GError **error)
{
  AsForwardOptions options = { .capture_qkv = TRUE };
  if (as_model_get_config (model)->encoder_decoder)
    {
      if (a->text == NULL || a->target == NULL)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "%s is a translation model: give --text SRC --target TGT (the decoder's "
                       "self-attention is shown)",
                       as_model_get_name (model));
          return NULL;
        }
      return as_forward_translation_text (model, a->text, a->target, &options, error);
    }
  return cli_forward_text_or_ids (model, a->text, a->ids, a->truncate, &options, error);
}

static void
add_row (JsonBuilder *b, const float *x, int n)
{
  json_builder_begin_array (b);
  for (int i = 0; i < n; i++)
    {
      if (isfinite (x[i]))
        json_builder_add_double_value (b, x[i]);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_array (b);
}

static void
add_matrix (JsonBuilder *b, const char *name, const float *x, int rows, int cols)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (int r = 0; r < rows; r++)
    add_row (b, x + (gsize) r * cols, cols);
  json_builder_end_array (b);
}

static void
print_json (const AsTrace *trace, const AsQk *qk, int top)
{
  int S = qk->n_keys, hd = qk->head_dim;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_int (b, "layer", qk->layer);
  cli_json_set_int (b, "head", qk->head);
  cli_json_set_int (b, "kv_head", qk->kv_head);
  cli_json_set_int (b, "token", qk->query);
  cli_json_set_tokens (b, "tokens", trace);
  cli_json_set_number (b, "scale", qk->scale);
  cli_json_set_number (b, "softcap", qk->softcap);
  add_matrix (b, "q", qk->q, 1, hd);
  if (qk->q_before_rope != NULL)
    add_matrix (b, "q_before_rope", qk->q_before_rope, 1, hd);
  add_matrix (b, "keys", qk->keys, S, hd);
  add_matrix (b, "products", qk->products, S, hd);
  if (qk->bias != NULL)
    add_matrix (b, "bias", qk->bias, 1, S);
  add_matrix (b, "scores", qk->scores, 1, S);
  add_matrix (b, "probs", qk->probs, 1, S);
  add_matrix (b, "dims", qk->dims, 1, hd);
  json_builder_set_member_name (b, "top_dims");
  json_builder_begin_array (b);
  for (int i = 0; i < MIN (top, hd); i++)
    json_builder_add_int_value (b, qk->top_dims[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  cli_json_print (b);
}

/* One line per key: token, score, probability, the largest dimensions' products. */
static void
print_text (const AsTrace *trace, const AsQk *qk, int top)
{
  int hd = qk->head_dim;
  GString *out = g_string_new (NULL);
  g_autofree char *query = cli_json_quote (trace->token_texts[qk->query]);
  g_string_append_printf (out,
                          "layer %d head %d (key/value head %d), query %d %s, scale %.6g\n"
                          "dimensions adding most to the expected score:",
                          qk->layer, qk->head, qk->kv_head, qk->query, query, qk->scale);
  for (int i = 0; i < MIN (top, hd); i++)
    g_string_append_printf (out, " %d (%+.4g)", qk->top_dims[i], qk->dims[qk->top_dims[i]]);
  g_string_append (
      out, qk->bias != NULL
               ? "\n\n  key token            score     prob  (score = q·k + position bias)\n"
               : "\n\n  key token            score     prob\n");
  for (int j = 0; j < qk->n_keys; j++)
    {
      g_autofree char *token = cli_json_quote (trace->token_texts[j]);
      if (isfinite (qk->scores[j]) && qk->bias != NULL)
        g_string_append_printf (out, "%5d %-16s %8.4f %8.4f  (bias %+.4f)\n", j, token,
                                qk->scores[j], qk->probs[j], qk->bias[j]);
      else if (isfinite (qk->scores[j]))
        g_string_append_printf (out, "%5d %-16s %8.4f %8.4f\n", j, token, qk->scores[j],
                                qk->probs[j]);
      else
        g_string_append_printf (out, "%5d %-16s   masked\n", j, token);
    }
  fwrite (out->str, 1, out->len, stdout);
  g_string_free (out, TRUE);
}

static int
run_qk (const QkArgs *a)
{
  GError *error = NULL;
  if (a->text != NULL && !cli_check_text (a->text, "--text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  const AsConfig *c = as_model_get_config (model);
  if (a->layer >= c->n_layer || a->head >= c->n_head)
    return cli_fail_printf ("--layer %d --head %d is out of range: %s has %d layers of %d heads "
                            "(0..%d, 0..%d)",
                            a->layer, a->head, as_model_get_name (model), c->n_layer, c->n_head,
                            c->n_layer - 1, c->n_head - 1);
  g_autoptr (AsTrace) trace = qk_forward (model, a, &error);
  if (trace == NULL)
    return cli_fail (error);
  int token = a->token >= 0 ? a->token : trace->n_tokens - 1;
  g_autoptr (AsQk) qk = as_qk_compute (model, trace, a->layer, a->head, token, &error);
  if (qk == NULL)
    return cli_fail (error);
  if (a->json)
    print_json (trace, qk, a->top);
  else
    print_text (trace, qk, a->top);
  return CLI_EXIT_OK;
}

int
cli_qk (int argc, char **argv)
{
  QkArgs a = { .layer = -1, .head = -1, .token = -1, .top = 8 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &a.model, "Model folder, shipped name or hub id", "M" },
    CLI_STRICT_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &a.text, "The text", "T" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &a.ids, "Input token ids, comma separated", "1,2,3" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &a.target,
      "A translation model's target text: its decoder's self-attention is shown", "TGT" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &a.layer, "The layer (from 0)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &a.head, "The head (from 0)", "H" },
    { "token", 0, 0, G_OPTION_ARG_INT, &a.token, "The query's position (default: the last)", "I" },
    { "top", 'k', 0, G_OPTION_ARG_INT, &a.top, "Dimensions listed (default 8)", "N" },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when the text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("qk", "",
                          "The query–key view: why a head attends where it does — its query, "
                          "every key, their products dimension by dimension and the scores.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    code = cli_usage_printf ("qk", "unexpected argument '%s'", argv[1]);
  else if ((a.text == NULL) == (a.ids == NULL))
    code = cli_usage_printf ("qk", "give exactly one of --text T or --ids 1,2,3");
  else if (a.layer < 0 || a.head < 0)
    code = cli_usage_printf ("qk", "give --layer L and --head H (from 0)");
  else if (a.token < -1 || a.top < 1)
    code = cli_usage_printf ("qk", "--token and --top are out of range");
  else
    code = run_qk (&a);
  g_free (a.model);
  g_free (a.text);
  g_free (a.ids);
  g_free (a.target);
  return code;
}
