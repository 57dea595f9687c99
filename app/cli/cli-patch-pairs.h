/* cli-patch-pairs.h — `attnscope patch --pairs FILE [--shard K/N -o PART]` (cli-patch-pairs.c),
 * called by cli-patch.c with its parsed options. */
#pragma once

#include "as-patching.h"
#include "cli-shard.h"

G_BEGIN_DECLS

typedef struct
{
  const char *model, *pairs, *token, *vs_token;
  AsPatchWhat what;
  gboolean reverse, truncate, json;
} CliPatchPairsArgs;

/* Runs the pairs (or SHARD's share of them, writing its part); returns the exit status. */
int cli_patch_pairs (const CliPatchPairsArgs *args, CliShard *shard);

G_END_DECLS
