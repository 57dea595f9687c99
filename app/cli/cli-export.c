/* cli-export.c — `attnscope export`: the figure the window shows, written to a PNG, SVG or PDF file
 * without a display. The command computes what the figure needs (mean over heads, rollout, head
 * statistics, similarity, projection, comparison) with the core and hands it to the same
 * ui/render figure builders the window's pages call, so a file written here and the window's
 * export of the same view are the same drawing (ui/README.md, "Figure builders").
 *
 *   export --model M --text T [--pair B] VIEW -o FILE.png|.svg|.pdf [--compare T2 [--compare-pair
 * B2]]
 *          [--truncate]
 *          [the look and file options of export-args.h: --token, --colormap, --annotate,
 *           --color-scale, --normalize-rows, --log-colors, --words, --labels, --no-space-marks,
 *           --raw-tokens, --align, --preset, --width, --font-size, --dpi/--scale, --no-titles,
 *           --title, --subtitle, --svg-text, --sidecar]
 *   VIEW: --layer L --head H            one head's attention (queries as rows, keys as columns)
 *         --mean L | --rollout L        the mean over layer L's heads | rollout through layer L
 *         (--layer L --head H | --mean L) --weighting norm   weights × key norms, ‖α·f(x)‖
 *         --grid [--layer L --head H]   every head with its pattern label (L, H outlined)
 *         --similarity KIND [--layer L] [--head H]
 *                                       cosine similarity of embeddings|contexts|attn_out|hidden
 *                                       (layers numbered as in `attnscope similarity`)
 *         --project pca|tsne|umap --of KIND [--layer L] [--head H] [--no-labels]
 *                 [--also KIND2] [--highlight WORD] [--text T2 ... | --lines FILE]
 *                                       a 2-D projection of the tokens' vectors of every text
 *                                       (--text may be repeated; --lines adds one text per
 *                                       non-blank line; without --text the first line is T);
 *                                       --also draws the vectors KIND2 of the same tokens in a
 *                                       second panel (--of token-embeddings --also hidden
 *                                       --layer 3: static beside contextual); --highlight marks
 *                                       every occurrence of WORD and greys the rest
 *         --lens [--follow WORD | --follow-id N] [--position I]  the logit lens
 *         --ablation-scan (--scan-token WORD [--scan-vs-token W2] | --scan-loss)
 *                                       each single head switched off: its effect, L × H
 *         --patch --patch-token W1 --patch-vs-token W2 [--patch-what heads|mlps|resid]
 *                 [--patch-reverse] --compare B   activation patching between T and B
 *         --attribution [--target-id N | --target-token W] [--vs-id N2 | ...] [--position I]
 *                                       direct logit attribution of token N's logit (default:
 *                                       the predicted token) at I (default: the last token)
 *         --qk --layer L --head H [--token I] [--qk-rope after|before]
 *                                       the query–key view: query I's per-dimension products
 *                                       with every key it sees, and the scores
 *         --alignment (--layer L --head H | --mean L)
 *                                       a translation model: source and target tokens linked
 *                                       by the cross-attention of a head or a layer's mean
 *         --position-bias H [--layer L] a model with a relative position bias (T5): what head
 *                                       H of --kind encoder|decoder adds to its scores, by
 *                                       query and key position (the same in every layer; umT5:
 *                                       layer L's own table, default 0)
 *
 * Translation models (--target TGT, default the model's translation): --kind encoder|decoder|cross
 * chooses the attention of the head, mean and grid views (cross: rows = target tokens, columns =
 * source tokens; no rollout).
 *
 * --compare T2 with a head, mean or rollout view: T and T2 side by side, B aligned to A by token
 * (--align positions: position by position), their difference, the per-layer similarity of the
 * shared tokens; when a difference by position is impossible (token counts differ) the figure
 * says so in a note and the command prints "attnscope: note: ..." on stderr and succeeds.
 * With --project it projects both texts' tokens, each text in its colour. --token I outlines
 * token I of T, as a click on it does in the window. For an encoder, --pair B makes the input the
 * sentence pair (T, B) (as_forward_pair: [CLS] T [SEP] B [SEP]) and --segments a-b (a-a, b-a,
 * b-b) keeps one sentence's queries and the other's keys; --compare-pair B2 makes the compared
 * input the pair (T2, B2).
 *
 * Errors (exit 1, "attnscope: error: ..."): a layer, head or token out of range (naming the
 * valid range), an unknown colour map, a file name without .png/.svg/.pdf, a folder that cannot
 * be written, empty text, a scale outside 0.25..8. Usage errors (exit 2): missing or conflicting
 * options. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-attention-norms.h"
#include "as-attention-ranges.h"
#include "as-compare.h"
#include "as-error.h"
#include "as-forward.h"
#include "export-args.h"
#include "export-sidecar.h"
#include "as-head-stats.h"
#include "as-rollout.h"
#include "as-similarity.h"
#include "as-word-marks.h"
#include "as-word-spans.h"
#include "attention-figure.h"
#include "attention-thumbnails.h"
#include "cli-analysis.h"
#include "cli-translation.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-intervene.h"
#include "cli-export-lens.h"
#include "cli-export-long.h"
#include "attention-overview.h"
#include "cli-export-qk.h"
#include "cli-export-view.h"
#include "cli-export-weighting.h"
#include "cli-export-write.h"
#include "cli-progress.h"
#include "compare-figure.h"
#include "cross-figure.h"
#include "figure-export.h"
#include "as-sentence-pairs.h"
#include "pair-text.h"
#include "position-bias-figure.h"
#include "projection-figure.h"
#include "similarity-figure.h"

/* The texts of the command: --text, --pair, --compare, --compare-pair (NULL: not given). */
typedef struct
{
  const char *text, *pair, *compare, *compare_pair;
} ExportTexts;

