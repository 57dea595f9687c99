"""safetensors_io.py — reading and writing safetensors files by hand (no safetensors package).

The format (huggingface/safetensors, docs/ and safetensors/src/tensor.rs): an 8-byte
little-endian u64 N, then N bytes of UTF-8 JSON mapping each tensor name to
{"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the byte after the
header) plus an optional "__metadata__" {str: str}, then the raw little-endian row-major
buffer. The Rust writer pads the header with spaces to a multiple of 8 and orders the
tensors by dtype, then by name; HF's save_pretrained adds {"format": "pt"} metadata.

Sharded checkpoints (transformers modeling_utils.save_pretrained): files
model-0000k-of-0000N.safetensors, each tensor whole in one file, plus
model.safetensors.index.json = {"metadata": {"total_size": bytes of all tensors},
"weight_map": {name: file}}, written with indent=2 and sorted keys.

Dtypes: F32; F16 (IEEE half, numpy's round-to-nearest-even cast); BF16 = the upper 16 bits of
the float32, rounded to nearest even as torch does (c10/util/BFloat16.h round_to_nearest_even),
so widening a BF16 value back to float32 is exact. Tensors are written streaming: the header
needs only names, dtypes and shapes, and each tensor's data may come as chunks of rows, so a
large model never needs more than one tensor (or one chunk) in memory.
"""

import json
import os
import struct

import numpy as np

STORAGE = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": np.dtype("<u2"),
           "I64": np.dtype("<i8")}  # I64: integer buffers such as BERT's position_ids
FROM_OPTION = {"f32": "F32", "bf16": "BF16", "f16": "F16"}
TORCH_DTYPE = {"F32": "float32", "BF16": "bfloat16", "F16": "float16"}  # config.json torch_dtype
INDEX_NAME = "model.safetensors.index.json"
SINGLE_NAME = "model.safetensors"


def encode(values, dtype):
    """float32 values (integers for I64) -> the storage array of DTYPE (little-endian)."""
    if dtype == "I64":
        return np.ascontiguousarray(values, dtype="<i8")
    x = np.ascontiguousarray(values, dtype=np.float32)
    if dtype == "F32":
        return x.astype("<f4", copy=False)
    if dtype == "F16":
        return x.astype("<f2")
    if dtype == "BF16":
        u = x.view(np.uint32)
        rounded = u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))
        return (rounded >> np.uint32(16)).astype("<u2")
    raise ValueError("unsupported safetensors dtype %r" % dtype)


def decode(stored, dtype):
    """Storage array of DTYPE -> float32 (exact for all three float dtypes); I64 stays int64."""
    if dtype == "I64":
        return np.asarray(stored, dtype=np.int64)
    if dtype == "F32":
        x = np.asarray(stored, dtype=np.float32)
        return x if x.flags.writeable else x.copy()
    if dtype == "F16":
        return np.asarray(stored).astype(np.float32)
    if dtype == "BF16":
        return (np.asarray(stored).astype(np.uint32) << np.uint32(16)).view(np.float32)
    raise ValueError("unsupported safetensors dtype %r" % dtype)


def rounded(values, dtype):
    """float32 values as they read back after a round trip through DTYPE."""
    return decode(encode(values, dtype), dtype)


def nbytes(dtype, shape):
    return int(np.prod(shape, dtype=np.int64)) * STORAGE[dtype].itemsize


# --- writing --------------------------------------------------------------------------------


def header_bytes(entries, metadata=None):
    """The 8-byte length plus the space-padded JSON header for ENTRIES [(name, dtype, shape)]
    stored back to back in that order."""
    header = {} if metadata is None else {"__metadata__": dict(metadata)}
    offset = 0
    for name, dtype, shape in entries:
        size = nbytes(dtype, shape)
        header[name] = {"dtype": dtype, "shape": [int(s) for s in shape],
                        "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode("utf-8")
    blob += b" " * (-len(blob) % 8)
    return struct.pack("<Q", len(blob)) + blob


def _chunks(source):
    """A tensor's data as float32 chunks: an array is one chunk, a callable yields chunks."""
    if callable(source):
        yield from source()
    else:
        yield source


def write_file(path, tensors, metadata=None, sort=True):
    """Writes TENSORS [(name, dtype, shape, source)] to PATH (via PATH.tmp, then renamed).
    SOURCE is a float32 array or a callable yielding float32 chunks of whole rows in order.
    SORT orders the tensors by name as the Rust writer does (one dtype per file here)."""
    tensors = sorted(tensors, key=lambda t: t[0]) if sort else list(tensors)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header_bytes([(n, d, s) for n, d, s, _ in tensors], metadata))
        for name, dtype, shape, source in tensors:
            written = 0
            for chunk in _chunks(source):
                data = encode(chunk, dtype)
                f.write(data.tobytes())
                written += data.nbytes
            if written != nbytes(dtype, shape):
                raise ValueError("%s: tensor %s produced %d bytes, its shape %s needs %d"
                                 % (path, name, written, list(shape), nbytes(dtype, shape)))
    os.replace(tmp, path)


