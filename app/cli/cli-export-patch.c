/* cli-export-patch.c — `attnscope export --patch` (see cli-export-patch.h): as_patch drawn by the
 * builder the Compare page's patching panel calls, so that both write the same file. */
#include "cli-export-patch.h"

#include "as-error.h"
#include "as-patching.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "patch-figure.h"
#include "scan-figure.h"

int
cli_export_patch_check (const CliExportPatch *patch, gboolean compare)
{
  if (!patch->patch
      && (patch->token != NULL || patch->vs_token != NULL || patch->what != NULL || patch->reverse))
    return cli_usage_printf ("export", "--patch-token, --patch-vs-token, --patch-what and "
                                       "--patch-reverse go with --patch");
  if (patch->patch && (patch->token == NULL || patch->vs_token == NULL))
    return cli_usage_printf ("export", "--patch needs --patch-token W1 and --patch-vs-token W2 "
                                       "(the logit difference to measure)");
  if (patch->patch && !compare)
    return cli_usage_printf ("export", "--patch needs --compare B (sentence B; --text is A)");
  return -1;
}

ArBuiltFigure *
cli_export_patch_figure (AsModel *model, const AsTrace *a, const AsTrace *b,
                         const CliExportPatch *patch, const ArViewSelection *view,
                         const ArFigureTexts *texts, GError **error)
{
  AsPatchWhat what = AS_PATCH_HEADS;
  AsMetric metric = { .kind = AS_METRIC_LOGIT_DIFF };
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL || (patch->what != NULL && !as_patch_what_parse (patch->what, &what, error))
      || !as_tokenizer_word_id (tokenizer, patch->token, &metric.token_id, error)
      || !as_tokenizer_word_id (tokenizer, patch->vs_token, &metric.vs_id, error))
    return NULL;
  if (a->n_tokens != b->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "patching needs texts of the same number of tokens: A has %d, B has %d",
                   a->n_tokens, b->n_tokens);
      return NULL;
    }
  const AsTrace *base = patch->reverse ? b : a, *source = patch->reverse ? a : b;
  g_autofree double *effects = g_new0 (double, as_patch_n_effects (model, what, a->n_tokens));
  AsPatchResult result;
  AsScanOptions so = { 0 }; /* the model as --ablate and --no-positions change it */
  cli_intervene_scan_options (&so);
  if (!as_patch_with (model, base->ids, source->ids, a->n_tokens, &metric, what, &so, effects,
                      &result, error))
    return NULL;
  g_free (cli_patch_gap_warning (&result));
  g_autofree char *measure = ar_ablation_measure_label (tokenizer, &metric);
  return ar_build_patch_figure (effects, what, base, patch->reverse, &result, measure, texts,
                                view->annotate);
}

void
cli_export_patch_clear (CliExportPatch *patch)
{
  g_clear_pointer (&patch->token, g_free);
  g_clear_pointer (&patch->vs_token, g_free);
  g_clear_pointer (&patch->what, g_free);
}
