/* hf-regex.c — Oniguruma patterns of tokenizer.json run with PCRE2 (hf-regex-private.h).
 *
 * Every difference handled here was found by matching all code points U+0001–U+10FFFF against
 * the construct in both engines (the npm `tokenizers` library for Oniguruma, libpcre2 10.42 for
 * PCRE2) and is checked by tests/core/test-tokenizer-regex.c. */
#define _GNU_SOURCE /* memmem */
#include "hf-regex-private.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "as-error.h"
#include "tokenizer-work-private.h"

/* Oniguruma's \s: the White_Space property, as a class body. */
#define WS                                                                                         \
  "\\x{9}-\\x{D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}"               \
  "\\x{202F}\\x{205F}\\x{3000}"
/* Oniguruma's Unicode \w, as a class body: Alphabetic (letters, letter numbers and
 * Other_Alphabetic, whose members outside the marks are the circled and squared Latin letters),
 * marks, decimal digits, connector punctuation, and the Latin-1 superscripts and fractions
 * ²³¹¼½¾ (but not ZWNJ/ZWJ, which Rust regex's \w has). */
#define WORD                                                                                       \
  "\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}\\x{24B6}-\\x{24E9}"       \
  "\\x{1F130}-\\x{1F149}\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}"
#define HEX "0-9a-fA-F"

/* A pattern comes from a file we do not trust. Real tokenizer.json patterns are a few hundred
 * bytes; the translation can grow one byte of pattern ~80 times (\s, \w), so the length is
 * bounded before translating. */
#define PATTERN_MAX_BYTES (16u << 10)
/* Per pcre2_match call: backtracking steps, nested backtracking depth and heap (KiB). The
 * built-in GPT-2 pattern encodes 1 MB lines within them; a catastrophic pattern such as (a+)+$
 * on 70 bytes hits the step limit within a 0.1 s run of attnscope instead of running for hours.
 * A text of N bytes makes at most about 2 (N + 1) calls (a match, or one character skipped after
 * an empty match), which bounds what a hostile pattern can cost. */
#define MATCH_LIMIT 200000u
#define DEPTH_LIMIT 100000u
#define HEAP_LIMIT_KIB (64u << 10)

struct _AsHfRegex
{
  char *pattern;
  char *where; /* "FILE: JSON path" for messages at match time, or NULL */
  gboolean literal;
  pcre2_code *code;            /* NULL for a literal */
  pcre2_match_context *limits; /* NULL for a literal */
};

/* Appends the translation of the escape at P (P[0] == '\\') and returns the number of pattern
 * bytes it took. IN_CLASS: inside [...]. */
static gsize
translate_escape (GString *out, const char *p, gboolean in_class)
{
  char e = p[1];
  switch (e)
    {
    case 's':
      g_string_append (out, in_class ? WS : "[" WS "]");
      return 2;
    case 'S':
      g_string_append (out, in_class ? "\\S" : "[^" WS "]");
      return 2;
    case 'w':
      g_string_append (out, in_class ? WORD : "[" WORD "]");
      return 2;
    case 'W':
      g_string_append (out, in_class ? "\\W" : "[^" WORD "]");
      return 2;
    case 'h':
      g_string_append (out, in_class ? HEX : "[" HEX "]");
      return 2;
    case 'H':
      g_string_append (out, in_class ? "\\H" : "[^" HEX "]");
      return 2;
    case 'b':
      if (in_class)
        break;
      g_string_append (out, "(?:(?<=[" WORD "])(?![" WORD "])|(?<![" WORD "])(?=[" WORD "]))");
      return 2;
    case 'B':
      if (in_class)
        break;
      g_string_append (out, "(?:(?<=[" WORD "])(?=[" WORD "])|(?<![" WORD "])(?![" WORD "]))");
      return 2;
    case 'u':
      if (g_ascii_isxdigit (p[2]) && g_ascii_isxdigit (p[3]) && g_ascii_isxdigit (p[4])
          && g_ascii_isxdigit (p[5]))
        {
          g_string_append_printf (out, "\\x{%.4s}", p + 2);
          return 6;
        }
      break;
    case 'p':
    case 'P':
      if (p[2] == '{' && p[3] == '^')
        {
          g_string_append_printf (out, "\\%c{", e == 'p' ? 'P' : 'p');
          return 4;
        }
      break;
    case '\0':
      g_string_append_c (out, '\\');
      return 1;
    default:
      break;
    }
  /* Anything else means the same in both engines: copy the backslash and the next character. */
  gsize n = 1 + (gsize) (g_utf8_next_char (p + 1) - (p + 1));
  g_string_append_len (out, p, (gssize) n);
  return n;
}

