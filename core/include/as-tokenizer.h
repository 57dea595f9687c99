/* as-tokenizer.h — text ⇄ token ids.
 *
 * GPT-2 byte-level BPE (core/README.md, "Tokenizers"), identical to Hugging Face's id for id, the
 * word-level vocabulary of the toy models, and the Marian translation models' SentencePiece pair
 * ("Marian tokenizer"). A tokenizer is immutable after loading and may be shared between threads
 * (the BPE word cache is guarded by a mutex). Every kind reads the vocabulary from a vocab.json
 * object of token → id; the vocabulary size is its largest id + 1. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct _AsTokenizer AsTokenizer;

/* GPT-2 byte-level BPE from vocab.json and merges.txt. "<|endoftext|>", when the vocabulary has
 * it, is a special token: matched whole in the text before pre-tokenization. */
AsTokenizer *as_tokenizer_load_bpe (const char *vocab_json_path, const char *merges_txt_path,
                                    GError **error);

/* Word-level: vocab.json maps whole words to ids; text is split on Unicode white space
 * (g_unichar_isspace) and a word missing from the vocabulary is an AS_ERROR_INPUT error naming
 * it; decoding joins the words with single spaces. */
AsTokenizer *as_tokenizer_load_words (const char *vocab_json_path, GError **error);

/* The tokenizer of a Hugging Face model folder: GPT-2 byte-level BPE from vocab.json and
 * merges.txt. Fails naming the folder and the missing file. */
AsTokenizer *as_tokenizer_load_folder (const char *folder, GError **error);

/* The tokenizer of a Marian translation model folder (Hugging Face's MarianTokenizer):
 * SentencePiece models source.spm and target.spm, the joint vocabulary vocab.json, the special
 * token strings from tokenizer_config.json / special_tokens_map.json (core/README.md, "Marian
 * tokenizer"). Fails naming the folder and the missing file, or vocab.json and a missing special
 * token. */
AsTokenizer *as_tokenizer_load_marian (const char *folder, GError **error);

void as_tokenizer_free (AsTokenizer *tokenizer);

/* Encodes TEXT (LENGTH bytes, or NUL-terminated when LENGTH < 0). Fails on invalid UTF-8
 * (AS_ERROR_INPUT, naming the byte offset). Empty text gives an empty array (not an error here;
 * callers that need tokens say so). Returns a GArray of int32_t. */
GArray *as_tokenizer_encode (AsTokenizer *tokenizer, const char *text, gssize length,
                             GError **error);

/* TEXT as a translation model's target text (transformers' tokenizer(text_target=TEXT): Marian
 * encodes with target.spm); the same as as_tokenizer_encode for tokenizers without a target
 * side. */
GArray *as_tokenizer_encode_target (AsTokenizer *tokenizer, const char *text, gssize length,
                                    GError **error);

/* The token's vocabulary string (for BPE the byte-mapped form, e.g. "Ġthe"); NULL when out of
 * range. Borrowed. */
const char *as_tokenizer_get_token (const AsTokenizer *tokenizer, int32_t id);

/* The bytes token ID stands for when shown alone, as the tokenizer's decoder gives them
 * (GPT-2's "Ġthe" → " the"), NUL-terminated and not necessarily valid UTF-8: a token may hold
 * part of a character. Tokens that stand for no showable bytes (special tokens, byte 0) give
 * their vocabulary string. NULL when ID is out of range. Owned. */
char *as_tokenizer_dup_token_text (const AsTokenizer *tokenizer, int32_t id);

/* Whether ID is a special token (GPT-2's <|endoftext|>; Marian's </s>, <unk>, <pad>). */
gboolean as_tokenizer_is_special (const AsTokenizer *tokenizer, int32_t id);

/* The id of a vocabulary string, or -1. */
int32_t as_tokenizer_lookup (const AsTokenizer *tokenizer, const char *token);

/* Decodes ids back to text. Byte sequences that are not valid UTF-8 become U+FFFD exactly as
 * Python's bytes.decode("utf-8", errors="replace") does (HF's behaviour). Ids out of range are
 * skipped. */
char *as_tokenizer_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

int as_tokenizer_get_vocab_size (const AsTokenizer *tokenizer);

/* The file the vocabulary was read from (for messages). Borrowed. */
const char *as_tokenizer_get_source (const AsTokenizer *tokenizer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTokenizer, as_tokenizer_free)

G_END_DECLS
