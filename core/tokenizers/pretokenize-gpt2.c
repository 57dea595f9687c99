/* pretokenize-gpt2.c — GPT-2's pre-tokenization regex, run with PCRE2 directly.
 *
 * The published pattern is
 *     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * and Hugging Face's slow GPT2Tokenizer runs it with Python's `regex` module. What the three
 * engines involved mean by \s (found by matching every code point, U+0000–U+10FFFF, against
 * \s with each engine here: python3-regex 2022.10.31, libpcre2 10.42, Node 20):
 *   - Python `regex`, str pattern: exactly the Unicode White_Space property, 25 code points:
 *     U+0009–000D, 0020, 0085, 00A0, 1680, 2000–200A, 2028, 2029, 202F, 205F, 3000.
 *     (Python's built-in `re` differs: it also matches U+001C–001F. HF uses `regex`.)
 *   - PCRE2 with PCRE2_UTF|PCRE2_UCP: \p{Z} or \h or \v (pcre2pattern(3)), which is the same set
 *     plus U+180E MONGOLIAN VOWEL SEPARATOR: PCRE2's fixed \h list still holds it although it
 *     stopped being White_Space (and became Cf) in Unicode 6.3.
 *   - JavaScript /u (the npm peers used in the tests): adds U+FEFF and lacks U+0085.
 * So we spell \s out as the explicit White_Space class WS below, and \S as [^WS]; with it, PCRE2
 * gives Python `regex`'s pieces.
 * \p{L} and \p{N} mean the same general categories in every engine, but each engine carries its
 * own Unicode version: libpcre2 10.42 (Debian 12) has Unicode 14.0, python3-regex 2022.10.31 has
 * 15.0. The 4,348 letters and 40 numbers new in 15.0 (e.g. Kawi U+11F00–, Nag Mundari U+1E4D0–,
 * CJK extension H U+31350–323AF) are "other" characters for us; HF's own result for them depends
 * on the `regex` version the user has installed.
 * The pattern is compiled (and JIT-compiled when available) once per tokenizer; matching uses
 * per-call match data, so one compiled pattern serves many threads. */
#include "pretokenize-gpt2-private.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "as-error.h"
#include "tokenizer-work-private.h"

/* Python `regex`'s \s: the Unicode White_Space property, as a class body. */
#define WS                                                                                         \
  "\\x{9}-\\x{D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"               \
  "\\x{202F}\\x{205F}\\x{3000}"

static const char gpt2_pattern[]
    = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" WS "\\p{L}\\p{N}]+"
      "|[" WS "]+(?![^" WS "])|[" WS "]+";

struct _AsGpt2Pretokenizer
{
  pcre2_code *code;
};

AsGpt2Pretokenizer *
as_gpt2_pretokenizer_new (GError **error)
{
  int errcode = 0;
  PCRE2_SIZE erroffset = 0;
  pcre2_code *code = pcre2_compile ((PCRE2_SPTR) gpt2_pattern, PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_UCP, &errcode, &erroffset, NULL);
  if (code == NULL)
    {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message (errcode, msg, sizeof msg);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "GPT-2 pre-tokenization pattern: PCRE2 cannot compile it at offset %zu: %s",
                   (size_t) erroffset, (const char *) msg);
      return NULL;
    }
  /* JIT is an optimisation only: without it (unsupported CPU or build) pcre2_match interprets. */
  (void) pcre2_jit_compile (code, PCRE2_JIT_COMPLETE);

  AsGpt2Pretokenizer *pretokenizer = g_new0 (AsGpt2Pretokenizer, 1);
  pretokenizer->code = code;
  return pretokenizer;
}

void
as_gpt2_pretokenizer_free (AsGpt2Pretokenizer *pretokenizer)
{
  if (pretokenizer == NULL)
    return;
  pcre2_code_free (pretokenizer->code);
  g_free (pretokenizer);
}

gboolean
as_gpt2_pretokenize (const AsGpt2Pretokenizer *pretokenizer, const char *text, gsize length,
                     GArray *pieces, GError **error)
{
  pcre2_match_data *md = pcre2_match_data_create_from_pattern (pretokenizer->code, NULL);
  gsize offset = 0;
  gboolean ok = TRUE;

  /* Like Python's findall: each search starts where the previous match ended. No alternative
   * can match the empty string, so every step advances. */
  while (offset < length)
    {
      int rc = pcre2_match (pretokenizer->code, (PCRE2_SPTR) text, length, offset,
                            PCRE2_NO_UTF_CHECK, md, NULL);
      as_tokenizer_work_add (1);
      if (rc == PCRE2_ERROR_NOMATCH)
        break;
      if (rc < 0)
        {
          PCRE2_UCHAR msg[256];
          pcre2_get_error_message (rc, msg, sizeof msg);
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "GPT-2 pre-tokenization failed at byte %zu of the text: %s", (size_t) offset,
                       (const char *) msg);
          ok = FALSE;
          break;
        }
      PCRE2_SIZE *ovector = pcre2_get_ovector_pointer (md);
      AsGpt2Piece piece = { .offset = ovector[0], .length = ovector[1] - ovector[0] };
      g_assert (piece.length > 0);
      g_array_append_val (pieces, piece);
      offset = ovector[1];
    }

  pcre2_match_data_free (md);
  return ok;
}