/* At P == "(?": copies an inline option group, turning Ruby's m (dot matches newline) into
 * PCRE2's s. Returns the bytes taken (0 when P is not an option group). */
static gsize
translate_options (GString *out, const char *p)
{
  gsize i = 2;
  while (p[i] == 'i' || p[i] == 'm' || p[i] == 'x' || p[i] == '-')
    i++;
  if (i == 2 || (p[i] != ')' && p[i] != ':'))
    return 0;
  g_string_append (out, "(?");
  for (gsize k = 2; k < i; k++)
    g_string_append_c (out, p[k] == 'm' ? 's' : p[k]);
  return i;
}

char *
as_hf_regex_translate (const char *pattern)
{
  GString *out = g_string_new (NULL);
  int class_depth = 0;
  const char *p = pattern;
  while (*p != '\0')
    {
      if (*p == '\\')
        {
          p += translate_escape (out, p, class_depth > 0);
          continue;
        }
      if (*p == '[')
        {
          class_depth++;
          g_string_append_c (out, '[');
          p++;
          /* a ']' right after '[' or '[^' is a literal in both engines */
          if (*p == '^')
            g_string_append_c (out, *p++);
          if (*p == ']')
            g_string_append_c (out, *p++);
          continue;
        }
      if (*p == ']' && class_depth > 0)
        class_depth--;
      else if (class_depth == 0 && p[0] == '(' && p[1] == '?')
        {
          gsize n = translate_options (out, p);
          if (n > 0)
            {
              p += n;
              continue;
            }
        }
      g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

/* PATTERN for a message: its first 80 characters, then "…" (a hostile one can be 16 KiB). */
static char *
shorten (const char *pattern)
{
  if (g_utf8_strlen (pattern, 81) <= 80)
    return g_strdup (pattern);
  g_autofree char *head = g_utf8_substring (pattern, 0, 80);
  return g_strconcat (head, "…", NULL);
}

AsHfRegex *
as_hf_regex_new (const char *pattern, gboolean literal, GError **error)
{
  g_autoptr (AsHfRegex) regex = g_new0 (AsHfRegex, 1);
  regex->pattern = g_strdup (pattern);
  regex->literal = literal && *pattern != '\0';
  if (regex->literal)
    return g_steal_pointer (&regex);
  gsize length = strlen (pattern);
  if (length > PATTERN_MAX_BYTES)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "the regex is %zu bytes long, more than the %u allowed", (size_t) length,
                   PATTERN_MAX_BYTES);
      return NULL;
    }

  g_autofree char *translated = as_hf_regex_translate (pattern);
  int errcode = 0;
  PCRE2_SIZE erroffset = 0;
  regex->code = pcre2_compile ((PCRE2_SPTR) translated, PCRE2_ZERO_TERMINATED,
                               PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &errcode, &erroffset, NULL);
  if (regex->code == NULL)
    {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message (errcode, msg, sizeof msg);
      g_autofree char *shown = shorten (pattern);
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "invalid regex \"%s\": %s (at offset %zu)",
                   shown, (const char *) msg, (size_t) erroffset);
      return NULL;
    }
  /* JIT is an optimisation only: without it pcre2_match interprets. */
  (void) pcre2_jit_compile (regex->code, PCRE2_JIT_COMPLETE);
  regex->limits = pcre2_match_context_create (NULL);
  pcre2_set_match_limit (regex->limits, MATCH_LIMIT);
  pcre2_set_depth_limit (regex->limits, DEPTH_LIMIT);
  pcre2_set_heap_limit (regex->limits, HEAP_LIMIT_KIB);
  return g_steal_pointer (&regex);
}

