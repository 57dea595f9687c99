#!/usr/bin/python3
"""gpt2_reference.py — the project's independent PyTorch reference for the GPT-2 forward pass.

Subcommands:
  make-model OUT_DIR --layers L --heads H --embd D --vocab V --positions P [--inner F] [--seed S]
             [--std 0.05] [--safetensors] [--no-h5] [--tokenizer-from DIR] ...
      a random GPT-2 in the exact Hugging Face folder layout (core/README.md, "Model folders"; core/io/README.md, "Weight files")
  expected MODEL_DIR OUT.h5 --ids 1,2,3 [--ids ...]
      core/families/README.md "GPT-2" in torch float32; per sequence a group /seq<N> with ids, attentions, q, k, v,
      contexts, attn_out, hidden_states, logits (all positions)
  bench MODEL_DIR --tokens 8,64,256,1024 --repeat N [--json]
      times the forward as HF's GPT2LMHeadModel runs it with output_attentions and
      output_hidden_states (all logits), 2 threads, no_grad; one JSON line per T
  check-dump DUMP.h5 [--model DIR]
      checks an `attnscope run --dump` file against the README.md "Command line" contract (names, dtypes,
      shapes, attributes) and, with --model, its values against this reference
  selfcheck
      compares this torch implementation with a naive float64 numpy loop on a small model

The maths is written here from core/families/README.md ("GPT-2"), not taken from transformers (not installed): the
ops mirror HF's modeling_gpt2 (Conv1D = addmm, heads split from c_attn, scores / sqrt(hd), causal
mask, softmax, P·v, c_proj, residual, LayerNorm, gelu_new, tied lm_head), so `bench` costs what
HF costs. Uses /usr/bin/python3 with Debian's python3-torch, python3-h5py, python3-numpy.
"""

import argparse
import json
import math
import os
import resource
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_layout  # noqa: E402

torch = None  # imported lazily: make-model and check-dump work without torch


def _import_torch(threads=2):
    global torch
    if torch is None:
        import torch as _torch
        torch = _torch
        torch.set_num_threads(threads)
    return torch


# --- the model ------------------------------------------------------------------------------


class Gpt2:
    """GPT-2 forward pass in torch float32, eval mode, batch of one."""

    def __init__(self, cfg, weights):
        _import_torch()
        self.cfg = cfg
        self.n_layer, self.n_head, self.d = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
        self.hd = self.d // self.n_head
        self.eps = float(cfg.get("layer_norm_epsilon", 1e-5))
        self.w = {k: torch.from_numpy(v if v.flags.writeable and v.dtype == np.float32
                                      else np.array(v, dtype=np.float32))
                  for k, v in weights.items()}

    def _ln(self, x, name):
        return torch.nn.functional.layer_norm(x, (self.d,), self.w[name + ".weight"],
                                              self.w[name + ".bias"], self.eps)

    def _conv1d(self, x, name):
        """HF Conv1D: x·W + b with W stored [in, out]."""
        return torch.addmm(self.w[name + ".bias"], x, self.w[name + ".weight"])

    @staticmethod
    def gelu_new(x):
        c = math.sqrt(2.0 / math.pi)
        return 0.5 * x * (1.0 + torch.tanh(c * (x + 0.044715 * torch.pow(x, 3.0))))

    def forward(self, ids, capture=False, last_logits=False):
        """Returns a dict: hidden_states (L+1 tensors [T,D]), attentions (L tensors [H,T,T]),
        logits [T,V] ([1,V] with LAST_LOGITS); with CAPTURE also q, k, v, contexts ([H,T,hd]
        each) and attn_out ([T,D])."""
        t = len(ids)
        w, hn, hd = self.w, self.n_head, self.hd
        idx = torch.as_tensor(ids, dtype=torch.long)
        h = w["wte.weight"][idx] + w["wpe.weight"][:t]
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        scale = torch.full([], hd ** 0.5, dtype=torch.float32)
        out = {"hidden_states": [], "attentions": []}
        if capture:
            out.update(q=[], k=[], v=[], contexts=[], attn_out=[])
        for n in range(self.n_layer):
            pre = "h.%d." % n
            out["hidden_states"].append(h)
            qkv = self._conv1d(self._ln(h, pre + "ln_1"), pre + "attn.c_attn")  # [T,3D]
            q, k, v = (x.view(t, hn, hd).transpose(0, 1) for x in qkv.split(self.d, dim=1))
            s = torch.matmul(q, k.transpose(-1, -2)) / scale  # [H,T,T]
            s = s.masked_fill(~causal, float("-inf"))
            p = torch.softmax(s, dim=-1)
            ctx = torch.matmul(p, v)  # [H,T,hd]
            merged = ctx.transpose(0, 1).reshape(t, self.d)
            a = self._conv1d(merged, pre + "attn.c_proj")  # [T,D]
            h = h + a
            m = self._conv1d(self._ln(h, pre + "ln_2"), pre + "mlp.c_fc")
            h = h + self._conv1d(self.gelu_new(m), pre + "mlp.c_proj")
            out["attentions"].append(p)
            if capture:
                for key, val in (("q", q), ("k", k), ("v", v), ("contexts", ctx), ("attn_out", a)):
                    out[key].append(val)
        h = self._ln(h, "ln_f")
        out["hidden_states"].append(h)
        rows = h[-1:] if last_logits else h
        out["logits"] = torch.nn.functional.linear(rows, w["wte.weight"])  # tied, no bias
        return out


