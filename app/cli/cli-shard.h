/* cli-shard.h — `--shard K/N -o part.json` for the corpus commands, and the mergers that
 * `attnscope merge` dispatches to (core: as-shard.h for the shards, the part file and its
 * checks; as-shard-sum.h for the exact sums).
 *
 * A command that takes shards:
 *   1. adds CLI_SHARD_ENTRIES (shard_text, part_path) to its options;
 *   2. calls cli_shard_setup (&shard, "cmd", shard_text, part_path, &code) before loading the
 *      model (usage errors: --shard without -o, -o without --shard, a bad K/N, an output name
 *      that names no file or cannot be written);
 *   3. reads its corpus with cli_shard_foreach_line instead of cli_foreach_text_line (without
 *      --shard it calls FUNC for every line, exactly as cli_foreach_text_line does);
 *   4. with --shard (cli_shard_active), accumulates sums and counts only — never averages — and
 *      writes them with cli_shard_write_part (the options that change the result go in OPTIONS,
 *      which merge compares); without --shard, prints as before.
 * And `merge` gets a CliShardMerger in the table of cli-merge.c: it adds every part's result
 * (in shard order) into one accumulator and formats exactly what the command prints without
 * --shard. The accumulation must be exact (as-shard-sum.h) so that the merged output is the
 * single-process output bit for bit. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "as-model.h"
#include "as-shard.h"
#include "cli-common.h"

G_BEGIN_DECLS

#define CLI_SHARD_ENTRIES(shard_text, part_path)                                                   \
  { "shard",                                                                                       \
    0,                                                                                             \
    0,                                                                                             \
    G_OPTION_ARG_STRING,                                                                           \
    &(shard_text),                                                                                 \
    "Run shard K of N only (the lines K, K+N, K+2N, ... counted from 0) and write its partial "    \
    "result to -o; 'attnscope merge' joins the parts",                                             \
    "K/N" },                                                                                       \
  {                                                                                                \
    "output", 'o', 0, G_OPTION_ARG_FILENAME, &(part_path), "With --shard: the part file to write", \
        "FILE"                                                                                     \
  }

typedef struct
{
  const char *command;
  gboolean active;  /* --shard was given */
  AsShardSpec spec; /* K/N, or 0/1 without --shard */
  const char *path; /* the part file (-o) */
  gint64 n_items;   /* corpus items seen by cli_shard_foreach_line */
  gint64 n_taken;   /* of which in this shard */
  char *corpus_sha256;
} CliShard;

/* Checks the options as described above; returns -1 when they are fine, else prints the usage
 * error and returns the exit status. */
int cli_shard_setup (CliShard *shard, const char *command, const char *shard_text,
                     const char *part_path);

/* Frees what SHARD holds (not SHARD). */
void cli_shard_clear (CliShard *shard);

/* cli_foreach_text_line_named (OPTION, PATH, FUNC, USER_DATA) restricted to SHARD's lines; also
 * records the corpus's SHA-256 and counts. Errors are cli_foreach_text_line_named's. */
gboolean cli_shard_foreach_line (CliShard *shard, const char *option, const char *path,
                                 CliLineFunc func, gpointer user_data, GError **error);

/* Writes SHARD's part: MODEL's name and fingerprint, the corpus, OPTIONS (an object; taken) and
 * RESULT (taken). */
gboolean cli_shard_write_part (CliShard *shard, AsModel *model, JsonNode *options, JsonNode *result,
                               GError **error);

/* A merger of `attnscope merge`: PARTS (AsShardPart *, checked and in shard order); appends to
 * OUT what the command prints without --shard (JSON when JSON). */
typedef gboolean (*CliShardMergeFunc) (GString *out, GPtrArray *parts, gboolean json,
                                       GError **error);

gboolean cli_stats_merge (GString *out, GPtrArray *parts, gboolean json, GError **error);
gboolean cli_perplexity_merge (GString *out, GPtrArray *parts, gboolean json, GError **error);
gboolean cli_ablate_merge (GString *out, GPtrArray *parts, gboolean json, GError **error);
gboolean cli_patch_merge (GString *out, GPtrArray *parts, gboolean json, GError **error);

G_END_DECLS