/* One text's trace and what is computed from it. */
typedef struct
{
  AsTrace *trace;
  float *mean_heads; /* [L][T][T] */
  float *rollout;    /* [L][T][T] */
  double *ranges;    /* [2 + 2·L·H] (as_trace_attention_ranges) */
  /* translation models */
  char *target_text;      /* the target the trace was run on */
  int n_source, n_target; /* the source's and the target's tokens */
  gboolean truncated;     /* --truncate cut the text (a single text: the trace is its beginning) */
  gboolean cross;         /* the figure shows the trace's cross-attention */
  float *cross_mean;      /* [L][T][S] */
  double *cross_range;    /* [2 + 2·L·H] (as_trace_cross_attention_ranges) */
  /* --weighting norm: what each key writes */
  AsAttentionNorms *norms;
} Side;

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->trace, as_trace_unref);
  g_clear_pointer (&side->mean_heads, g_free);
  g_clear_pointer (&side->rollout, g_free);
  g_clear_pointer (&side->ranges, g_free);
  g_clear_pointer (&side->target_text, g_free);
  g_clear_pointer (&side->cross_mean, g_free);
  g_clear_pointer (&side->cross_range, g_free);
  g_clear_pointer (&side->norms, as_attention_norms_free);
}

static ArCrossAttention
side_cross (const Side *side)
{
  return (ArCrossAttention){ .trace = side->trace,
                             .mean_heads = side->cross_mean,
                             .range = side->cross_range,
                             .head_ranges
                             = side->cross_range != NULL ? side->cross_range + 2 : NULL };
}

static ArAttention
side_attention (const Side *side)
{
  return (ArAttention){ .trace = side->trace,
                        .mean_heads = side->mean_heads,
                        .rollout = side->rollout,
                        .key_norms = side->norms != NULL ? side->norms->value_norms : NULL,
                        .head_shares = side->norms != NULL ? side->norms->head_shares : NULL,
                        .range = side->ranges,
                        .head_ranges = side->ranges != NULL ? side->ranges + 2 : NULL };
}

static gboolean
check_index (const char *option, int value, int count, const char *what, GError **error)
{
  if (value >= 0 && value < count)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s %d is out of range: %s %d %s%s (0..%d)", option,
               value, g_str_equal (what, "token") ? "the text has" : "the model has", count, what,
               count == 1 ? "" : "s", count - 1);
  return FALSE;
}

/* Whether TRACE, run with truncation on TEXT (and PAIR), holds fewer tokens than the text has. */
static gboolean
side_truncated (const AsTrace *trace, AsModel *model, const char *text, const char *pair)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (model);
  if (tokenizer == NULL || trace->n_tokens < as_model_get_config (model)->n_positions)
    return FALSE;
  AsEncoding *encoding
      = as_tokenizer_encode_full (tokenizer, text, -1, pair, -1, AS_ENCODE_DEFAULT, NULL);
  gboolean cut = encoding != NULL && (int) encoding->ids->len > trace->n_tokens;
  if (encoding != NULL)
    as_encoding_free (encoding);
  return cut;
}

