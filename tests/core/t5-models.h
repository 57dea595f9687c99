/* t5-models.h — random T5-family models from tests/reference/t5_reference.py, made once per build
 * folder and shared by the test programs (reference-cache.h): the model folder (make-model), the
 * expected outputs of source/target pairs (expected) and generated ids (generate). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* make-model arguments shared by the core and command-line tests. t5-relu: T5 v1.0 (relu MLP),
 * 2 + 2 layers, 4 heads, D 64, d_kv 16, F 96, V 300, 32 buckets up to 128, F32, tied.
 * flan-gated: Flan-T5's gated-gelu MLP, mt5 model type, 2 encoder / 3 decoder layers, 6 heads
 * of 24 (H·d_kv 144 ≠ D 96), F 160, V 320, 16 buckets up to distance 20 (so a long text reaches
 * the clamped last bucket), BF16 in three shards, untied, 4 beams by default, weights of std 0.05
 * (scores T5 leaves unscaled stay in the range where float32 rounding keeps the attention within
 * 1e-5). */
extern const char *const t5_relu[];
extern const char *const t5_flan_gated[];
/* umT5 (a bias table in every layer): gated-GELU, untied as the real checkpoints, 3 encoder and 2
 * decoder layers, H 4, D 64, d_kv 16, V 300, 16 buckets up to distance 20, F32. */
extern const char *const t5_umt5[];

/* The model folder for make-model ARGS (NULL-terminated), made when missing; NAME labels it.
 * NULL with the test skipped when the reference's Python cannot run. */
char *t5_model (const char *name, const char *const *args);

/* The gated-gelu model with a Unigram tokenizer.json trained on tests/fixtures/long-text.txt
 * (V 600), so that texts can be typed ("cli-t5"). NULL with the test skipped. */
char *t5_model_with_tokenizer (void);

/* The expected outputs of MODEL_DIR for the pairs SRC[i], TGT[i] ("a,b,c"), N of them, as an
 * HDF5 file (owned path). NULL with the test skipped when Python cannot run. */
char *t5_expected (const char *model_dir, const char *const *src, const char *const *tgt, int n);

/* The reference's generate for source ids SRC with BEAMS and MAX_LENGTH (0: the model's): the
 * JSON object's path {ids, beams, max_length, score} (owned). NULL with the test skipped. */
char *t5_generated (const char *model_dir, const char *src, int beams, int max_length);

/* LENGTH random ids below VOCAB from SEED ("a,b,c", owned); the last is 1 (</s>) when EOS. */
char *t5_ids (int length, int vocab, guint32 seed, gboolean eos);

G_END_DECLS
