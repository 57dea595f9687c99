/* fuzz-config-json.c — config.json (model/config.c through base/json-file.c): any bytes give a
 * config or one error; nothing crashes, nothing is allocated from an unchecked value. */
#include "fuzz-support.h"

#include "as-config.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_input (0, data, size);
  GError *error = NULL;
  AsConfig config;
  gboolean ok = as_config_load (&config, path, &error);
  fuzz_check_error (ok, error);
  if (ok)
    {
      if (config.n_layer < 1 || config.n_head < 1 || config.n_embd < 1 || config.vocab_size < 1
          || config.n_positions < 1 || config.head_dim < 1 || !(config.layer_norm_eps > 0))
        fuzz_fail ("a config loaded with a value out of range");
      as_config_clear (&config);
    }
  g_clear_error (&error);
  return 0;
}
