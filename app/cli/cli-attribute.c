/* cli-attribute.c — `attnscope attribute`: direct logit attribution (as-attribution.h). One
 * token's logit at one position (or the difference of two tokens' logits) split into the direct
 * parts of every head, every MLP, the embeddings, the attention output biases and the final
 * norm's bias, the final norm frozen at its value in the run.
 *
 *   attribute --model M (--text T | --ids 1,2,3) [--target TARGET_TEXT] [--position I]
 *             (--token WORD | --target-id N) [--vs-token WORD2 | --vs-id N2] [--truncate]
 *             [--json] [-o F.png|.svg|.pdf [--scale S] [--kind decoder|cross]]
 *
 * -o writes the figure (attribution-figure.h: heads and MLPs per layer in diverging colours)
 * instead of printing: the one `export --attribution` writes with the same options and the
 * Attribution page exports (the same builder, subtitle and view defaults, byte for byte). For a
 * translation model --kind cross draws the cross-attention heads instead (the page's second
 * heatmap, `export --attribution --kind cross`); --kind decoder, the default, the decoder's heads
 * and MLPs. A decoder-only model has no --kind: it is refused in one line. --position defaults to
 * the last token. JSON: {"position", "target_id",
 * ["vs_id",] "logit", "heads" [L][H], "mlps" [L], "embeddings", "attn_biases" [L], "norm_bias",
 * "sum"}; with a
 * --vs token every number is for the difference. Without --json a table: the parts per layer
 * and the largest parts.
 *
 * A translation model (encoder–decoder) needs --text SOURCE and --target TARGET_TEXT: the logit
 * is the decoder's at a position of its input (the start token + the target's tokens), split with
 * every norm on the decoder's residual path frozen (core/analysis/attribution-seq2seq.c). Its
 * JSON adds "source_ids", "decoder_ids" (the start token first), "cross_heads" [L][H],
 * "cross_biases" [L], "norm_biases" [L] (each layer's norms' biases) and "final_logits_bias". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "as-attribution.h"
#include "as-error.h"
#include "as-forward.h"
#include "as-output-file.h"
#include "as-predict.h"
#include "attribution-figure.h"
#include "figure-export.h"
#include "pair-text.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-json.h"
#include "cli-translation.h"

/* Parts listed by size in the table. */
#define TABLE_TOP 10

typedef struct
{
  char *model, *text, *ids, *token, *vs_token, *output, *target, *kind;
  int position, target_id, vs_id;
  double scale;
  gboolean truncate, json;
} AttributeArgs;

static gboolean
is_translation (AsModel *model)
{
  return as_model_get_config (model)->encoder_decoder;
}

static AsTrace *
attribute_forward (AsModel *model, const AttributeArgs *a, GError **error)
{
  if (!is_translation (model))
    return cli_forward_text_or_ids (model, a->text, a->ids, a->truncate, NULL, error);
  if (a->text == NULL || a->target == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s is a translation model: give the source as --text SOURCE and the "
                   "translation whose logits are split as --target TARGET_TEXT",
                   as_model_get_name (model));
      return NULL;
    }
  return cli_translation_forward (model, a->text, a->target, 0, error);
}

static void
add_floats (JsonBuilder *b, const char *name, const float *x, int n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (int i = 0; i < n; i++)
    json_builder_add_double_value (b, x[i]);
  json_builder_end_array (b);
}

static void
add_ids (JsonBuilder *b, const char *name, const int32_t *ids, int n)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (int i = 0; i < n; i++)
    json_builder_add_int_value (b, ids[i]);
  json_builder_end_array (b);
}

