/* model-private.h — what model.c and model-locate.c share, and the families' view of a model. */
#pragma once

#include "as-model.h"

G_BEGIN_DECLS

/* The name to show for a model resolved from SPEC to folder PATH: "ORG/NAME" for a Hugging Face
 * cache snapshot, SPEC for a shipped name or hub id, else the folder's basename (owned). */
char *as_model_display_name (const char *spec, const char *path);

/* The family's weights struct of MODEL (family-private.h: AsFamily.bind_weights). */
gconstpointer as_model_get_weights (const AsModel *model);

G_END_DECLS
