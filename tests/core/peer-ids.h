/* peer-ids.h — what the tokenizer peer tests share: the ids a peer wrote in its JSON lines,
 * comparing id lists, and texts escaped so that a mismatch message stays readable. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "as-tokenizer.h"

/* The int array member NAME of ROW as int32 ids (asserts it exists). */
GArray *peer_json_ids (JsonObject *row, const char *name);

gboolean peer_ids_equal (const GArray *a, const GArray *b);

/* TEXT with ASCII control characters, quotes, backslashes and everything non-ASCII written as
 * escapes (\n, \t, \", \\, \u{XXXX}), so that messages stay readable and exact in any terminal. */
char *peer_escape_text (const char *text);

/* IDS as "1 2 3", the first 40 and " ..." after them (owned). */
char *peer_ids_string (const GArray *ids);

/* Counts a mismatch in *MISMATCHES and reports the first 8 as test messages: NAME's LINE, WHAT
 * was compared, the (escaped) TEXT, what we GOT and what the peer gave (WANT). */
void peer_report_mismatch (guint *mismatches, const char *name, guint line, const char *what,
                           const char *text, const char *got, const char *want);

/* OURS against THEIRS; a difference reported as peer_report_mismatch. */
void peer_compare_ids (guint *mismatches, const char *name, guint line, const char *what,
                       const char *text, const GArray *ours, const GArray *theirs);

/* The rest of a peer row's checks for TEXT (line LINE of NAME), mismatches counted in
 * *MISMATCHES: HF_PLAIN (the peer's ids without special tokens) decoded by TOKENIZER against the
 * row's "text"; and when the row has "pair_ids", TEXT paired with NEXT against them and
 * "pair_types". Returns 1 when the pair was checked, else 0. */
guint peer_check_decode_and_pair (AsTokenizer *tokenizer, guint *mismatches, const char *name,
                                  guint line, const char *text, const char *next, JsonObject *row,
                                  const GArray *hf_plain);
