/* hostile-numbers.h — model folders whose numbers are wrong in ways a loader cannot see at a
 * glance, from C at test time: finite weights that overflow float32 in the forward pass, and
 * weight files whose layers do not match config.json.
 *
 * The overflow folders load (every weight is finite) and must fail in the forward pass with an
 * error that names the stage, the first position and its token (hostile_overflow_needle), on
 * every family: GPT-2 from the fixture writer (fixture-model.h), BERT and Marian as copies of the
 * shipped attnscope-mini-bert and attnscope-mini-en-de with some matrices scaled by 1e30. The
 * layer folders are GPT-2 fixtures written with more or fewer layers than their config.json
 * says. The core, command-line and sanitizer runs share them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  HOSTILE_OVERFLOW_LOGITS,         /* GPT-2: wte all 3e38, ln_f's bias 1: the logits are +Inf */
  HOSTILE_OVERFLOW_LAYER,          /* GPT-2: block 0's MLP matrices × 1e30 */
  HOSTILE_OVERFLOW_BERT,           /* attnscope-mini-bert: layer 0's feed-forward × 1e30 */
  HOSTILE_OVERFLOW_MARIAN_ENCODER, /* attnscope-mini-en-de: encoder layer 0's MLP × 1e30 */
  HOSTILE_OVERFLOW_MARIAN_DECODER, /* attnscope-mini-en-de: decoder layer 0's MLP × 1e30 */
  HOSTILE_N_OVERFLOWS
} HostileOverflow;

/* A short name ("overflow-logits", ...), also the folder name tests use. */
const char *hostile_overflow_name (HostileOverflow o);

/* What the forward pass's error must say ("layer 0 produced a non-finite value", ...). */
const char *hostile_overflow_needle (HostileOverflow o);

/* What a generation step's error must say (Marian: translate), or NULL when the family has no
 * step decoder. */
const char *hostile_overflow_step_needle (HostileOverflow o);

/* TRUE for the translation (encoder–decoder) folders, which run on a source and a target. */
gboolean hostile_overflow_is_translation (HostileOverflow o);

/* Writes the folder DIR (created) for O; SOURCE_DIR is the source tree (for the shipped models). */
gboolean hostile_overflow_folder_write (const char *dir, const char *source_dir, HostileOverflow o,
                                        GError **error);

/* Writes a GPT-2 fixture folder DIR whose weight file holds FILE_LAYERS layers while config.json
 * says n_layer is CONFIG_LAYERS: tf_model.h5 when KERAS, else model.safetensors only. */
gboolean hostile_layers_folder_write (const char *dir, int file_layers, int config_layers,
                                      gboolean keras, GError **error);

G_END_DECLS
