/* segments.h — the sentence filter of a pair's attention (BertViz's "Sentence A → Sentence B"):
 * which query rows and key columns of a [T][T] matrix a figure shows.
 *
 * A pair's trace (an encoder run on two texts, as-trace.h) has two segments: A = positions
 * 0 .. segment_b_start − 1 (BERT's "[CLS] A [SEP]", token type 0) and B = segment_b_start .. T − 1
 * ("B [SEP]", token type 1; RoBERTa's "</s> B </s>"). A filter X→Y keeps the rows of segment X
 * (the queries) and the columns of segment Y (the keys); in the words view the words of those
 * tokens. A single text has no segments: every filter shows the whole matrix. */
#pragma once

#include <glib.h>

#include "as-trace.h"
#include "as-word-spans.h"

G_BEGIN_DECLS

typedef enum
{
  AR_SEGMENTS_ALL, /* the whole matrix */
  AR_SEGMENTS_A_A, /* queries of A, keys of A */
  AR_SEGMENTS_A_B, /* queries of A, keys of B */
  AR_SEGMENTS_B_A,
  AR_SEGMENTS_B_B,
  AR_N_SEGMENTS,
} ArSegments;

/* The block SEGMENTS selects in TRACE's [T][T] matrices: rows *ROW0 .. *ROW0 + *N_ROWS − 1 and
 * columns *COL0 .. *COL0 + *N_COLS − 1. Returns FALSE (and the whole matrix) when SEGMENTS is
 * AR_SEGMENTS_ALL or TRACE is not a pair. */
gboolean ar_segments_block (const AsTrace *trace, ArSegments segments, int *row0, int *n_rows,
                            int *col0, int *n_cols);

/* The same block in words (SPANS of TRACE, as-word-spans.h): the words of each sentence. FALSE (and
 * all words) also when segment B does not start a word. */
gboolean ar_segments_block_words (const AsTrace *trace, const AsWordSpans *spans,
                                  ArSegments segments, int *row0, int *n_rows, int *col0,
                                  int *n_cols);

/* "all", "a-a", "a-b", "b-a", "b-b" (the command line's --segments values) and back; FALSE for
 * an unknown name. */
const char *ar_segments_to_string (ArSegments segments);
gboolean ar_segments_from_string (const char *name, ArSegments *segments);

/* The filter for a title: "A → B" (NULL for AR_SEGMENTS_ALL). Static. */
const char *ar_segments_arrow (ArSegments segments);

G_END_DECLS
