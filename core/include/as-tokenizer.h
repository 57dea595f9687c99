/* as-tokenizer.h — text ⇄ token ids, id for id as Hugging Face's tokenizers.
 *
 * Four kinds behind one interface (core/tokenizers/README.md, "Tokenizers"): a Hugging Face fast
 * tokenizer described by tokenizer.json (every normalizer, pre-tokenizer, model, added-token rule,
 * post-processor and decoder that the models attnscope opens use), or built for a BERT vocab.txt;
 * GPT-2's byte-level BPE from vocab.json + merges.txt; Marian's SentencePiece pair; the
 * word-level vocabulary of the toy models. A tokenizer is immutable after loading and may be
 * shared between threads (its word caches have their own locks). */
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

/* A Hugging Face tokenizer.json (with tokenizer_config.json and special_tokens_map.json from the
 * same folder when present). A malformed file is refused naming the JSON path of the component
 * at fault, e.g. "…/tokenizer.json: pre_tokenizer.pretokenizers[1]: unknown type \"Foo\"". */
AsTokenizer *as_tokenizer_load_json (const char *tokenizer_json_path, GError **error);

/* BERT's WordPiece from FOLDER's vocab.txt (one token per line, id = line number) and
 * tokenizer_config.json (do_lower_case, strip_accents, tokenize_chinese_chars, the special
 * tokens), as transformers' BertTokenizer. */
AsTokenizer *as_tokenizer_load_vocab_txt (const char *folder, GError **error);

/* The tokenizer of a Hugging Face model folder: tokenizer.json when present (as HF's fast
 * tokenizers), else vocab.json + merges.txt (GPT-2), else vocab.txt (BERT). Fails naming the
 * folder and the files it looked for. */
AsTokenizer *as_tokenizer_load_folder (const char *folder, GError **error);

/* The tokenizer of a Marian translation model folder (Hugging Face's MarianTokenizer):
 * SentencePiece models source.spm and target.spm, the joint vocabulary vocab.json, the special
 * token strings from tokenizer_config.json / special_tokens_map.json (core/tokenizers/README.md,
 * "Marian tokenizer"). Fails naming the folder and the missing file, or vocab.json and a missing
 * special token. */
AsTokenizer *as_tokenizer_load_marian (const char *folder, GError **error);

void as_tokenizer_free (AsTokenizer *tokenizer);

typedef enum
{
  AS_ENCODE_DEFAULT = 0,         /* HF's tokenizer(text): the model's special tokens added */
  AS_ENCODE_NO_SPECIAL = 1 << 0, /* add_special_tokens=False */
} AsEncodeFlags;

/* The result of encoding one text or a pair. */
typedef struct
{
  GArray *ids;          /* int32_t */
  GArray *type_ids;     /* int32_t: the segment of each token (0, or 1 for the pair's second) */
  GArray *special_mask; /* guint8: 1 for the special tokens the post-processor added */
} AsEncoding;

void as_encoding_free (AsEncoding *encoding);

/* Encodes TEXT (LENGTH bytes, or NUL-terminated when LENGTH < 0), and PAIR after it when PAIR
 * is not NULL, as HF's tokenizer(text, pair, add_special_tokens=...). Fails on invalid UTF-8
 * (AS_ERROR_INPUT, naming the byte offset). Empty text gives only the special tokens. */
AsEncoding *as_tokenizer_encode_full (AsTokenizer *tokenizer, const char *text, gssize length,
                                      const char *pair, gssize pair_length, AsEncodeFlags flags,
                                      GError **error);

/* The ids of TEXT exactly as HF's tokenizer(text) gives them (special tokens added: a Llama
 * tokenizer's <s>, BERT's [CLS] … [SEP]; nothing for GPT-2). Returns a GArray of int32_t. */
GArray *as_tokenizer_encode (AsTokenizer *tokenizer, const char *text, gssize length,
                             GError **error);

