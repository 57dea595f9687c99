/* byte-trie-private.h — a trie of byte strings, built once, and the Aho–Corasick automaton over
 * it (byte-trie.c).
 *
 * WordPiece's longest match walks it from a position of a word (hf-wordpiece.c), so a lookup
 * costs the length of the match, not a hash of every candidate length; the added tokens are
 * found with its automaton (hf-added.c). Nodes are numbered in breadth-first order with the
 * children of a node consecutive and sorted by byte; the root is node 0. Immutable after
 * building, so any number of threads may read it. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct _AsByteTrie AsByteTrie;

#define AS_BYTE_TRIE_NONE G_MAXUINT32

/* A trie of the N keys KEYS[i] (LENGTHS[i] bytes each, not necessarily NUL-terminated; empty
 * keys are ignored). A key given twice names the first index. With LINKS, the failure links and
 * outputs of the Aho–Corasick automaton are computed too (as_byte_trie_step). */
AsByteTrie *as_byte_trie_new (const char *const *keys, const gsize *lengths, guint n,
                              gboolean links);
void as_byte_trie_free (AsByteTrie *trie);

/* The child of NODE on BYTE, or AS_BYTE_TRIE_NONE. */
guint32 as_byte_trie_child (const AsByteTrie *trie, guint32 node, guint8 byte);

/* The index of the key that ends at NODE, or -1. */
int32_t as_byte_trie_key (const AsByteTrie *trie, guint32 node);

/* The node reached from NODE by BYTES (LENGTH bytes), or AS_BYTE_TRIE_NONE. */
guint32 as_byte_trie_walk (const AsByteTrie *trie, guint32 node, const char *bytes, gsize length);

/* Aho–Corasick (a trie built with LINKS): the state after STATE reads BYTE — the node of the
 * longest suffix of what was read that is a prefix of a key (the root when none is). */
guint32 as_byte_trie_step (const AsByteTrie *trie, guint32 state, guint8 byte);

/* The index of the longest key that is a suffix of what led to STATE, or -1 (the first index
 * among equal keys). */
int32_t as_byte_trie_output (const AsByteTrie *trie, guint32 state);

/* The bytes the trie holds, for the memory budget. */
guint64 as_byte_trie_bytes (const AsByteTrie *trie);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsByteTrie, as_byte_trie_free)

G_END_DECLS
