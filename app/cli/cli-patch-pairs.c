/* cli-patch-pairs.c — `attnscope patch --pairs FILE`: activation patching over the sentence
 * pairs of a file (one `A<TAB>B` a line, both texts of the same number of tokens), the
 * normalised effects averaged over the pairs. The sums are exact (as-shard-sum.h), so
 * `--shard K/N -o PART` runs one shard of the lines and `attnscope merge` (cli_patch_merge)
 * prints from all parts what one process prints, bit for bit. For --what resid every pair must
 * have the same number of tokens (the table is L × T). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "as-patching.h"
#include "as-shard-sum.h"
#include "cli-intervene.h"
#include "cli-json.h"
#include "cli-patch-pairs.h"

static const char *const what_names[] = { "heads", "mlps", "resid" };

/* The sums over pairs. */
typedef struct
{
  int rows, cols;
  AsShardSum *sum; /* [rows][cols] */
  AsShardSum base, source;
  gint64 n_pairs;
} PatchSums;

typedef struct
{
  AsModel *model;
  const CliPatchPairsArgs *args;
  AsMetric metric;
  PatchSums sums;
} PairsJob;

static gboolean
patch_pair (const char *line, gpointer user_data, GError **error)
{
  PairsJob *job = user_data;
  const CliPatchPairsArgs *a = job->args;
  const char *tab = strchr (line, '\t');
  if (tab == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "expected A<TAB>B");
      return FALSE;
    }
  g_autofree char *text_a = g_strndup (line, tab - line);
  AsForwardOptions tokenize_only = { 0 };
  g_autoptr (AsTrace) ta
      = cli_forward_text (job->model, text_a, NULL, a->truncate, &tokenize_only, error);
  g_autoptr (AsTrace) tb = ta != NULL ? cli_forward_text (job->model, tab + 1, NULL, a->truncate,
                                                          &tokenize_only, error)
                                      : NULL;
  if (ta == NULL || tb == NULL)
    return FALSE;
  if (ta->n_tokens != tb->n_tokens)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "patching needs texts of the same number of tokens: A has %d, B has %d",
                   ta->n_tokens, tb->n_tokens);
      return FALSE;
    }
  const AsConfig *c = as_model_get_config (job->model);
  int T = ta->n_tokens;
  int rows = a->what == AS_PATCH_MLPS ? 1 : c->n_layer;
  int cols = a->what == AS_PATCH_HEADS ? c->n_head : a->what == AS_PATCH_RESID ? T : c->n_layer;
  PatchSums *s = &job->sums;
  if (s->sum == NULL)
    {
      s->rows = rows;
      s->cols = cols;
      s->sum = g_new0 (AsShardSum, (gsize) rows * cols);
    }
  else if (s->cols != cols)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "--what resid over pairs needs the same number of tokens in every pair: this "
                   "one has %d, the first %d",
                   cols, s->cols);
      return FALSE;
    }
  const AsTrace *base = a->reverse ? tb : ta, *source = a->reverse ? ta : tb;
  g_autofree double *effects = g_new (double, (gsize) rows *cols);
  AsPatchResult r;
  AsScanOptions so = { 0 };
  cli_intervene_scan_options (&so);
  if (!as_patch_with (job->model, base->ids, source->ids, T, &job->metric, a->what, &so, effects,
                      &r, error))
    return FALSE;
  for (gsize i = 0; i < (gsize) rows * cols; i++)
    as_shard_sum_add (&s->sum[i], effects[i]);
  as_shard_sum_add (&s->base, r.base);
  as_shard_sum_add (&s->source, r.source);
  s->n_pairs++;
  return TRUE;
}