def load_model(model_dir):
    cfg = hf_layout.load_config(model_dir)
    return Gpt2(cfg, hf_layout.read_weights(model_dir, cfg))


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip() != ""]


# --- subcommands ----------------------------------------------------------------------------


def cmd_make_model(a):
    cfg = hf_layout.make_config(a.layers, a.heads, a.embd, a.vocab, a.positions, a.inner)
    if a.embd % a.heads:
        sys.exit("gpt2_reference: --embd %d is not divisible by --heads %d" % (a.embd, a.heads))
    weights = hf_layout.random_weights(cfg, a.std, a.seed)
    hf_layout.write_model(a.out_dir, cfg, weights, h5=not a.no_h5, safetensors=a.safetensors,
                          vlen=a.vlen_strings, chunks=a.weight_names_chunks,
                          mask_buffers=a.mask_buffers, tokenizer_from=a.tokenizer_from)


def run_capture(model, ids):
    """{name: float32 numpy array} with the shapes of the expected file."""
    with torch.no_grad():
        out = model.forward(ids, capture=True)
    arrays = {"ids": np.asarray(ids, dtype=np.int64)}
    for key in ("attentions", "q", "k", "v", "contexts", "attn_out", "hidden_states"):
        arrays[key] = torch.stack(out[key]).numpy().astype(np.float32)
    arrays["logits"] = out["logits"].numpy().astype(np.float32)
    return arrays


def cmd_expected(a):
    model = load_model(a.model_dir)
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["model"] = os.path.basename(os.path.normpath(a.model_dir))
        f.attrs["torch_version"] = str(torch.__version__)
        for n, text in enumerate(a.ids):
            g = f.create_group("seq%d" % n)
            for key, arr in run_capture(model, parse_ids(text)).items():
                g.create_dataset(key, data=arr)
    os.replace(tmp, a.out)


def cmd_bench(a):
    _import_torch(a.threads)
    cfg = hf_layout.load_config(a.model_dir)
    t0 = time.perf_counter()  # load = h5py reading every weight dataset of tf_model.h5
    weights = hf_layout.read_weights(a.model_dir, cfg)
    load_ms = (time.perf_counter() - t0) * 1e3
    model = Gpt2(cfg, weights)
    del weights
    rng = np.random.default_rng(a.seed)
    for t in [int(x) for x in a.tokens.split(",")]:
        ids = rng.integers(0, cfg["vocab_size"], size=t).tolist()
        times = []
        with torch.no_grad():
            for r in range(a.repeat + a.warmup):
                t1 = time.perf_counter()
                out = model.forward(ids, last_logits=a.last_logits)
                dt = (time.perf_counter() - t1) * 1e3
                del out
                if r >= a.warmup:
                    times.append(dt)
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        rec = {"impl": "pytorch", "tokens": t, "repeat": a.repeat,
               "median_ms": round(float(np.median(times)), 3), "min_ms": round(min(times), 3),
               "load_ms": round(load_ms, 3), "peak_rss_mb": round(rss_mb, 1),
               "all_logits": not a.last_logits, "threads": torch.get_num_threads(),
               "torch": str(torch.__version__)}
        if a.json:
            print(json.dumps(rec), flush=True)
        else:
            print("T=%d median %.2f ms min %.2f ms (load %.1f ms, peak RSS %.0f MB)"
                  % (t, rec["median_ms"], rec["min_ms"], load_ms, rss_mb), flush=True)