AsHfRegex *
as_hf_regex_read (const AsHfJson *json, const char *name, GError **error)
{
  g_autofree char *path = as_hf_json_child_path (json, name, -1);
  AsHfJson sub = { as_hf_json_member (json, name), json->file, path };
  const char *s = NULL, *r = NULL;
  if (sub.node == NULL || !JSON_NODE_HOLDS_OBJECT (sub.node))
    {
      as_hf_json_fail (json, error, "\"%s\" must be {\"String\": ...} or {\"Regex\": ...}", name);
      return NULL;
    }
  if (!as_hf_json_string (&sub, "String", NULL, &s, error)
      || !as_hf_json_string (&sub, "Regex", NULL, &r, error))
    return NULL;
  if ((s == NULL) == (r == NULL))
    {
      as_hf_json_fail (&sub, error, "expected exactly one of \"String\" and \"Regex\"");
      return NULL;
    }
  GError *local = NULL;
  AsHfRegex *regex = as_hf_regex_new (s != NULL ? s : r, s != NULL, &local);
  if (regex == NULL)
    {
      as_hf_json_fail (&sub, error, "%s", local->message);
      g_error_free (local);
      return NULL;
    }
  regex->where = g_strdup_printf ("%s: %s", json->file, path);
  return regex;
}

void
as_hf_regex_free (AsHfRegex *regex)
{
  if (regex == NULL)
    return;
  if (regex->code != NULL)
    pcre2_code_free (regex->code);
  if (regex->limits != NULL)
    pcre2_match_context_free (regex->limits);
  g_free (regex->pattern);
  g_free (regex->where);
  g_free (regex);
}

const char *
as_hf_regex_get_pattern (const AsHfRegex *regex)
{
  return regex->pattern;
}

static void
find_literal (const AsHfRegex *regex, const char *text, gsize length, GArray *matches)
{
  gsize n = strlen (regex->pattern);
  gsize pos = 0;
  while (pos + n <= length)
    {
      const char *hit = memmem (text + pos, length - pos, regex->pattern, n);
      if (hit == NULL)
        break;
      AsHfRange r = { (gsize) (hit - text), (gsize) (hit - text) + n };
      g_array_append_val (matches, r);
      pos = r.end;
    }
}

gboolean
as_hf_regex_find_all (const AsHfRegex *regex, const char *text, gsize length, GArray *matches,
                      GError **error)
{
  if (regex->literal)
    {
      find_literal (regex, text, length, matches);
      return TRUE;
    }
  pcre2_match_data *md = pcre2_match_data_create_from_pattern (regex->code, NULL);
  gsize search = 0;
  gssize last_match_end = -1;
  gboolean ok = TRUE;
  while (search <= length)
    {
      int rc = pcre2_match (regex->code, (PCRE2_SPTR) text, length, search, PCRE2_NO_UTF_CHECK, md,
                            regex->limits);
      if (rc == PCRE2_ERROR_NOMATCH)
        break;
      if (rc < 0)
        {
          PCRE2_UCHAR msg[256];
          pcre2_get_error_message (rc, msg, sizeof msg);
          /* a limit, for a pattern that backtracks without end: name where it came from */
          if (regex->where != NULL)
            g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s: the regex gave up at byte %zu: %s",
                         regex->where, (size_t) search, (const char *) msg);
          else
            g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "regex \"%s\" failed at byte %zu: %s",
                         regex->pattern, (size_t) search, (const char *) msg);
          ok = FALSE;
          break;
        }
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer (md);
      AsHfRange r = { ov[0], ov[1] };
      as_tokenizer_work_add (r.end - search + 1);
      if (r.start == r.end && last_match_end == (gssize) r.end)
        {
          /* onig's find_iter: no empty match right after the previous match; step one char */
          if (search >= length)
            break;
          search = (gsize) (g_utf8_next_char (text + search) - text);
          continue;
        }
      g_array_append_val (matches, r);
      last_match_end = (gssize) r.end;
      search = r.end;
      if (r.start == r.end && search >= length)
        break;
    }
  pcre2_match_data_free (md);
  return ok;
}
