/* family-private.h — the model-family seam: what an architecture module provides.
 *
 * A family is one module in core/families/ (gpt2.c, toy-attention.c, ...) that defines one
 * constant AsFamily and is listed in model/families.c. Everything around it is shared and never
 * branches on the family: config.c finds the family by config.json's model_type and lets it read
 * its keys; model.c resolves the folder, loads the tokenizer and the weight file into a tensor
 * store and lets the family bind its weights; forward.c validates the ids, checks the memory and
 * runs the family's stack of layers (stack-private.h) with the one forward driver
 * (forward/pass.c), which fills an AsTrace. The trace, the analysis, the GUI and the command line
 * see only AsConfig's shared fields and the trace. core/README.md ("Adding a model family") lists
 * the steps. */
#pragma once

#include "as-model.h"
#include "config-reader-private.h"
#include "model-private.h"
#include "stack-private.h"
#include "step-decoder-private.h"
#include "tensor-store-private.h"

G_BEGIN_DECLS

struct _AsFamily
{
  const char *name;               /* the family as `info` shows it, e.g. "gpt2" */
  const char *const *model_types; /* the config.json model_type values it reads, NULL-ended */

  /* Reads the family's keys from config.json into CONFIG's shared fields, and any settings of
   * its own into CONFIG->settings (freed with free_settings, which may be NULL when there are
   * none). Checks the values' consistency; messages name the key (the reader names the file). */
  gboolean (*read_config) (AsConfig *config, const AsConfigReader *reader, GError **error);
  void (*free_settings) (gpointer settings);

  /* The number of weights (floats) CONFIG implies, checked against the memory budget before
   * anything is read (HF's num_parameters for the same model). */
  guint64 (*count_weights) (const AsConfig *config);

  /* The tokenizer of model folder FOLDER. */
  AsTokenizer *(*load_tokenizer) (const char *folder, const AsConfig *config, GError **error);
  /* TRUE when the family's models also run on token ids alone: load_tokenizer failing with
   * AS_ERROR_NOT_FOUND (no tokenizer file it reads) then loads the model without a tokenizer. */
  gboolean tokenizer_optional;

  /* Points the family's weights struct into STORE with the exact shapes CONFIG implies; adds
   * the number of weights bound to *N_PARAMS. Returns the struct (freed with free_weights), or
   * NULL with ERROR naming the weight file, the tensor and both shapes. */
  gpointer (*bind_weights) (const AsConfig *config, const AsTensorStore *store, int64_t *n_params,
                            GError **error);
  void (*free_weights) (gpointer weights);
  /* Tensors a checkpoint may hold that the family knowingly leaves unbound, as glob patterns
   * over the stored names (g_pattern_match_simple): buffers PyTorch saves beside the weights
   * ("*.attn.masked_bias"), tied copies of a bound matrix ("lm_head.weight"), heads the family
   * does not run (BERT's pooler and next-sentence head); NULL-ended, may be NULL. Any other
   * tensor the binding leaves untouched is reported as unused (as_model_get_warning). */
  const char *const *unused_ok;
  /* The config.json keys of the layer counts, named in that report ("num_hidden_layers is 2");
   * the encoder's for encoder–decoders. NULL when the family has no such key. */
  const char *layers_key;
  const char *encoder_layers_key;
  /* Whether the bound WEIGHTS hold a masked-LM head (AsConfig.masked_lm); NULL for families that
   * never have one. An encoder folder without it loads for attention only. */
  gboolean (*has_masked_lm_head) (gconstpointer weights);

  /* Appends the family's own settings to SETTINGS as name and value strings (owned by the
   * array), e.g. "rope_theta", "500000", for `info` (as_config_dup_settings); may be NULL. */
  void (*describe) (const AsConfig *config, GPtrArray *settings);

  /* The forward pass with full capture, as the stages of a stack of layers that the one driver
   * runs (stack-private.h): the model's only stack, or an encoder–decoder's decoder. as_forward()
   * validates the ids first (1 ≤ T ≤ n_positions, every id < vocab_size) and checks the memory
   * for the trace and the stack's working memory. */
  const AsStack *stack;
  /* Encoder–decoder families only (config->encoder_decoder): the encoder's stack, run over the
   * source first; its trace becomes the decoder trace's `source` and the decoder's layers attend
   * to its last hidden state (as_forward_translation). NULL otherwise. */
  const AsStack *encoder;

  /* Encoder–decoder generation (step-decoder-private.h): runs the encoder over SRC once
   * and returns a decoder that advances N_BEAMS sequences by one token per step, keeping the
   * keys and values of up to MAX_STEPS tokens per sequence; NO_POSITIONS: both stacks leave out
   * their position embeddings (a family without any refuses earlier, in as_translate). */
  AsStepDecoder *(*step_decoder_new) (const AsModel *model, const int32_t *src, int n_src,
                                      int n_beams, int max_steps, gboolean no_positions,
                                      GError **error);
};

/* The family that reads MODEL_TYPE, or NULL. */
const AsFamily *as_family_find (const char *model_type);

/* "gpt2, toy-attention": the model types the families read, for messages (owned). */
char *as_family_dup_supported (void);

G_END_DECLS
