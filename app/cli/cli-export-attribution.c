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
  if (!at->attribution && (at->target_id != G_MININT || at->vs_id != G_MININT))
    return cli_usage_printf ("export", "--target-id and --vs-id go with --attribution");
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
  int32_t target = at->target_id;
  if (at->target_id == G_MININT && !as_attribution_predicted_id (model, trace, p, &target, error))
    return NULL;
  int32_t vs = at->vs_id != G_MININT ? at->vs_id : -1;
  g_autoptr (AsAttribution) result = as_attribution_compute (model, trace, p, target, vs, error);
  if (result == NULL)
    return NULL;
  return ar_build_attribution_view_figure (result, tokenizer, texts, view);
}
