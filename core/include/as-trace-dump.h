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

/* The trace must hold logits for every position (AsForwardOptions.all_logits). */
gboolean as_trace_dump_h5 (const AsTrace *trace, const char *model_name, const char *architecture,
                           const char *path, AsOutputFlags flags, GError **error);

G_END_DECLS
