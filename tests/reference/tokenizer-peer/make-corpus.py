#!/usr/bin/python3
"""make-corpus.py — the tokenizer peer check's input texts, one JSON string per line.

Writes a deterministic corpus (a fixed seed; Python's `random` is stable across versions for
the calls used here) of varied texts for tests/core/test-tokenizer-peer.c, which encodes each
with attnscope's GPT-2 tokenizer and with the npm peers (peer-encode.js) and compares the ids.
Each line is one JSON string, so a text may hold newlines, tabs and other control characters.
Characters are taken only from Unicode 14.0, the version both libpcre2 10.42 and CPython 3.11
know (pretokenize-gpt2.c explains why newer letters would differ).

Usage: make-corpus.py OUT.jsonl      (or "-" for stdout)
"""

import json
import random
import sys

SEED = 20240601

CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d",
                "'S", "'T", "'RE", "'VE", "'M", "'LL", "'D",
                "\u2019s", "\u2019t", "\u2019re", "\u2019ll", "\u2018d", "''s", "'", "'x"]

WORDS = """the of and to a in is you that it he was for on are as with his they I at be this
have from or one had by word but not what all were we when your can said there use an each
which she do how their if will up other about out many then them these so some her would make
like him into time has look two more write go see number no way could people my than first
water been call who oil its now find long down day did get come made may part force May The
Hello world man hit car don can't won't I'm you're we've they'll she'd it's let's o'clock
rock'n'roll y'all ma'am constructor toString hasOwnProperty __proto__ valueOf prototype
isPrototypeOf propertyIsEnumerable toLocaleString __defineGetter__ undefined null NaN
Infinity watch watchers unwatch""".split()

ACCENTED = ["café", "naïve", "Ångström", "façade", "jalapeño", "Zürich", "São Paulo",
            "Dvořák", "Łódź", "smörgåsbord", "crème brûlée", "résumé", "piñata", "Ærø",
            "e\u0301", "n\u0303", "a\u0308\u0301", "ŉ", "ǅ", "ﬁ", "ß", "İstanbul", "ĳ"]

SCRIPTS = ["Привет, мир!", "Съешь же ещё этих мягких французских булок", "Ελληνικά γράμματα",
           "Καλημέρα κόσμε", "مرحبا بالعالم", "السلام عليكم ورحمة الله", "שלום עולם",
           "नमस्ते दुनिया", "हिन्दी में लिखा", "สวัสดีชาวโลก", "中文字符测试", "我爱自然语言处理",
           "日本語のテキストです。", "カタカナとひらがな", "한국어 텍스트", "안녕하세요 세계",
           "ქართული ენა", "Հայերեն", "ᚠᚢᚦᚨᚱᚲ", "ꦗꦮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝐁𝐨𝐥𝐝", "ℌ𝔢𝔩𝔩𝔬",
           "𐌰𐌱𐌲", "ᠮᠣᠩᠭᠣᠯ", "Tiếng Việt có dấu", "Ελληνικά 123 ἀρχή"]

EMOJI = ["😀", "😂🤣", "👍", "👍🏽", "👨\u200d👩\u200d👧\u200d👦", "🧑\u200d💻", "🏳️\u200d🌈",
         "🇫🇷", "🇺🇸🇯🇵", "❤️", "✨", "🎉🎊", "🙈🙉🙊", "☕", "©", "™", "∑", "→", "★☆",
         "👩🏿\u200d🔬", "🐍", "🦀", "1️⃣", "#️⃣", "🫠"]

NUMBERS = ["0", "7", "42", "123", "1234", "12345", "3.14159", "1,000,000", "2023-10-01",
           "10:45", "1e-5", "0x1F", "+49 30 1234567", "99.9%", "$4.99", "€12,50", "1st", "2nd",
           "³", "²", "½", "¾", "Ⅻ", "ⅳ", "٣٤٥", "१२३", "๑๒๓", "①②", "𝟙𝟚", "１２３"]

PUNCT = ["!", "?", ".", ",", ";", ":", "...", "?!", "!!!", "--", "—", "–", "(", ")", "[",
         "]", "{", "}", "\"", "“", "”", "‘", "’", "«", "»", "#", "@", "&", "*", "/", "\\",
         "|", "<", ">", "<|", "|>", "_", "~", "^", "`", "%", "$", "+", "=", "・", "。", "、",
         "¿", "¡", "§", "¶", "•", "…"]

# Space-like characters: Python regex's \s (White_Space) and some that only look like space.
SPACES = [" ", "  ", "   ", "\t", "\t\t", " \t ", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c",
          "\u00a0", "\u2009", "\u2002", "\u3000", "\u202f", "\u205f", "\u1680", "\u2028",
          "\u2029", "\u0085", "\ufeff", "\u180e", "\u200b", "\u200c", "\u2060", "\x1c", "\x1f",
          " \u00a0", "\u00a0 "]