def _str_list(values):
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.ravel(values)]


def check_dump(path, model_dir=None):
    """Returns a list of problems (empty when the dump keeps the contract)."""
    problems = []
    with h5py.File(path, "r") as f:
        for attr in ("model", "architecture"):
            if attr not in f.attrs:
                problems.append("root attribute '%s' missing" % attr)
        need = ["token_ids", "tokens", "attentions", "hidden_states", "contexts", "logits"]
        missing = [n for n in need if n not in f]
        if missing:
            return problems + ["datasets missing: %s" % ", ".join(missing)]
        ids = f["token_ids"][...]
        t = ids.shape[0] if ids.ndim == 1 else -1
        if f["token_ids"].dtype != np.int64 or ids.ndim != 1:
            problems.append("token_ids: %s %s, expected int64 [T]" % (ids.dtype, ids.shape))
        if f["tokens"].dtype.kind not in "SOU" or f["tokens"].shape != (t,):
            problems.append("tokens: %s %s, expected strings [%d]"
                            % (f["tokens"].dtype, f["tokens"].shape, t))
        att, hid, ctx, lg = (f[n] for n in ("attentions", "hidden_states", "contexts", "logits"))
        for name, ds in (("attentions", att), ("hidden_states", hid), ("contexts", ctx),
                         ("logits", lg)):
            if ds.dtype != np.float32:
                problems.append("%s: dtype %s, expected float32" % (name, ds.dtype))
        if att.ndim != 4 or att.shape[2:] != (t, t):
            problems.append("attentions: shape %s, expected [L,H,%d,%d]" % (att.shape, t, t))
            return problems
        nl, nh = att.shape[:2]
        if hid.ndim != 3 or hid.shape[:2] != (nl + 1, t):
            problems.append("hidden_states: shape %s, expected [%d,%d,D]" % (hid.shape, nl + 1, t))
            return problems
        d = hid.shape[2]
        if ctx.shape != (nl, nh, t, d // nh):
            problems.append("contexts: shape %s, expected %s" % (ctx.shape, (nl, nh, t, d // nh)))
        if lg.ndim != 2 or lg.shape[0] != t:
            problems.append("logits: shape %s, expected [%d,V]" % (lg.shape, t))
        if model_dir and not problems:
            exp = run_capture(load_model(model_dir), ids.tolist())
            problems += _compare_values(f, exp)
    return problems


def _compare_values(f, exp):
    problems = []
    pairs = (("attentions", "attentions", 1e-5, 0.0), ("hidden_states", "hidden_states", 0, 1e-4),
             ("contexts", "contexts", 0, 1e-4), ("logits", "logits", 0, 1e-4))
    for dump_name, exp_name, atol, rtol in pairs:
        got, want = f[dump_name][...], exp[exp_name]
        if got.shape != want.shape:
            problems.append("%s: shape %s, reference %s" % (dump_name, got.shape, want.shape))
            continue
        scale = float(np.sqrt(np.mean(want.astype(np.float64) ** 2))) or 1.0
        err = np.abs(got.astype(np.float64) - want)
        bad = err > atol + rtol * (np.abs(want) + 0.1 * scale)
        if bad.any():
            i = np.unravel_index(np.argmax(err), err.shape)
            problems.append("%s: %d values differ from the reference, worst at %s: %g vs %g"
                            % (dump_name, int(bad.sum()), i, got[i], want[i]))
    return problems


def cmd_check_dump(a):
    if a.model:
        _import_torch()
    problems = check_dump(a.dump, a.model)
    print(json.dumps({"file": a.dump, "ok": not problems, "problems": problems}))
    return 0 if not problems else 1


# --- selfcheck: a second, naive implementation ----------------------------------------------


def naive_forward(cfg, w, ids):
    """core/families/README.md "GPT-2" with explicit float64 loops over heads, queries and keys."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in w.items()}
    d, nh = cfg["n_embd"], cfg["n_head"]
    hd, t, eps = d // nh, len(ids), cfg["layer_norm_epsilon"]

    def ln(x, g, b):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * g + b

    def gelu(x):
        return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))

    h = np.stack([w["wte.weight"][i] + w["wpe.weight"][p] for p, i in enumerate(ids)])
    out = {key: [] for key in ("attentions", "q", "k", "v", "contexts", "attn_out")}
    out["hidden_states"] = [h]
    for n in range(cfg["n_layer"]):
        g = lambda s: w["h.%d.%s" % (n, s)]  # noqa: E731
        a1 = ln(h, g("ln_1.weight"), g("ln_1.bias"))
        qkv = a1 @ g("attn.c_attn.weight") + g("attn.c_attn.bias")
        p_all, ctx, heads = np.zeros((nh, t, t)), np.zeros((t, d)), {"q": [], "k": [], "v": []}
        for head in range(nh):
            cols = slice(head * hd, head * hd + hd)
            q, k, v = qkv[:, cols], qkv[:, d:][:, cols], qkv[:, 2 * d:][:, cols]
            heads["q"].append(q), heads["k"].append(k), heads["v"].append(v)
            for i in range(t):
                s = [sum(q[i, c] * k[j, c] for c in range(hd)) / math.sqrt(hd)
                     for j in range(i + 1)]
                e = np.exp(np.array(s) - max(s))
                p_all[head, i, :i + 1] = e / e.sum()
                ctx[i, cols] = sum(p_all[head, i, j] * v[j] for j in range(i + 1))
        a = ctx @ g("attn.c_proj.weight") + g("attn.c_proj.bias")
        h = h + a
        a2 = ln(h, g("ln_2.weight"), g("ln_2.bias"))
        m = gelu(a2 @ g("mlp.c_fc.weight") + g("mlp.c_fc.bias"))
        h = h + m @ g("mlp.c_proj.weight") + g("mlp.c_proj.bias")
        for key in heads:
            out[key].append(np.stack(heads[key]))
        out["contexts"].append(ctx.reshape(t, nh, hd).transpose(1, 0, 2))
        out["attentions"].append(p_all)
        out["attn_out"].append(a)
        out["hidden_states"].append(h)
    out["hidden_states"][-1] = ln(h, w["ln_f.weight"], w["ln_f.bias"])
    out = {key: np.stack(val) for key, val in out.items()}
    out["logits"] = out["hidden_states"][-1] @ w["wte.weight"].T
    return out


def check_h5_layout(path, cfg):
    """The Keras-HDF5 layout of core/io/README.md "Weight files", checked from the file alone."""
    problems = []
    with h5py.File(path, "r") as f:
        if _str_list(f.attrs.get("layer_names", [])) != [hf_layout.H5_LAYER]:
            problems.append("root layer_names is not ['transformer']")
        for key in ("backend", "keras_version"):
            if key not in f.attrs:
                problems.append("root attribute %s missing" % key)
        g = f[hf_layout.H5_LAYER]
        keys = sorted((k for k in g.attrs if k.startswith("weight_names")),
                      key=lambda k: int(k[len("weight_names"):] or -1))
        names = [n for k in keys for n in _str_list(g.attrs[k])]
        want = [hf_layout.H5_SCOPE + tf for _, tf, _ in hf_layout.gpt2_params(cfg)]
        if names != want:
            problems.append("weight_names lists %d names, expected the %d GPT-2 weights"
                            % (len(names), len(want)))
        for (pt, _, shape), name in zip(hf_layout.gpt2_params(cfg), want):
            ds = g.get(name)
            if not isinstance(ds, h5py.Dataset) or ds.dtype != np.float32 or \
                    ds.shape != hf_layout.tf_shape(pt, shape) or ds.chunks or ds.compression:
                problems.append("dataset /%s/%s missing or not contiguous float32 %s"
                                % (hf_layout.H5_LAYER, name, hf_layout.tf_shape(pt, shape)))
    return problems


def cmd_selfcheck(a):
    _import_torch()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for safetensors in (False, True):
            d = os.path.join(tmp, "st" if safetensors else "h5")
            cfg = hf_layout.make_config(2, 3, 24, 300, 40, inner=40)
            w = hf_layout.random_weights(cfg, 0.3, 7)
            hf_layout.write_model(d, cfg, w, h5=not safetensors, safetensors=safetensors,
                                  mask_buffers=safetensors, chunks=0 if safetensors else 3)
            model = load_model(d)
            for ids in ([5], [1, 2, 3, 299, 0, 7, 7], list(range(0, 300, 8))[:37]):
                got = run_capture(model, ids)
                naive = naive_forward(cfg, w, ids)
                for name, ref in naive.items():
                    err = np.max(np.abs(got[name] - ref)) / max(np.max(np.abs(ref)), 1e-30)
                    worst = max(worst, err)
                    print("%-3s T=%-3d %-14s max err / max |ref| = %.3g"
                          % ("st" if safetensors else "h5", len(ids), name, err))
                    if err > 1e-5:
                        print("selfcheck FAILED for %s" % name)
                        return 1
                masked = got["attentions"][:, :, np.triu_indices(len(ids), 1)[0],
                                           np.triu_indices(len(ids), 1)[1]]
                if np.any(masked != 0.0):
                    print("selfcheck FAILED: masked attention not exactly 0")
                    return 1
        problems = check_h5_layout(os.path.join(tmp, "h5", "tf_model.h5"), cfg)
        if problems:
            print("selfcheck FAILED: tf_model.h5 layout: %s" % "; ".join(problems))
            return 1
    print("selfcheck ok: worst relative error %.3g" % worst)
    return 0


# --- command line ---------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-model", help="write a random GPT-2 in the HF layout")
    m.add_argument("out_dir")
    for opt in ("--layers", "--heads", "--embd", "--vocab", "--positions"):
        m.add_argument(opt, type=int, required=True)
    m.add_argument("--inner", type=int, default=None, help="MLP width (config n_inner; null = 4D)")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--std", type=float, default=0.05)
    m.add_argument("--safetensors", action="store_true", help="also write model.safetensors")
    m.add_argument("--no-h5", action="store_true", help="do not write tf_model.h5")
    m.add_argument("--mask-buffers", action="store_true",
                   help="add h.N.attn.bias mask buffers to model.safetensors")
    m.add_argument("--vlen-strings", action="store_true",
                   help="HDF5 string attributes as variable-length instead of fixed-length")
    m.add_argument("--weight-names-chunks", type=int, default=0,
                   help="split weight_names into weight_names0..N-1 (default: as Keras does)")
    m.add_argument("--tokenizer-from", default=None, help="copy vocab.json + merges.txt from DIR")
    e = sub.add_parser("expected", help="run the reference and write the expected outputs")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--ids", action="append", required=True, help="comma-separated token ids")
    b = sub.add_parser("bench", help="time the HF-style forward pass")
    b.add_argument("model_dir")
    b.add_argument("--tokens", default="8,64,256,1024")
    b.add_argument("--repeat", type=int, default=5)
    b.add_argument("--warmup", type=int, default=1)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--last-logits", action="store_true",
                   help="logits of the last position only (HF computes all)")
    b.add_argument("--json", action="store_true")
    c = sub.add_parser("check-dump", help="check an attnscope run --dump file")
    c.add_argument("dump")
    c.add_argument("--model", default=None, help="also compare values with the reference")
    sub.add_parser("selfcheck", help="compare with a naive numpy implementation")
    a = ap.parse_args(argv)
    fn = {"make-model": cmd_make_model, "expected": cmd_expected, "bench": cmd_bench,
          "check-dump": cmd_check_dump, "selfcheck": cmd_selfcheck}[a.cmd]
    return fn(a) or 0


if __name__ == "__main__":
    sys.exit(main())
