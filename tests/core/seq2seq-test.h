/* seq2seq-test.h — what the encoder–decoder tests (test-bart.c, test-t5.c) share: the forward
 * pass compared with the reference's HDF5 file (both stacks' attention within 1e-5, hidden states
 * and logits with the vector tolerance, rows summing to 1, the causal future exactly 0), greedy
 * and beam search compared id for id with the reference's generate (a JSON object {ids, beams,
 * max_length, score} made by tests/reference/seq2seq_reference.py) and a model copy with one
 * config.json key edited. */
#pragma once

#include <glib.h>
#include <hdf5.h>

#include "as-forward.h"
#include "as-model.h"

G_BEGIN_DECLS

/* The reference's generate for source ids SRC ("a,b,c") with BEAMS and MAX_LENGTH (0: the
 * model's): the JSON file's path (owned), NULL with the test skipped. */
typedef char *(*Seq2seqGenerated) (const char *model_dir, const char *src, int beams,
                                   int max_length);

/* LENGTH random ids below VOCAB from SEED ("a,b,c", owned); </s> last when EOS. */
typedef char *(*Seq2seqIds) (int length, int vocab, guint32 seed, gboolean eos);

typedef struct
{
  int src_len, beams, max_length; /* beams, max_length 0: the model's */
} Seq2seqCase;

/* The reference's expected outputs for the pairs SRC[i], TGT[i], N of them (owned path), NULL
 * with the test skipped. */
typedef char *(*Seq2seqExpected) (const char *model_dir, const char *const *src,
                                  const char *const *tgt, int n);

/* Further checks of a family on the trace T of FILE's group GROUP (T5's position bias). */
typedef void (*Seq2seqExtraCheck) (const AsTrace *t, hid_t file, const char *group);

/* Runs MODEL (as_forward_translation, all logits) on the pair of FILE's group GROUP and compares
 * the six arrays (encoder_attentions, decoder_attentions, cross_attentions, both stacks' hidden
 * states, logits); returns the trace (owned). */
AsTrace *seq2seq_compare_group (AsModel *model, hid_t file, const char *group, const char *label);

/* Source/target pairs at T = 1, a prime and ≥ 256 through as_forward_translation on the model in
 * DIR (NULL: skipped), each compared with the reference; EXTRA may be NULL. */
void seq2seq_compare_model (const char *dir, Seq2seqExpected expected, Seq2seqIds ids, int vocab,
                            const char *label, Seq2seqExtraCheck extra);

/* A copy of the model in DIR (in the test's temporary folder, as NAME) whose config.json has KEY
 * replaced by VALUE (JSON text); owned path. */
char *seq2seq_edited_copy (const char *dir, const char *name, const char *key, const char *value);

/* The ids of TEXT ("a,b,c") as int32. */
GArray *seq2seq_parse_ids (const char *text);

/* Translates SRC with MODEL (folder DIR) and asserts the ids equal the reference's, the beam
 * count too and the score within 1e-4 (NAN for greedy). Returns the ids (owned), NULL when the
 * reference could not run (test skipped). */
GArray *seq2seq_check_generate (AsModel *model, const char *dir, const char *name,
                                Seq2seqGenerated generated, const char *src, int beams,
                                int max_length);

/* seq2seq_check_generate for every case of CASES [N], the sources made by IDS from VOCAB with
 * seeds 500, 501, …. */
void seq2seq_compare_generate (const char *dir, const char *name, Seq2seqGenerated generated,
                               Seq2seqIds ids, int vocab, const Seq2seqCase *cases, int n);

G_END_DECLS
