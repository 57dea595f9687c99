/* cli-lens-fit.h — `attnscope lens --fit CORPUS [--save LENS.h5]`: the fitted lens (as-lens.h)
 * fitted on a corpus, saved, and its held-out KL per hidden state printed; and `--with LENS.h5`
 * reading a saved one for the lens. */
#pragma once

#include "as-lens.h"

G_BEGIN_DECLS

/* Fits MODEL_SPEC's lens on the non-blank lines of CORPUS with RIDGE, saves it to SAVE (NULL:
 * not saved; FORCE replaces a read-only file) and prints the KL table (JSON with JSON). Returns
 * the exit code. */
int cli_lens_fit (const char *model_spec, const char *corpus, const char *save, double ridge,
                  gboolean force, gboolean json);

G_END_DECLS
