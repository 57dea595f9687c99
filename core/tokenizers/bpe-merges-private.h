/* bpe-merges-private.h — a BPE merge table (GPT-2's merges.txt, or tokenizer.json's "merges")
 * and the BPE merge loop.
 *
 * BPE works on *symbols*: strings of byte-table characters (byte-unicode.h). Every symbol that
 * can ever occur — the 256 single bytes and every merge's parts and result — is numbered once at
 * load time: a symbol that is a vocabulary token gets its token id; any other gets an id at or
 * above the vocabulary size. So the table is immutable after loading and the merge loop is pure
 * integer work that may run in several threads at once. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct _AsBpeMerges AsBpeMerges;

/* Reads merges.txt at PATH: an optional first line "#version: ...", then one merge "left right"
 * per line (a final empty line is allowed); a merge's rank is its 0-based index among the merge
 * lines. When a pair is listed twice the later rank counts (as in Hugging Face's dict).
 * TOKEN_TO_ID and VOCAB_SIZE are the vocabulary (tokenizer-private.h) that symbol ids agree
 * with. */
AsBpeMerges *as_bpe_merges_load (const char *path, GHashTable *token_to_id, guint vocab_size,
                                 GError **error);
void as_bpe_merges_free (AsBpeMerges *merges);

/* The bytes MERGES holds (an estimate, for the memory budget). */
guint64 as_bpe_merges_bytes (const AsBpeMerges *merges);

/* The symbol of the one-byte string BYTE. */
int32_t as_bpe_merges_byte_symbol (const AsBpeMerges *merges, guint8 byte);

/* The first symbol (a byte or a merge result, in file order) that is not a vocabulary token,
 * or NULL when there is none (as in GPT-2's files). Borrowed. */
const char *as_bpe_merges_first_unknown (const AsBpeMerges *merges);

/* An empty table of N_MERGES merges over symbols that are token ids of a vocabulary of
 * VOCAB_SIZE (tokenizer.json's BPE, where every merge's parts and result are tokens). */
AsBpeMerges *as_bpe_merges_new_vocab (guint vocab_size, guint n_merges);

/* Sets merge RANK (< N_MERGES): LEFT + RIGHT → MERGED. A later rank for the same pair wins. */
void as_bpe_merges_set (AsBpeMerges *merges, guint rank, int32_t left, int32_t right,
                        int32_t merged);

/* Merges SYMBOLS (a GArray of int32_t) in place with GPT-2's rule: repeatedly take the adjacent
 * pair with the lowest rank and merge all its non-overlapping occurrences left to right, until
 * no adjacent pair has a rank. */
void as_bpe_merges_apply (const AsBpeMerges *merges, GArray *symbols);

/* The same with Hugging Face's rule (src/models/bpe/word.rs, merge_all): one lowest-ranked
 * pair at a time, leftmost first; a pair a merge creates may be taken at once. */
void as_bpe_merges_apply_hf (const AsBpeMerges *merges, GArray *symbols);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsBpeMerges, as_bpe_merges_free)

G_END_DECLS