static void
print_json (const AsAttribution *at, const AsTrace *trace)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  if (trace->source != NULL)
    {
      add_ids (b, "source_ids", trace->source->ids, trace->source->n_tokens);
      add_ids (b, "decoder_ids", trace->ids, trace->n_tokens);
    }
  cli_json_set_int (b, "position", at->position);
  cli_json_set_int (b, "target_id", at->target_id);
  if (at->vs_id >= 0)
    cli_json_set_int (b, "vs_id", at->vs_id);
  cli_json_set_number (b, "logit", at->logit);
  json_builder_set_member_name (b, "heads");
  json_builder_begin_array (b);
  for (int l = 0; l < at->n_layer; l++)
    {
      json_builder_begin_array (b);
      for (int h = 0; h < at->n_head; h++)
        json_builder_add_double_value (b, at->heads[l * at->n_head + h]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  add_floats (b, "mlps", at->mlps, at->n_layer);
  cli_json_set_number (b, "embeddings", at->embeddings);
  add_floats (b, "attn_biases", at->attn_biases, at->n_layer);
  cli_json_set_number (b, "norm_bias", at->norm_bias);
  if (at->cross_heads != NULL)
    {
      json_builder_set_member_name (b, "cross_heads");
      json_builder_begin_array (b);
      for (int l = 0; l < at->n_layer; l++)
        {
          json_builder_begin_array (b);
          for (int h = 0; h < at->n_head; h++)
            json_builder_add_double_value (b, at->cross_heads[l * at->n_head + h]);
          json_builder_end_array (b);
        }
      json_builder_end_array (b);
      add_floats (b, "cross_biases", at->cross_biases, at->n_layer);
      add_floats (b, "norm_biases", at->norm_biases, at->n_layer);
      cli_json_set_number (b, "final_logits_bias", at->final_logits_bias);
    }
  cli_json_set_number (b, "sum", at->sum);
  json_builder_end_object (b);
  cli_json_print (b);
}

typedef struct
{
  char name[32];
  float value;
} Part;

static int
by_size (const void *a, const void *b)
{
  float x = fabsf (((const Part *) a)->value), y = fabsf (((const Part *) b)->value);
  return (x < y) - (x > y);
}

/* Per layer: the MLP, the bias and the heads; then the largest parts. */
static void
print_table (const AsAttribution *at, const char *what)
{
  int L = at->n_layer, H = at->n_head;
  GString *out = g_string_new (NULL);
  g_string_append_printf (out, "%s at position %d: logit %.6g, sum of the parts %.6g\n", what,
                          at->position, at->logit, at->sum);
  g_string_append_printf (out, "embeddings %.6g, final norm bias %.6g\n\n", at->embeddings,
                          at->norm_bias);
  g_string_append (out, "layer        mlp  attn bias  heads 0..\n");
  g_autofree Part *parts = g_new0 (Part, (gsize) L * (2 * H + 1));
  int n = 0;
  for (int l = 0; l < L; l++)
    {
      g_string_append_printf (out, "%5d %10.4f %10.4f ", l, at->mlps[l], at->attn_biases[l]);
      g_snprintf (parts[n].name, sizeof parts[n].name, "mlp %d", l);
      parts[n++].value = at->mlps[l];
      for (int h = 0; h < H; h++)
        {
          float v = at->heads[l * H + h];
          g_string_append_printf (out, " %9.4f", v);
          g_snprintf (parts[n].name, sizeof parts[n].name, "head %d.%d", l, h);
          parts[n++].value = v;
        }
      g_string_append_c (out, '\n');
      for (int h = 0; at->cross_heads != NULL && h < H; h++)
        {
          g_snprintf (parts[n].name, sizeof parts[n].name, "cross head %d.%d", l, h);
          parts[n++].value = at->cross_heads[l * H + h];
        }
    }
  if (at->cross_heads != NULL)
    {
      g_string_append (out, "\nlayer cross bias norm biases  cross heads 0..\n");
      for (int l = 0; l < L; l++)
        {
          g_string_append_printf (out, "%5d %10.4f %11.4f ", l, at->cross_biases[l],
                                  at->norm_biases[l]);
          for (int h = 0; h < H; h++)
            g_string_append_printf (out, " %9.4f", at->cross_heads[l * H + h]);
          g_string_append_c (out, '\n');
        }
      g_string_append_printf (out, "final_logits_bias %.6g\n", at->final_logits_bias);
    }
  qsort (parts, n, sizeof (Part), by_size);
  g_string_append (out, "\nlargest parts:\n");
  for (int i = 0; i < MIN (n, TABLE_TOP); i++)
    g_string_append_printf (out, "  %-16s %+.6g\n", parts[i].name, parts[i].value);
  fwrite (out->str, 1, out->len, stdout);
  g_string_free (out, TRUE);
}

/* Whether TRACE, run with truncation on TEXT, holds fewer tokens than the text has. */
static gboolean
text_truncated (AsModel *model, const AsTrace *trace, const char *text)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (tokenizer == NULL || trace->n_tokens < as_model_get_config (model)->n_positions)
    return FALSE;
  AsEncoding *encoding
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, -1, AS_ENCODE_DEFAULT, NULL);
  gboolean cut = encoding != NULL && (int) encoding->ids->len > trace->n_tokens;
  if (encoding != NULL)
    as_encoding_free (encoding);
  return cut;
}

/* The figure of AT to A->output, of the view KIND (AR_ATTENTION_CROSS: the cross-attention
 * heads): built as `export --attribution` builds it, with the same texts in the subtitle. */
