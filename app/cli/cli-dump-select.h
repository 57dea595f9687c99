/* cli-dump-select.h — `run --dump`'s --layers and --heads: lists of indices and ranges ("3,7",
 * "0-3", "0-3,7"), kept in increasing order without repeats, checked against the model. */
#pragma once

#include <glib.h>

#include "as-model.h"
#include "as-trace-dump.h"

G_BEGIN_DECLS

/* The indices SPEC lists (ARGUMENT names it in messages), sorted, without repeats; NULL with
 * AS_ERROR_INPUT when an item is not a non-negative integer or a range A-B with A ≤ B. */
GArray *cli_dump_select_parse (const char *spec, const char *argument, GError **error);

/* Fills SELECTION from LAYERS and HEADS (either may be NULL: all) after checking them against
 * MODEL: every layer below its L (a translation model's: below the encoder's and decoder's),
 * every head below H; the message names the model's L or H. */
gboolean cli_dump_select_check (AsTraceDumpSelection *selection, AsModel *model,
                                const GArray *layers, const GArray *heads, GError **error);

G_END_DECLS