static void
format (GString *out, const PatchSums *s, const char *model_name, const char *what,
        gboolean reverse, const char *measure, gboolean json)
{
  double n = (double) s->n_pairs, lo = INFINITY, hi = -INFINITY;
  gsize cells = (gsize) s->rows * s->cols;
  g_autofree double *mean = g_new (double, cells);
  for (gsize i = 0; i < cells; i++)
    {
      mean[i] = as_shard_sum_value (&s->sum[i]) / n;
      lo = MIN (lo, mean[i]);
      hi = MAX (hi, mean[i]);
    }
  if (!json)
    {
      g_string_append_printf (out,
                              "%s over %" G_GINT64_FORMAT " pairs, patching %s %s (0 = %s, 1 = "
                              "%s), mean effects; range %.4g to %.4g\n",
                              measure, s->n_pairs, what,
                              reverse ? "from A into B" : "from B into A", reverse ? "B" : "A",
                              reverse ? "A" : "B", lo, hi);
      for (int i = 0; i < s->rows; i++)
        {
          g_string_append_printf (out, "%5d", i);
          for (int j = 0; j < s->cols; j++)
            g_string_append_printf (out, " %11.4g", mean[(gsize) i * s->cols + j]);
          g_string_append (out, "\n");
        }
      return;
    }
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "model", model_name);
  cli_json_set_string (b, "what", what);
  cli_json_set_string (b, "direction", reverse ? "A into B" : "B into A");
  cli_json_set_string (b, "measure", measure);
  cli_json_set_int (b, "pairs", s->n_pairs);
  cli_json_set_number (b, "base", as_shard_sum_value (&s->base) / n);
  cli_json_set_number (b, "source", as_shard_sum_value (&s->source) / n);
  cli_json_set_number (b, "min", lo);
  cli_json_set_number (b, "max", hi);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (int i = 0; i < s->rows; i++)
    {
      json_builder_begin_array (b);
      for (int j = 0; j < s->cols; j++)
        cli_json_add_number (b, mean[(gsize) i * s->cols + j]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autofree char *line = cli_json_to_line (b);
  g_string_append (out, line);
}

static JsonNode *
part_options (const CliPatchPairsArgs *a, const char *measure)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_string (b, "what", what_names[a->what]);
  cli_json_set_string (b, "measure", measure);
  json_builder_set_member_name (b, "reverse");
  json_builder_add_boolean_value (b, a->reverse);
  json_builder_set_member_name (b, "truncate");
  json_builder_add_boolean_value (b, a->truncate);
  cli_intervene_add_part_options (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static JsonNode *
part_result (const PatchSums *s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  cli_json_set_int (b, "rows", s->rows);
  cli_json_set_int (b, "cols", s->cols);
  cli_json_set_int (b, "pairs", s->n_pairs);
  json_builder_set_member_name (b, "base");
  as_shard_sum_to_json (b, &s->base);
  json_builder_set_member_name (b, "source");
  as_shard_sum_to_json (b, &s->source);
  json_builder_set_member_name (b, "effects");
  json_builder_begin_array (b);
  for (gsize i = 0; i < (gsize) s->rows * s->cols; i++)
    as_shard_sum_to_json (b, &s->sum[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

int
cli_patch_pairs (const CliPatchPairsArgs *a, CliShard *shard)
{
  GError *error = NULL;
  g_autoptr (AsModel) model = cli_load_model (a->model, &error);
  if (model == NULL)
    return cli_fail (error);
  PairsJob job = { .model = model, .args = a };
  if (!cli_metric_from_words (model, a->token, a->vs_token, FALSE, &job.metric, &error))
    return cli_fail (error);
  gboolean ok = cli_shard_foreach_line (shard, "--pairs", a->pairs, patch_pair, &job, &error);
  g_autofree char *measure = cli_metric_describe (model, &job.metric);
  if (ok && shard->active)
    {
      if (job.sums.sum == NULL)
        job.sums.sum = g_new0 (AsShardSum, 1); /* a shard without pairs: nothing to add */
      ok = cli_shard_write_part (shard, model, part_options (a, measure), part_result (&job.sums),
                                 &error);
    }
  else if (ok)
    {
      g_autoptr (GString) out = g_string_new (NULL);
      format (out, &job.sums, as_model_get_name (model), what_names[a->what], a->reverse, measure,
              a->json);
      fwrite (out->str, 1, out->len, stdout);
    }
  g_free (job.sums.sum);
  return ok ? CLI_EXIT_OK : cli_fail (error);
}

/* Adds a part's RESULT (from PATH) to S. */
static gboolean
merge_result (PatchSums *s, JsonNode *result, const char *path, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
  JsonArray *effects = o != NULL && json_object_has_member (o, "effects")
                           ? json_object_get_array_member (o, "effects")
                           : NULL;
  gint64 pairs = o != NULL ? json_object_get_int_member_with_default (o, "pairs", 0) : 0;
  int rows = o != NULL ? (int) json_object_get_int_member_with_default (o, "rows", 0) : 0;
  int cols = o != NULL ? (int) json_object_get_int_member_with_default (o, "cols", 0) : 0;
  if (effects == NULL)
    goto bad;
  if (pairs == 0)
    return TRUE;
  if (rows <= 0 || cols <= 0 || json_array_get_length (effects) != (guint) (rows * cols)
      || (s->sum != NULL && (rows != s->rows || cols != s->cols)))
    goto bad;
  if (s->sum == NULL)
    {
      s->rows = rows;
      s->cols = cols;
      s->sum = g_new0 (AsShardSum, (gsize) rows * cols);
    }
  for (int i = 0; i < rows * cols; i++)
    {
      AsShardSum part = { 0 };
      if (!as_shard_sum_from_json (&part, json_array_get_element (effects, i), path, error))
        return FALSE;
      as_shard_sum_merge (&s->sum[i], &part);
    }
  AsShardSum base = { 0 }, source = { 0 };
  if (!as_shard_sum_from_json (&base, json_object_get_member (o, "base"), path, error)
      || !as_shard_sum_from_json (&source, json_object_get_member (o, "source"), path, error))
    return FALSE;
  as_shard_sum_merge (&s->base, &base);
  as_shard_sum_merge (&s->source, &source);
  s->n_pairs += pairs;
  return TRUE;

bad:
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "%s: not a patch --pairs part (rows, cols, pairs, effects), or its table has "
               "another shape than the other parts'",
               path);
  return FALSE;
}

gboolean
cli_patch_merge (GString *out, GPtrArray *parts, gboolean json, GError **error)
{
  PatchSums s = { 0 };
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < parts->len; i++)
    {
      const AsShardPart *part = parts->pdata[i];
      ok = merge_result (&s, part->result, part->path, error);
    }
  if (ok && s.n_pairs == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the parts hold no pair");
      ok = FALSE;
    }
  if (ok)
    {
      const AsShardPart *first = parts->pdata[0];
      JsonObject *o = json_node_get_object (first->options);
      format (out, &s, first->model_name,
              json_object_get_string_member_with_default (o, "what", "heads"),
              json_object_get_boolean_member_with_default (o, "reverse", FALSE),
              json_object_get_string_member_with_default (o, "measure", ""), json);
    }
  g_free (s.sum);
  return ok;
}
