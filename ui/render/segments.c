/* segments.c — the sentence filter of a pair's attention (see segments.h). */
#include "segments.h"

static const char *const names[AR_N_SEGMENTS] = { "all", "a-a", "a-b", "b-a", "b-b" };
static const char *const arrows[AR_N_SEGMENTS] = { NULL, "A → A", "A → B", "B → A", "B → B" };

gboolean
ar_segments_block (const AsTrace *trace, ArSegments segments, int *row0, int *n_rows, int *col0,
                   int *n_cols)
{
  int t = trace->n_tokens, b = trace->segment_b_start;
  *row0 = *col0 = 0;
  *n_rows = *n_cols = t;
  if (segments == AR_SEGMENTS_ALL || segments >= AR_N_SEGMENTS || b <= 0 || b >= t)
    return FALSE;
  gboolean rows_b = segments == AR_SEGMENTS_B_A || segments == AR_SEGMENTS_B_B;
  gboolean cols_b = segments == AR_SEGMENTS_A_B || segments == AR_SEGMENTS_B_B;
  *row0 = rows_b ? b : 0;
  *n_rows = rows_b ? t - b : b;
  *col0 = cols_b ? b : 0;
  *n_cols = cols_b ? t - b : b;
  return TRUE;
}

gboolean
ar_segments_block_words (const AsTrace *trace, const AsWordSpans *spans, ArSegments segments,
                         int *row0, int *n_rows, int *col0, int *n_cols)
{
  int token_row0, token_rows, token_col0, token_cols;
  int w = spans->n_words;
  *row0 = *col0 = 0;
  *n_rows = *n_cols = w;
  if (!ar_segments_block (trace, segments, &token_row0, &token_rows, &token_col0, &token_cols))
    return FALSE;
  int b = as_word_spans_word_of (spans, trace->segment_b_start);
  if (b <= 0 || b >= w || spans->first[b] != trace->segment_b_start)
    return FALSE;
  *row0 = token_row0 > 0 ? b : 0;
  *n_rows = token_row0 > 0 ? w - b : b;
  *col0 = token_col0 > 0 ? b : 0;
  *n_cols = token_col0 > 0 ? w - b : b;
  return TRUE;
}

const char *
ar_segments_to_string (ArSegments segments)
{
  return segments < AR_N_SEGMENTS ? names[segments] : names[0];
}

gboolean
ar_segments_from_string (const char *name, ArSegments *segments)
{
  for (int i = 0; i < AR_N_SEGMENTS; i++)
    if (g_ascii_strcasecmp (name, names[i]) == 0)
      {
        *segments = (ArSegments) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ar_segments_arrow (ArSegments segments)
{
  return segments < AR_N_SEGMENTS ? arrows[segments] : NULL;
}
