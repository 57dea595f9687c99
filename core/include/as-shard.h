/* as-shard.h — splitting a corpus run into shards that run anywhere (a cluster's array job, GNU
 * parallel) and merging their partial results exactly.
 *
 * Shards. `--shard K/N` (0 <= K < N, N >= 1, both plain decimal integers) takes the items of
 * the corpus — the non-blank lines of a --lines file, counted from 0 in file order — whose index
 * i has i mod N == K: K, K+N, K+2N, ... (round robin, so every shard gets a fair share of long
 * and short lines wherever they sit in the file). A shard may be empty (N larger than the
 * corpus): it still writes its part.
 *
 * Exactness. A part holds sums and counts, never averages: integer counts, and double sums as
 * exact sums (as-shard-sum.h), so merging the parts in any grouping gives bit for bit the
 * single-process result, which accumulates with the same exact sums.
 *
 * Part file (JSON, one object; "attnscope_part" is the format version):
 *   {"attnscope_part": 1, "command": "stats", "shard": K, "shards": N,
 *    "model": {"name": "gpt2", "fingerprint": "<sha256 hex>"},
 *    "corpus": {"sha256": "<sha256 hex of the file's bytes>", "items": <items of the corpus>},
 *    "options": {<the options that change the result, as the command names them>},
 *    "items": <items in this shard>,
 *    "result": {<the command's partial sums>}}
 *
 * Model fingerprint: the SHA-256 over the model folder's regular files (symbolic links followed,
 * hidden files and subfolders left out) in name order: for each its name, its size, and its
 * bytes — whole for a file of at most 4 MiB (config.json, the tokenizer's files), the first and
 * the last MiB for a larger one (the weights: a safetensors header with every tensor's name,
 * dtype, shape and offsets, and the first and last tensors' values). It costs at most a few MB
 * of reading per weight file however large the model, is the same for copies of the folder on
 * different nodes and paths (no paths or times enter), and tells apart two models or two
 * checkpoints of one architecture unless they differ only in the middle of a weight file and in
 * no other file — the one case it does not catch. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define AS_SHARD_FORMAT_VERSION 1

typedef struct
{
  int index; /* K */
  int count; /* N */
} AsShardSpec;

/* Parses "K/N" (also naming the option OPTION in errors, e.g. "--shard"). Fails with
 * AS_ERROR_INPUT for anything else: "4/4" (K must be below N), "0/0", "-1/4", "1/", "a/b",
 * "1/4x", numbers beyond 2^31. */
gboolean as_shard_spec_parse (AsShardSpec *out, const char *text, const char *option,
                              GError **error);

/* Whether item INDEX (0-based) belongs to SPEC's shard. */
static inline gboolean
as_shard_spec_takes (const AsShardSpec *spec, gint64 index)
{
  return index % spec->count == spec->index;
}

/* The model fingerprint described above of the folder MODEL_DIR, as lowercase hex. */
char *as_shard_model_fingerprint (const char *model_dir, GError **error);

/* SHA-256 of DATA [LENGTH] as lowercase hex (the corpus fingerprint). */
char *as_shard_sha256_hex (const void *data, gsize length);

/* One shard's partial result, or one read from a part file. */
typedef struct
{
  char *command; /* "stats", "perplexity", ... */
  AsShardSpec spec;
  char *model_name;
  char *model_fingerprint;
  char *corpus_sha256;
  gint64 corpus_items; /* items of the whole corpus */
  gint64 items;        /* items in this shard */
  JsonNode *options;   /* an object: the options that change the result */
  JsonNode *result;    /* the command's partial sums (its own layout) */
  char *path;          /* the file it was read from, NULL for a part being built */
} AsShardPart;

/* An empty part (every field zero/NULL); the caller fills it (the strings and nodes are owned by
 * the part and freed with it). */
AsShardPart *as_shard_part_new (void);
void as_shard_part_free (AsShardPart *part);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsShardPart, as_shard_part_free)

/* Writes PART to PATH as one JSON line, whole or not at all (as-output-file.h). */
gboolean as_shard_part_write (const AsShardPart *part, const char *path, GError **error);

/* Reads a part file; fails naming PATH and what is wrong (not JSON, not a part, a missing or
 * mistyped member, a format version this build does not know). */
AsShardPart *as_shard_part_read (const char *path, GError **error);

/* Checks that PARTS (AsShardPart *) are one complete set and sorts them by shard index: the
 * same command, model fingerprint, corpus, options and shard count N, and every index 0..N-1
 * exactly once. Fails with AS_ERROR_INPUT naming the mismatch and the two files, the missing
 * shards ("shards 1/4 and 3/4 are missing") or the duplicated one and its two files. */
gboolean as_shard_parts_check (GPtrArray *parts, GError **error);

G_END_DECLS
