/* cli-export-weighting.c — `export --weighting` and `--qk-rope` (see cli-export-weighting.h). */
#include "cli-export-weighting.h"

#include "cli-common.h"

int
cli_export_weighting_check (ExportRequest *req, const char *weighting, const char *qk_rope,
                            gboolean compare)
{
  if (weighting != NULL)
    {
      if (!g_str_equal (weighting, "weight") && !g_str_equal (weighting, "norm"))
        return cli_usage_printf ("export", "--weighting '%s' is not weight or norm", weighting);
      req->selection.norm_weighted = g_str_equal (weighting, "norm");
      if (req->selection.norm_weighted
          && (req->view != VIEW_ATTENTION || req->selection.aggregate == AR_AGGREGATE_ROLLOUT
              || compare || req->kind == CLI_ATTENTION_CROSS))
        return cli_usage_printf ("export", "--weighting norm goes with --layer L --head H or "
                                           "--mean L of one text's self-attention");
    }
  if (qk_rope != NULL)
    {
      if (!g_str_equal (qk_rope, "after") && !g_str_equal (qk_rope, "before"))
        return cli_usage_printf ("export", "--qk-rope '%s' is not after or before", qk_rope);
      if (!req->qk)
        return cli_usage_printf ("export", "--qk-rope goes with --qk");
      req->selection.qk_before_rope = g_str_equal (qk_rope, "before");
    }
  return -1;
}
