/* hf-regex-private.h — the regular expressions of tokenizer.json (Oniguruma syntax, as Hugging
 * Face's Rust library compiles them with the `onig` crate) run with PCRE2.
 *
 * The pattern is translated once where the two engines differ (core/README.md, "Regular
 * expressions"): \s is Unicode White_Space (PCRE2's also holds U+180E); \w, \W, \b, \B follow
 * Oniguruma's Unicode word class (letters, marks, decimal digits, letter numbers, connector
 * punctuation, ²³¹¼½¾); \h is a hexadecimal digit (PCRE2: horizontal space); \uHHHH;
 * \p{^X}; the inline option (?m) is Ruby's dot-all; ^ and $ are line anchors. Matching follows
 * the onig crate's find_iter: leftmost matches, and an empty match right where the previous
 * match ended is skipped. A literal pattern (tokenizer.json's {"String": ...}) is searched as
 * bytes. */
#pragma once

#include <glib.h>

#include "hf-json-private.h"

G_BEGIN_DECLS

typedef struct _AsHfRegex AsHfRegex;

typedef struct
{
  gsize start;
  gsize end;
} AsHfRange;

/* Compiles PATTERN (LITERAL: a plain string to find). Errors (AS_ERROR_FORMAT) carry PCRE2's
 * message and offset; the caller prefixes the JSON path. */
AsHfRegex *as_hf_regex_new (const char *pattern, gboolean literal, GError **error);
void as_hf_regex_free (AsHfRegex *regex);

/* Reads member NAME of JSON, a pattern {"String": s} (a literal) or {"Regex": r}, and compiles
 * it; errors name the JSON path. */
AsHfRegex *as_hf_regex_read (const AsHfJson *json, const char *name, GError **error);

/* The pattern as given in tokenizer.json. Borrowed. */
const char *as_hf_regex_get_pattern (const AsHfRegex *regex);

/* Appends every match of REGEX in TEXT (LENGTH bytes of valid UTF-8) to MATCHES (AsHfRange), in
 * order, as onig's find_iter gives them. Thread-safe. */
gboolean as_hf_regex_find_all (const AsHfRegex *regex, const char *text, gsize length,
                               GArray *matches, GError **error);

/* The translation of an Oniguruma pattern into PCRE2 syntax (owned); exposed for the tests. */
char *as_hf_regex_translate (const char *pattern);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfRegex, as_hf_regex_free)

G_END_DECLS
