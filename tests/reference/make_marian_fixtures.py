#!/usr/bin/python3
"""make_marian_fixtures.py — every Marian fixture the core and command-line tests use, generated
once per test run into the build folder (meson runs it as a custom target the tests depend on).

  make_marian_fixtures.py OUT_DIR SOURCE_DIR STAMP

OUT_DIR receives (all through marian_reference.py, in one Python process):
  spm/           SentencePiece models trained by spm_train at test time: en.model (unigram) and
                 de.model (BPE) on the reference's built-in sentences
  models/small/  a random Marian model (2 encoder, 3 decoder layers, 4 heads, d 32, ffn 64,
                 64 positions), tf_model.h5 and model.safetensors with identical tensors
  models/old-names/  another shape (3 + 2 layers, 2 heads, d 24, ffn 40, 48 positions), the
                 shared embedding under .../weight:0 and no final_logits_bias group
  models/positions-edited/  "small" whose embed_positions tables in both files are NOT the
                 sinusoid formula (Hugging Face uses the file's table)
  models/positions-absent/  "small" as model.safetensors without embed_positions (as
                 save_pretrained writes it; the formula is used)
  models/vocab-gaps/  "small" whose vocab.json lacks every third piece
  expected/NAME.h5   marian_reference.py expected for the pairs in manifest.json
  generate/NAME.json greedy and beam translations (marian_reference.py generate --json)
  tokenize/NAME-{source,target}.jsonl  MarianTokenizer ids of every line of lines.txt
  lines.txt      the tokenization corpus: the shipped model's held-out English and German
                 (2,224 lines) and tests/fixtures/marian-edge-lines.txt
  manifest.json  what was written (models, pairs, generate cases, tokenize files)
  stamp          written last (and copied to STAMP, meson's output): "ok", "skip: REASON"
                 when torch, h5py, sentencepiece or spm_train is missing (the tests then skip),
                 or "fail: ERROR" when generating failed (the tests then fail, naming it)
"""

import contextlib
import io
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SHIPPED = "attnscope-mini-en-de"

SENTENCES_EN = ["The group went home.", "The man hit the car.",
                "Save the document before closing the window.",
                "Network connection lost.", "Attention is all you need.",
                "Do you want to quit without saving?"]
SENTENCES_DE = ["Die Gruppe ging nach Hause.", "Der Mann schlug das Auto.",
                "Speichern Sie das Dokument, bevor Sie das Fenster schließen.",
                "Netzwerkverbindung verloren.", "Aufmerksamkeit ist alles, was man braucht.",
                "Möchten Sie beenden, ohne zu speichern?"]


def run(reference, argv):
    """marian_reference.main(ARGV) with its standard output captured."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = reference.main(argv)
    if code:
        raise RuntimeError("marian_reference %s failed (%d)" % (" ".join(argv), code))
    return out.getvalue()


def ids_arg(ids):
    return ",".join(str(i) for i in ids)


def write_stamp(out_dir, text, stamp):
    for path in (os.path.join(out_dir, "stamp"), stamp):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")


def missing_tools():
    for module in ("torch", "h5py", "numpy", "sentencepiece"):
        try:
            __import__(module)
        except ImportError:
            return "Python module %s is missing" % module
    if shutil.which("spm_train") is None:
        return "spm_train (Debian package sentencepiece) is missing"
    return None


def random_pairs(tok, n_positions, vocab, seed):
    """(source ids, decoder input ids) pairs: tokenized sentences, one-token inputs and random
    ids up to the model's positions."""
    import numpy as np
    rng = np.random.default_rng(seed)
    start = vocab - 1
    pairs = [([0], [start])]
    for en, de in zip(SENTENCES_EN[:3], SENTENCES_DE[:3]):
        pairs.append((tok.encode(en), [start] + tok.encode(de, target=True)))
    for s, t in ((7, 1), (n_positions, n_positions), (n_positions - 1, 5)):
        pairs.append(([int(x) for x in rng.integers(0, vocab, s)],
                      [start] + [int(x) for x in rng.integers(0, vocab, t - 1)]))
    return pairs


