"""seq2seq_reference.py — what the encoder–decoder reference scripts (bart_reference.py,
t5_reference.py) share: the generation_config.json make-model writes and the generate subcommand
(marian_generate.py's greedy and beam search on the model folder's generation_config.json).

make-model's generation options: --num-beams K, --max-length N, --min-length N (0: absent) and
--gen KEY=JSON, repeatable, any further key with its JSON value (e.g. --gen
no_repeat_ngram_size=3 --gen early_stopping=true --gen forced_bos_token_id=0).
"""

import json
import os

import safetensors_io


def add_generation_options(parser):
    for opt in ("--num-beams", "--max-length", "--min-length"):
        parser.add_argument(opt, type=int, default=0)
    parser.add_argument("--gen", action="append", default=[], metavar="KEY=JSON",
                        help="a further generation_config.json key (repeatable)")


def write_generation_config(out_dir, base, a):
    """Writes BASE (a dict) with make-model's generation options A into OUT_DIR."""
    gen = dict(base)
    for key in ("num_beams", "max_length", "min_length"):
        value = getattr(a, key, 0)
        if value:
            gen[key] = value
    for item in a.gen:
        key, _, value = item.partition("=")
        gen[key] = json.loads(value)
    safetensors_io.write_json(os.path.join(out_dir, "generation_config.json"), gen)


def read_generation(model_dir):
    with open(os.path.join(model_dir, "generation_config.json"), encoding="utf-8") as f:
        return json.load(f)


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip()]


def add_generate_parser(sub):
    g = sub.add_parser("generate")
    g.add_argument("model_dir")
    g.add_argument("--src-ids", required=True)
    g.add_argument("--beams", type=int)
    g.add_argument("--max-length", type=int)
    g.add_argument("--json", action="store_true")
    g.add_argument("--out", help="write the JSON object to this file")
    return g


def cmd_generate(load_model, a):
    """generate: LOAD_MODEL(model_dir) gives the reference model; prints or writes
    {ids, beams, max_length, score}."""
    import marian_generate
    model = load_model(a.model_dir)
    gen = read_generation(a.model_dir)
    ids, score = marian_generate.generate(model, parse_ids(a.src_ids), gen, a.beams, a.max_length)
    beams = a.beams or gen.get("num_beams") or 1
    n = a.max_length or gen.get("max_length") or 20
    obj = {"ids": ids, "beams": beams, "max_length": n, "score": score}
    if a.out:
        with open(a.out + ".tmp", "w", encoding="utf-8") as f:
            f.write(json.dumps(obj))
        os.replace(a.out + ".tmp", a.out)
    elif a.json:
        print(json.dumps(obj))
    else:
        print(" ".join(str(i) for i in ids))
