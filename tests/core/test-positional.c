/* test-positional.c — sinusoidal positional encodings in both layouts.
 *
 * The seed 001's hand-computed p1..p3 are asserted in test-toy-attention.c (§A3, with the toy
 * layer). Here: both layouts against the formulas as Python/numpy writes them (the paper's
 * interleaved form and Hugging Face's MarianSinusoidalPositionalEmbedding code) for even and
 * odd widths, the values at position 0, and as_positional_add. */
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "positional-private.h"

/* Position 0: every sine is 0 and every cosine 1, whatever the layout. */
static void
test_position_zero (void)
{
  float p[7];
  as_positional_encoding (p, 0, 7, AS_POSITIONAL_INTERLEAVED);
  const float interleaved[7] = { 0, 1, 0, 1, 0, 1, 0 };
  g_assert_cmpmem (p, sizeof p, interleaved, sizeof interleaved);
  as_positional_encoding (p, 0, 7, AS_POSITIONAL_SPLIT_HALVES);
  const float halves[7] = { 0, 0, 0, 0, 1, 1, 1 }; /* ceil(7/2) = 4 sines, 3 cosines */
  g_assert_cmpmem (p, sizeof p, halves, sizeof halves);
}

/* For even d the two layouts hold the same numbers: halves[k] = interleaved[2k],
 * halves[d/2 + k] = interleaved[2k + 1]; the first pair is sin(pos), cos(pos). */
static void
test_layouts_agree (void)
{
  const int d = 16;
  for (int pos = 0; pos < 40; pos += 3)
    {
      float a[16], b[16];
      as_positional_encoding (a, pos, d, AS_POSITIONAL_INTERLEAVED);
      as_positional_encoding (b, pos, d, AS_POSITIONAL_SPLIT_HALVES);
      for (int k = 0; k < d / 2; k++)
        {
          g_assert_true (b[k] == a[2 * k]);
          g_assert_true (b[d / 2 + k] == a[2 * k + 1]);
        }
      g_assert_cmpfloat_with_epsilon (a[0], sin (pos), 1e-7);
      g_assert_cmpfloat_with_epsilon (a[1], cos (pos), 1e-7);
      /* the slowest pair: angle pos / 10000^(14/16) */
      g_assert_cmpfloat_with_epsilon (a[14], sin (pos / pow (10000.0, 14.0 / 16)), 1e-7);
    }
}

/* The reference formulas, run by Python: the paper's PE (interleaved) and the Hugging Face
 * Marian code (first half sin, second half cos), for positions 0..49, printed as text. */
static const char reference_script[]
    = "import sys\n"
      "import numpy as np\n"
      "n_pos, dim, layout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]\n"
      "enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]\n"
      "                for pos in range(n_pos)])\n"
      "out = np.zeros((n_pos, dim))\n"
      "if layout == 'interleaved':\n"
      "    out[:, 0::2] = np.sin(enc[:, 0::2])\n"
      "    out[:, 1::2] = np.cos(enc[:, 1::2])\n"
      "else:  # transformers MarianSinusoidalPositionalEmbedding._init_weight\n"
      "    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1\n"
      "    out[:, 0:sentinel] = np.sin(enc[:, 0::2])\n"
      "    out[:, sentinel:] = np.cos(enc[:, 1::2])\n"
      "print(' '.join(repr(float(x)) for x in out.astype(np.float32).ravel()))\n";

static void
check_against_python (int n_pos, int dim, AsPositionalLayout layout)
{
  const char *python = test_python_with ("numpy");
  if (python == NULL)
    return;
  g_autofree char *n_arg = g_strdup_printf ("%d", n_pos);
  g_autofree char *d_arg = g_strdup_printf ("%d", dim);
  const char *argv[]
      = { python, "-c", reference_script, n_arg, d_arg, as_positional_layout_to_string (layout),
          NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    g_test_message ("python: %s", err);
  g_assert_cmpint (status, ==, 0);

  g_auto (GStrv) fields = g_strsplit_set (g_strstrip (out), " ", -1);
  gsize n = (gsize) n_pos * dim;
  g_assert_cmpuint (g_strv_length (fields), ==, n);
  g_autofree float *expected = g_new (float, n); /* [n_pos][dim] */
  for (gsize i = 0; i < n; i++)
    expected[i] = (float) g_ascii_strtod (fields[i], NULL);
  g_autofree float *ours = g_new (float, n); /* [n_pos][dim] */
  as_positional_encodings (ours, 0, n_pos, dim, layout);
  g_autofree char *what = g_strdup_printf ("%s d=%d", as_positional_layout_to_string (layout), dim);
  /* both sides round the same double once to float: equal up to libm's last-bit differences */
  check_close (what, ours, expected, n, 1e-7, 0);
}

static void
test_interleaved_reference (void)
{
  check_against_python (50, 8, AS_POSITIONAL_INTERLEAVED);
  check_against_python (50, 7, AS_POSITIONAL_INTERLEAVED);
}

static void
test_split_halves_reference (void)
{
  check_against_python (50, 8, AS_POSITIONAL_SPLIT_HALVES);
  check_against_python (50, 7, AS_POSITIONAL_SPLIT_HALVES);
}

/* as_positional_encodings starts at FIRST_POS; as_positional_add adds the same rows. */
static void
test_add_and_offset (void)
{
  const int n = 5, d = 6;
  float block[5 * 6], row[6], x[5 * 6];
  as_positional_encodings (block, 3, n, d, AS_POSITIONAL_INTERLEAVED);
  for (int t = 0; t < n; t++)
    {
      as_positional_encoding (row, 3 + t, d, AS_POSITIONAL_INTERLEAVED);
      g_assert_cmpmem (block + t * d, sizeof row, row, sizeof row);
    }
  for (int i = 0; i < n * d; i++)
    x[i] = 0.25f * i;
  as_positional_add (x, 3, n, d, AS_POSITIONAL_INTERLEAVED);
  for (int i = 0; i < n * d; i++)
    g_assert_true (x[i] == 0.25f * i + block[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/positional/position-zero", test_position_zero);
  g_test_add_func ("/core/positional/layouts-agree", test_layouts_agree);
  g_test_add_func ("/core/positional/interleaved/numpy-reference", test_interleaved_reference);
  g_test_add_func ("/core/positional/split-halves/numpy-reference", test_split_halves_reference);
  g_test_add_func ("/core/positional/add-and-offset", test_add_and_offset);
  int status = g_test_run ();
  return status;
}
