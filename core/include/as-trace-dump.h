/* as-trace-dump.h — writes a trace to HDF5 with the dataset names of the command-line contract
 * (README.md, "Command line"): token_ids [T] int64, tokens [T] strings, attentions [L,H,T,T],
 * hidden_states [L+1,T,D], contexts [L,H,T,hd], logits [T,V] (float32; none for a model without
 * an output head); token_type_ids [T] int64 when the trace has token types (encoders); root
 * attributes model and architecture. An encoder–decoder trace (as-trace.h: with a `source`)
 * writes transformers' names instead: source_ids [S] and target_ids [T] int64 (target = the
 * decoder input), source_tokens, target_tokens, encoder_attentions [Le,He,S,S],
 * decoder_attentions [L,H,T,T], cross_attentions [L,H,T,S], encoder_hidden_states [Le+1,S,D],
 * decoder_hidden_states [L+1,T,D], logits [T,V]. The file appears whole or not at all, and only a
 * regular file is replaced (as-output-file.h; FLAGS may allow replacing a read-only one). */
#pragma once

#include "as-output-file.h"
#include "as-trace.h"

G_BEGIN_DECLS

/* The trace must hold logits for every position (AsForwardOptions.all_logits). Every dataset
 * of [L][H][…] (attentions, contexts; encoder_attentions, decoder_attentions, cross_attentions) is
 * chunked [1][1][≤ 256][…] and written a block of one head's rows at a time, layer by layer, so
 * attention kept on demand is computed block by block and never whole. */
gboolean as_trace_dump_h5 (const AsTrace *trace, const char *model_name, const char *architecture,
                           const char *path, AsOutputFlags flags, GError **error);

/* The layers and heads a dump keeps: indices in increasing order without repeats, below the
 * trace's L and H (an encoder–decoder's: below both stacks'); NULL keeps all. */
typedef struct
{
  const int *layers; /* [n_layers] or NULL */
  int n_layers;
  const int *heads; /* [n_heads] or NULL */
  int n_heads;
} AsTraceDumpSelection;

/* As as_trace_dump_h5, with the datasets of [L][H][…] restricted to SELECTION's layers and heads
 * (may be NULL: all): the same names, shapes [n_layers][n_heads][…], and on each of them the
 * int64 attributes `layers` and `heads` naming the trace's layer and head each index stands for
 * (only when a selection is given). hidden_states and logits stay whole. */
gboolean as_trace_dump_h5_select (const AsTrace *trace, const char *model_name,
                                  const char *architecture, const AsTraceDumpSelection *selection,
                                  const char *path, AsOutputFlags flags, GError **error);

/* Computes logits rows FIRST … FIRST + N − 1 [N][V] of a trace into OUT, or fails. */
typedef gboolean (*AsTraceDumpLogitsFunc) (gpointer data, int first, int n, float *out,
                                           GError **error);

/* As as_trace_dump_h5_select, for a trace that may hold the logits of its last position only (a
 * pass without all_logits): when it does, the `logits` dataset [T][V] is chunked [≤ 64][V] and
 * filled 64 rows at a time from LOGITS (with LOGITS_DATA), so that the [T][V] logits — 1.6 GB at
 * 8,192 tokens of a 49,152-token vocabulary — are never in memory at once. A trace with every
 * position's logits writes them as as_trace_dump_h5_select does (LOGITS may then be NULL). */
gboolean as_trace_dump_h5_streamed (const AsTrace *trace, const char *model_name,
                                    const char *architecture, const AsTraceDumpSelection *selection,
                                    AsTraceDumpLogitsFunc logits, gpointer logits_data,
                                    const char *path, AsOutputFlags flags, GError **error);

G_END_DECLS