/* Runs the model on TEXT and computes what REQ's figure needs of it. */
static gboolean
side_run (Side *side, AsModel *model, const char *text, const char *pair, const char *argument,
          const ExportRequest *req, GError **error)
{
  if (as_model_get_config (model)->encoder_decoder)
    {
      /* the encoder's trace is a complete bidirectional trace, the decoder's a causal one */
      g_autoptr (AsTrace) both = cli_translation_forward_with_text (model, text, req->target, 0,
                                                                    &side->target_text, error);
      if (both == NULL)
        return FALSE;
      side->cross = req->kind == CLI_ATTENTION_CROSS || req->view == VIEW_ALIGNMENT;
      side->trace
          = as_trace_ref (req->kind == CLI_ATTENTION_ENCODER && !side->cross ? both->source : both);
      side->n_source = both->source->n_tokens;
      side->n_target = both->n_tokens;
    }
  else if (pair != NULL)
    {
      AsForwardOptions options = { .all_logits = FALSE };
      cli_progress_apply (&options);
      side->trace = cli_forward_text (model, text, pair, req->truncate, &options, error);
    }
  else
    side->trace = cli_analysis_forward (model, text, argument, req->truncate, error);
  if (side->trace == NULL)
    return FALSE;
  side->truncated = req->truncate && side_truncated (side->trace, model, text, pair);
  const AsTrace *t = side->trace;
  const ArViewSelection *v = &req->selection;
  if (req->view == VIEW_ATTENTION || req->view == VIEW_ALIGNMENT
      || (req->view == VIEW_GRID && v->aggregate == AR_AGGREGATE_HEAD))
    {
      const char *layer_option = v->aggregate == AR_AGGREGATE_MEAN      ? "--mean"
                                 : v->aggregate == AR_AGGREGATE_ROLLOUT ? "--rollout"
                                                                        : "--layer";
      if (!check_index (layer_option, v->layer, t->n_layer, "layer", error)
          || (v->aggregate == AR_AGGREGATE_HEAD
              && !check_index ("--head", v->head, t->n_head, "head", error)))
        return FALSE;
    }
  if (req->view == VIEW_POSITION_BIAS)
    {
      if (!as_trace_has_position_bias (t) || side->cross)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       side->cross ? "--position-bias is of --kind encoder or decoder"
                                   : "--position-bias: this model adds no position bias to its "
                                     "attention scores (T5-family models do)");
          return FALSE;
        }
      return check_index ("--position-bias", v->head, t->n_head, "head", error)
             && check_index ("--layer", v->layer, t->n_layer, "layer", error);
    }
  if (side->cross)
    {
      if (req->view != VIEW_ATTENTION && req->view != VIEW_GRID && req->view != VIEW_ALIGNMENT
          && req->view != VIEW_ATTRIBUTION)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "--kind cross draws a head, a mean, the grid, the alignment or the "
                       "attribution's cross-attention heads; similarity and projections are of "
                       "--kind encoder or decoder");
          return FALSE;
        }
      if (v->aggregate == AR_AGGREGATE_ROLLOUT && req->view != VIEW_GRID)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "cross-attention has no rollout: give --layer L --head H or --mean L");
          return FALSE;
        }
      if (v->aggregate == AR_AGGREGATE_MEAN)
        side->cross_mean = as_trace_cross_mean_heads (t);
      if (req->view == VIEW_GRID)
        side->cross_range = as_trace_cross_attention_ranges (t);
      return TRUE;
    }
  /* a long text's mean or rollout: one layer pooled when the figure is built (cli-export-long.h) */
  if (req->view == VIEW_ATTENTION && cli_export_long_aggregate (t, v))
    return TRUE;
  if (req->view == VIEW_ATTENTION && v->norm_weighted
      && (side->norms = as_attention_norms_of_trace (model, t, NULL, error)) == NULL)
    return FALSE;
  if (req->view == VIEW_ATTENTION && v->aggregate == AR_AGGREGATE_MEAN)
    side->mean_heads = as_trace_mean_heads (t);
  if (req->view == VIEW_ATTENTION && v->aggregate == AR_AGGREGATE_ROLLOUT)
    side->rollout = as_trace_rollout (t);
  if (req->view == VIEW_GRID)
    side->ranges = as_trace_attention_ranges (t);
  return TRUE;
}

static ArBuiltFigure *
build_similarity (const Side *a, const ExportRequest *req, const ArFigureTexts *texts,
                  GError **error)
{
  g_autofree float *sim = NULL; /* [T][T], or [W][W] of the words */
  if (req->selection.pool_words)
    {
      g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (a->trace);
      sim = as_word_similarity (a->trace, req->source, req->vectors_layer, req->vectors_head, spans,
                                error);
    }
  else
    sim = as_trace_similarity (a->trace, req->source, req->vectors_layer, req->vectors_head, error);
  if (sim == NULL)
    return NULL;
  int n = a->trace->n_tokens;
  if (req->selection.pool_words)
    {
      g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (a->trace);
      n = spans->n_words;
    }
  g_autoptr (GBytes) values
      = g_bytes_new_take (g_steal_pointer (&sim), (gsize) n * n * sizeof (float));
  return ar_build_similarity_figure (a->trace, values, NULL, req->source, req->vectors_layer,
                                     req->vectors_head, &req->selection, texts);
}

/* The projection of the sentences' vectors CHOICE, ready for a panel. */
static AsProjection *
project_sentences (const ArSentences *sentences, const ArVectorChoice *choice,
                   AsProjectionMethod method, GError **error)
{
  int n = 0, dim = 0;
  g_autofree float *x = ar_projection_vectors (sentences, choice, &n, &dim, error);
  if (x == NULL)
    return NULL;
  AsProjectionOptions options;
  as_projection_options_init (&options, method);
  return as_projection_run (x, n, dim, &options, error);
}