static int
write_figure (const AttributeArgs *a, AsModel *model, const AsTrace *trace, const AsAttribution *at,
              ArAttentionKind kind)
{
  GError *error = NULL;
  gboolean truncated = a->text != NULL && a->truncate && text_truncated (model, trace, a->text);
  g_autofree char *shown
      = a->text != NULL ? ar_shown_text (trace, a->text, NULL, truncated) : g_strdup (a->ids);
  ArFigureTexts texts = { .model_name = as_model_get_name (model),
                          .text = shown,
                          .truncated = truncated,
                          .n_tokens = trace->n_tokens };
  if (trace->source != NULL)
    {
      texts.target_text = a->target;
      texts.n_tokens = trace->source->n_tokens;
      texts.n_target_tokens = trace->n_tokens;
    }
  ArViewSelection view;
  ar_view_selection_init (&view);
  view.kind = kind;
  g_autoptr (ArBuiltFigure) built
      = ar_build_attribution_view_figure (at, as_model_get_tokenizer (model), &texts, &view);
  if (!ar_figure_export_full (ar_built_figure_get (built), a->output, a->scale, AS_OUTPUT_DEFAULT,
                              &error))
    return cli_fail (error);
  return CLI_EXIT_OK;
}

/* The figure's view kind from --kind for MODEL: *KIND; fails in one line for a decoder-only
 * model, the encoder's heads or a name it does not know. */
static gboolean
figure_kind (AsModel *model, const char *name, ArAttentionKind *kind, GError **error)
{
  *kind = AR_ATTENTION_SELF;
  if (name == NULL)
    return TRUE;
  if (!is_translation (model))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--kind %s: %s is not a translation model; its attribution has no "
                   "cross-attention heads (-o draws its heads and MLPs without --kind)",
                   name, as_model_get_name (model));
      return FALSE;
    }
  CliAttentionKind parsed;
  if (!cli_attention_kind_parse (name, CLI_ATTENTION_DECODER, &parsed, error))
    return FALSE;
  if (parsed == CLI_ATTENTION_ENCODER)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--kind encoder: the attribution splits the decoder's logit; give --kind "
                   "decoder (its heads and MLPs) or cross (its cross-attention heads)");
      return FALSE;
    }
  *kind = parsed == CLI_ATTENTION_CROSS ? AR_ATTENTION_CROSS : AR_ATTENTION_SELF;
  return TRUE;
}

static int
check_args (const AttributeArgs *a)
{
  if ((a->text == NULL) == (a->ids == NULL))
    return cli_usage_printf ("attribute", "give exactly one of --text T or --ids 1,2,3");
  if ((a->token == NULL) == (a->target_id < 0))
    return cli_usage_printf ("attribute", "give exactly one of --token WORD or --target-id N");
  if (a->vs_token != NULL && a->vs_id >= 0)
    return cli_usage_printf ("attribute", "give at most one of --vs-token WORD2 or --vs-id N2");
  if (a->position < -1)
    return cli_usage_printf ("attribute", "--position %d is out of range: positions start at 0",
                             a->position);
  if (a->target_id < -1 || a->vs_id < -1)
    return cli_usage_printf ("attribute", "token ids start at 0");
  if (a->output != NULL && a->json)
    return cli_usage_printf ("attribute", "-o writes the figure: give it or --json, not both");
  if (a->kind != NULL && a->output == NULL)
    return cli_usage_printf ("attribute", "--kind picks the heads -o draws: give -o F too");
  if (a->scale <= 0.0 || a->scale > 16.0)
    return cli_usage_printf ("attribute", "--scale %g is out of range (0..16]", a->scale);
  return -1;
}

/* *ID = WORD's single id when WORD is given (the vocabulary must not split it). */
static gboolean
word_id (AsModel *model, const char *word, int32_t *id, GError **error)
{
  if (word == NULL)
    return TRUE;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  return tokenizer != NULL && as_tokenizer_word_id (tokenizer, word, id, error);
}

