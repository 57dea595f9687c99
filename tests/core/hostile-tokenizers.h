/* hostile-tokenizers.h — tokenizer folders built to hurt the tokenizer.json engine, vocab.txt,
 * vocab.json, Marian's SentencePiece models and their config files, written from C at test time.
 *
 * Each case is a folder holding tokenizer.json (or vocab.txt, vocab.json + merges.txt, a Marian
 * model's tokenizer files) and maybe tokenizer_config.json. Most must be refused either when
 * loading or when encoding hostile_tokenizer_text(), with an error naming
 * hostile_tokenizer_file() and saying hostile_tokenizer_needle(); the cases whose needle is NULL
 * once cost minutes and must now encode their text, fast (hostile_tokenizer_ids() ids when that
 * is not -1). The core and command-line tests share them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  HOSTILE_TOK_REGEX_BACKTRACK, /* Split pattern (a+)+$ on "aaa...ab": catastrophic backtracking */
  HOSTILE_TOK_REGEX_NESTED,    /* a pattern of 2,000 nested groups (a stack threat when compiled) */
  HOSTILE_TOK_REGEX_LONG,      /* a 100,000-byte pattern of \s (the translation grows it ~80x) */
  HOSTILE_TOK_JSON_NESTED,     /* tokenizer.json nests 100,000 arrays deep */
  HOSTILE_TOK_CONFIG_NESTED,   /* tokenizer_config.json nests 100,000 arrays deep */
  HOSTILE_TOK_CONFIG_HUGE,     /* tokenizer_config.json is 5 MB (the limit is 4 MiB) */
  HOSTILE_TOK_JSON_FIFO,       /* tokenizer.json is a FIFO */
  HOSTILE_TOK_CONFIG_FIFO,     /* tokenizer_config.json is a FIFO */
  HOSTILE_TOK_MAP_FIFO,        /* special_tokens_map.json is a FIFO */
  HOSTILE_TOK_VOCAB_TXT_FIFO,  /* vocab.txt is a FIFO */
  HOSTILE_TOK_VOCAB_TXT_HUGE,  /* vocab.txt is a sparse 300 MB file (the limit is 256 MiB) */
  HOSTILE_TOK_VOCAB_ID_HUGE,   /* a BPE vocabulary id of 2^31 - 1 */
  HOSTILE_TOK_VOCAB_ID_2_63,   /* a WordPiece vocabulary id of 2^63 - 1 */
  HOSTILE_TOK_ADDED_ID_HUGE,   /* an added token with id 2^30 */
  HOSTILE_TOK_UNIGRAM_UNK,     /* Unigram unk_id 2^31 */
  HOSTILE_TOK_CHARSMAP_SIZE,   /* a Precompiled charsmap whose trie size exceeds the blob */
  HOSTILE_TOK_TEMPLATE_ID,     /* a TemplateProcessing special token id of 2^40 */
  HOSTILE_TOK_TEMPLATE_UNKNOWN, /* a template token id 3 in a vocabulary of 3 (found by fuzzing) */
  HOSTILE_TOK_UNIGRAM_LONG_PIECE, /* a Unigram piece of 20,000 bytes (the lattice's cost grows with
                                     it) */
  HOSTILE_TOK_NORMALIZER_GROWTH,  /* a Sequence of eight Replace "a" -> "aaaaaaaaaa" on "a" */
  HOSTILE_TOK_NORMALIZER_GROWTH_200, /* the same on 200 "a" (once 14 GB in 60 s) */
  HOSTILE_TOK_WORDPIECE_LONG_WORD,   /* max_input_chars_per_word 2^31 - 1, a 10,000-character word
                                        (cubic: 13.8 s for 4,000) — must encode */
  HOSTILE_TOK_ADDED_MANY,       /* 20,000 added tokens, a 30,000-character text — must encode */
  HOSTILE_TOK_JSON_NUL_KEY,     /* tokenizer.json: a vocabulary key "a\u0000b" */
  HOSTILE_TOK_CONFIG_NUL_KEY,   /* tokenizer_config.json: a key "bos_token\u0000x" */
  HOSTILE_TOK_MAP_NUL_VALUE,    /* special_tokens_map.json: a value "</s>\u0000x" */
  HOSTILE_TOK_VOCAB_JSON_NUL,   /* GPT-2's vocab.json: a key "\u0000" */
  HOSTILE_TOK_SPM_ROOT_OUTSIDE, /* Marian: source.spm's charsmap root points past its array */
  HOSTILE_TOK_SPM_STRINGS_CUT,  /* Marian: a charsmap value past its strings */
  HOSTILE_TOK_SPM_NO_NUL,       /* Marian: charsmap strings without their NUL */
  HOSTILE_TOK_SPM_FORTY_VALUES, /* Marian: a key with 40 values (the library crashed: SIGSEGV) */
  HOSTILE_TOK_SPM_LOOP,         /* Marian: a charsmap trie that loops */
  HOSTILE_TOK_N_CASES
} HostileTokenizerCase;

/* A short name ("regex-backtrack", ...), also the folder name tests use. */
const char *hostile_tokenizer_name (HostileTokenizerCase c);

/* The file the error must name ("tokenizer.json", ...). */
const char *hostile_tokenizer_file (HostileTokenizerCase c);

/* What the error message must say, or NULL for the cases that must encode their text. */
const char *hostile_tokenizer_needle (HostileTokenizerCase c);

/* The text to encode (the cases refused at load time never get there). Owned by the module. */
const char *hostile_tokenizer_text (HostileTokenizerCase c);

/* The number of ids (special tokens included) an encoding case must give, or -1 when not fixed. */
int hostile_tokenizer_ids (HostileTokenizerCase c);

/* Writes the folder DIR (created) for case C. */
gboolean hostile_tokenizer_write (const char *dir, HostileTokenizerCase c, GError **error);

G_END_DECLS
