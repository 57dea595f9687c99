/* bart-models.h — random BART-family models from tests/reference/bart_reference.py, made once
 * per build folder and shared by the test programs (reference-cache.h): the model folder
 * (make-model), the expected outputs of source/target pairs (expected) and generated ids
 * (generate). The same helpers as t5-models.h for another script. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* make-model arguments: bart_post (BART, post-norm, F32) and bart_mbart (mBART, pre-norm,
 * DistilBART-like decoder depth, BF16 sharded); bart-models.c says more. */
extern const char *const bart_post[];
extern const char *const bart_mbart[];

/* The model folder for make-model ARGS (NULL-terminated), made when missing; NAME labels it.
 * NULL with the test skipped when the reference's Python cannot run. */
char *bart_model (const char *name, const char *const *args);

/* The expected outputs of MODEL_DIR for the pairs SRC[i], TGT[i] ("a,b,c"), N of them, as an
 * HDF5 file (owned path). NULL with the test skipped when Python cannot run. */
char *bart_expected (const char *model_dir, const char *const *src, const char *const *tgt, int n);
/* As bart_expected with both stacks' position tables left out (bart_reference.py expected
 * --no-positions). */
char *bart_expected_no_positions (const char *model_dir, const char *const *src,
                                  const char *const *tgt, int n);

/* The reference's generate for source ids SRC with BEAMS and MAX_LENGTH (0: the model's): the
 * JSON object's path {ids, beams, max_length, score} (owned). NULL with the test skipped. */
char *bart_generated (const char *model_dir, const char *src, int beams, int max_length);

/* LENGTH random ids in 3..VOCAB-1 from SEED ("a,b,c", owned); the last is 2 (</s>) when EOS. */
char *bart_ids (int length, int vocab, guint32 seed, gboolean eos);

G_END_DECLS