static int
run_attribute (const AttributeArgs *a)
{
  GError *error = NULL;
  if (a->text != NULL && !cli_check_text (a->text, "--text", &error))
    return cli_fail (error);
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  if (!as_attribution_supported (model, &error))
    return cli_fail (error);
  if (a->target != NULL && !is_translation (model))
    return cli_fail_printf ("--target is for translation models; %s reads --text alone",
                            as_model_get_name (model));
  ArAttentionKind kind;
  if (!figure_kind (model, a->kind, &kind, &error))
    return cli_fail (error);
  ArExportFormat format;
  if (a->output != NULL
      && (!ar_export_format_from_path (a->output, &format, &error)
          || !as_output_file_check (a->output, AS_OUTPUT_DEFAULT, &error)))
    return cli_fail (error);
  int32_t target = a->target_id, vs = a->vs_id;
  if (!word_id (model, a->token, &target, &error) || !word_id (model, a->vs_token, &vs, &error))
    return cli_fail (error);
  g_autoptr (AsTrace) trace = attribute_forward (model, a, &error);
  if (trace == NULL)
    return cli_fail (error);
  if (a->position >= trace->n_tokens && trace->source != NULL)
    return cli_fail_printf (
        "--position %d is out of range: the decoder input has %d tokens (0..%d: "
        "the start token and the target's %d)",
        a->position, trace->n_tokens, trace->n_tokens - 1, trace->n_tokens - 1);
  if (a->position >= trace->n_tokens)
    return cli_fail_printf ("--position %d is out of range: the text has %d tokens (0..%d)",
                            a->position, trace->n_tokens, trace->n_tokens - 1);
  int position = a->position >= 0 ? a->position : trace->n_tokens - 1;
  g_autoptr (AsAttribution) at
      = as_attribution_compute (model, trace, position, target, vs, &error);
  if (at == NULL)
    return cli_fail (error);
  if (a->json)
    {
      print_json (at, trace);
      return CLI_EXIT_OK;
    }
  if (a->output != NULL)
    return write_figure (a, model, trace, at, kind);
  const AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  g_autofree char *t1 = as_predict_dup_ids_text (tokenizer, &target, 1);
  g_autofree char *t2 = vs >= 0 ? as_predict_dup_ids_text (tokenizer, &vs, 1) : NULL;
  g_autofree char *what = vs >= 0 ? g_strdup_printf ("logit of '%s' − logit of '%s'", t1, t2)
                                  : g_strdup_printf ("logit of '%s'", t1);
  print_table (at, what);
  return CLI_EXIT_OK;
}

int
cli_attribute (int argc, char **argv)
{
  AttributeArgs a = { .position = -1, .target_id = -1, .vs_id = -1, .scale = 1.0 };
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &a.model, "Model folder, shipped name or hub id", "M" },
    CLI_STRICT_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING, &a.text, "The text", "T" },
    { "ids", 0, 0, G_OPTION_ARG_STRING, &a.ids, "Input token ids, comma separated", "1,2,3" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &a.target,
      "Translation models: the target text (the decoder's input after its start token)",
      "TARGET_TEXT" },
    { "position", 'p', 0, G_OPTION_ARG_INT, &a.position,
      "The position whose prediction is split (default: the last)", "I" },
    { "token", 0, 0, G_OPTION_ARG_STRING, &a.token,
      "The token whose logit is split (its text, one token of the vocabulary, e.g. \" car\")",
      "WORD" },
    { "target-id", 0, 0, G_OPTION_ARG_INT, &a.target_id, "The token with this id", "N" },
    { "vs-token", 0, 0, G_OPTION_ARG_STRING, &a.vs_token,
      "Split the difference of the two tokens' logits", "WORD2" },
    { "vs-id", 0, 0, G_OPTION_ARG_INT, &a.vs_id, "The other token by id", "N2" },
    { "truncate", 0, 0, G_OPTION_ARG_NONE, &a.truncate,
      "Keep the first tokens when the text is longer than the context", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print JSON", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &a.output,
      "Write the figure (heads and MLPs per layer) to F.png, F.svg or F.pdf", "F" },
    { "scale", 0, 0, G_OPTION_ARG_DOUBLE, &a.scale, "PNG pixels per figure unit (default 1)", "S" },
    { "kind", 0, 0, G_OPTION_ARG_STRING, &a.kind,
      "Translation models, with -o: decoder (its heads and MLPs, the default) or cross (the "
      "cross-attention heads)",
      "K" },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("attribute", "",
                          "Direct logit attribution: a token's logit split into what every head, "
                          "MLP, the embeddings and the biases wrote directly into the residual "
                          "stream, with the final norm frozen at its value in the run.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    code = cli_usage_printf ("attribute", "unexpected argument '%s'", argv[1]);
  else if ((code = check_args (&a)) < 0)
    code = run_attribute (&a);
  g_free (a.model);
  g_free (a.text);
  g_free (a.ids);
  g_free (a.token);
  g_free (a.vs_token);
  g_free (a.output);
  g_free (a.target);
  g_free (a.kind);
  return code;
}