static ArBuiltFigure *
build_projection (const Side *a, const Side *b, GPtrArray *more, const ExportRequest *req,
                  const ArFigureTexts *texts, GError **error)
{
  g_autoptr (GPtrArray) traces = g_ptr_array_new ();
  g_autoptr (GPtrArray) sentence_texts = g_ptr_array_new ();
  g_ptr_array_add (traces, a->trace);
  g_ptr_array_add (sentence_texts, (gpointer) texts->text);
  if (b->trace != NULL)
    {
      g_ptr_array_add (traces, b->trace);
      g_ptr_array_add (sentence_texts, (gpointer) texts->compare_text);
    }
  for (guint i = 0; more != NULL && i < more->len; i++)
    {
      g_ptr_array_add (traces, more->pdata[i]);
      g_ptr_array_add (sentence_texts, req->more_texts->pdata[i]);
    }
  ArSentences sentences = { (int) traces->len, (const AsTrace *const *) traces->pdata,
                            (const char *const *) sentence_texts->pdata };
  ArVectorChoice choices[2] = {
    { req->source, req->vectors_layer, req->vectors_head },
    { req->also_source, req->also_layer, req->also_head },
  };
  int n_panels = req->has_also ? 2 : 1;
  g_autoptr (AsProjection) first = project_sentences (&sentences, &choices[0], req->method, error);
  if (first == NULL)
    return NULL;
  g_autoptr (AsProjection) second = NULL;
  if (n_panels == 2
      && (second = project_sentences (&sentences, &choices[1], req->method, error)) == NULL)
    {
      g_prefix_error (error, "--also %s: ", as_vector_source_to_string (req->also_source));
      return NULL;
    }
  ArProjectionPanel panels[2] = { { first, choices[0] }, { second, choices[1] } };
  return ar_build_projection_figure (panels, n_panels, &sentences, req->highlight, !req->no_labels,
                                     &req->selection, texts);
}

static ArBuiltFigure *
build_figure (const Side *a, const Side *b, GPtrArray *more, const ExportRequest *req,
              const ArFigureTexts *texts, GError **error)
{
  ArAttention aa = side_attention (a), ab = side_attention (b);
  ArCrossAttention cross = side_cross (a);
  switch (req->view)
    {
    case VIEW_ALIGNMENT:
      return ar_build_alignment_figure (&cross, &req->selection, texts);
    case VIEW_POSITION_BIAS:
      return ar_build_position_bias_figure (a->trace, req->selection.head, &req->selection, texts);
    case VIEW_GRID:
      if (a->cross)
        {
          g_autoptr (AsCrossStats) stats = as_cross_stats_new ();
          if (!as_cross_stats_add (stats, a->trace, error) || !as_cross_stats_finish (stats, error))
            return NULL;
          return ar_build_cross_grid_figure (&cross, stats, &req->selection, texts);
        }
      {
        g_autoptr (AsHeadStats) stats = as_head_stats_compute (a->trace);
        g_autofree float *thumbnails = as_trace_attention_held (a->trace)
                                           ? NULL
                                           : ar_attention_thumbnails_new (a->trace, NULL);
        aa.thumbnails = thumbnails;
        return ar_build_grid_figure (&aa, stats, &req->selection, texts);
      }
    case VIEW_SIMILARITY:
      return build_similarity (a, req, texts, error);
    case VIEW_PROJECTION:
      return build_projection (a, b, more, req, texts, error);
    case VIEW_LENS: /* export_run builds it: it needs the model */
    case VIEW_ABLATION_SCAN:
    case VIEW_PATCH:
    case VIEW_ATTRIBUTION:
    case VIEW_QK:
      break;
    case VIEW_ATTENTION:
      if (a->cross)
        return ar_build_cross_attention_figure (&cross, &req->selection, texts);
      if (cli_export_long_aggregate (a->trace, &req->selection))
        {
          if (b->trace == NULL)
            return cli_export_long_figure (a->trace, &req->selection, texts, error);
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "--compare draws the mean or the rollout of texts of at most %d tokens "
                       "(this one has %d): give --layer L --head H",
                       AR_OVERVIEW_CELLS, a->trace->n_tokens);
          return NULL;
        }
      if (b->trace != NULL)
        {
          g_autoptr (AsComparison) c = as_compare_traces (a->trace, b->trace, error);
          return c != NULL ? ar_build_compare_figure (&aa, &ab, c, &req->selection, texts) : NULL;
        }
      return ar_build_attention_figure (&aa, &req->selection, texts);
    }
  g_assert_not_reached ();
}

