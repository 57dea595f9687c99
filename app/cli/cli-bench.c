/* cli-bench.c — `attnscope bench`: time forward passes in-process (load once, warm up, repeat),
 * for the side-by-side benchmarks in tests/bench/. */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include "as-forward.h"
#include "cli-json.h"
#include "cli-commands.h"
#include "cli-common.h"

#define BENCH_MAX_REPEAT 100000

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
peak_rss_mb (void)
{
  struct rusage usage;
  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/* Times REPEAT passes over T deterministic ids; fills median and min in ms. */
static gboolean
time_passes (AsModel *model, int T, int repeat, gboolean all_logits, double *median, double *min,
             GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  g_autofree int32_t *ids = g_new (int32_t, T);
  for (int i = 0; i < T; i++)
    ids[i] = (int32_t) (((gint64) i * 7919 + 13) % c->vocab_size);
  AsForwardOptions options = { .all_logits = all_logits };
  g_autofree double *ms = g_new (double, repeat);
  for (int r = -1; r < repeat; r++) /* r = -1 is the warm-up */
    {
      gint64 start = g_get_monotonic_time ();
      AsTrace *trace = as_forward (model, ids, T, &options, error);
      gint64 end = g_get_monotonic_time ();
      if (trace == NULL)
        return FALSE;
      as_trace_unref (trace);
      if (r >= 0)
        ms[r] = (end - start) / 1000.0;
    }
  qsort (ms, repeat, sizeof (double), compare_doubles);
  *median = repeat % 2 ? ms[repeat / 2] : 0.5 * (ms[repeat / 2 - 1] + ms[repeat / 2]);
  *min = ms[0];
  return TRUE;
}

int
cli_bench (int argc, char **argv)
{
  g_autofree char *model_spec = NULL, *tokens = NULL;
  int repeat = 10;
  gboolean json = FALSE, all_logits = FALSE;
  const GOptionEntry entries[] = {
    { "model", 'm', 0, G_OPTION_ARG_STRING, &model_spec, "Model folder, shipped name or hub id",
      "M" },
    { "tokens", 'T', 0, G_OPTION_ARG_STRING, &tokens, "Sequence length(s), e.g. 8 or 8,64,256",
      "T" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Timed passes per length (10)", "N" },
    { "all-logits", 0, 0, G_OPTION_ARG_NONE, &all_logits,
      "Compute logits for every position, not only the last", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object per length", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("bench", "", "Time forward passes.", entries, &argc, &argv, &code))
    return code;
  if (argc > 1)
    return cli_usage_printf ("bench", "unexpected argument '%s'", argv[1]);
  if (tokens == NULL)
    return cli_usage_printf ("bench", "--tokens T is required");
  if (repeat < 1 || repeat > BENCH_MAX_REPEAT)
    return cli_fail_printf ("--repeat %d is out of range (expected 1 to %d)", repeat,
                            BENCH_MAX_REPEAT);

  GError *error = NULL;
  g_autoptr (GArray) lengths = cli_parse_ids (tokens, "--tokens", &error);
  if (lengths == NULL)
    return cli_fail (error);

  gint64 start = g_get_monotonic_time ();
  g_autoptr (AsModel) model = cli_load_model (model_spec, &error);
  if (model == NULL)
    return cli_fail (error);
  double load_ms = (g_get_monotonic_time () - start) / 1000.0;
  /* Every length is checked before the first pass allocates anything for it. */
  int context = as_model_get_config (model)->n_positions;
  for (guint i = 0; i < lengths->len; i++)
    {
      int T = g_array_index (lengths, int32_t, i);
      if (T < 1 || T > context)
        return cli_fail_printf ("--tokens %d is out of range: the model's context is %d tokens "
                                "(expected 1 to %d)",
                                T, context, context);
    }

  for (guint i = 0; i < lengths->len; i++)
    {
      int T = g_array_index (lengths, int32_t, i);
      double median, min;
      if (!time_passes (model, T, repeat, all_logits, &median, &min, &error))
        return cli_fail (error);
      if (json)
        {
          g_autoptr (JsonBuilder) out = json_builder_new ();
          json_builder_begin_object (out);
          cli_json_set_string (out, "model", as_model_get_name (model));
          cli_json_set_int (out, "tokens", T);
          cli_json_set_int (out, "repeat", repeat);
          json_builder_set_member_name (out, "all_logits");
          json_builder_add_boolean_value (out, all_logits);
          cli_json_set_number (out, "median_ms", median);
          cli_json_set_number (out, "min_ms", min);
          cli_json_set_number (out, "load_ms", load_ms);
          cli_json_set_number (out, "peak_rss_mb", peak_rss_mb ());
          cli_json_set_int (out, "threads", as_forward_threads ());
          json_builder_end_object (out);
          cli_json_print (out);
        }
      else
        printf ("T=%-5d median %9.3f ms  min %9.3f ms  (load %.1f ms, peak RSS %.1f MB)\n", T,
                median, min, load_ms, peak_rss_mb ());
      /* one line per length as it is measured: a reader waiting for it must get it, and a
       * write that fails stops the run */
      if (fflush (stdout) != 0)
        return cli_fail_printf ("writing to standard output failed: %s", g_strerror (errno));
    }
  return CLI_EXIT_OK;
}
