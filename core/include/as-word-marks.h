/* as-word-marks.h — which tokens of a text stand for a given word.
 *
 * The projections mark "every occurrence of a word" across many sentences (the lecture's
 * "spring" as a season, a source and a coil). Tokens do not line up with words — GPT-2 writes
 * " spring" as one token with its leading space ("Ġspring") but "Spring" as "Sp" + "ring" — so
 * the marking works on the text:
 *
 *   - an occurrence of WORD is a place in the text where its characters appear, compared one by
 *     one after lowering their case (g_unichar_tolower: "Spring" and "SPRING" are occurrences of
 *     "spring"), as a whole word: the characters just before and after it, if any, are not
 *     letters, digits or combining marks when WORD's first / last character is one ("springs",
 *     "offspring" and "springtime" do not hold "spring"; "spring's" and "spring," do);
 *   - each token covers the bytes of the text it stands for (as_token_spans: its
 *     as_tokenizer_dup_token_text() bytes found in order, so " spring" covers the space too);
 *   - a token is marked when its bytes overlap an occurrence: every sub-word piece of the word
 *     ("Sp" and "ring"), and a token whose leading space is not part of the word (" spring").
 *     A token that covers the word and more ("Ġspringtime" for "springtime") is marked only if
 *     the word occurs, which it does not there; special tokens that stand for no bytes of the
 *     text are never marked. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* BEGIN [T], END [T]: the byte range [begin, end) of TEXT (the text TRACE was computed from)
 * that each token stands for. Each token's bytes are searched from where the previous token
 * ended, exactly, else ignoring ASCII case (for tokenizers that lower the text); a token not
 * found (a special token) gets the empty range at that point. */
void as_token_spans (int *begin, int *end, const AsTrace *trace, const char *text);

/* Checks WORD for marking: valid UTF-8 holding at least one character that is not white space.
 * Fails with AS_ERROR_INPUT saying what is wrong. */
gboolean as_word_check (const char *word, GError **error);

/* MARKS [T] = TRUE for every token of TRACE that overlaps an occurrence of WORD (surrounding white
 * space ignored) in TEXT, FALSE otherwise. Returns the number of occurrences in TEXT (0 for a
 * WORD that as_word_check() refuses). */
int as_word_mark_tokens (gboolean *marks, const AsTrace *trace, const char *text, const char *word);

G_END_DECLS
