/* cli-patch.c — `attnscope patch`: activation patching between two texts of the same number of
 * tokens (as_patch).
 *
 *   patch [--model M] --text A --text B --token W1 --vs-token W2 [--what heads|mlps|resid]
 *         [--reverse] [--json]
 *   patch [--model M] --pairs FILE [--shard K/N -o PART] --token W1 --vs-token W2 [...]
 *         (cli-patch-pairs.c: the effects averaged over the file's A<TAB>B pairs)
 *
 * Each head's output (its context), each MLP's output or the residual stream at each (layer,
 * position) is taken from B's pass into A's (--reverse: from A's into B's), one at a time, and
 * the logit difference W1 − W2 at the last position is measured, normalised so that 0 is the
 * patched text's own value and 1 the other text's. */
#include <math.h>
#include <stdio.h>

#include "as-error.h"
#include "as-patching.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-json.h"
#include "cli-patch-pairs.h"

typedef struct
{
  char *model, **texts, *pairs, *token, *vs_token, *what, *shard, *part;
  gboolean reverse, truncate, json;
} PatchArgs;

static const char *const what_names[] = { "heads", "mlps", "resid" };

static void
effects_range (const double *effects, gsize n, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (gsize i = 0; i < n; i++)
    {
      *lo = MIN (*lo, effects[i]);
      *hi = MAX (*hi, effects[i]);
    }
}

static void
set_ids (JsonBuilder *b, const char *member, const AsTrace *t)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_array (b);
  for (int i = 0; i < t->n_tokens; i++)
    json_builder_add_int_value (b, t->ids[i]);
  json_builder_end_array (b);
}

