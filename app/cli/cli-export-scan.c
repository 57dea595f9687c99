/* cli-export-scan.c — `attnscope export --ablation-scan` (see cli-export-scan.h): the scan
 * computed with the core (as_ablation_scan) and drawn by the builder the Ablation page calls, so
 * that the window's export and this command write the same file. */
#include "cli-export-scan.h"

#include "as-ablation.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "scan-figure.h"

int
cli_export_scan_check (const CliExportScan *scan)
{
  if (!scan->scan && (scan->token != NULL || scan->vs_token != NULL || scan->loss))
    return cli_usage_printf (
        "export", "--scan-token, --scan-vs-token and --scan-loss go with --ablation-scan");
  if (scan->scan && (scan->token == NULL) == !scan->loss)
    return cli_usage_printf ("export", "--ablation-scan needs exactly one of --scan-token WORD and "
                                       "--scan-loss");
  if (scan->vs_token != NULL && scan->token == NULL)
    return cli_usage_printf ("export", "--scan-vs-token needs --scan-token");
  return -1;
}

ArBuiltFigure *
cli_export_scan_figure (AsModel *model, const AsTrace *trace, const CliExportScan *scan,
                        const ArViewSelection *view, const ArFigureTexts *texts, GError **error)
{
  AsMetric metric = { .kind = AS_METRIC_LOSS, .token_id = -1, .vs_id = -1 };
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL)
    return NULL;
  if (scan->token != NULL)
    {
      metric.kind = scan->vs_token != NULL ? AS_METRIC_LOGIT_DIFF : AS_METRIC_LOGIT;
      if (!as_tokenizer_word_id (tokenizer, scan->token, &metric.token_id, error)
          || (scan->vs_token != NULL
              && !as_tokenizer_word_id (tokenizer, scan->vs_token, &metric.vs_id, error)))
        return NULL;
    }
  int L = trace->n_layer, H = trace->n_head;
  g_autofree double *effects = g_new0 (double, (gsize) L *H); /* [L][H] */
  double clean;
  /* on the model as --ablate, --ablation and --no-positions change it, as the window scans */
  AsScanOptions so = { 0 };
  cli_intervene_scan_options (&so);
  if (!as_ablation_scan_with (model, trace->ids, trace->n_tokens, &metric, &so, effects, &clean,
                              NULL, error))
    return NULL;
  g_autofree char *measure = ar_ablation_measure_label (tokenizer, &metric);
  return ar_build_ablation_scan_figure (effects, L, H, clean, measure,
                                        so.kind == AS_ABLATION_MEAN ? "mean" : "zero", texts,
                                        view->annotate);
}

void
cli_export_scan_clear (CliExportScan *scan)
{
  g_clear_pointer (&scan->token, g_free);
  g_clear_pointer (&scan->vs_token, g_free);
}
