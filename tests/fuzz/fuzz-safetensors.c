/* fuzz-safetensors.c — model.safetensors (as_tensor_store_load_safetensors): any bytes give a
 * store whose tensors all lie in readable memory, or one error. Written against the store's
 * interface so that it keeps working when the reader changes (sharding, BF16/F16). */
#include "fuzz-support.h"

#include "tensor-store-private.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_input (0, data, size);
  GError *error = NULL;
  AsTensorStore *store = as_tensor_store_load_safetensors (path, &error);
  fuzz_check_error (store != NULL, error);
  if (store != NULL)
    {
      for (guint i = 0; i < as_tensor_store_get_n_tensors (store); i++)
        {
          const AsTensor *t = as_tensor_store_get_nth (store, i);
          const float *x = as_tensor_store_get_floats (store, t, &error);
          fuzz_check_error (x != NULL, error);
          g_clear_error (&error);
          if (x != NULL)
            fuzz_touch_floats (x, (gsize) t->n_elements);
        }
      if (!as_tensor_store_check_finite (store, &error))
        fuzz_check_error (FALSE, error);
      as_tensor_store_free (store);
    }
  g_clear_error (&error);
  return 0;
}