CONTROLS = ["\x01", "\x07", "\x1b", "\x7f", "\x80", "\x9f", "\u00ad", "\u200e", "\ufffd"]

SPECIAL = "<|endoftext|>"

# Special-token strings of the tokenizer.json peer check's tokenizers (tests/fixtures/tokenizers,
# hf-peer.js), written inside text: HF finds them before normalizing (or after, for normalized
# ones), with lstrip/rstrip/single_word rules.
TOKEN_STRINGS = ["<s>", "</s>", "<unk>", "[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]", "[cls]",
                 "<pad>", "<mask>", "<|begin_of_text|>", "<|end_of_text|>", "<|padding|>",
                 "<lstrip>", "<rstrip>", "<both>", "<both> x", "word", "Good Morning", "GOOD  morning",
                 "hello",
                 " \u00fcn\u00efcode", "<0x0A>", "\u2581", "##ing", "</w>",
                 "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<|user|>", "<|end|>",
                 "<|assistant|>", "<|system|>", "<|placeholder3|>"]

# Scripts and runs that stress normalizers and pre-tokenizers.
EXTRA = ["\u0926\u0947\u0935\u0928\u093e\u0917\u0930\u0940 \u0932\u093f\u092a\u093f",
         "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f", "\u0627\u0644\u0639\u064e\u0631\u064e\u0628\u0650\u064a\u064e\u0651\u0629",
         "12345678901234567890", "3141592653589793238462643383279", "0000000", "1 000 000",
         "IT'S", "It'S", "iT'lL", "WE'RE", "they'Ve", "she\u2019S", "O'NEIL'S",
         "\uff21\uff22\uff23", "\u2460\u2461", "\u3000\u3000x", "x\u00a0\u0085y",
         "\u1100\u1161\u11a8", "\ud55c\uad6d\uc5b4", "e\u0301\u0302\u0303", "\u212b\u2126",
         "\u0130stanbul \u0131", "\u03a3\u039f\u03a6\u039f\u03a3", "\u2160\u216b \u24b6",
         "\u00df\u1e9e", "\ufb01\ufb02", "\u2024\u2025\u2026", "\u00bd \u2153"]

PROSE = [
    "May the force be with you.",
    "The man hit the car, and the car hit the man.",
    "It was the best of times, it was the worst of times.",
    "Attention is all you need, or so the paper's title claims.",
    "She sells sea shells by the sea shore; the shells she sells are surely sea shells.",
    "In 1969, Apollo 11 landed on the Moon: Neil Armstrong's first words were famous.",
    "Don't count your chickens before they've hatched, my grandmother would've said.",
    "We'll see whether the transformer's attention heads really track syntax.",
    "\"I'm not sure,\" he said, \"but I'd guess it's about 3.5 km away.\"",
    "The quick brown fox jumps over the lazy dog.",
    "Colorless green ideas sleep furiously.",
    "To be, or not to be, that is the question.",
    "Call me Ishmael. Some years ago—never mind how long precisely—I went to sea.",
    "GPT-2 was released by OpenAI in February 2019 with 1.5B parameters.",
    "Email me at someone@example.com or visit https://example.org/path?q=1&lang=en.",
    "The price rose from $1,299.99 to $1,349.00 (a 3.8% increase).",
    "Mr. O'Neil's dog didn't bark at the mailman's van yesterday.",
    "Kids' toys, the Joneses' house, and the boss's office were all cleaned.",
    "THE END IS NEAR!!! WE'RE ALL DOOMED, SHE'LL SAY.",
    "Python's `regex` module and PCRE2 don't agree on every space character.",
    "He scored 10/10 on the test; she scored 9.5/10.",
    "Line one.\nLine two.\n\nA new paragraph starts here.",
    "def f(x):\n    return x * 2  # doubles\n",
    "for (int i = 0; i < n; i++) {\n\tsum += a[i];\n}",
    "    indented text with trailing spaces    ",
    "The café served crème brûlée and a naïve jalapeño salsa.",
    "«Bonjour», dit-il. „Guten Tag“, sagte sie.",
    "Their 2nd attempt at the 42-km marathon took 3h 15m 7s.",
]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def unicode14_char(rng):
    """A random assigned, non-surrogate, non-private code point from CPython's Unicode 14 data."""
    import unicodedata
    while True:
        c = rng.randrange(0x20, 0x30000)
        ch = chr(c)
        cat = unicodedata.category(ch)
        if cat not in ("Cn", "Cs", "Co"):
            return ch


