/* cli-export-lens.c — `attnscope export --lens` (see cli-export-lens.h): the lens computed with
 * the core (as-lens.h) and drawn by the builders the Lens page calls, so that the window's export
 * and this command write the same file. */
#include "cli-export-lens.h"

#include "as-error.h"
#include "as-lens.h"
#include "as-predict.h"
#include "cli-common.h"
#include "lens-figure.h"

int
cli_export_lens_check (const CliExportLens *lens)
{
  gboolean follow = lens->follow != NULL || lens->follow_id != G_MININT;
  if (!lens->lens && (follow || lens->position != G_MININT))
    return cli_usage_printf ("export", "--follow, --follow-id and --position go with --lens");
  if (lens->follow != NULL && lens->follow_id != G_MININT)
    return cli_usage_printf ("export", "--follow and --follow-id name the same thing: give one");
  if (lens->position != G_MININT && !follow)
    return cli_usage_printf ("export", "--position goes with --follow or --follow-id");
  if (lens->follow_id != G_MININT && lens->follow_id < 0)
    return cli_usage_printf ("export", "--follow-id %d is out of range: ids start at 0",
                             lens->follow_id);
  return -1;
}

static ArBuiltFigure *
build_chart (AsModel *model, const AsTrace *trace, const CliExportLens *lens,
             const ArFigureTexts *texts, GError **error)
{
  int32_t id = lens->follow_id;
  AsTokenizer *tokenizer = as_model_require_tokenizer (model, error);
  if (tokenizer == NULL
      || (lens->follow != NULL && !as_tokenizer_word_id (tokenizer, lens->follow, &id, error)))
    return NULL;
  int position = lens->position != G_MININT ? lens->position : trace->n_tokens - 1;
  if (position < 0 || position >= trace->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--position %d is out of range: the text has %d tokens (0..%d)", position,
                   trace->n_tokens, trace->n_tokens - 1);
      return NULL;
    }
  g_autoptr (AsLens) result = as_lens_compute (model, trace, &position, 1, 1, id, NULL, error);
  if (result == NULL)
    return NULL;
  g_autofree char *token = as_predict_dup_ids_text (tokenizer, &id, 1);
  return ar_build_lens_chart_figure (result, trace, token, texts);
}

ArBuiltFigure *
cli_export_lens_figure (AsModel *model, const AsTrace *trace, const CliExportLens *lens,
                        const ArViewSelection *view, const ArFigureTexts *texts, GError **error)
{
  if (lens->follow != NULL || lens->follow_id != G_MININT)
    return build_chart (model, trace, lens, texts, error);
  int T = trace->n_tokens;
  g_autofree int *positions = g_new (int, T);
  for (int t = 0; t < T; t++)
    positions[t] = t;
  g_autoptr (AsLens) result
      = as_lens_compute (model, trace, positions, T, 1, -1, NULL, error); /* a cell shows its top */
  if (result == NULL)
    return NULL;
  return ar_build_lens_figure (result, trace, view, texts);
}

void
cli_export_lens_clear (CliExportLens *lens)
{
  g_clear_pointer (&lens->follow, g_free);
}
