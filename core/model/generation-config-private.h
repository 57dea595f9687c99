/* generation-config-private.h — reading the generation settings of a model folder
 * (AsGenerationConfig, as-translate.h): generation_config.json when present, else the legacy keys
 * of config.json (transformers' GenerationConfig.from_model_config), with transformers' defaults
 * for what neither says. Settings that would change what generate() computes and that attnscope
 * does not implement (sampling, beam groups, repetition penalties, n-gram blocking, forced BOS)
 * are refused naming the file and the key, rather than silently ignored. */
#pragma once

#include "as-config.h"
#include "as-translate.h"

G_BEGIN_DECLS

gboolean as_generation_config_load (AsGenerationConfig *out, const char *folder,
                                    const AsConfig *config, GError **error);
void as_generation_config_clear (AsGenerationConfig *generation);

G_END_DECLS
