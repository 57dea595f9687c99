/* encoder-models.h — random BERT, DistilBERT and RoBERTa models from
 * tests/reference/encoder_reference.py, and the reference's outputs for them, made once per build
 * folder and shared by the test programs.
 *
 * encoder_model() runs `encoder_reference.py make-model DIR ARGS...` (the exact HF layouts:
 * tf_model.h5 in the Keras layout of the TF classes, model.safetensors with PyTorch's names) and
 * encoder_expected() runs `expected DIR OUT.h5 --ids ... --type-ids ...` (every captured array
 * per sequence). Both keep their results in $ATTNSCOPE_BUILD_DIR/tests/encoder-models under a
 * name that hashes the arguments and the reference's sources, so a second test program or a
 * second run reuses them and a changed reference makes new ones. Files are written under a
 * temporary name and renamed, so programs running side by side never see half a model. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Arguments of make-model for the models the tests share (NULL-terminated). */
extern const char *const encoder_bert_mlm[];       /* BERT, TFBertForMaskedLM, both files */
extern const char *const encoder_distilbert_mlm[]; /* DistilBERT, TFDistilBertForMaskedLM, both */
extern const char *const encoder_roberta_mlm[];    /* RoBERTa, TFRobertaForMaskedLM, both files */

/* The model folder for make-model ARGS (NULL-terminated), made when missing; NAME labels it.
 * NULL with the test skipped when the reference's Python cannot run. */
char *encoder_model (const char *name, const char *const *args);

/* A folder in the cache holding FILES (NULL-terminated names) of SOURCE_DIR and the GPT-2 BPE
 * tokenizer of tests/fixtures/tiny-gpt2 (300 tokens), made when missing; NAME labels it: a
 * stand-in tokenizer for tests that run on ids only. */
char *encoder_model_copy (const char *name, const char *source_dir, const char *const *files);

/* The expected outputs of MODEL_DIR for the sequences SEQS (NULL-terminated; each "ids" or
 * "ids|type_ids", comma-separated numbers), from the weight file PREFER ("h5" or "safetensors").
 * NULL with the test skipped when Python cannot run. */
char *encoder_expected (const char *model_dir, const char *const *seqs, const char *prefer);

G_END_DECLS
