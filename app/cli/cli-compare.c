/* cli-compare.c — `attnscope compare --text A --text B`: how two sentences differ inside one
 * model (core/as-compare.h): tokens paired by string (k-th occurrence with k-th occurrence),
 * per hidden-state layer the cosine similarity of the pairs and the change (Frobenius norm of the
 * matched-row difference), and the attention difference B − A per head with layers and heads
 * ranked by its Frobenius norm — with --align tokens (the default, as the window's Compare page)
 * B in A's token order, for texts of any lengths; with --align positions position by position,
 * for texts of equal lengths. The ranking is the one the window's list shows
 * (as_comparison_attention_change). Text summary by default, JSON with --json ("align" says
 * which alignment; --matrices adds every head's [T_A][T_A] difference, null where a token of A
 * has no partner). */
#include <math.h>
#include <stdio.h>

#include "as-compare.h"
#include "cli-analysis.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"

static void
set_index_list_json (JsonBuilder *out, const char *member, const int *indices, int n,
                     const AsTrace *trace)
{
  json_builder_set_member_name (out, member);
  json_builder_begin_array (out);
  for (int i = 0; i < n; i++)
    {
      json_builder_begin_object (out);
      cli_json_set_int (out, "index", indices[i]);
      cli_json_set_string (out, "token", trace->tokens[indices[i]]);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
}

/* {"layer":l, ["head":h,] "change":x} */
static void
add_change_json (JsonBuilder *out, int layer, int head, double change)
{
  json_builder_begin_object (out);
  cli_json_set_int (out, "layer", layer);
  if (head >= 0)
    cli_json_set_int (out, "head", head);
  cli_json_set_number (out, "change", change);
  json_builder_end_object (out);
}

static void
set_hidden_json (JsonBuilder *out, const AsComparison *c)
{
  json_builder_set_member_name (out, "hidden");
  json_builder_begin_array (out);
  for (int l = 0; l <= c->n_layer; l++)
    {
      json_builder_begin_object (out);
      cli_json_set_int (out, "layer", l);
      cli_json_set_number (out, "mean_similarity", c->hidden_mean_similarity[l]);
      cli_json_set_number (out, "change", c->hidden_change[l]);
      json_builder_set_member_name (out, "similarity");
      json_builder_begin_array (out);
      for (int p = 0; p < c->n_pairs; p++)
        cli_json_add_number (out, c->hidden_similarity[(gsize) l * c->n_pairs + p]);
      json_builder_end_array (out);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
  json_builder_set_member_name (out, "hidden_ranking");
  json_builder_begin_array (out);
  for (int r = 0; r <= c->n_layer; r++)
    add_change_json (out, c->hidden_ranking[r], -1, c->hidden_change[c->hidden_ranking[r]]);
  json_builder_end_array (out);
}

/* What the attention part of the output is about: the comparison of the traces A and B, in one
 * alignment. */
typedef struct
{
  const AsComparison *c;
  const AsTrace *a, *b;
  AsAlign align;
  AsAttentionChange change; /* as_comparison_attention_change's */
} CompareView;

/* {"layer":l,"head":h,"change":x,"max_abs_diff":m[,"diff":[[...]]]} for flat head E; the
 * difference is B − A in the view's alignment (by token: B in A's token order, null where a token
 * of A has no partner). */
static void
add_head_json (JsonBuilder *out, const CompareView *v, int e, gboolean matrices)
{
  int t = v->c->n_tokens_a;
  g_autofree float *d = g_new (float, (gsize) MAX (t, 1) * t); /* [T_A][T_A] */
  as_comparison_head_difference (d, v->c, v->a, v->b, e / v->c->n_head, e % v->c->n_head, v->align);
  double max_abs = 0;
  for (int x = 0; x < t * t; x++)
    if (!isnan (d[x]))
      max_abs = fmax (max_abs, fabs (d[x]));
  json_builder_begin_object (out);
  cli_json_set_int (out, "layer", e / v->c->n_head);
  cli_json_set_int (out, "head", e % v->c->n_head);
  cli_json_set_number (out, "change", v->change.head_change[e]);
  cli_json_set_number (out, "max_abs_diff", max_abs);
  if (matrices)
    {
      json_builder_set_member_name (out, "diff");
      json_builder_begin_array (out);
      for (int i = 0; i < t; i++)
        {
          json_builder_begin_array (out);
          for (int j = 0; j < t; j++)
            cli_json_add_number (out, d[i * t + j]);
          json_builder_end_array (out);
        }
      json_builder_end_array (out);
    }
  json_builder_end_object (out);
}

/* "attention": {"available", "align", and the heads, head_ranking and layer_ranking of the
 * alignment, or the reason it is unavailable} */
static void
set_attention_json (JsonBuilder *out, const CompareView *v, gboolean available, gboolean matrices)
{
  const AsComparison *c = v->c;
  json_builder_set_member_name (out, "attention");
  json_builder_begin_object (out);
  json_builder_set_member_name (out, "available");
  json_builder_add_boolean_value (out, available);
  cli_json_set_string (out, "align", as_align_to_string (v->align));
  if (!available)
    {
      g_autofree char *reason = g_strdup_printf (
          "the texts have %d and %d tokens; attention differences by position need equal "
          "lengths (--align tokens compares any two texts)",
          c->n_tokens_a, c->n_tokens_b);
      cli_json_set_string (out, "reason", reason);
      json_builder_end_object (out);
      return;
    }
  int n = c->n_layer * c->n_head;
  json_builder_set_member_name (out, "heads");
  json_builder_begin_array (out);
  for (int e = 0; e < n; e++)
    add_head_json (out, v, e, matrices);
  json_builder_end_array (out);
  json_builder_set_member_name (out, "head_ranking");
  json_builder_begin_array (out);
  for (int r = 0; r < n; r++)
    {
      int e = v->change.head_ranking[r];
      add_change_json (out, e / c->n_head, e % c->n_head, v->change.head_change[e]);
    }
  json_builder_end_array (out);
  json_builder_set_member_name (out, "layer_ranking");
  json_builder_begin_array (out);
  for (int r = 0; r < c->n_layer; r++)
    add_change_json (out, v->change.layer_ranking[r], -1,
                     v->change.layer_change[v->change.layer_ranking[r]]);
  json_builder_end_array (out);
  json_builder_end_object (out);
}

/* With --no-positions, why two orders of the same tokens still differ or do not (NULL
 * without). */
static const char *
positions_note (const AsTrace *a)
{
  if (!cli_intervene_args.no_positions)
    return NULL;
  return a->causal ? "positions left out, but the causal mask still tells the orders apart: each "
                     "token sees only the tokens before it"
                   : "positions left out: a bidirectional model sees the same tokens in any "
                     "order, so a reordered text differs only by rounding";
}

static void
print_json (const CompareView *v, gboolean available, gboolean matrices)
{
  const AsComparison *c = v->c;
  const AsTrace *a = v->a, *b = v->b;
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "align", as_align_to_string (v->align));
  if (positions_note (v->a) != NULL)
    cli_json_set_string (out, "positions", positions_note (v->a));
  cli_json_set_tokens (out, "tokens_a", a);
  cli_json_set_tokens (out, "tokens_b", b);
  json_builder_set_member_name (out, "pairs");
  json_builder_begin_array (out);
  for (int p = 0; p < c->n_pairs; p++)
    {
      json_builder_begin_object (out);
      cli_json_set_string (out, "token", a->tokens[c->pairs[p].a]);
      cli_json_set_int (out, "a", c->pairs[p].a);
      cli_json_set_int (out, "b", c->pairs[p].b);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
  set_index_list_json (out, "unmatched_a", c->unmatched_a, c->n_unmatched_a, a);
  set_index_list_json (out, "unmatched_b", c->unmatched_b, c->n_unmatched_b, b);
  set_hidden_json (out, c);
  set_attention_json (out, v, available, matrices);
  json_builder_end_object (out);
  cli_json_print (out);
}

static void
print_text (const CompareView *v, gboolean available)
{
  const AsComparison *c = v->c;
  const AsTrace *a = v->a;
  g_autoptr (GString) out = g_string_new (NULL);
  if (positions_note (a) != NULL)
    g_string_append_printf (out, "%s\n", positions_note (a));
  g_string_append_printf (out, "%d pairs of tokens (A position -> B position):", c->n_pairs);
  for (int p = 0; p < c->n_pairs; p++)
    g_string_append_printf (out, " %s %d->%d", a->tokens[c->pairs[p].a], c->pairs[p].a,
                            c->pairs[p].b);
  g_string_append_printf (out, "\nunmatched in A: %d, in B: %d\n", c->n_unmatched_a,
                          c->n_unmatched_b);
  g_string_append_printf (out, "%6s %16s %12s\n", "hidden", "mean similarity", "change");
  for (int l = 0; l <= c->n_layer; l++)
    g_string_append_printf (out, "%6d %16.6f %12.6f\n", l, c->hidden_mean_similarity[l],
                            c->hidden_change[l]);
  if (!available)
    g_string_append_printf (out,
                            "attention difference by position unavailable: the texts have %d and "
                            "%d tokens (--align tokens compares any two texts)\n",
                            c->n_tokens_a, c->n_tokens_b);
  else
    {
      g_string_append (out, v->align == AS_ALIGN_TOKENS
                                ? "heads by attention change |B - A|, B in A's token order:\n"
                                : "heads by attention change |B - A|, position by position:\n");
      for (int r = 0; r < c->n_layer * c->n_head; r++)
        {
          int e = v->change.head_ranking[r];
          g_string_append_printf (out, "  layer %d head %d: %.6f\n", e / c->n_head, e % c->n_head,
                                  v->change.head_change[e]);
        }
    }
  cli_print (out);
}

int
cli_compare (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *align_name = NULL;
  g_auto (GStrv) texts = NULL;
  gboolean json = FALSE, matrices = FALSE, truncate = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_NO_POSITIONS_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &texts, "A text; give exactly two", "T" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { "align", 0, 0, G_OPTION_ARG_STRING, &align_name,
      "Line B up with A by tokens (default: the k-th occurrence of a token with the k-th) or by "
      "positions (equal lengths only)",
      "tokens|positions" },
    { "matrices", 0, 0, G_OPTION_ARG_NONE, &matrices,
      "With --json: include every head's attention difference B - A in the alignment", NULL },
    CLI_ANALYSIS_TRUNCATE_ENTRY (truncate),
    { NULL },
  };
  int code;
  if (!cli_parse_options ("compare", "", "Compare two texts layer by layer and head by head.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("compare", "unexpected argument '%s'", argv[1]);
  if (texts == NULL || g_strv_length (texts) != 2)
    return cli_usage_printf ("compare", "give exactly two texts: --text A --text B");
  AsAlign align = AS_ALIGN_TOKENS;
  if (align_name != NULL && !as_align_from_string (align_name, &align))
    return cli_usage_printf ("compare", "--align: unknown '%s' (expected tokens or positions)",
                             align_name);

  GError *error = NULL;
  if (!cli_check_text (texts[0], "the first --text", &error)
      || !cli_check_text (texts[1], "the second --text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  g_autoptr (AsTrace) a
      = cli_analysis_forward (model, texts[0], "the first --text", truncate, &error);
  if (a == NULL)
    return cli_fail (error);
  g_autoptr (AsTrace) b
      = cli_analysis_forward (model, texts[1], "the second --text", truncate, &error);
  if (b == NULL)
    return cli_fail (error);
  g_autoptr (AsComparison) c = as_compare_traces (a, b, &error);
  if (c == NULL)
    return cli_fail (error);
  CompareView view = { c, a, b, align, { NULL } };
  gboolean available = as_comparison_attention_change (c, align, &view.change);
  if (json)
    print_json (&view, available, matrices);
  else
    print_text (&view, available);
  return CLI_EXIT_OK;
}
