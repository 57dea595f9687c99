/* cli-info.c — `attnscope info`: what a model is (family, heads, sizes, its own settings such as
 * RoPE, weight dtype, parameters; for a model without a next-token head, its token types and
 * whether it has a masked-LM head) and the memory a trace needs at the model's context length. */
#include <stdio.h>

#include "as-forward.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"

/* SETTINGS' value for NAME (pairs of name, value), or NULL. */
static const char *
setting (char **settings, const char *name)
{
  for (int i = 0; settings[i] != NULL && settings[i + 1] != NULL; i += 2)
    if (g_strcmp0 (settings[i], name) == 0)
      return settings[i + 1];
  return NULL;
}

/* An encoder–decoder's output head: "tied" (the shared embedding, T5's rows rescaled by
 * d_model^-½), "untied" (its own lm_head.weight), then "+final_logits_bias" when the family adds
 * one (BART, mBART; Marian always ties and adds it). */
static char *
seq2seq_head (const AsConfig *c, char **settings, gboolean json)
{
  const char *tie = setting (settings, "tie_word_embeddings");
  gboolean tied = tie == NULL || g_str_has_prefix (tie, "true");
  gboolean bias
      = setting (settings, "final_logits_bias") != NULL || g_strcmp0 (c->family, "marian") == 0;
  if (json)
    return g_strconcat (tied ? "tied" : "untied", bias ? "+final_logits_bias" : "", NULL);
  return g_strdup_printf ("language-model head over the decoder: %s%s",
                          tied ? "tied to the shared embedding" : "untied (lm_head.weight)",
                          bias ? ", plus final_logits_bias" : "");
}

/* What a model without a next-token head outputs, for `info`. */
static const char *
output_head (const AsConfig *c, gboolean json)
{
  if (c->masked_lm)
    return json ? "masked-lm" : "masked-LM head (predict fills [MASK] tokens)";
  return json ? "none" : "none: the weights have no output head, the model runs for attention only";
}

/* The memory facts: a default trace (last-position logits, no q/k/v) at the full context, kept
 * as the command line keeps it (the matrices, or attention on demand past their size) and in
 * both forms; what a pass may use now, and the most tokens that fit in it — as the command line
 * keeps a trace, and with the matrices that the window's views read. */
typedef struct
{
  guint64 context_bytes, context_matrices, context_on_demand;
  guint64 budget;
  int max_tokens, max_tokens_matrices, max_tokens_on_demand;
} InfoMemory;

static InfoMemory
info_memory (const AsModel *model)
{
  const AsConfig *c = as_model_get_config (model);
  AsForwardOptions matrices = { .attention = AS_ATTENTION_MATRICES };
  AsForwardOptions on_demand = { .attention = AS_ATTENTION_ON_DEMAND };
  InfoMemory m;
  m.context_bytes = as_forward_bytes (model, c->n_positions, NULL);
  m.context_matrices = as_forward_bytes (model, c->n_positions, &matrices);
  m.context_on_demand = as_forward_bytes (model, c->n_positions, &on_demand);
  m.budget = as_forward_budget (model);
  m.max_tokens = as_forward_max_tokens (model, NULL, m.budget);
  m.max_tokens_matrices = as_forward_max_tokens (model, &matrices, m.budget);
  m.max_tokens_on_demand = as_forward_max_tokens (model, &on_demand, m.budget);
  return m;
}

static void
print_json (const AsModel *model, const char *weights, char **settings, const InfoMemory *m)
{
  const AsConfig *c = as_model_get_config (model);
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "model", as_model_get_name (model));
  cli_json_set_string (out, "path", as_model_get_path (model));
  cli_json_set_string (out, "architecture", c->family);
  cli_json_set_string (out, "model_type", c->model_type);
  cli_json_set_int (out, "n_layer", c->n_layer);
  if (c->encoder_decoder)
    cli_json_set_int (out, "n_encoder_layer", c->n_encoder_layer);
  cli_json_set_int (out, "n_head", c->n_head);
  cli_json_set_int (out, "n_kv_head", c->n_kv_head);
  cli_json_set_int (out, "n_embd", c->n_embd);
  cli_json_set_int (out, "head_dim", c->head_dim);
  cli_json_set_int (out, "n_inner", c->n_inner);
  cli_json_set_int (out, "vocab_size", c->vocab_size);
  cli_json_set_int (out, "n_positions", c->n_positions);
  cli_json_set_int (out, "n_params", as_model_get_n_params (model));
  cli_json_set_string (out, "weights", weights);
  cli_json_set_string (out, "weights_dtype", as_model_get_weights_dtype (model));
  if (c->encoder_decoder)
    {
      g_autofree char *head = seq2seq_head (c, settings, TRUE);
      cli_json_set_string (out, "head", "seq2seq-lm");
      cli_json_set_string (out, "output_head", head);
    }
  else if (!c->causal_lm)
    {
      cli_json_set_int (out, "type_vocab_size", c->type_vocab_size);
      cli_json_set_string (out, "head", output_head (c, TRUE));
    }
  json_builder_set_member_name (out, "tokenizer");
  json_builder_add_boolean_value (out, as_model_get_tokenizer (model) != NULL);
  json_builder_set_member_name (out, "settings");
  json_builder_begin_object (out);
  for (int i = 0; settings[i] != NULL && settings[i + 1] != NULL; i += 2)
    cli_json_set_string (out, settings[i], settings[i + 1]);
  json_builder_end_object (out);
  cli_json_set_int (out, "trace_bytes_at_context", (gint64) MIN (m->context_bytes, G_MAXINT64));
  cli_json_set_int (out, "memory_available", (gint64) MIN (m->budget, G_MAXINT64));
  cli_json_set_int (out, "max_tokens_now", m->max_tokens);
  cli_json_set_int (out, "trace_bytes_at_context_matrices",
                    (gint64) MIN (m->context_matrices, G_MAXINT64));
  cli_json_set_int (out, "trace_bytes_at_context_on_demand",
                    (gint64) MIN (m->context_on_demand, G_MAXINT64));
  cli_json_set_int (out, "max_tokens_now_matrices", m->max_tokens_matrices);
  cli_json_set_int (out, "max_tokens_now_on_demand", m->max_tokens_on_demand);
  json_builder_end_object (out);
  cli_json_print (out);
}