/* The traces of the projection's further texts, into MORE. */
static gboolean
run_more_texts (GPtrArray *more, AsModel *model, const ExportRequest *req, GError **error)
{
  for (guint i = 0; req->more_texts != NULL && i < req->more_texts->len; i++)
    {
      g_autofree char *argument = g_strdup_printf ("text #%u", i + 2);
      AsTrace *trace
          = cli_analysis_forward (model, req->more_texts->pdata[i], argument, req->truncate, error);
      if (trace == NULL)
        {
          if (!g_str_has_prefix ((*error)->message, argument))
            g_prefix_error (error, "%s: ", argument);
          return FALSE;
        }
      g_ptr_array_add (more, trace);
    }
  return TRUE;
}

/* TEXTS of the runs A and B (B's trace may be NULL) of the texts IN, as the window's pages give
 * them: the shown texts (into *SHOWN and *SHOWN_COMPARE, owned) and the token counts. TRUE. */
static gboolean
side_texts (ArFigureTexts *texts, char **shown, char **shown_compare, const Side *a, const Side *b,
            const ExportTexts *in)
{
  *shown = ar_shown_text (a->trace, in->text, in->pair, a->truncated);
  texts->text = *shown;
  texts->truncated = a->truncated;
  texts->target_text = a->target_text;
  texts->n_tokens = a->target_text != NULL ? a->n_source : a->trace->n_tokens;
  texts->n_target_tokens = a->target_text != NULL ? a->n_target : 0;
  if (b->trace != NULL)
    {
      *shown_compare = ar_shown_text (b->trace, in->compare, in->compare_pair, b->truncated);
      texts->compare_text = *shown_compare;
      texts->n_compare_tokens = b->trace->n_tokens;
    }
  return TRUE;
}

/* Runs the texts IN and writes the figure REQ asks for; a pair is quoted as "A ‖ B" (pair-text.h).
 */
static int
export_run (AsModel *model, const ExportTexts *in, const char *output, ExportRequest *req,
            char **argv)
{
  GError *error = NULL;
  Side a = { 0 }, b = { 0 };
  g_autoptr (ArBuiltFigure) figure = NULL;
  g_autoptr (GPtrArray) more = g_ptr_array_new_with_free_func ((GDestroyNotify) as_trace_unref);
  g_autofree char *shown = NULL, *shown_compare = NULL;
  ArFigureTexts texts = { .model_name = as_model_get_name (model) };
  int code = CLI_EXIT_OK;
  if (!side_run (&a, model, in->text, in->pair, "--text", req, &error)
      || (in->compare != NULL
          && !side_run (&b, model, in->compare, in->compare_pair, "--compare", req, &error))
      || !side_texts (&texts, &shown, &shown_compare, &a, &b, in)
      || !run_more_texts (more, model, req, &error)
      || (req->selection.selected_token >= 0
          && !check_index ("--token", req->selection.selected_token, a.trace->n_tokens, "token",
                           &error))
      || (figure = req->view == VIEW_LENS ? cli_export_lens_figure (model, a.trace, &req->lens,
                                                                    &req->selection, &texts, &error)
                   : req->view == VIEW_ABLATION_SCAN ? cli_export_scan_figure (
                         model, a.trace, &req->scan, &req->selection, &texts, &error)
                   : req->view == VIEW_PATCH ? cli_export_patch_figure (
                         model, a.trace, b.trace, &req->patch, &req->selection, &texts, &error)
                   : req->view == VIEW_QK
                       ? cli_export_qk_figure (model, a.trace, &req->selection, &texts, &error)
                   : req->view == VIEW_ATTRIBUTION
                       ? cli_export_attribution_figure (model, a.trace, &req->attribution,
                                                        req->lens.position, &req->selection, &texts,
                                                        &error)
                       : build_figure (&a, &b, more, req, &texts, &error))
             == NULL)
    code = cli_fail (error);
  else
    code = cli_export_write_figure (figure, output, req, model, argv);
  side_clear (&a);
  side_clear (&b);
  return code;
}

/* Checks the options that need no model; returns -1 when fine, else the exit code. */
static int
check_options (ExportRequest *req, int argc, char **argv, const char *text, const char *output,
               const ViewOptions *v, gboolean compare, const ExportArgs *look)
{
  if (argc > 1)
    return cli_usage_printf ("export", "unexpected argument '%s'", argv[1]);
  if (text == NULL)
    return cli_usage_printf ("export", "--text T is required");
  if (output == NULL)
    return cli_usage_printf ("export", "-o FILE.png|.svg|.pdf is required");
  int name_code = cli_check_output_name ("export", "-o", output);
  if (name_code >= 0)
    return name_code;
  int code = cli_export_choose_view (req, v, compare);
  if (code >= 0)
    return code;
  GError *error = NULL;
  gboolean usage = FALSE;
  if (!export_args_apply (look, &req->selection, &req->options, &usage, &error))
    {
      if (!usage)
        return cli_fail (error);
      code = cli_usage_printf ("export", "%s", error->message);
      g_error_free (error);
      return code;
    }
  req->sidecar = look->sidecar;
  ArExportFormat format;
  if (!ar_export_format_from_path (output, &format, &error))
    return cli_fail (error);
  if (look->svg_text && format != AR_EXPORT_SVG)
    return cli_usage_printf ("export", "--svg-text is for .svg files; '%s' is not one", output);
  return -1;
}

