/* cli-translation.c — the translation helpers of the subcommands (cli-translation.h). */
#include "cli-translation.h"

#include "as-error.h"
#include "as-forward.h"
#include "as-translate.h"
#include "cli-intervene.h"

AsTrace *
cli_translation_forward (AsModel *model, const char *source, const char *target, int beams,
                         GError **error)
{
  g_autofree char *target_text = NULL;
  return cli_translation_forward_with_text (model, source, target, beams, &target_text, error);
}

AsTrace *
cli_translation_forward_with_text (AsModel *model, const char *source, const char *target,
                                   int beams, char **target_text, GError **error)
{
  *target_text = NULL;
  /* --no-positions (and an --ablate, which the pass refuses for a translation model) */
  AsForwardOptions forward = { 0 };
  cli_intervene_apply (&forward);
  if (target != NULL)
    {
      *target_text = g_strdup (target);
      return as_forward_translation_text (model, source, target, &forward, error);
    }
  AsTranslateOptions options = { .num_beams = beams, .no_positions = forward.no_positions };
  g_autoptr (AsTranslation) translation = as_translate_text (model, source, &options, error);
  if (translation == NULL)
    return NULL;
  *target_text = g_strdup (translation->text);
  return as_forward_translation (model, &g_array_index (translation->source_ids, int32_t, 0),
                                 (int) translation->source_ids->len,
                                 &g_array_index (translation->ids, int32_t, 0),
                                 (int) translation->ids->len, &forward, error);
}

gboolean
cli_attention_kind_parse (const char *kind, CliAttentionKind fallback, CliAttentionKind *out,
                          GError **error)
{
  static const char *const names[] = { "encoder", "decoder", "cross" };
  *out = fallback;
  if (kind == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (kind, names[i]))
      {
        *out = (CliAttentionKind) i;
        return TRUE;
      }
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "--kind is '%s'; give encoder, decoder or cross",
               kind);
  return FALSE;
}