def shard_names(n_shards):
    if n_shards <= 1:
        return [SINGLE_NAME]
    return ["model-%05d-of-%05d.safetensors" % (k + 1, n_shards) for k in range(n_shards)]


def plan_shards(entries, n_shards):
    """Splits ENTRIES [(name, dtype, shape)] in their order into N_SHARDS contiguous groups of
    about equal bytes (every tensor whole, no group empty): [[entry, ...], ...]."""
    n_shards = max(1, min(n_shards, len(entries)))
    total = max(1, sum(nbytes(d, s) for _, d, s in entries))
    groups, done, k = [[] for _ in range(n_shards)], 0, 0
    for i, entry in enumerate(entries):
        if groups[k] and min(n_shards - 1, done * n_shards // total) > k:
            k += 1  # at most one shard further per tensor: none stays empty
        k = max(k, n_shards - (len(entries) - i))  # one tensor left for each later shard
        groups[k].append(entry)
        done += nbytes(entry[1], entry[2])
    return groups


def write_checkpoint(out_dir, tensors, n_shards=1, metadata=None):
    """Writes TENSORS [(name, dtype, shape, source)] (state-dict order) as model.safetensors or,
    with N_SHARDS > 1, as HF's shard files plus model.safetensors.index.json. Returns the
    list of files written."""
    metadata = {"format": "pt"} if metadata is None else metadata
    by_name = {t[0]: t for t in tensors}
    groups = plan_shards([(n, d, s) for n, d, s, _ in tensors], n_shards)
    files = shard_names(len(groups))
    weight_map = {}
    for fname, group in zip(files, groups):
        write_file(os.path.join(out_dir, fname), [by_name[e[0]] for e in group], metadata)
        weight_map.update({e[0]: fname for e in group})
    if len(files) > 1:
        total = sum(nbytes(d, s) for _, d, s, _ in tensors)
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        write_json(os.path.join(out_dir, INDEX_NAME), index, sort_keys=True)
    return files


def write_json(path, obj, sort_keys=True):
    """indent=2 JSON with a final newline, written atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=sort_keys)
        f.write("\n")
    os.replace(tmp, path)


# --- reading --------------------------------------------------------------------------------


def read_header(path):
    """(header dict without __metadata__, metadata dict, byte offset of the buffer)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise ValueError("%s: shorter than the 8-byte header length" % path)
        (n,) = struct.unpack("<Q", head)
        size = os.fstat(f.fileno()).st_size
        if n > size - 8:
            raise ValueError("%s: header length %d exceeds the file size %d" % (path, n, size))
        header = json.loads(f.read(n).decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        if e["dtype"] not in STORAGE or end - b != nbytes(e["dtype"], e["shape"]) or \
                8 + n + end > size:
            raise ValueError("%s: tensor %s has a bad dtype, shape or offsets: %s"
                             % (path, name, e))
    return header, meta, 8 + n


class Checkpoint:
    """The safetensors weights of a model folder (model.safetensors, or shards listed by
    model.safetensors.index.json), or of one .safetensors file. Tensors are read one at a
    time with plain reads (no mmap, so a loaded model's RSS holds no file pages)."""

    def __init__(self, path):
        if os.path.isdir(path):
            index = os.path.join(path, INDEX_NAME)
            if os.path.exists(index):
                with open(index, encoding="utf-8") as f:
                    weight_map = json.load(f)["weight_map"]
                files = sorted(set(weight_map.values()))
            else:
                files = [SINGLE_NAME]
            paths = [os.path.join(path, f) for f in files]
        else:
            paths = [path]
        self.entries = {}
        for p in paths:
            header, _, base = read_header(p)
            for name, e in header.items():
                self.entries[name] = (p, e["dtype"], tuple(e["shape"]), base + e["data_offsets"][0])

    def names(self):
        return list(self.entries)

    def dtype(self, name):
        return self.entries[name][1]

    def shape(self, name):
        return self.entries[name][2]

    def stored(self, name):
        """The raw storage array, read from the file into a buffer of its own."""
        path, dtype, shape, offset = self.entries[name]
        size = nbytes(dtype, shape)
        raw = bytearray(size)
        with open(path, "rb") as f:
            f.seek(offset)
            got = f.readinto(raw)
        if got != size:
            raise ValueError("%s: tensor %s is truncated" % (path, name))
        return np.frombuffer(raw, dtype=STORAGE[dtype]).reshape(shape)

    def read(self, name):
        """The tensor widened to a float32 array of its own (exact)."""
        return decode(self.stored(name), self.dtype(name))