def make_models(ref, out, spm_en, spm_de):
    models = os.path.join(out, "models")
    small = os.path.join(models, "small")
    common = ["--spm-src", spm_en, "--spm-tgt", spm_de, "--vocab-from-spm"]
    run(ref, ["make-model", small, "--layers-enc", "2", "--layers-dec", "3", "--heads", "4",
              "--dim", "32", "--ffn", "64", "--positions", "64", "--seed", "1", "--std", "0.3",
              "--format", "both", "--max-length", "40", "--num-beams", "4"] + common)
    run(ref, ["make-model", os.path.join(models, "old-names"), "--layers-enc", "3",
              "--layers-dec", "2", "--heads", "2", "--dim", "24", "--ffn", "40",
              "--positions", "48", "--seed", "2", "--std", "0.2", "--old-names",
              "--no-final-logits-bias",
              "--num-beams", "3", "--max-length", "30"] + common)
    edit_positions(small, os.path.join(models, "positions-edited"))
    drop_positions(small, os.path.join(models, "positions-absent"))
    vocab_gaps(small, os.path.join(models, "vocab-gaps"))


def vocab_gaps(src, dst):
    """SRC whose vocab.json lacks every third piece (ids of the others unchanged): those pieces
    tokenize as <unk>, as MarianTokenizer maps them."""
    shutil.copytree(src, dst)
    path = os.path.join(dst, "vocab.json")
    with open(path, encoding="utf-8") as f:
        vocab = json.load(f)
    kept = {p: i for p, i in vocab.items() if p in ("</s>", "<unk>", "<pad>") or i % 3 != 0}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(kept, f, ensure_ascii=False, indent=2)


def edit_positions(src, dst):
    """SRC with position tables that are not the formula, in both weight files."""
    import numpy as np
    import marian_layout
    shutil.copytree(src, dst)
    cfg = marian_layout.load_config(dst)
    w = marian_layout.read_tf_h5(os.path.join(dst, "tf_model.h5"), cfg)
    rng = np.random.default_rng(7)
    for side in ("encoder", "decoder"):
        key = "model.%s.embed_positions.weight" % side
        w[key] = (w[key] * np.float32(0.5)
                  + rng.standard_normal(w[key].shape, dtype=np.float32) * np.float32(0.2))
    marian_layout.write_tf_h5(os.path.join(dst, "tf_model.h5"), cfg, w)
    marian_layout.write_safetensors(os.path.join(dst, "model.safetensors"), cfg, w)


def drop_positions(src, dst):
    """SRC's model.safetensors without the embed_positions tensors, no tf_model.h5."""
    import hf_layout
    import marian_layout
    os.makedirs(dst)
    for name in os.listdir(src):
        if name not in ("tf_model.h5", "model.safetensors"):
            shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))
    cfg = marian_layout.load_config(src)
    w = marian_layout.read_safetensors(os.path.join(src, "model.safetensors"), cfg)
    tensors = [("final_logits_bias", w["final_logits_bias"])]
    tensors += [(pt, w[pt]) for pt, _, _, _ in marian_layout.layer_params(cfg)
                if "embed_positions" not in pt]
    hf_layout.write_safetensors_tensors(os.path.join(dst, "model.safetensors"), tensors)


def make_expected(ref, out, name, model_dir, pairs, weights="h5", extra=()):
    path = os.path.join(out, "expected", name + ".h5")
    argv = ["expected", model_dir, path, "--weights", weights] + list(extra)
    for s, t in pairs:
        argv += ["--src-ids", ids_arg(s), "--tgt-ids", ids_arg(t)]
    run(ref, argv)
    return {"model": model_dir, "expected": path,
            "pairs": [{"source_ids": s, "target_ids": t} for s, t in pairs]}


def make_generate(ref, out, name, model_dir, sources, cases):
    results = []
    for src in sources:
        for beams, max_length in cases:
            argv = ["generate", model_dir, "--src-ids", ids_arg(src), "--json"]
            if beams:
                argv += ["--beams", str(beams)]
            if max_length:
                argv += ["--max-length", str(max_length)]
            results.append(json.loads(run(ref, argv)))
    path = os.path.join(out, "generate", name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=1)
    return path


def make_tokenize(ref, out, name, model_dir, lines):
    files = {}
    for side in ("source", "target"):
        path = os.path.join(out, "tokenize", "%s-%s.jsonl" % (name, side))
        argv = ["tokenize", model_dir, "--lines", lines] + (["--target"] if side == "target"
                                                              else [])
        with open(path, "w", encoding="utf-8") as f:
            f.write(run(ref, argv))
        files[side] = path
    return files


def write_lines(out, source_dir):
    shipped = os.path.join(source_dir, "data", "models", SHIPPED)
    path = os.path.join(out, "lines.txt")
    with open(path, "w", encoding="utf-8") as f:
        for name in (os.path.join(shipped, "heldout.en"), os.path.join(shipped, "heldout.de"),
                     os.path.join(source_dir, "tests", "fixtures", "marian-edge-lines.txt")):
            with open(name, encoding="utf-8") as g:
                for line in g:
                    f.write(line.rstrip("\n") + "\n")
    return path


