"""marian_tokenizer.py — MarianTokenizer (transformers v4.30 slow tokenizer) rebuilt on Debian's
python3-sentencepiece, SentencePiece training with Debian's spm_train, and the joint vocab.json.

Encoding, as tokenization_marian.py + tokenization_utils.py (PreTrainedTokenizer.tokenize) do it:
  1. Special tokens written in the text (</s>, <unk>, <pad>) are split out first. They are
     plain-string special tokens, so the text on each side of one loses its adjacent whitespace
     ("a </s> b" -> "a", "</s>", "b"). Empty pieces between them are dropped.
  2. Each remaining piece: a leading language code is kept as one token: the regex ">>.+<<"
     (greedy, no newlines) matched at the start gives the code, and re.sub removes every match
     of it from the piece. No other normalisation happens in the tokenizer (the Moses punctuation
     normaliser it sets up is never called while tokenizing); SentencePiece applies the
     normalisation rule stored in the .spm model (nmt_nfkc for spm_train's default).
  3. The piece is encoded as piece strings (out_type=str) with source.spm, or target.spm for
     target text (text_target / --target).
  4. Piece strings map through vocab.json, NOT the SentencePiece ids; a piece missing from
     vocab.json becomes <unk>'s id. (transformers 5.0-dev tries the .spm id first; we follow the
     released v4 rule.)
  5. </s> (id 0 in opus-mt) is appended; there is no BOS.
Decoding (skip_special_tokens=True): drop </s>, <unk>, <pad>, map ids to pieces, target.spm
DecodePieces, then clean_up_tokenization (v4 default True: " ." -> ".", " ," -> ",", ...).

vocab.json (convert_marian_to_pytorch.py add_special_tokens_to_vocab): Marian's joint vocabulary
with <pad> appended as the last id. opus-mt's vocab.yml is </s> 0, <unk> 1, then the pieces of the
joint SentencePiece vocabulary; build_vocab() makes the same shape from our two .spm models:
</s>, <unk>, the source model's pieces in id order, the target model's pieces not yet present,
<pad>.
"""

import json
import os
import re
import subprocess

SPECIALS = ("</s>", "<unk>", "<pad>")
LANG_CODE = re.compile(">>.+<<")
_SPECIAL_SPLIT = re.compile("(%s)" % "|".join(re.escape(s) for s in SPECIALS))

# A small parallel text for test models (make-spm without --input, selfcheck).
SAMPLE_PAIRS = [
    ("The group went home.", "Die Gruppe ging nach Hause."),
    ("The man hit the car.", "Der Mann schlug das Auto."),
    ("The car hit the man.", "Das Auto schlug den Mann."),
    ("May the force be with you.", "Möge die Macht mit dir sein."),
    ("The file could not be opened.", "Die Datei konnte nicht geöffnet werden."),
    ("Save the document before closing the window.",
     "Speichern Sie das Dokument, bevor Sie das Fenster schließen."),
    ("Attention is all you need.", "Aufmerksamkeit ist alles, was man braucht."),
    ("The children are playing in the garden.", "Die Kinder spielen im Garten."),
    ("We went to the market on Saturday.", "Wir sind am Samstag auf den Markt gegangen."),
    ("Please enter your password again.", "Bitte geben Sie Ihr Passwort erneut ein."),
    ("The weather is nice today.", "Das Wetter ist heute schön."),
    ("She reads a book every evening.", "Sie liest jeden Abend ein Buch."),
    ("Open the settings and choose a language.",
     "Öffnen Sie die Einstellungen und wählen Sie eine Sprache."),
    ("An error occurred while reading the file.", "Beim Lesen der Datei ist ein Fehler aufgetreten."),
    ("The teacher explains the heads of every layer.",
     "Der Lehrer erklärt die Köpfe jeder Schicht."),
    ("Transformers look at every token in the sentence.",
     "Transformer betrachten jedes Token im Satz."),
    ("Do you want to quit without saving?", "Möchten Sie beenden, ohne zu speichern?"),
    ("The house is small but the garden is large.", "Das Haus ist klein, aber der Garten ist groß."),
    ("Network connection lost.", "Netzwerkverbindung verloren."),
    ("Delete the selected items?", "Die ausgewählten Elemente löschen?"),
]