def fragment(rng):
    kind = rng.randrange(12)
    if kind == 10:
        return pick(rng, TOKEN_STRINGS)
    if kind == 11:
        return pick(rng, EXTRA)
    if kind == 0:
        return pick(rng, WORDS) + pick(rng, CONTRACTIONS)
    if kind == 1:
        return pick(rng, NUMBERS)
    if kind == 2:
        return pick(rng, PUNCT)
    if kind == 3:
        return pick(rng, ACCENTED)
    if kind == 4:
        return pick(rng, SCRIPTS)
    if kind == 5:
        return pick(rng, EMOJI)
    if kind == 6:
        return pick(rng, SPACES)
    if kind == 7:
        return unicode14_char(rng)
    return pick(rng, WORDS)


def mixed_line(rng):
    parts = []
    for _ in range(rng.randint(1, 12)):
        parts.append(fragment(rng))
        r = rng.random()
        if r < 0.6:
            parts.append(" ")
        elif r < 0.7:
            parts.append(pick(rng, SPACES))
    return "".join(parts)


def prose_line(rng):
    subjects = ["The cat", "A model", "My friend", "Our team", "The attention head", "She",
                "They", "Everyone", "Nobody", "The old professor"]
    verbs = ["sees", "writes", "predicts", "reads", "likes", "doesn't like", "can't find",
             "will explain", "has measured", "would've ignored"]
    objects = ["the next token", "a long sentence", "three small dogs", "the results",
               "our tokenizer's output", "1,024 positions", "the café's menu", "it",
               "every layer and head", "the 2nd chapter"]
    ends = [".", "!", "?", "...", ";", ",", " :)", "."]
    n = rng.randint(1, 4)
    return " ".join(f"{pick(rng, subjects)} {pick(rng, verbs)} {pick(rng, objects)}{pick(rng, ends)}"
                    for _ in range(n))


def fixed_lines():
    """Hand-written cases: every category at least once, and the edges of the regex."""
    lines = list(PROSE)
    for c in CONTRACTIONS:
        lines += [c, "it" + c, " it" + c, "IT" + c, c + c, "x" + c + " y", "'" + c]
    lines += [w for w in WORDS] + [" " + w for w in WORDS] + [w.upper() for w in WORDS[:40]]
    lines += ACCENTED + SCRIPTS + EMOJI + NUMBERS + PUNCT + CONTROLS
    for s in SPACES:
        lines += [s, "a" + s + "b", s + "a", "a" + s, s + s + "x", "x" + s + "1" + s + "!",
                  "a" + s + " b", "a " + s + "b", s + " ", " " + s]
    lines += ["", " ", "a", "  a", "a  ", " a ", "a  b", "a   b", "a\n\nb", " \n ", "\t\n\t",
              "hello   world", "hello \n world", "x\u00a0\u00a0y", "1 2  3   4", "!!  ??"]
    lines += [SPECIAL, SPECIAL + SPECIAL, "a" + SPECIAL + "b", " " + SPECIAL + " ",
              "Hello" + SPECIAL, SPECIAL + "Hello", "one" + SPECIAL + " two" + SPECIAL + "\n",
              "<|endoftext|", "<|endoftext|>>", "<<|endoftext|>", "<|endoftext|>'s",
              "<|EndOfText|>", "<|endoftext|><|endoftext|> <|endoftext|>"]
    for t in TOKEN_STRINGS:
        lines += [t, "a" + t + "b", "a " + t + " b", t + t, " " + t + "\n", "\n" + t + " x",
                  "x  " + t + "  y", t.lower(), t.upper(), "(" + t + ")"]
    lines += EXTRA
    # chat texts as Qwen's and Phi-3's templates write them
    lines += ["<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n"
              "<|im_start|>assistant\n<think>\n\n</think>\n\nHello.<|im_end|>",
              "<|system|>\nYou are helpful.<|end|>\n<|user|>\n What is 2+2? <|end|>\n"
              "<|assistant|>  4<|end|><|endoftext|>"]
    lines += ["a" * 300, " " * 300, "\n" * 50, "ab" * 200, "1" * 100, "!" * 100,
              "🙂" * 50, "中" * 100, "é" * 100, "e\u0301" * 50, "\u00a0" * 40 + "x"]
    return lines


def main():
    rng = random.Random(SEED)
    lines = fixed_lines()
    for _ in range(1400):
        lines.append(mixed_line(rng))
    for _ in range(400):
        lines.append(prose_line(rng))
    for _ in range(100):
        # Long texts: several prose sentences with paragraph breaks.
        lines.append("\n\n".join(prose_line(rng) for _ in range(rng.randint(2, 6))))
    for _ in range(100):
        # Random Unicode 14 characters, with and without spaces.
        lines.append("".join(unicode14_char(rng) if rng.random() < 0.8 else " "
                             for _ in range(rng.randint(1, 30))))
    out = sys.stdout if len(sys.argv) < 2 or sys.argv[1] == "-" else \
        open(sys.argv[1], "w", encoding="utf-8")
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    out.close()


if __name__ == "__main__":
    main()