def main(argv):
    out, source_dir, stamp = argv[1], argv[2], argv[3]
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    reason = missing_tools()
    if reason:
        write_stamp(out, "skip: " + reason, stamp)
        return 0
    try:
        generate(out, source_dir)
    except Exception as e:  # the tests report it; a failing build step would stop every test
        import traceback
        traceback.print_exc()
        write_stamp(out, "fail: %s: %s" % (type(e).__name__, e), stamp)
        return 0
    write_stamp(out, "ok", stamp)
    return 0


def generate(out, source_dir):
    import marian_reference as ref
    import marian_tokenizer
    for sub in ("spm", "expected", "generate", "tokenize"):
        os.makedirs(os.path.join(out, sub))
    spm_en = marian_tokenizer.train_spm(os.path.join(out, "spm", "en"),
                                        _sample(out, "en"), 200, "unigram")
    spm_de = marian_tokenizer.train_spm(os.path.join(out, "spm", "de"),
                                        _sample(out, "de"), 200, "bpe")
    make_models(ref, out, spm_en, spm_de)
    lines = write_lines(out, source_dir)
    shipped = os.path.join(source_dir, "data", "models", SHIPPED)

    manifest = {"lines": lines, "models": {}, "expected": {}, "generate": {}, "tokenize": {}}
    for name in ("small", "old-names", "positions-edited", "positions-absent", "vocab-gaps"):
        manifest["models"][name] = os.path.join(out, "models", name)
    manifest["models"]["shipped"] = shipped

    small = manifest["models"]["small"]
    tok = marian_tokenizer.MarianTokenizer(small)
    vocab = len(tok.encoder)
    manifest["expected"]["small"] = make_expected(ref, out, "small", small,
                                                  random_pairs(tok, 64, vocab, 11))
    manifest["expected"]["small-no-positions"] = make_expected(
        ref, out, "small-no-positions", small, random_pairs(tok, 64, vocab, 17),
        extra=["--no-positions"])
    old = manifest["models"]["old-names"]
    manifest["expected"]["old-names"] = make_expected(ref, out, "old-names", old,
                                                      random_pairs(tok, 48, vocab, 12))
    edited = manifest["models"]["positions-edited"]
    manifest["expected"]["positions-edited"] = make_expected(
        ref, out, "positions-edited", edited, random_pairs(tok, 64, vocab, 13))

    stok = marian_tokenizer.MarianTokenizer(shipped)
    shipped_pairs = [(stok.encode(en), [stok.encoder["<pad>"]] + stok.encode(de, target=True))
                     for en, de in zip(SENTENCES_EN, SENTENCES_DE)]
    manifest["expected"]["shipped"] = make_expected(ref, out, "shipped", shipped, shipped_pairs)
    manifest["expected"]["shipped"]["texts"] = [[en, de] for en, de in zip(SENTENCES_EN,
                                                                          SENTENCES_DE)]

    sources = [tok.encode(s) for s in SENTENCES_EN] + [[0], [5, 9, 0]]
    manifest["generate"]["small"] = make_generate(
        ref, out, "small", small, sources, [(1, None), (None, None), (2, None), (3, 6), (1, 5)])
    manifest["generate"]["old-names"] = make_generate(
        ref, out, "old-names", old, sources[:4], [(1, None), (None, None), (4, 12)])
    with open(os.path.join(shipped, "heldout.en"), encoding="utf-8") as f:
        heldout = [line.rstrip("\n") for line in f][:40:5]
    manifest["generate"]["shipped"] = make_generate(
        ref, out, "shipped", shipped, [stok.encode(s) for s in SENTENCES_EN],
        [(1, None), (None, None), (3, 8)])
    manifest["generate"]["shipped-heldout"] = make_generate(
        ref, out, "shipped-heldout", shipped, [stok.encode(s) for s in heldout],
        [(None, None), (2, None)])

    manifest["tokenize"]["shipped"] = make_tokenize(ref, out, "shipped", shipped, lines)
    manifest["tokenize"]["small"] = make_tokenize(ref, out, "small", small, lines)
    manifest["tokenize"]["vocab-gaps"] = make_tokenize(ref, out, "vocab-gaps",
                                                       manifest["models"]["vocab-gaps"], lines)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)


def _sample(out, lang):
    import marian_tokenizer
    path = os.path.join(out, "spm", "%s.txt" % lang)
    with open(path, "w", encoding="utf-8") as f:
        f.write(marian_tokenizer.sample_text(lang))
    return path


if __name__ == "__main__":
    sys.exit(main(sys.argv))
