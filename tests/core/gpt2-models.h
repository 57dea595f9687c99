/* gpt2-models.h — random GPT-2 models with GPT-2's own vocabulary from
 * tests/reference/gpt2_reference.py, made once per build folder and shared by the test programs.
 *
 * gpt2_model() runs `gpt2_reference.py make-model DIR --layers L --heads H --embd D --vocab 50257
 * --positions P --tokenizer-from tests/fixtures/gpt2-tokenizer` (tf_model.h5 in the Keras layout,
 * GPT-2's 50,257-token vocab.json and merges.txt) and keeps the folder in
 * $ATTNSCOPE_BUILD_DIR/tests/gpt2-models under a name that hashes the arguments and the
 * reference's sources (reference-cache.h). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* DistilGPT-2's shape: 6 layers, 12 heads, D 768, a context of 1,024 tokens (about 330 MB; ten
 * seconds to make). */
#define GPT2_DISTIL_SHAPE 6, 12, 768, 1024

/* The model folder with N_LAYER layers, N_HEAD heads, width N_EMBD and N_POSITIONS positions,
 * made when missing. NULL with the test skipped when the reference's Python cannot run. */
char *gpt2_model (int n_layer, int n_head, int n_embd, int n_positions);

/* tests/fixtures/long-text.txt: 1,008 GPT-2 tokens of English (owned). */
char *gpt2_long_text (void);

G_END_DECLS
