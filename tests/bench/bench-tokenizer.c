/* bench-tokenizer.c — tokenizing speed of attnscope's tokenizer.json reader and pipeline.
 *
 * Usage: bench-tokenizer TOKENIZER.json FILE (lines|whole) REPEAT
 * Loads the tokenizer (timed), then encodes FILE REPEAT times after one warm-up — each line as
 * one text ("lines", as HF's tokenizer(text) per line, special tokens added) or the whole file as
 * one text ("whole") — and prints one JSON object: load_ms, the median and min encode times,
 * the number of ids and their sum (so that a peer's run on the same input can be checked to give
 * the same ids). Single-threaded. Run by tests/bench/run-tokenizer-bench.sh next to HF's library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "as-tokenizer.h"

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Encodes TEXTS; returns the number of ids, their sum in *SUM. */
static guint64
encode_all (AsTokenizer *tokenizer, GPtrArray *texts, guint64 *sum)
{
  guint64 n = 0;
  *sum = 0;
  for (guint i = 0; i < texts->len; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) ids = as_tokenizer_encode (tokenizer, texts->pdata[i], -1, &error);
      if (ids == NULL)
        {
          fprintf (stderr, "bench-tokenizer: %s\n", error->message);
          exit (1);
        }
      for (guint k = 0; k < ids->len; k++)
        *sum += (guint64) g_array_index (ids, int32_t, k);
      n += ids->len;
    }
  return n;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: bench-tokenizer TOKENIZER.json FILE lines|whole REPEAT\n");
      return 2;
    }
  int repeat = atoi (argv[4]);
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (argv[2], &contents, &length, NULL))
    {
      fprintf (stderr, "bench-tokenizer: cannot read %s\n", argv[2]);
      return 1;
    }
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  if (strcmp (argv[3], "lines") == 0)
    {
      for (char *line = strtok (contents, "\n"); line != NULL; line = strtok (NULL, "\n"))
        g_ptr_array_add (texts, line);
    }
  else
    g_ptr_array_add (texts, contents);

  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_load_json (argv[1], &error);
  if (tokenizer == NULL)
    {
      fprintf (stderr, "bench-tokenizer: %s\n", error->message);
      return 1;
    }
  double load_ms = (double) (g_get_monotonic_time () - t0) / 1000.0;

  guint64 sum = 0, n = encode_all (tokenizer, texts, &sum); /* warm-up */
  g_autofree double *ms = g_new (double, repeat);
  for (int r = 0; r < repeat; r++)
    {
      gint64 start = g_get_monotonic_time ();
      n = encode_all (tokenizer, texts, &sum);
      ms[r] = (double) (g_get_monotonic_time () - start) / 1000.0;
    }
  qsort (ms, repeat, sizeof (double), compare_double);
  printf ("{\"load_ms\": %.1f, \"median_ms\": %.2f, \"min_ms\": %.2f, \"texts\": %u, \"ids\": "
          "%" G_GUINT64_FORMAT ", \"id_sum\": %" G_GUINT64_FORMAT "}\n",
          load_ms, ms[repeat / 2], ms[0], texts->len, n, sum);
  return 0;
}
