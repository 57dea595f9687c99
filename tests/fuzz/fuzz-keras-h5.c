/* fuzz-keras-h5.c — tf_model.h5 through the isolated reader (keras-h5-reader.c): whatever the
 * bytes, attnscope's own process must not crash, hang or read out of bounds; libhdf5 runs in the
 * child, whose crashes are errors that call the file damaged. A store that loads must hold only
 * readable, fully initialised floats. */
#include "fuzz-support.h"

#include "tensor-store-private.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write_input (0, data, size);
  GError *error = NULL;
  AsTensorStore *store = as_tensor_store_load_keras_h5 (path, &error);
  fuzz_check_error (store != NULL, error);
  if (store != NULL)
    {
      for (guint i = 0; i < as_tensor_store_get_n_tensors (store); i++)
        {
          const AsTensor *t = as_tensor_store_get_nth (store, i);
          fuzz_touch_floats (t->data, (gsize) t->n_elements);
        }
      if (!as_tensor_store_check_finite (store, &error))
        fuzz_check_error (FALSE, error);
      as_tensor_store_free (store);
    }
  g_clear_error (&error);
  return 0;
}
