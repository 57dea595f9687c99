/* cli-export-attribution.c — `attnscope export --attribution` (see cli-export-attribution.h): the
 * attribution computed with the core (as-attribution.h) and drawn by the builder the Attribution
 * page calls, so that the window's export and this command write the same file. */
#include "cli-export-attribution.h"

#include "as-attribution.h"
#include "as-error.h"
#include "attribution-figure.h"
#include "cli-common.h"

int
cli_export_attribution_check (const CliExportAttribution *at, gboolean follow)
{
  if (!at->attribution
      && (at->target_id != G_MININT || at->vs_id != G_MININT || at->target_token != NULL
          || at->vs_token != NULL))
    return cli_usage_printf ("export", "--target-id, --target-token, --vs-id and "
                                       "--vs-target-token go with --attribution");
  if (at->target_token != NULL && at->target_id != G_MININT)
    return cli_usage_printf ("export", "give at most one of --target-token WORD or --target-id N");
  if (at->vs_token != NULL && at->vs_id != G_MININT)
    return cli_usage_printf ("export", "give at most one of --vs-target-token WORD2 or --vs-id N2");
  if (!at->attribution)
    return -1;
  if (follow)
    return cli_usage_printf ("export", "--follow and --follow-id go with --lens, not "
                                       "--attribution");
  if ((at->target_id != G_MININT && at->target_id < 0) || (at->vs_id != G_MININT && at->vs_id < 0))
    return cli_usage_printf ("export", "--%s %d is out of range: ids start at 0",
                             at->target_id != G_MININT && at->target_id < 0 ? "target-id" : "vs-id",
                             at->target_id != G_MININT && at->target_id < 0 ? at->target_id
                                                                            : at->vs_id);
  return -1;
}

void
cli_export_attribution_clear (CliExportAttribution *at)
{
  g_clear_pointer (&at->target_token, g_free);
  g_clear_pointer (&at->vs_token, g_free);
}

/* *ID = WORD's single id when WORD is given (else *ID is left alone); the tokenizer's error names
 * the pieces of a word the vocabulary splits. */
static gboolean
word_id (AsTokenizer *tokenizer, const char *word, int *id, GError **error)
{
  if (word == NULL)
    return TRUE;
  int32_t one = 0;
  if (!as_tokenizer_word_id (tokenizer, word, &one, error))
    return FALSE;
  *id = one;
  return TRUE;
}

ArBuiltFigure *
cli_export_attribution_figure (AsModel *model, const AsTrace *trace, const CliExportAttribution *at,
                               int position, const ArViewSelection *view,
                               const ArFigureTexts *texts, GError **error)
{
  if (!as_attribution_supported (model, error))
    return NULL;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL)
    return NULL;
  int p = position != G_MININT ? position : trace->n_tokens - 1;
  if (p < 0 || p >= trace->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--position %d is out of range: the text has %d tokens (0..%d)", p,
                   trace->n_tokens, trace->n_tokens - 1);
      return NULL;
    }
  int target_id = at->target_id, vs_id = at->vs_id;
  if (!word_id (tokenizer, at->target_token, &target_id, error)
      || !word_id (tokenizer, at->vs_token, &vs_id, error))
    return NULL;
  int32_t target = target_id;
  if (target_id == G_MININT && !as_attribution_predicted_id (model, trace, p, &target, error))
    return NULL;
  int32_t vs = vs_id != G_MININT ? vs_id : -1;
  g_autoptr (AsAttribution) result = as_attribution_compute (model, trace, p, target, vs, error);
  if (result == NULL)
    return NULL;
  return ar_build_attribution_view_figure (result, tokenizer, texts, view);
}
