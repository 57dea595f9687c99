/* pretokenize-gpt2.h — GPT-2's pre-tokenization: splitting text into the pieces that BPE sees.
 *
 * The pieces are the matches, in order, of GPT-2's regular expression (core/tokenizers/README.md,
 * "Tokenizers") with the semantics of Python's `regex` module, which Hugging Face's GPT2Tokenizer
 * uses. For valid UTF-8 text they cover the text exactly, without gaps. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AsGpt2Pretokenizer AsGpt2Pretokenizer;

/* One piece: LENGTH bytes starting at byte OFFSET of the text. */
typedef struct
{
  gsize offset;
  gsize length;
} AsGpt2Piece;

/* Compiles the pattern (once per tokenizer; the result may be shared between threads). */
AsGpt2Pretokenizer *as_gpt2_pretokenizer_new (GError **error);
void as_gpt2_pretokenizer_free (AsGpt2Pretokenizer *pretokenizer);

/* Appends the pieces of TEXT (LENGTH bytes, already checked to be valid UTF-8) to PIECES, a
 * GArray of AsGpt2Piece. Thread-safe. */
gboolean as_gpt2_pretokenize (const AsGpt2Pretokenizer *pretokenizer, const char *text,
                              gsize length, GArray *pieces, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsGpt2Pretokenizer, as_gpt2_pretokenizer_free)

G_END_DECLS
