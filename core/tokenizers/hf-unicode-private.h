/* hf-unicode-private.h — the character classes and mappings of Hugging Face's tokenizers, on
 * GLib's Unicode data (Unicode 15.0 in Debian 12's GLib).
 *
 * Each predicate names the Rust function it stands for (huggingface/tokenizers);
 * core/tokenizers/README.md
 * ("Tokenizers", "Unicode") lists where HF's own tables are older or newer than GLib's. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* An inclusive range of code points. */
typedef struct
{
  gunichar first, last;
} AsHfRange32;

/* hf-unicode-tables.c: characters whose class in GLib's Unicode 15.0 data is newer than HF's. */
extern const AsHfRange32 as_hf_new_format[], as_hf_new_nonspacing[], as_hf_new_marks[],
    as_hf_new_punctuation[];
extern const gsize as_hf_new_format_len, as_hf_new_nonspacing_len, as_hf_new_marks_len,
    as_hf_new_punctuation_len;

/* Rust char::is_whitespace: the White_Space property (25 code points). */
gboolean as_hf_is_whitespace (gunichar c);

/* bert.rs is_bert_punc / punctuation.rs is_punc: ASCII punctuation, or a character of category
 * P* in the unicode_categories crate, whose tables are Unicode 8.0's: characters that became
 * punctuation later are not punctuation for HF, and U+166D, U+111C9 (punctuation in 8.0) are. */
gboolean as_hf_is_punctuation (gunichar c);

/* Rust regex's \w (Unicode Word: Alphabetic, marks, decimal digits, connector punctuation, join
 * controls) — the same set as Oniguruma's \w (hf-regex.c). */
gboolean as_hf_is_word_char (gunichar c);

/* Rust char::is_numeric: categories Nd, Nl, No. */
gboolean as_hf_is_numeric (gunichar c);

/* bert.rs is_control (unicode_categories is_other minus \t \n \r): Cc, Cf, Co. */
gboolean as_hf_is_control (gunichar c);

/* bert.rs is_chinese_char: the CJK ideograph blocks BERT puts spaces around. */
gboolean as_hf_is_chinese (gunichar c);

/* unicode-normalization-alignments' is_combining_mark (StripAccents): categories Mn, Mc, Me in
 * that crate's older tables. */
gboolean as_hf_is_mark (gunichar c);

/* unicode_categories' is_mark_nonspacing (BertNormalizer's strip_accents): Mn in Unicode 8.0. */
gboolean as_hf_is_nonspacing_mark (gunichar c);

/* Appends Rust char::to_lowercase (C) to OUT: the simple lowercase mapping (GLib's for letters;
 * also the Roman numerals U+2160–216F and circled letters U+24B6–24CF, which have one but are
 * not letters), except U+0130, which lowercases to "i\u0307" (the one unconditional
 * multi-character lowercase mapping of SpecialCasing.txt). No context (a final Σ becomes σ, as in
 * HF). */
void as_hf_append_lowercase (GString *out, gunichar c);

/* Replaces TEXT with its Unicode normalization form MODE (G_NORMALIZE_NFC, NFD, NFKC, NFKD).
 * U+0000 (which GLib's normalizer stops at) is kept: the text is normalized in segments between
 * NULs, which is exact because U+0000 neither composes nor reorders. NFKC/NFKD keep U+32FF,
 * U+A7F2–A7F4 and U+AB69 as they are, as HF's older tables do. */
void as_hf_normalize (GString *text, GNormalizeMode mode);

G_END_DECLS
