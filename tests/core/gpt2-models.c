/* gpt2-models.c — GPT-2 models made once per build folder (gpt2-models.h). */
#include "gpt2-models.h"

#include "check-close.h"
#include "reference-cache.h"

static const char *const reference_sources[] = {
  "tests/reference/gpt2_reference.py",
  "tests/reference/hf_layout.py",
  NULL,
};

static const ReferenceCache cache = {
  .folder = "gpt2-models",
  .script = "tests/reference/gpt2_reference.py",
  .sources = reference_sources,
};

char *
gpt2_model (int n_layer, int n_head, int n_embd, int n_positions)
{
  g_autofree char *tokenizer = test_source_path ("tests/fixtures/gpt2-tokenizer");
  g_autoptr (GPtrArray) make = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (make, g_strdup ("make-model"));
  g_ptr_array_add (make, NULL); /* the folder, below */
  const char *names[] = { "--layers", "--heads", "--embd", "--positions" };
  int values[] = { n_layer, n_head, n_embd, n_positions };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_ptr_array_add (make, g_strdup (names[i]));
      g_ptr_array_add (make, g_strdup_printf ("%d", values[i]));
    }
  g_ptr_array_add (make, g_strdup ("--vocab"));
  g_ptr_array_add (make, g_strdup ("50257"));
  g_ptr_array_add (make, g_strdup ("--tokenizer-from"));
  g_ptr_array_add (make, g_strdup (tokenizer));
  g_autofree char *what = g_strdup_printf ("%d %d %d %d", n_layer, n_head, n_embd, n_positions);
  g_autofree char *name = g_strdup_printf ("gpt2-%dx%d-d%d", n_layer, n_head, n_embd);
  char *model = reference_cache_path (&cache, name, what);
  if (g_file_test (model, G_FILE_TEST_IS_DIR))
    return model;
  const char *python = test_python_with ("h5py, numpy");
  if (python == NULL)
    {
      g_free (model);
      return NULL;
    }
  g_autofree char *tmp = reference_cache_temporary (model, "");
  make->pdata[1] = g_strdup (tmp);
  reference_cache_run (&cache, python, make);
  reference_cache_publish (tmp, model);
  return model;
}

char *
gpt2_long_text (void)
{
  g_autofree char *path = test_source_path ("tests/fixtures/long-text.txt");
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_strchomp (text);
}