static void
print_text (const AsModel *model, const char *weights, char **settings, const InfoMemory *m)
{
  const AsConfig *c = as_model_get_config (model);
  printf ("model:         %s\n", as_model_get_name (model));
  printf ("folder:        %s\n", as_model_get_path (model));
  printf ("architecture:  %s (model_type %s)\n", c->family, c->model_type);
  if (c->encoder_decoder)
    printf ("layers:        %d encoder, %d decoder\n", c->n_encoder_layer, c->n_layer);
  else
    printf ("layers:        %d\n", c->n_layer);
  if (c->n_kv_head == c->n_head)
    printf ("heads:         %d per layer\n", c->n_head);
  else
    printf ("heads:         %d per layer, sharing %d key/value heads (query head h uses key/value "
            "head h / %d)\n",
            c->n_head, c->n_kv_head, c->n_head / c->n_kv_head);
  printf ("width:         %d (head width %d, MLP width %d)\n", c->n_embd, c->head_dim, c->n_inner);
  printf ("vocabulary:    %d tokens\n", c->vocab_size);
  printf ("context:       %d tokens\n", c->n_positions);
  printf ("parameters:    %" G_GINT64_FORMAT "\n", as_model_get_n_params (model));
  printf ("weights:       %s (%s)\n", weights, as_model_get_weights_dtype (model));
  if (c->encoder_decoder)
    {
      g_autofree char *head = seq2seq_head (c, settings, FALSE);
      printf ("output:        %s\n", head);
    }
  else if (!c->causal_lm)
    {
      printf ("token types:   %d\n", c->type_vocab_size);
      printf ("output:        %s\n", output_head (c, FALSE));
    }
  if (as_model_get_tokenizer (model) == NULL)
    printf ("tokenizer:     none: runs on token ids (%s)\n",
            as_model_get_no_tokenizer_reason (model));
  for (int i = 0; settings[i] != NULL && settings[i + 1] != NULL; i += 2)
    {
      g_autofree char *label = g_strconcat (settings[i], ":", NULL);
      printf ("%-14s %s\n", label, settings[i + 1]);
    }
  g_autofree char *need = g_format_size (m->context_bytes);
  g_autofree char *matrices = g_format_size (m->context_matrices);
  g_autofree char *on_demand = g_format_size (m->context_on_demand);
  g_autofree char *have = g_format_size (m->budget);
  /* an encoder–decoder's pass is a translation: its counts are of a source and a target each */
  const char *each = c->encoder_decoder ? " each for source and target" : "";
  printf ("trace memory:  %s at the full context of %d tokens%s (%s with every attention matrix, "
          "%s with queries and keys: attention on demand); %s available now: up to %d tokens%s "
          "fit (%d keeping every matrix, %d with queries and keys)\n",
          need, c->n_positions, each, matrices, on_demand, have, m->max_tokens, each,
          m->max_tokens_matrices, m->max_tokens_on_demand);
}

int
cli_info (int argc, char **argv)
{
  g_autofree char *model_spec = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("info", "", "Summarise a model.", entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("info", "unexpected argument '%s'", argv[1]);

  GError *error = NULL;
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  g_autofree char *weights = g_path_get_basename (as_model_get_weights_path (model));
  g_auto (GStrv) settings = as_config_dup_settings (as_model_get_config (model));
  InfoMemory memory = info_memory (model);
  if (json)
    print_json (model, weights, settings, &memory);
  else
    print_text (model, weights, settings, &memory);
  return CLI_EXIT_OK;
}
