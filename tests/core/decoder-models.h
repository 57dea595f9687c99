/* decoder-models.h — random Llama-family and GPT-NeoX models from
 * tests/reference/decoder_reference.py, made once per build folder and shared by the test programs.
 *
 * decoder_model() runs `decoder_reference.py make-model DIR ARGS...` (the exact HF layout:
 * config.json and F32/BF16/F16 safetensors, single or sharded) and decoder_expected() runs
 * `expected DIR OUT.h5 --ids ...` (every captured array per sequence). Both keep their results in
 * $ATTNSCOPE_BUILD_DIR/tests/decoder-models under a name that hashes the arguments and the
 * reference's sources, so a second test program or a second run reuses them and a changed
 * reference makes new ones. Files are written under a temporary name and renamed, so programs
 * running side by side never see half a model. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* make-model arguments shared by the core and command-line tests (same name and arguments: the
 * same cached model). llama-f32: 2 layers, 4 heads, D 64, F 112, V 320, F32 ("llama-f32", with a
 * tokenizer). llama-gqa: 3 layers, 8 query / 2 key/value heads, D 128, F 192, V 320, BF16 in three
 * shards, untied, θ 500000 with llama3 scaling ("llama-gqa-bf16-sharded-llama3"). mistral-window:
 * the llama-f32 shape with 2 key/value heads and a sliding window of 37 ("mistral-window"). */
extern const char *const decoder_llama_f32[];
extern const char *const decoder_llama_gqa[];
extern const char *const decoder_mistral_window[];
/* gemma2-caps: Gemma 2 with attention and final soft-caps small enough to bend the scores and
 * logits (0.3, 0.5), every other layer sliding (window 16), untied ("gemma2-softcaps-alternate").
 */
extern const char *const decoder_gemma2_caps[];
/* llama-spm: 2 layers, 4 query / 2 key/value heads, D 64, F 112, V 32000, BF16, tied: the shape
 * of a Llama 2 vocabulary. */
extern const char *const decoder_llama_spm[];

/* The model folder for make-model ARGS (NULL-terminated), made when missing; NAME labels it.
 * With TOKENIZER the folder gets tests/fixtures/tiny-gpt2's vocab.json and merges.txt (300
 * tokens: the model's vocabulary must be at least that). NULL with the test skipped when the
 * reference's Python cannot run. */
char *decoder_model (const char *name, const char *const *args, gboolean tokenizer);

/* The llama-spm model with tests/fixtures/tokenizers/llama-spm's tokenizer.json (Llama 2's
 * 32,000-piece SentencePiece BPE) and tokenizer_config.json, and also tiny-gpt2's vocab.json and
 * merges.txt, which tokenizer.json must win over. NULL with the test skipped as above. */
char *decoder_model_llama_spm (void);

/* The expected outputs of MODEL_DIR for one sequence of random ids per length in LENGTHS
 * (N_LENGTHS of them, ids below VOCAB drawn from SEED); with META_PATH computed from Meta's
 * unconverted weights (make-model --from-meta). NULL with the test skipped when Python cannot
 * run. */
char *decoder_expected (const char *model_dir, const int *lengths, int n_lengths, int vocab,
                        guint32 seed, const char *meta_path);

/* The expected outputs of MODEL_DIR for the one sequence IDS ("a,b,c"), as decoder_expected. */
char *decoder_expected_ids (const char *model_dir, const char *ids);

/* The ids decoder_expected() uses for one sequence: "a,b,c" (owned). */
char *decoder_ids (int length, int vocab, guint32 seed, int index);

G_END_DECLS
