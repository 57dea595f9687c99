/* bench-translate.c — a translation with every attention captured, timed in this process: what
 * the window does for an encoder–decoder model (greedy or beam search with the model's step
 * decoder, then one as_forward_translation over the source and the result keeping both stacks'
 * attention, cross-attention, hidden states and logits). The PyTorch side is
 * t5_reference.py bench (run-seq2seq-bench.sh).
 *
 * usage: bench-translate MODEL_DIR SRC_IDS MAX_LENGTH REPEAT
 *   SRC_IDS "a,b,c"; one warm-up run, then REPEAT timed runs. Prints one JSON line: min and
 *   median milliseconds of the whole (search + capture) and of the search alone, and the ids. */
#include <stdio.h>
#include <stdlib.h>

#include "as-forward.h"
#include "as-model.h"
#include "as-translate.h"

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *ms, int n)
{
  qsort (ms, n, sizeof *ms, compare_doubles);
  return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: bench-translate MODEL_DIR SRC_IDS MAX_LENGTH REPEAT\n");
      return 2;
    }
  GError *error = NULL;
  AsModel *model = as_model_load (argv[1], &error);
  if (model == NULL)
    {
      fprintf (stderr, "bench-translate: %s\n", error->message);
      return 1;
    }
  GArray *src = g_array_new (FALSE, FALSE, sizeof (int32_t));
  char **parts = g_strsplit (argv[2], ",", -1);
  for (char **p = parts; *p != NULL; p++)
    {
      int32_t id = (int32_t) g_ascii_strtoll (*p, NULL, 10);
      g_array_append_val (src, id);
    }
  g_strfreev (parts);
  int repeat = MAX (1, atoi (argv[4]));
  AsTranslateOptions options = { .num_beams = 1, .max_length = atoi (argv[3]) };
  double *total = g_new (double, repeat), *search = g_new (double, repeat);
  GString *ids = g_string_new (NULL);
  for (int r = -1; r < repeat; r++) /* r = -1 is the warm-up */
    {
      gint64 t0 = g_get_monotonic_time ();
      AsTranslation *t
          = as_translate (model, (int32_t *) src->data, (int) src->len, &options, &error);
      gint64 t1 = g_get_monotonic_time ();
      AsForwardOptions capture = { .all_logits = TRUE };
      AsTrace *trace = t == NULL ? NULL
                                 : as_forward_translation (model, (int32_t *) src->data,
                                                           (int) src->len, (int32_t *) t->ids->data,
                                                           (int) t->ids->len, &capture, &error);
      gint64 t2 = g_get_monotonic_time ();
      if (trace == NULL)
        {
          fprintf (stderr, "bench-translate: %s\n", error->message);
          return 1;
        }
      if (r >= 0)
        total[r] = (t2 - t0) / 1000.0, search[r] = (t1 - t0) / 1000.0;
      g_string_truncate (ids, 0);
      for (guint i = 0; i < t->ids->len; i++)
        g_string_append_printf (ids, i ? ",%d" : "%d", g_array_index (t->ids, int32_t, i));
      as_trace_unref (trace);
      as_translation_free (t);
    }
  double total_min = total[0], search_min = search[0];
  for (int r = 1; r < repeat; r++)
    total_min = MIN (total_min, total[r]), search_min = MIN (search_min, search[r]);
  printf ("{\"impl\": \"attnscope\", \"repeat\": %d, \"min_ms\": %.3f, \"median_ms\": %.3f, "
          "\"search_min_ms\": %.3f, \"search_median_ms\": %.3f, \"ids\": [%s]}\n",
          repeat, total_min, median (total, repeat), search_min, median (search, repeat), ids->str);
  g_string_free (ids, TRUE);
  g_free (total), g_free (search);
  g_array_unref (src);
  as_model_unref (model);
  return 0;
}
