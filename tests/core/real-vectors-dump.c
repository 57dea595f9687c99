/* real-vectors-dump.c — writes the real-vector sets (real-vectors.h) to HDF5 files for
 * tests/reference/real_vectors_peers.py, which projects them with the peers (umap-js,
 * scikit-learn's t-SNE) and records their trustworthiness as the tests' fixture.
 *
 * usage: real-vectors-dump DIR
 * Writes DIR/set-N.h5 (dataset "x", float32 [n][d], distinct rows) for every set and prints one
 * line "PATH<TAB>NAME" per set. Not a test. */
#include <stdio.h>

#include "as-matrix-h5.h"
#include "real-vectors.h"

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "usage: real-vectors-dump DIR\n");
      return 2;
    }
  int count = 0;
  for (int m = REAL_VECTORS_MINI; m <= REAL_VECTORS_LLAMA; m++)
    {
      g_autoptr (GPtrArray) sets = real_vectors_sets (m);
      if (sets == NULL)
        {
          fprintf (stderr, "real-vectors-dump: %s could not be made\n",
                   real_vectors_model_name (m));
          return 1;
        }
      for (guint i = 0; i < sets->len; i++)
        {
          const RealVectors *set = sets->pdata[i];
          g_autofree char *name = g_strdup_printf ("set-%d.h5", count++);
          g_autofree char *path = g_build_filename (argv[1], name, NULL);
          g_autoptr (GError) error = NULL;
          if (!as_matrix_h5_write (path, "x", set->x, set->n, set->d, &error))
            {
              fprintf (stderr, "real-vectors-dump: %s\n", error->message);
              return 1;
            }
          printf ("%s\t%s\n", path, set->name);
        }
    }
  return 0;
}
