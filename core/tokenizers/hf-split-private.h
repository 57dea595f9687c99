/* hf-split-private.h — the pieces a text is cut into between the steps of a Hugging Face
 * tokenizer, and the cutting itself.
 *
 * A piece (AsHfSplit) is a run of (normalized) text, or an added token already found in it. The
 * added vocabulary, the normalizer and the pre-tokenizers work on a GArray of pieces: each step
 * replaces every piece that has no token by the pieces it cuts it into, dropping empty ones
 * (tokenizer/pre_tokenizer.rs, PreTokenizedString::split). Cutting follows
 * NormalizedString::split (tokenizer/normalizer.rs): the pattern's matches and the text between
 * them cover the piece, and the behaviour (Removed, Isolated, MergedWithPrevious,
 * MergedWithNext, Contiguous) says what becomes of the matches. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hf-regex-private.h"

G_BEGIN_DECLS

typedef struct
{
  GString *text;     /* owned */
  int32_t id;        /* an added token's id, or -1 while the piece still needs the model */
  gboolean at_start; /* the piece begins at offset 0 of the input (Metaspace's "first") */
} AsHfSplit;

typedef enum
{
  AS_HF_REMOVED,
  AS_HF_ISOLATED,
  AS_HF_MERGED_WITH_PREVIOUS,
  AS_HF_MERGED_WITH_NEXT,
  AS_HF_CONTIGUOUS,
} AsHfBehavior;

/* One stretch of a piece: [start, end) and whether the pattern matched it. */
typedef struct
{
  gsize start;
  gsize end;
  gboolean is_match;
} AsHfStretch;

/* A new GArray of AsHfSplit that frees the texts of its elements. */
GArray *as_hf_splits_new (void);

/* Appends a piece holding LENGTH bytes of TEXT. */
void as_hf_splits_append (GArray *splits, const char *text, gsize length, int32_t id,
                          gboolean at_start);

/* Parses "Removed", "Isolated", ... into *BEHAVIOR; FALSE for an unknown name. */
gboolean as_hf_behavior_parse (const char *name, AsHfBehavior *behavior);

/* The stretches of TEXT for the regex matches RANGES (in order, non-overlapping), optionally
 * inverted, into STRETCHES (AsHfStretch), as Pattern::find_matches (tokenizer/pattern.rs). */
void as_hf_stretches_from_ranges (const GArray *ranges, gsize length, gboolean invert,
                                  GArray *stretches);

/* The stretches of TEXT where every character for which IS_MATCH (C, DATA) is true is a match of
 * its own (the Fn(char) -> bool pattern), optionally inverted. */
typedef gboolean (*AsHfCharClass) (gunichar c, gconstpointer data);
void as_hf_stretches_from_chars (const char *text, gsize length, AsHfCharClass is_match,
                                 gconstpointer data, gboolean invert, GArray *stretches);

/* Appends to OUT the pieces of PIECE (a split without token) that STRETCHES and BEHAVIOR keep.
 * The first kept piece inherits PIECE->at_start when it begins at offset 0. */
void as_hf_split_by_stretches (const AsHfSplit *piece, GArray *stretches, AsHfBehavior behavior,
                               GArray *out);

G_END_DECLS