static void
print_json (AsModel *model, const AsTrace *base, const AsTrace *source, AsPatchWhat what,
            gboolean reverse, const AsMetric *metric, const char *measure, const double *effects,
            int rows, int cols, const AsPatchResult *r, const char *warning)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "model", as_model_get_name (model));
  cli_json_set_string (b, "what", what_names[what]);
  cli_json_set_string (b, "direction", reverse ? "A into B" : "B into A");
  cli_json_set_string (b, "measure", measure);
  cli_intervene_add_part_options (b);
  cli_json_set_tokens (b, "tokens", base);
  set_ids (b, "base_ids", base);
  set_ids (b, "source_ids", source);
  cli_json_set_int (b, "token_id", metric->token_id);
  cli_json_set_int (b, "vs_id", metric->vs_id);
  cli_json_set_number (b, "base", r->base);
  cli_json_set_number (b, "source", r->source);
  if (warning != NULL)
    cli_json_set_string (b, "warning", warning);
  double lo, hi;
  effects_range (effects, (gsize) rows * cols, &lo, &hi);
  cli_json_set_number (b, "min", lo);
  cli_json_set_number (b, "max", hi);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (int i = 0; i < rows; i++)
    {
      json_builder_begin_array (b);
      for (int j = 0; j < cols; j++)
        cli_json_add_number (b, effects[(gsize) i * cols + j]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  cli_json_set_int (b, "passes", r->stats.passes);
  cli_json_set_int (b, "layers_computed", r->stats.layers_computed);
  cli_json_set_int (b, "layers_full", r->stats.layers_full);
  json_builder_end_object (b);
  cli_json_print (b);
}

static void
print_text (AsPatchWhat what, gboolean reverse, const char *measure, const double *effects,
            int rows, int cols, const AsPatchResult *r)
{
  double lo, hi;
  effects_range (effects, (gsize) rows * cols, &lo, &hi);
  printf ("%s: %s %.6g, %s %.6g; patching %s %s, 0 = %s, 1 = %s; range %.4g to %.4g\n", measure,
          reverse ? "B" : "A", r->base, reverse ? "A" : "B", r->source, what_names[what],
          reverse ? "from A into B" : "from B into A", reverse ? "B" : "A", reverse ? "A" : "B", lo,
          hi);
  const char *col = what == AS_PATCH_HEADS ? "head " : what == AS_PATCH_RESID ? "pos " : "mlp";
  printf ("layer");
  for (int j = 0; j < cols; j++)
    printf (what == AS_PATCH_MLPS ? " %11s" : " %10s%d", col, j);
  printf ("\n");
  for (int i = 0; i < rows; i++)
    {
      printf ("%5d", i);
      for (int j = 0; j < cols; j++)
        printf (" %11.4g", effects[(gsize) i * cols + j]);
      printf ("\n");
    }
}

static int
run_patch (const PatchArgs *a)
{
  GError *error = NULL;
  AsPatchWhat what = AS_PATCH_HEADS;
  if (a->what != NULL && !as_patch_what_parse (a->what, &what, &error))
    return cli_fail (error);
  for (int i = 0; i < 2; i++)
    if (!cli_check_text (a->texts[i], "--text", &error))
      return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  AsMetric metric;
  if (!cli_metric_from_words (model, a->token, a->vs_token, FALSE, &metric, &error))
    return cli_fail (error);
  AsForwardOptions tokenize_only = { 0 };
  g_autoptr (AsTrace) ta
      = cli_forward_text (model, a->texts[0], NULL, a->truncate, &tokenize_only, &error);
  g_autoptr (AsTrace) tb = ta != NULL ? cli_forward_text (model, a->texts[1], NULL, a->truncate,
                                                          &tokenize_only, &error)
                                      : NULL;
  if (ta == NULL || tb == NULL)
    return cli_fail (error);
  if (ta->n_tokens != tb->n_tokens)
    return cli_fail_printf ("patching needs texts of the same number of tokens: A has %d, B has "
                            "%d",
                            ta->n_tokens, tb->n_tokens);
  const AsTrace *base = a->reverse ? tb : ta, *source = a->reverse ? ta : tb;
  const AsConfig *c = as_model_get_config (model);
  int T = ta->n_tokens;
  int rows = what == AS_PATCH_MLPS ? 1 : c->n_layer;
  int cols = what == AS_PATCH_HEADS ? c->n_head : what == AS_PATCH_RESID ? T : c->n_layer;
  g_autofree double *effects = g_new (double, as_patch_n_effects (model, what, T));
  AsPatchResult r;
  AsScanOptions so = { 0 };
  cli_intervene_scan_options (&so);
  if (!as_patch_with (model, base->ids, source->ids, T, &metric, what, &so, effects, &r, &error))
    return cli_fail (error);
  g_autofree char *measure = cli_metric_describe (model, &metric);
  g_autofree char *warning = cli_patch_gap_warning (&r);
  if (a->json)
    print_json (model, base, source, what, a->reverse, &metric, measure, effects, rows, cols, &r,
                warning);
  else
    print_text (what, a->reverse, measure, effects, rows, cols, &r);
  return CLI_EXIT_OK;
}

/* patch --pairs FILE, with SHARD. */
static int
run_pairs (const PatchArgs *a, CliShard *shard)
{
  GError *error = NULL;
  CliPatchPairsArgs pa = {
    .model = a->model,
    .pairs = a->pairs,
    .token = a->token,
    .vs_token = a->vs_token,
    .reverse = a->reverse,
    .truncate = a->truncate,
    .json = a->json,
  };
  if (a->what != NULL && !as_patch_what_parse (a->what, &pa.what, &error))
    return cli_fail (error);
  return cli_patch_pairs (&pa, shard);
}

static int
check_args (const PatchArgs *a)
{
  if (a->pairs != NULL && a->texts != NULL)
    return cli_usage_printf ("patch", "give --text twice or --pairs FILE, not both");
  if (a->shard != NULL && a->pairs == NULL)
    return cli_usage_printf ("patch", "--shard splits a corpus: it goes with --pairs");
  if (a->pairs == NULL && (a->texts == NULL || g_strv_length (a->texts) != 2))
    return cli_usage_printf ("patch", "give --text twice: sentence A, then sentence B");
  if (a->token == NULL || a->vs_token == NULL)
    return cli_usage_printf ("patch", "--token and --vs-token are required (the logit "
                                      "difference to measure)");
  return -1;
}

int
cli_patch (int argc, char **argv)
{
  PatchArgs a = { 0 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &a.model, "Model folder, shipped name or hub id", "M" },
    CLI_STRICT_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &a.texts, "Sentence A, then (again) sentence B",
      "T" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &a.token, "The first token of the logit difference",
      "W1" },
    { "vs-token", 0, 0, G_OPTION_ARG_STRING, &a.vs_token, "The token subtracted", "W2" },
    { "pairs", 0, 0, G_OPTION_ARG_FILENAME, &a.pairs,
      "Sentence pairs, one A<TAB>B a line: the effects averaged over the pairs", "FILE" },
    CLI_SHARD_ENTRIES (a.shard, a.part),
    { "what", 0, 0, G_OPTION_ARG_STRING, &a.what,
      "What is patched: heads (default), mlps or resid (each layer and position)",
      "heads|mlps|resid" },
    { "reverse", 0, 0, G_OPTION_ARG_NONE, &a.reverse, "Patch from A into B instead", NULL },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when a text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
    CLI_ABLATION_OPTIONS,
    CLI_NO_POSITIONS_OPTION,
    { NULL },
  };
  int code;
  if (!cli_parse_options ("patch", "",
                          "Activation patching: take each head's output, each MLP's output or "
                          "the residual stream at each layer and position from B's pass into "
                          "A's and measure a logit difference (0 = A's value, 1 = B's).",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    code = cli_usage_printf ("patch", "unexpected argument '%s'", argv[1]);
  else if ((code = check_args (&a)) < 0 && a.pairs == NULL)
    code = run_patch (&a);
  else if (code < 0)
    {
      CliShard shard;
      if ((code = cli_shard_setup (&shard, "patch", a.shard, a.part)) < 0)
        {
          code = run_pairs (&a, &shard);
          cli_shard_clear (&shard);
        }
    }
  g_free (a.model);
  g_strfreev (a.texts);
  g_free (a.token);
  g_free (a.vs_token);
  g_free (a.what);
  g_free (a.pairs);
  g_free (a.shard);
  g_free (a.part);
  return code;
}