def sample_text(lang):
    """The built-in sentences of one side, repeated so spm_train has enough to count."""
    side = 0 if lang == "en" else 1
    return "".join(p[side] + "\n" for p in SAMPLE_PAIRS) * 3


def train_spm(prefix, input_path, vocab_size, model_type="unigram", threads=1):
    """Runs Debian's spm_train: PREFIX.model / PREFIX.vocab. eos 0 and unk 1 as in opus-mt's
    models, no BOS/PAD ids; hard_vocab_limit off so tiny corpora still train; full character
    coverage; single-threaded so the model is reproducible."""
    cmd = ["spm_train", "--input=%s" % input_path, "--model_prefix=%s" % prefix,
           "--vocab_size=%d" % vocab_size, "--model_type=%s" % model_type,
           "--character_coverage=1.0", "--eos_id=0", "--unk_id=1", "--bos_id=-1", "--pad_id=-1",
           "--hard_vocab_limit=false", "--num_threads=%d" % threads,
           "--minloglevel=2"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("spm_train failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    return prefix + ".model"


def _load_spm(path):
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor()
    if not sp.Load(path):
        raise ValueError("%s: not a SentencePiece model" % path)
    return sp


def build_vocab(spm_src, spm_tgt):
    """{piece: id}: </s> 0, <unk> 1, source pieces, new target pieces, <pad> last (docstring)."""
    vocab = {"</s>": 0, "<unk>": 1}
    for path in (spm_src, spm_tgt):
        sp = _load_spm(path)
        for i in range(sp.GetPieceSize()):
            if sp.IsControl(i) or sp.IsUnknown(i):
                continue
            piece = sp.IdToPiece(i)
            if piece not in vocab:
                vocab[piece] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab


class MarianTokenizer:
    def __init__(self, model_dir):
        with open(os.path.join(model_dir, "vocab.json"), encoding="utf-8") as f:
            self.encoder = json.load(f)
        if "<unk>" not in self.encoder:
            raise KeyError("%s/vocab.json: <unk> token must be in the vocab" % model_dir)
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.spm_source = _load_spm(os.path.join(model_dir, "source.spm"))
        self.spm_target = _load_spm(os.path.join(model_dir, "target.spm"))
        self.unk_id = self.encoder["<unk>"]
        self.eos_id = self.encoder["</s>"]
        self.special_ids = {self.encoder[s] for s in SPECIALS if s in self.encoder}

    def tokenize(self, text, target=False):
        """Token strings (without the appended </s>), steps 1-3 of the module docstring."""
        sp = self.spm_target if target else self.spm_source
        parts = _SPECIAL_SPLIT.split(text)
        for i, part in enumerate(parts):
            if part in SPECIALS:
                if i > 0:
                    parts[i - 1] = parts[i - 1].rstrip()
                if i + 1 < len(parts):
                    parts[i + 1] = parts[i + 1].lstrip()
        tokens = []
        for i, part in enumerate(parts):
            if not part:
                continue
            if i % 2 == 1:  # a special token (re.split puts the captured separators at odd i)
                tokens.append(part)
                continue
            m = LANG_CODE.match(part)
            code = [m.group(0)] if m else []
            tokens += code + sp.encode(LANG_CODE.sub("", part), out_type=str)
        return tokens

    def encode(self, text, target=False):
        return [self.encoder.get(t, self.unk_id) for t in self.tokenize(text, target)] + \
            [self.eos_id]

    def decode(self, ids):
        pieces = [self.decoder.get(int(i), "<unk>") for i in ids if int(i) not in self.special_ids]
        text = self.spm_target.DecodePieces(pieces).replace("\u2581", " ").strip()
        for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                     (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"),
                     (" 're", "'re")):
            text = text.replace(a, b)
        return text
