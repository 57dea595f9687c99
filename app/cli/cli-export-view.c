/* cli-export-view.c — the view `attnscope export`'s options choose (cli-export-view.h): exactly
 * one figure, its layer, head or aggregate, and the vectors a similarity or projection reads. */
#include "cli-export-view.h"

#include "as-word-marks.h"
#include "cli-analysis.h"
#include "cli-common.h"

static int
choose_vectors (ExportRequest *req, const ViewOptions *v)
{
  req->view = v->similarity != NULL ? VIEW_SIMILARITY : VIEW_PROJECTION;
  if (v->project != NULL && !as_projection_method_from_string (v->project, &req->method))
    return cli_usage_printf ("export", "--project '%s' is not pca, tsne or umap", v->project);
  req->vectors_layer = v->layer;
  req->vectors_head = v->head;
  int code = cli_parse_vector_selection ("export", v->similarity != NULL ? v->similarity : v->of,
                                         &req->source, &req->vectors_layer, &req->vectors_head);
  if (code != CLI_EXIT_OK)
    return code;
  if (!as_vector_source_needs_head (req->source))
    req->vectors_head = -1;
  if (v->also != NULL)
    {
      req->has_also = TRUE;
      req->also_layer = v->layer;
      req->also_head = v->head;
      code
          = cli_parse_vector_selection_named ("export", "--also", "--layer", "--head", v->also,
                                              &req->also_source, &req->also_layer, &req->also_head);
      if (code != CLI_EXIT_OK)
        return code;
      if (!as_vector_source_needs_head (req->also_source))
        req->also_head = -1;
    }
  GError *error = NULL;
  if (v->highlight != NULL && !as_word_check (v->highlight, &error))
    {
      code = cli_usage_printf ("export", "--highlight: %s", error->message);
      g_error_free (error);
      return code;
    }
  req->highlight = v->highlight;
  return -1;
}

/* Chooses REQ's view from V; returns -1 when fine, else the exit code. */
int
cli_export_choose_view (ExportRequest *req, const ViewOptions *v, gboolean compare)
{
  int scan_code = cli_export_scan_check (&req->scan);
  if (scan_code < 0)
    scan_code = cli_export_patch_check (&req->patch, compare);
  if (scan_code >= 0)
    return scan_code;
  if (req->patch.patch)
    {
      /* patching is the whole view: A is --text, B --compare */
      if (req->scan.scan || v->grid || v->alignment || v->similarity != NULL || v->project != NULL
          || req->lens.lens || v->layer != G_MININT || v->head != G_MININT || v->mean != G_MININT
          || v->rollout != G_MININT || v->position_bias != G_MININT)
        return cli_usage_printf ("export", "--patch is a view of its own: it goes with no other "
                                           "view");
      req->view = VIEW_PATCH;
      return -1;
    }
  if (req->scan.scan)
    {
      /* the scan is the whole view: no other view, no second text */
      if (compare || v->grid || v->alignment || v->similarity != NULL || v->project != NULL
          || req->lens.lens || v->layer != G_MININT || v->head != G_MININT || v->mean != G_MININT
          || v->rollout != G_MININT || v->position_bias != G_MININT)
        return cli_usage_printf ("export", "--ablation-scan is a view of its own: it goes with "
                                           "no other view and no --compare");
      req->view = VIEW_ABLATION_SCAN;
      return -1;
    }
  gboolean head = v->layer != G_MININT || v->head != G_MININT;
  gboolean aggregate = v->mean != G_MININT || v->rollout != G_MININT;
  int views = (v->mean != G_MININT) + (v->rollout != G_MININT) + v->grid + (v->similarity != NULL)
              + (v->project != NULL) + req->lens.lens + (v->position_bias != G_MININT)
              + req->attribution.attribution + req->qk;
  gboolean follow = req->lens.follow != NULL || req->lens.follow_id != G_MININT;
  int attribution_code = cli_export_attribution_check (&req->attribution, follow);
  if (attribution_code >= 0)
    return attribution_code;
  int lens_code
      = req->lens.lens || req->attribution.attribution ? -1 : cli_export_lens_check (&req->lens);
  if (lens_code >= 0)
    return lens_code;
  if (v->alignment && (v->grid || v->similarity != NULL || v->project != NULL || req->lens.lens))
    return cli_usage_printf ("export", "--alignment goes with --layer L --head H or --mean L");
  /* the position bias takes --layer (umT5 keeps one per layer), never --head */
  gboolean bias_head = v->position_bias != G_MININT && v->head != G_MININT;
  if (views > 1 || (views == 0 && !head) || (aggregate && head) || bias_head)
    return cli_usage_printf ("export", "give exactly one of --layer L --head H, --grid, --mean L, "
                                       "--rollout L, --similarity KIND, --project METHOD, --lens, "
                                       "--position-bias H, --attribution, --qk");
  if (v->position_bias != G_MININT)
    {
      if (compare || v->alignment)
        return cli_usage_printf ("export", "--position-bias goes with neither --compare nor "
                                           "--alignment");
      req->view = VIEW_POSITION_BIAS;
      req->selection.aggregate = AR_AGGREGATE_HEAD;
      req->selection.head = v->position_bias;
      req->selection.layer = v->layer != G_MININT ? v->layer : 0;
      return -1;
    }
  if (compare && v->alignment)
    return cli_usage_printf ("export", "--compare does not go with --alignment");
  if (v->project == NULL && (v->also != NULL || v->highlight != NULL || v->more_texts))
    return cli_usage_printf ("export",
                             "--also, --highlight, --lines and several --text go with --project");
  if (compare && (v->grid || v->similarity != NULL || req->lens.lens))
    return cli_usage_printf (
        "export", "--compare works with --layer/--head, --mean, --rollout and --project");
  if (v->similarity != NULL || v->project != NULL)
    return choose_vectors (req, v);
  if (req->attribution.attribution)
    {
      if (compare || v->alignment)
        return cli_usage_printf ("export", "--attribution goes with neither --compare nor "
                                           "--alignment");
      req->view = VIEW_ATTRIBUTION;
      return -1;
    }
  if (req->qk)
    {
      if (compare || v->alignment || v->layer == G_MININT || v->head == G_MININT)
        return cli_usage_printf ("export", "--qk goes with --layer L --head H (and --token I, "
                                           "the query), without --compare or --alignment");
      req->view = VIEW_QK;
      req->selection.aggregate = AR_AGGREGATE_HEAD;
      req->selection.layer = v->layer;
      req->selection.head = v->head;
      return -1;
    }
  if (req->lens.lens)
    {
      req->view = VIEW_LENS;
      return cli_export_lens_check (&req->lens);
    }
  if (head && (v->layer == G_MININT || v->head == G_MININT))
    return cli_usage_printf ("export", "--layer L and --head H go together");
  ArViewSelection *s = &req->selection;
  req->view = v->grid ? VIEW_GRID : v->alignment ? VIEW_ALIGNMENT : VIEW_ATTENTION;
  /* A grid without --layer/--head outlines no head: its view is not one head. */
  s->aggregate = head                     ? AR_AGGREGATE_HEAD
                 : v->rollout != G_MININT ? AR_AGGREGATE_ROLLOUT
                                          : AR_AGGREGATE_MEAN;
  s->layer = head                     ? v->layer
             : v->rollout != G_MININT ? v->rollout
             : v->mean != G_MININT    ? v->mean
                                      : 0;
  s->head = head ? v->head : 0;
  return -1;
}