static const char export_summary[]
    = "Export the figure of a head (--layer, --head), a layer's mean (--mean), attention rollout\n"
      "(--rollout), all heads (--grid), a similarity matrix (--similarity) or a projection\n"
      "(--project) as PNG, SVG or PDF, drawn as the window draws it, at a chosen width, font\n"
      "size and resolution. With --compare the second text is drawn beside the first, aligned\n"
      "by token (--align positions: by position), with the difference T2 - T. For an encoder,\n"
      "--pair B makes the input a sentence pair and --segments a-b keeps A's queries and B's "
      "keys.\n"
      "For a translation model --kind encoder|decoder|cross chooses the attention and --alignment\n"
      "links the source and target tokens by cross-attention. --lens draws the logit lens,\n"
      "--attribution the direct logit attribution.";

static gboolean
add_text_line (const char *line, gpointer user_data, GError **error)
{
  g_ptr_array_add (user_data, g_strdup (line));
  return TRUE;
}

int
cli_export (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *output = NULL, *compare = NULL, *lines = NULL;
  g_autofree char *pair = NULL, *compare_pair = NULL;
  g_autofree char *similarity = NULL, *project = NULL, *of = NULL, *target = NULL, *kind = NULL;
  g_autofree char *also = NULL, *highlight = NULL, *weighting = NULL, *qk_rope = NULL;
  g_auto (GStrv) text_args = NULL;
  ViewOptions v = { .layer = G_MININT,
                    .head = G_MININT,
                    .mean = G_MININT,
                    .rollout = G_MININT,
                    .position_bias = G_MININT };
  ExportRequest req = { .lens = CLI_EXPORT_LENS_INIT, .attribution = CLI_EXPORT_ATTRIBUTION_INIT };
  ar_view_selection_init (&req.selection);
  ar_export_options_init (&req.options);
  ExportArgs look;
  export_args_init (&look);
  /* The command as given, for the sidecar (the parser takes the options out of ARGV). */
  g_auto (GStrv) given = g_strdupv (argv);
  const GOptionEntry view_entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    CLI_STRICT_OPTION,
    CLI_ABLATION_OPTIONS,
    CLI_QUIET_OPTION,
    CLI_NO_POSITIONS_OPTION,
    { "text", 't', 0, G_OPTION_ARG_STRING_ARRAY, &text_args,
      "Input text (with --project: repeat for more texts)", "T" },
    { "lines", 0, 0, G_OPTION_ARG_FILENAME, &lines,
      "With --project: more texts, one per non-blank line", "FILE" },
    { "pair", 0, 0, G_OPTION_ARG_STRING, &pair,
      "For an encoder: the second text of a sentence pair ([CLS] T [SEP] B [SEP])", "B" },
    { "layer", 'l', 0, G_OPTION_ARG_INT, &v.layer, "Layer of the head to draw (from 0)", "L" },
    { "head", 0, 0, G_OPTION_ARG_INT, &v.head, "Head to draw (from 0)", "H" },
    { "grid", 0, 0, G_OPTION_ARG_NONE, &v.grid, "Every head of every layer in one grid", NULL },
    { "alignment", 0, 0, G_OPTION_ARG_NONE, &v.alignment,
      "A translation model: source and target tokens linked by cross-attention (with --layer L "
      "--head H or --mean L)",
      NULL },
    { "mean", 0, 0, G_OPTION_ARG_INT, &v.mean, "Mean over the heads of layer L", "L" },
    { "position-bias", 0, 0, G_OPTION_ARG_INT, &v.position_bias,
      "A model with a relative position bias (T5): what head H adds to its scores by query and "
      "key position (with --kind encoder or decoder; umT5: of --layer L)",
      "H" },
    { "rollout", 0, 0, G_OPTION_ARG_INT, &v.rollout, "Attention rollout through layers 0..L", "L" },
    { "similarity", 0, 0, G_OPTION_ARG_STRING, &similarity,
      "Cosine similarity of embeddings, contexts, attn_out or hidden (with --layer, --head)",
      "KIND" },
    { "project", 0, 0, G_OPTION_ARG_STRING, &project,
      "PCA, t-SNE or UMAP of the vectors --of KIND (with --layer, --head)", "pca|tsne|umap" },
    { "of", 0, 0, G_OPTION_ARG_STRING, &of,
      "With --project: embeddings, token-embeddings, contexts, attn_out or hidden", "KIND" },
    { "also", 0, 0, G_OPTION_ARG_STRING, &also,
      "With --project: a second panel of the vectors KIND2 of the same tokens", "KIND2" },
    { "highlight", 0, 0, G_OPTION_ARG_STRING, &highlight,
      "With --project: mark the tokens of every occurrence of WORD", "WORD" },
    { "ablation-scan", 0, 0, G_OPTION_ARG_NONE, &req.scan.scan,
      "Each single head switched off in turn (zero ablation): its effect, layers × heads", NULL },
    { "scan-token", 0, 0, G_OPTION_ARG_STRING, &req.scan.token,
      "With --ablation-scan: measure this token's logit at the last position", "WORD" },
    { "scan-vs-token", 0, 0, G_OPTION_ARG_STRING, &req.scan.vs_token,
      "With --scan-token: measure the logit difference to this token", "W2" },
    { "scan-loss", 0, 0, G_OPTION_ARG_NONE, &req.scan.loss,
      "With --ablation-scan: measure the next-token loss over the text", NULL },
    { "patch", 0, 0, G_OPTION_ARG_NONE, &req.patch.patch,
      "Activation patching between --text A and --compare B (same number of tokens)", NULL },
    { "patch-token", 0, 0, G_OPTION_ARG_STRING, &req.patch.token,
      "With --patch: the logit difference's first token", "W1" },
    { "patch-vs-token", 0, 0, G_OPTION_ARG_STRING, &req.patch.vs_token,
      "With --patch: the token subtracted", "W2" },
    { "patch-what", 0, 0, G_OPTION_ARG_STRING, &req.patch.what,
      "With --patch: heads (default), mlps or resid", "WHAT" },
    { "patch-reverse", 0, 0, G_OPTION_ARG_NONE, &req.patch.reverse,
      "With --patch: from A into B instead of B into A", NULL },
    { "lens", 0, 0, G_OPTION_ARG_NONE, &req.lens.lens,
      "The logit lens: every hidden state's top token at every position", NULL },
    { "follow", 0, 0, G_OPTION_ARG_STRING, &req.lens.follow,
      "With --lens: the chart of this token (one token of the vocabulary) through the layers",
      "WORD" },
    { "follow-id", 0, 0, G_OPTION_ARG_INT, &req.lens.follow_id,
      "With --lens: the chart of the token with this id", "N" },
    { "position", 0, 0, G_OPTION_ARG_INT, &req.lens.position,
      "With --follow: the position to follow the token at; with --attribution: the position "
      "whose prediction is split (default: the last)",
      "I" },
    { "attribution", 0, 0, G_OPTION_ARG_NONE, &req.attribution.attribution,
      "Direct logit attribution: every head's and MLP's direct effect on a token's logit", NULL },
    { "target-id", 0, 0, G_OPTION_ARG_INT, &req.attribution.target_id,
      "With --attribution: the token whose logit is split (default: the predicted token)", "N" },
    { "vs-id", 0, 0, G_OPTION_ARG_INT, &req.attribution.vs_id,
      "With --attribution: split the difference of the two tokens' logits", "N2" },
    { "target-token", 0, 0, G_OPTION_ARG_STRING, &req.attribution.target_token,
      "With --attribution: the token whose logit is split, by its text", "WORD" },
    { "vs-target-token", 0, 0, G_OPTION_ARG_STRING, &req.attribution.vs_token,
      "With --attribution: the other token by its text", "WORD2" },
    { "weighting", 0, 0, G_OPTION_ARG_STRING, &weighting,
      "With --layer/--head or --mean: weight (default) or norm (‖α·f(x)‖)", "weight|norm" },
    { "qk-rope", 0, 0, G_OPTION_ARG_STRING, &qk_rope,
      "With --qk: the query shown after (default) or before RoPE (models that rotate)",
      "after|before" },
    { "qk", 0, 0, G_OPTION_ARG_NONE, &req.qk,
      "The query-key view of --layer L --head H for query --token I (default: the last token)",
      NULL },
    { "no-labels", 0, 0, G_OPTION_ARG_NONE, &req.no_labels,
      "With --project: dots without token labels", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output file: .png, .svg or .pdf", "FILE" },
    { "compare", 0, 0, G_OPTION_ARG_STRING, &compare,
      "Second text: side by side, aligned to the first, and their difference", "T2" },
    { "compare-pair", 0, 0, G_OPTION_ARG_STRING, &compare_pair,
      "With --compare on an encoder: the compared input is the pair (T2, B2)", "B2" },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      "For a translation model: the target text (default: the model's translation)", "TGT" },
    { "kind", 0, 0, G_OPTION_ARG_STRING, &kind,
      "For a translation model: encoder or decoder self-attention, or cross-attention "
      "(default: decoder)",
      "KIND" },
    CLI_ANALYSIS_TRUNCATE_ENTRY (req.truncate),
    { "force", 'f', 0, G_OPTION_ARG_NONE, &req.force, "Replace FILE even when it is read-only",
      NULL },
    { NULL },
  };
  g_autofree GOptionEntry *look_entries = export_args_entries (&look);
  gsize n_view = G_N_ELEMENTS (view_entries) - 1, n_look = 0;
  while (look_entries[n_look].long_name != NULL)
    n_look++;
  g_autofree GOptionEntry *entries = g_new0 (GOptionEntry, n_view + n_look + 1);
  memcpy (entries, view_entries, n_view * sizeof (GOptionEntry));
  memcpy (entries + n_view, look_entries, n_look * sizeof (GOptionEntry));
  int code;
  if (!cli_parse_options ("export", "", export_summary, entries, &argc, &argv, &code))
    {
      export_args_clear (&look);
      cli_export_lens_clear (&req.lens);
      cli_export_scan_clear (&req.scan);
      cli_export_patch_clear (&req.patch);
      cli_export_attribution_clear (&req.attribution);
      return code;
    }
  v.similarity = similarity;
  v.project = project;
  v.of = of;
  v.also = also;
  v.highlight = highlight;
  g_autoptr (GPtrArray) more_texts = g_ptr_array_new_with_free_func (g_free);
  GError *lines_error = NULL;
  for (int i = 1; text_args != NULL && text_args[i] != NULL; i++)
    g_ptr_array_add (more_texts, g_strdup (text_args[i]));
  if (lines != NULL && !cli_foreach_text_line (lines, add_text_line, more_texts, &lines_error))
    {
      export_args_clear (&look);
      cli_export_lens_clear (&req.lens);
      cli_export_scan_clear (&req.scan);
      cli_export_patch_clear (&req.patch);
      cli_export_attribution_clear (&req.attribution);
      return cli_fail (lines_error);
    }
  /* Without --text the first line is the text. */
  g_autofree char *text = NULL;
  if (text_args != NULL && text_args[0] != NULL)
    text = g_strdup (text_args[0]);
  else if (more_texts->len > 0)
    text = g_ptr_array_steal_index (more_texts, 0);
  v.more_texts = more_texts->len > 0;
  req.more_texts = more_texts;
  code = check_options (&req, argc, argv, text, output, &v, compare != NULL, &look);
  GError *kind_error = NULL;
  if (code < 0 && !cli_attention_kind_parse (kind, CLI_ATTENTION_DECODER, &req.kind, &kind_error))
    {
      code = cli_usage_printf ("export", "%s", kind_error->message);
      g_error_free (kind_error);
    }
  if (code < 0)
    code = cli_export_weighting_check (&req, weighting, qk_rope, compare != NULL);
  if (code < 0 && compare != NULL && req.kind == CLI_ATTENTION_CROSS)
    code = cli_usage_printf ("export", "--compare does not go with --kind cross");
  if (code < 0 && target != NULL && !cli_check_text (target, "--target", &kind_error))
    code = cli_fail (kind_error);
  if (code < 0 && compare_pair != NULL && compare == NULL)
    code = cli_usage_printf ("export", "--compare-pair goes with --compare");
  if (code < 0
      && ((pair != NULL && !cli_check_text (pair, "--pair", &kind_error))
          || (compare_pair != NULL
              && !cli_check_text (compare_pair, "--compare-pair", &kind_error))))
    code = cli_fail (kind_error);
  req.target = target;
  /* the figure builders name the stack in their titles */
  req.selection.kind = req.kind == CLI_ATTENTION_ENCODER ? AR_ATTENTION_ENCODER
                       : req.kind == CLI_ATTENTION_CROSS ? AR_ATTENTION_CROSS
                                                         : AR_ATTENTION_SELF;
  if (code < 0)
    {
      GError *error = NULL;
      g_autoptr (AsModel) model = NULL;
      gboolean translation_options = target != NULL || kind != NULL || v.alignment;
      if (!as_output_file_check (output, req.force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT, &error)
          || (model = cli_load_model (model_spec, &error)) == NULL)
        code = cli_fail (error);
      else if (translation_options && !as_model_get_config (model)->encoder_decoder)
        code = cli_usage_printf ("export", "%s is not a translation model: --%s needs one",
                                 as_model_get_name (model),
                                 target != NULL ? "target"
                                 : kind != NULL ? "kind"
                                                : "alignment");
      else if ((pair != NULL || compare_pair != NULL) && !as_model_takes_pairs (model))
        code = cli_usage_printf ("export", "%s is not an encoder: --%s needs one",
                                 as_model_get_name (model), pair != NULL ? "pair" : "compare-pair");
      else
        {
          ExportTexts in = { text, pair, compare, compare_pair };
          code = export_run (model, &in, output, &req, given);
        }
    }
  export_args_clear (&look);
  cli_export_lens_clear (&req.lens);
  cli_export_scan_clear (&req.scan);
  cli_export_patch_clear (&req.patch);
  cli_export_attribution_clear (&req.attribution);
  return code;
}
