/* model-private.h — helpers shared by model.c and model-locate.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The name to show for a model resolved from SPEC to folder PATH: "ORG/NAME" for a Hugging Face
 * cache snapshot, SPEC for a shipped name or hub id, else the folder's basename (owned). */
char *as_model_display_name (const char *spec, const char *path);

G_END_DECLS
