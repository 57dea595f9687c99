/* as-model.h — a loaded model: config, weights and tokenizer. Immutable once loaded, reference
 * counted, shareable between threads.
 *
 * A model is a folder in the Hugging Face layout (core/README.md, "Model folders"). as_model_load()
 * accepts
 * - a folder path,
 * - the NAME of a model shipped in data/models/NAME (looked up in $ATTNSCOPE_DATA_DIR/models,
 *   then the build tree's and the installed data directory), or
 * - a hub id ("distilgpt2", "openai-community/gpt2") found in the Hugging Face cache
 *   ($HF_HOME/hub or ~/.cache/huggingface/hub, models--ORG--NAME/snapshots/<rev>/). */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-config.h"
#include "as-tokenizer.h"

G_BEGIN_DECLS

typedef struct _AsModel AsModel;

/* How as_model_load_with() loads (flags; append-only). */
typedef enum
{
  AS_MODEL_LOAD_DEFAULT = 0,
  /* Tensors in the weight files that the config does not use (layers beyond its layer count,
   * names no family binds) are an error instead of a warning (as_model_get_warning). */
  AS_MODEL_LOAD_STRICT = 1 << 0,
} AsModelLoadFlags;

/* Loads the model SPEC names (see above) with the default flags. Fails on anything missing,
 * malformed or absurd, naming the file; a weight file with fewer layers than config.json says is
 * an error, one with more (or tensors no family binds) loads with a warning. */
AsModel *as_model_load (const char *spec, GError **error);
AsModel *as_model_load_with (const char *spec, AsModelLoadFlags flags, GError **error);
AsModel *as_model_ref (AsModel *model);
void as_model_unref (AsModel *model);

/* The tokenizer of the model SPEC names, without its weights: the one its family loads when
 * config.json's model_type names a family attnscope runs, otherwise the folder's Hugging Face
 * tokenizer files (as_tokenizer_load_folder), whatever architecture config.json names. */
AsTokenizer *as_model_load_tokenizer (const char *spec, GError **error);

/* Resolves SPEC (folder, shipped name, hub id) to a folder path without loading. */
char *as_model_resolve_path (const char *spec, GError **error);

/* The folders searched for shipped models, in order (NULL-terminated, owned). */
char **as_model_dup_shipped_dirs (void);

/* The hub ids ("ORG/NAME") of the models in the Hugging Face caches that have a snapshot, sorted
 * (NULL-terminated, owned; empty when there is no cache). */
char **as_model_dup_cached_hub_ids (void);

/* Name of the default model (shipped in data/models/). */
const char *as_model_default_name (void);

const AsConfig *as_model_get_config (const AsModel *model);
/* The model's tokenizer; NULL for a model that runs on token ids only (a family whose models may
 * come without tokenizer files, and a folder that has none: as_model_get_no_tokenizer_reason()
 * says what was looked for). */
AsTokenizer *as_model_get_tokenizer (const AsModel *model);
const char *as_model_get_no_tokenizer_reason (const AsModel *model);
/* The model's tokenizer, or NULL with an error saying that the model runs on token ids only and
 * why (for the entry points that take text). */
AsTokenizer *as_model_require_tokenizer (const AsModel *model, GError **error);
/* What loaded but deserves a word, as one line without the "warning:" prefix: "PATH has 12
 * tensors the config does not use (h.2.attn.c_attn.weight, …); n_layer is 2"; NULL when all is
 * well. */
const char *as_model_get_warning (const AsModel *model);
const char *as_model_get_path (const AsModel *model); /* the resolved folder */
const char *as_model_get_name (const AsModel *model); /* basename or hub id, for titles */
const char *as_model_get_weights_path (const AsModel *model);
int64_t as_model_get_n_params (const AsModel *model);
/* How the weights are stored: "F32", "BF16", "F16", or e.g. "BF16+F32" when mixed (most first). */
const char *as_model_get_weights_dtype (const AsModel *model);
/* Bytes of weight files mapped into memory (they stay resident while the model is used). */
guint64 as_model_get_mapped_bytes (const AsModel *model);
/* The id of the model's special token WHICH (config's special_tokens looked up in the
 * tokenizer's vocabulary), or -1 when the model or its vocabulary has none. */
int32_t as_model_get_special_id (const AsModel *model, AsSpecialToken which);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsModel, as_model_unref)

G_END_DECLS
