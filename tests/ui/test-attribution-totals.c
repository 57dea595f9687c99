/* test-attribution-totals.c — the attribution figure's printed totals add up (ui/render
 * attribution-figure.c). The subtitle's second line of ar_build_attribution_figure is read back as
 * numbers: on the tiny GPT-2 fixture (decoder-only) "logit = parts: heads + MLPs + embeddings +
 * biases and norm", on a random BART and the Marian fixtures' "small" (translation models) with
 * the cross heads and the cross biases, norms' biases and final_logits_bias after them. Every
 * printed group equals the same group summed here from the attribution's own arrays (to the
 * print's 3 decimals), the printed groups add up to the printed logit (within their rounding),
 * the parts add up to the logit within 1e-4 relative, and that logit is the pass's own logits
 * row (within 1e-4 relative). The cross-attention figure prints the same cross group. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-attribution.h"
#include "as-forward.h"
#include "attribution-figure.h"
#include "bart-models.h"
#include "marian-fixtures.h"

/* Half a unit of the subtitle's last printed decimal. */
#define PRINTED 0.0005

static const char *source = "hello there world";
static const char *target = "hallo da welt";

/* The subtitle's line that starts with "logit" (owned). */
static char *
totals_line (const ArBuiltFigure *built)
{
  const char *subtitle = ar_built_figure_get (built)->heatmap->subtitle;
  g_assert_nonnull (subtitle);
  const char *line = strstr (subtitle, "logit ");
  g_assert_nonnull (line);
  g_test_message ("%s", line);
  return g_strdup (line);
}

/* Checks the self-attention figure of AT, whose pass's own logit is MODEL_LOGIT. */
static void
check_totals (const AsAttribution *at, double model_logit)
{
  int L = at->n_layer, H = at->n_head;
  gboolean cross = at->cross_heads != NULL;
  /* the groups summed from the arrays, and every part */
  double heads = 0, mlps = 0, biases = at->norm_bias, cross_heads = 0,
         cross_biases = at->final_logits_bias;
  for (int l = 0; l < L; l++)
    {
      mlps += at->mlps[l];
      biases += at->attn_biases[l];
      for (int h = 0; h < H; h++)
        heads += at->heads[l * H + h];
      if (!cross)
        continue;
      cross_biases += (double) at->cross_biases[l] + at->norm_biases[l];
      for (int h = 0; h < H; h++)
        cross_heads += at->cross_heads[l * H + h];
    }
  double expected[] = { heads, mlps, at->embeddings, biases, cross_heads, cross_biases };
  double all = 0.0;
  for (int i = 0; i < 6; i++)
    all += expected[i];
  g_test_message ("logit %.7g (the pass's %.7g), sum of the parts %.7g", at->logit, model_logit,
                  all);
  g_assert_cmpfloat (fabs (at->logit - model_logit), <=, 1e-4 * fabs (model_logit) + 1e-6);
  g_assert_cmpfloat (fabs (all - at->logit), <=, 1e-4 * fabs (at->logit) + 1e-6);

  g_autoptr (ArBuiltFigure) built
      = ar_build_attribution_figure (at, "“x”", "model", AR_ANNOTATE_AUTO);
  g_autofree char *line = totals_line (built);
  double printed_logit = 0, parts = 0, printed[6] = { 0 }, colours = 0;
  int n = cross ? sscanf (line,
                          "logit %lf = parts %lf: heads %lf + MLPs %lf + embeddings %lf + biases "
                          "and norm %lf + cross heads %lf + cross biases, norms' biases and "
                          "final_logits_bias %lf; colours ±%lf",
                          &printed_logit, &parts, &printed[0], &printed[1], &printed[2],
                          &printed[3], &printed[4], &printed[5], &colours)
                : sscanf (line,
                          "logit %lf = parts %lf: heads %lf + MLPs %lf + embeddings %lf + biases "
                          "and norm %lf; colours ±%lf",
                          &printed_logit, &parts, &printed[0], &printed[1], &printed[2],
                          &printed[3], &colours);
  g_assert_cmpint (n, ==, cross ? 9 : 7);
  double printed_sum = 0.0;
  for (int i = 0; i < 6; i++)
    {
      g_assert_cmpfloat (fabs (printed[i] - expected[i]), <=, PRINTED + 1e-9);
      printed_sum += printed[i];
    }
  g_assert_cmpfloat (fabs (printed_logit - at->logit), <=, PRINTED + 1e-9);
  g_assert_cmpfloat (fabs (parts - all), <=, PRINTED + 1e-4 * fabs (all));
  /* six rounded groups and a rounded logit: within their rounding of each other */
  g_assert_cmpfloat (fabs (printed_sum - printed_logit), <=, 7 * PRINTED + 1e-4 * fabs (at->logit));
  if (!cross)
    return;
  g_autoptr (ArBuiltFigure) cross_figure
      = ar_build_attribution_cross_figure (at, "“x”", NULL, AR_ANNOTATE_AUTO);
  const char *cross_subtitle = ar_built_figure_get (cross_figure)->heatmap->subtitle;
  double cross_printed = 0;
  g_assert_cmpint (sscanf (cross_subtitle, "cross biases, norms' biases and final_logits_bias %lf",
                           &cross_printed),
                   ==, 1);
  g_assert_cmpfloat (fabs (cross_printed - cross_biases), <=, PRINTED + 1e-9);
}

static void
test_decoder_only (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests", "fixtures",
                                           "tiny-gpt2", NULL);
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  AsForwardOptions options = { .all_logits = TRUE };
  g_autoptr (AsTrace) trace
      = as_forward_text (model, "The man hit the car", FALSE, &options, &error);
  g_assert_no_error (error);
  int p = trace->n_tokens - 1;
  const float *row = trace->logits + (gsize) (trace->logits_rows - 1) * trace->vocab_size;
  g_autoptr (AsAttribution) at = as_attribution_compute (model, trace, p, 5, -1, &error);
  g_assert_no_error (error);
  g_assert_null (at->cross_heads);
  check_totals (at, row[5]);
}

/* The translation model in folder DIR: token 5 at the decoder's last position. */
static void
check_translation (const char *dir)
{
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  AsForwardOptions options = { .capture_qkv = TRUE };
  g_autoptr (AsTrace) trace = as_forward_translation_text (model, source, target, &options, &error);
  g_assert_no_error (error);
  int p = trace->n_tokens - 1;
  const float *row = trace->logits + (gsize) (trace->logits_rows - 1) * trace->vocab_size;
  g_autoptr (AsAttribution) at = as_attribution_compute (model, trace, p, 5, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (at->cross_heads);
  check_totals (at, row[5]);
}

static void
test_bart (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir != NULL)
    check_translation (dir);
}

static void
test_marian (void)
{
  const char *dir = marian_fixture_path ("models", "small");
  if (dir != NULL)
    check_translation (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/attribution-totals/decoder-only", test_decoder_only);
  g_test_add_func ("/ui/attribution-totals/bart", test_bart);
  g_test_add_func ("/ui/attribution-totals/marian", test_marian);
  return g_test_run ();
}
