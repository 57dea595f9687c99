/* cli-translation.h — what the subcommands share for translation (encoder–decoder) models: the
 * pass over a source and a target (the model's own translation when no target is given), and the
 * attention kind an option names. */
#pragma once

#include "as-model.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef enum
{
  CLI_ATTENTION_ENCODER, /* the encoder's self-attention (trace->source) */
  CLI_ATTENTION_DECODER, /* the decoder's causal self-attention (the trace itself) */
  CLI_ATTENTION_CROSS,   /* the decoder's attention to the source (trace->cross_attn) */
} CliAttentionKind;

/* The pass over SOURCE and TARGET (decoder input: start token + TARGET's tokens), or over SOURCE
 * and the model's translation of it with BEAMS beams (0: the model's setting) when TARGET is
 * NULL. */
AsTrace *cli_translation_forward (AsModel *model, const char *source, const char *target, int beams,
                                  GError **error);

/* cli_translation_forward, and *TARGET_TEXT (newly allocated) = TARGET, or the model's
 * translation (tokenizer.decode of the generated ids) when TARGET is NULL. */
AsTrace *cli_translation_forward_with_text (AsModel *model, const char *source, const char *target,
                                            int beams, char **target_text, GError **error);

/* Parses --kind ("encoder", "decoder", "cross"; NULL gives FALLBACK). Fails naming COMMAND's
 * option with the choices. */
gboolean cli_attention_kind_parse (const char *kind, CliAttentionKind fallback,
                                   CliAttentionKind *out, GError **error);

G_END_DECLS