/* TEXT as a translation model's target text (transformers' tokenizer(text_target=TEXT): Marian
 * encodes with target.spm), with the special tokens the post-processor adds (Marian's and T5's
 * </s> at the end, BART's <s> … </s>); the same as as_tokenizer_encode for tokenizers without a
 * target side. */
GArray *as_tokenizer_encode_target (AsTokenizer *tokenizer, const char *text, gssize length,
                                    GError **error);

/* How much of TEXT (LENGTH bytes of valid UTF-8) decides its first MAX_IDS ids, for a caller that
 * needs no more than that many — a model's context, which it refuses or truncates past — so
 * that a 64 MB line costs what its first tokens cost (core/README.md, "Bad input, memory and
 * threads"). *PREFIX is LENGTH when TEXT encodes (as one sequence, without the special tokens a
 * post-processor adds) into at most MAX_IDS ids; otherwise it may be less: the length of a
 * prefix, cut where white space begins, whose ids number more than MAX_IDS and begin with the
 * same MAX_IDS + 1 ids as TEXT's. Growing prefixes are encoded until two of them agree on those
 * ids (a text whose first tokens would depend on what follows far later — a tokenizer.json
 * regex looking ahead without bound — could fool that check; no real tokenizer does). Fails as
 * encoding fails. */
gboolean as_tokenizer_prefix_for (AsTokenizer *tokenizer, const char *text, gsize length,
                                  int max_ids, gsize *prefix, GError **error);

/* The one id WORD encodes to (encoded as any text, without the special tokens a post-processor
 * adds: GPT-2's " car" is "Ġcar", a SentencePiece "car" is "▁car"), for a user who names a
 * token by its text. Fails (AS_ERROR_INPUT) on an empty word, a word that gives no token, and a
 * word the vocabulary splits: the message lists the pieces with their ids. */
gboolean as_tokenizer_word_id (AsTokenizer *tokenizer, const char *word, int32_t *id,
                               GError **error);

/* The token's vocabulary string (for BPE the byte-mapped form, e.g. "Ġthe"); NULL when out of
 * range. Borrowed. */
const char *as_tokenizer_get_token (const AsTokenizer *tokenizer, int32_t id);

/* The bytes token ID stands for when shown alone: what it adds to the decoded text when it
 * follows another token, as the tokenizer's decoder gives it (core/README.md, "Token texts"):
 * GPT-2's "Ġthe" → " the", SentencePiece's "▁the" → " the", "<0x0A>" → "\n" (the byte, even when
 * it is part of a character), WordPiece "the" → " the" and "##ing" → "ing" (a continuation is
 * the token without a leading space). NUL-terminated and not necessarily valid UTF-8. Special
 * tokens, and tokens that stand for no showable bytes (byte 0), give their vocabulary string.
 * NULL when ID is out of range. Owned. */
char *as_tokenizer_dup_token_text (const AsTokenizer *tokenizer, int32_t id);

/* The id of a vocabulary string, or -1. */
int32_t as_tokenizer_lookup (const AsTokenizer *tokenizer, const char *token);

/* Whether ID is a special token (an added token marked special in tokenizer.json; GPT-2's
 * <|endoftext|>; Marian's </s>, <unk>, <pad>). */
gboolean as_tokenizer_is_special (const AsTokenizer *tokenizer, int32_t id);

/* Decodes ids back to text as HF's decode (special tokens kept). Byte sequences that are not
 * valid UTF-8 become U+FFFD as HF does. Ids out of range are skipped. */
char *as_tokenizer_decode (const AsTokenizer *tokenizer, const int32_t *ids, gsize n_ids);

/* The number of ids: the largest id + 1 (added tokens included). */
int as_tokenizer_get_vocab_size (const AsTokenizer *tokenizer);

/* The file the vocabulary was read from (for messages). Borrowed. */
const char *as_tokenizer_get_source (const AsTokenizer *tokenizer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsTokenizer, as_tokenizer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsEncoding, as_encoding_free)

G_END_DECLS
