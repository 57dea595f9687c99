/* test-safetensors.c — the safetensors reader and the sharded loader on files written byte by
 * byte here (independent of the reader and of the Python writer).
 *
 * Checks that F32, BF16 and F16 values arrive exactly (16-bit ones stay 16-bit in the store and
 * widen exactly: subnormal, largest and negative-zero halves included), mapped or copied, aligned
 * or not; that the order of the ranges and gaps between them do not matter; and that every
 * malformed file is refused with a message naming the file and the problem: shared bytes,
 * offsets outside the buffer, a size that disagrees with dtype × shape, unknown or unsupported
 * dtypes, impossible shapes, a header that is too long, not an object or nested too deep, a
 * __metadata__ that is not an object, a FIFO instead of a file, NaN/Inf in 16-bit weights; and
 * for sharded checkpoints an empty or malformed weight map, a shard name leaving the folder and a
 * tensor in two shards. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as-error.h"
#include "check-close.h"
#include "tensor-store-private.h"

typedef struct
{
  const char *name;
  const char *dtype;
  const char *shape; /* JSON array */
  guint64 begin, end;
} StEntry;

/* Writes DIR/FILE: header with ENTRIES (+ EXTRA members, raw JSON, or NULL), padded with spaces so
 * that the data starts MISALIGN bytes past a multiple of 8, then DATA. Returns the path. */
static char *
write_st (const char *dir, const char *file, const StEntry *entries, int n, const char *extra,
          const void *data, gsize data_size, int misalign)
{
  GString *h = g_string_new ("{");
  for (int i = 0; i < n; i++)
    g_string_append_printf (
        h,
        "%s\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT "]}",
        i ? "," : "", entries[i].name, entries[i].dtype, entries[i].shape, entries[i].begin,
        entries[i].end);
  if (extra != NULL)
    g_string_append_printf (h, "%s%s", n ? "," : "", extra);
  g_string_append_c (h, '}');
  while ((8 + h->len) % 8 != (gsize) misalign)
    g_string_append_c (h, ' ');
  guint64 len = GUINT64_TO_LE ((guint64) h->len);
  GString *file_bytes = g_string_new_len ((const char *) &len, 8);
  g_string_append_len (file_bytes, h->str, (gssize) h->len);
  g_string_append_len (file_bytes, data, (gssize) data_size);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  char *path = g_build_filename (dir, file, NULL);
  g_assert_true (g_file_set_contents (path, file_bytes->str, (gssize) file_bytes->len, NULL));
  g_string_free (h, TRUE);
  g_string_free (file_bytes, TRUE);
  return path;
}

static AsTensorStore *
load (const char *path, gboolean allow_map, GError **error)
{
  if (allow_map)
    g_unsetenv ("ATTNSCOPE_NO_MMAP");
  else
    g_setenv ("ATTNSCOPE_NO_MMAP", "1", TRUE);
  AsTensorStore *store = g_str_has_suffix (path, ".json")
                             ? as_tensor_store_load_safetensors_index (path, error)
                             : as_tensor_store_load_safetensors (path, error);
  g_unsetenv ("ATTNSCOPE_NO_MMAP");
  return store;
}

/* Loading PATH fails with CODE and a message holding every NEEDLE (and PATH unless OTHER_FILE:
 * the message names the file at fault). */
static void
assert_fails_in (const char *path, gboolean other_file, int code, const char *const *needles)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTensorStore) store = load (path, TRUE, &error);
  g_assert_null (store);
  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_error (error, AS_ERROR, code);
  g_assert_true (other_file || strstr (error->message, path) != NULL);
  for (const char *const *n = needles; *n != NULL; n++)
    if (strstr (error->message, *n) == NULL)
      {
        g_test_message ("the message lacks \"%s\"", *n);
        g_test_fail ();
      }
}

static void
assert_fails (const char *path, int code, const char *const *needles)
{
  assert_fails_in (path, FALSE, code, needles);
}

/* Data: F32 a [2,3] at 0, BF16 b [4] at 24, F16 c [7] at 32 (14 bytes), 2 spare bytes. */
static const float a_values[6] = { 1.5f, -2.25f, 3.0e-5f, 1.0e30f, -0.0f, 7.0f };
static const guint16 b_bits[4] = { 0x3f80, 0xc2f7, 0x0001, 0x7f7f };
static const float b_values[4] = { 1.0f, -123.5f, 0x1p-133f, 0x1.fep127f };
static const guint16 c_bits[7] = { 0x0001, 0x03ff, 0x0400, 0x7bff, 0x8000, 0xc000, 0x3555 };
static const float c_values[7]
    = { 0x1p-24f, 0x3ffp-24f, 0x1p-14f, 65504.0f, -0.0f, -2.0f, 0x1.554p-2f };

static void
fill_data (char *data)
{
  for (int i = 0; i < 6; i++)
    {
      guint32 u;
      memcpy (&u, &a_values[i], 4);
      u = GUINT32_TO_LE (u);
      memcpy (data + 4 * i, &u, 4);
    }
  for (int i = 0; i < 4; i++)
    {
      guint16 u = GUINT16_TO_LE (b_bits[i]);
      memcpy (data + 24 + 2 * i, &u, 2);
    }
  for (int i = 0; i < 7; i++)
    {
      guint16 u = GUINT16_TO_LE (c_bits[i]);
      memcpy (data + 32 + 2 * i, &u, 2);
    }
}

static void
check_values (const AsTensorStore *store)
{
  g_autoptr (GError) error = NULL;
  const AsTensor *a = as_tensor_store_find_suffix (store, "a");
  const AsTensor *b = as_tensor_store_find_suffix (store, "b");
  const AsTensor *c = as_tensor_store_find_suffix (store, "c");
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (c);
  g_assert_cmpint (a->dtype, ==, AS_DTYPE_F32);
  g_assert_cmpint (b->dtype, ==, AS_DTYPE_BF16);
  g_assert_cmpint (c->dtype, ==, AS_DTYPE_F16);
  g_assert_cmpmem (b->raw, 8, b_bits, 8); /* 16-bit weights stay 16-bit */
  g_assert_cmpmem (c->raw, 14, c_bits, 14);
  g_assert_null (b->data); /* no float32 copy until one is asked for */
  g_assert_cmpmem (as_tensor_store_get_floats (store, a, &error), 24, a_values, 24);
  g_assert_cmpmem (as_tensor_store_get_floats (store, b, &error), 16, b_values, 16);
  int64_t shape[1] = { 7 };
  const float *cf = as_tensor_store_require (store, "c", 1, shape, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 7; i++)
    {
      g_assert_cmpfloat (cf[i], ==, c_values[i]);
      g_assert_cmpint (!!signbit (cf[i]), ==, !!signbit (c_values[i]));
    }
  g_assert_true (as_tensor_store_get_floats (store, c, NULL) == cf); /* made once */
  g_assert_true (as_tensor_store_check_finite (store, &error));
}

static void
test_dtypes (void)
{
  char data[48];
  fill_data (data);
  StEntry entries[] = {
    { "a", "F32", "[2,3]", 0, 24 },
    { "b", "BF16", "[4]", 24, 32 },
    { "c", "F16", "[7]", 32, 46 },
  };
  g_autofree char *dir = g_build_filename (test_tmpdir (), "dtypes", NULL);
  g_autofree char *path = write_st (dir, "model.safetensors", entries, 3, NULL, data, 48, 0);
  for (int map = 0; map < 2; map++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsTensorStore) store = load (path, map, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (as_tensor_store_get_n_tensors (store), ==, 3);
      for (guint i = 0; i < 3; i++)
        g_assert_cmpint (as_tensor_store_is_mapped (store, as_tensor_store_get_nth (store, i)), ==,
                         map);
      check_values (store);
      g_autofree char *summary = as_tensor_store_dup_dtype_summary (store);
      g_assert_cmpstr (summary, ==, "F16+F32+BF16"); /* most elements first */
    }
  /* data starting 1 byte past an 8-byte boundary: nothing aligned, everything copied */
  g_autofree char *odd = write_st (dir, "odd.safetensors", entries, 3, NULL, data, 48, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTensorStore) store = load (odd, TRUE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    g_assert_false (as_tensor_store_is_mapped (store, as_tensor_store_get_nth (store, i)));
  check_values (store);
  /* 2 bytes past: the 16-bit tensors are aligned for their dtype and used in place */
  g_autofree char *two = write_st (dir, "two.safetensors", entries, 3, NULL, data, 48, 2);
  g_autoptr (AsTensorStore) store2 = load (two, TRUE, &error);
  g_assert_no_error (error);
  g_assert_false (as_tensor_store_is_mapped (store2, as_tensor_store_find_suffix (store2, "a")));
  g_assert_true (as_tensor_store_is_mapped (store2, as_tensor_store_find_suffix (store2, "b")));
  check_values (store2);
}

static void
test_order_and_gaps (void)
{
  char data[64];
  memset (data, 0x55, sizeof data); /* the gap holds garbage */
  fill_data (data);
  /* the ranges listed last to first, a gap of 18 bytes after c, empty tensors anywhere */
  StEntry entries[] = {
    { "c", "F16", "[7]", 32, 46 },     { "empty", "F32", "[0,5]", 64, 64 },
    { "b", "BF16", "[4]", 24, 32 },    { "a", "F32", "[2,3]", 0, 24 },
    { "zero", "BF16", "[0]", 30, 30 },
  };
  g_autofree char *dir = g_build_filename (test_tmpdir (), "order", NULL);
  g_autofree char *path = write_st (dir, "model.safetensors", entries, 5,
                                    "\"__metadata__\":{\"format\":\"pt\"}", data, 64, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTensorStore) store = load (path, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (as_tensor_store_get_n_tensors (store), ==, 5);
  g_assert_cmpint (as_tensor_store_find_suffix (store, "empty")->n_elements, ==, 0);
  check_values (store);
}

static void
test_bad_files (void)
{
  char data[48];
  fill_data (data);
  g_autofree char *dir = g_build_filename (test_tmpdir (), "bad", NULL);
  struct
  {
    const char *file;
    StEntry e[2];
    int n;
    const char *extra;
    int code;
    const char *needle1, *needle2;
  } cases[] = {
    { "overlap.safetensors",
      { { "a", "F32", "[2,3]", 0, 24 }, { "b", "BF16", "[4]", 22, 30 } },
      2,
      NULL,
      AS_ERROR_FORMAT,
      "share bytes",
      "'b'" },
    { "outside.safetensors",
      { { "a", "F32", "[16]", 0, 64 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "48-byte data buffer",
      "truncated" },
    { "reversed.safetensors",
      { { "a", "F32", "[2]", 8, 0 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "'a'",
      "data_offsets" },
    { "size.safetensors",
      { { "a", "F32", "[2,3]", 0, 20 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "needs 24 bytes",
      "span 20" },
    { "bf16size.safetensors",
      { { "b", "BF16", "[4]", 24, 40 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "needs 8 bytes",
      "BF16" },
    { "f64.safetensors",
      { { "a", "F64", "[3]", 0, 24 } },
      1,
      NULL,
      AS_ERROR_SHAPE,
      "dtype F64",
      "supported" },
    { "q4.safetensors",
      { { "a", "Q4", "[3]", 0, 24 } },
      1,
      NULL,
      AS_ERROR_SHAPE,
      "dtype Q4",
      "'a'" },
    { "negative.safetensors",
      { { "a", "F32", "[-1,3]", 0, 24 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "shape",
      "'a'" },
    { "fivedims.safetensors",
      { { "a", "F32", "[1,1,1,2,3]", 0, 24 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "shape",
      "'a'" },
    { "huge.safetensors",
      { { "a", "F32", "[4294967296,4294967296]", 0, 24 } },
      1,
      NULL,
      AS_ERROR_FORMAT,
      "shape",
      "'a'" },
    { "metadata.safetensors",
      { { "a", "F32", "[2,3]", 0, 24 } },
      1,
      "\"__metadata__\":[1]",
      AS_ERROR_FORMAT,
      "__metadata__",
      "object" },
    { "nooffsets.safetensors",
      { { "a", "F32", "[2,3]", 0, 24 } },
      1,
      "\"x\":{\"dtype\":\"F32\"}",
      AS_ERROR_FORMAT,
      "'x'",
      "data_offsets" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path
          = write_st (dir, cases[i].file, cases[i].e, cases[i].n, cases[i].extra, data, 48, 0);
      assert_fails (path, cases[i].code,
                    (const char *[]){ cases[i].needle1, cases[i].needle2, NULL });
    }

  /* headers that are not an object, or nested past the limit */
  g_autofree char *array = g_build_filename (dir, "array.safetensors", NULL);
  g_assert_true (g_file_set_contents (array, "\x03\0\0\0\0\0\0\0[1]", 11, NULL));
  assert_fails (array, AS_ERROR_FORMAT, (const char *[]){ "not a JSON object", NULL });
  GString *deep = g_string_new (NULL);
  for (int i = 0; i < 5000; i++)
    g_string_append_c (deep, '[');
  guint64 len = GUINT64_TO_LE ((guint64) deep->len);
  g_string_prepend_len (deep, (const char *) &len, 8);
  g_autofree char *nested = g_build_filename (dir, "nested.safetensors", NULL);
  g_assert_true (g_file_set_contents (nested, deep->str, (gssize) deep->len, NULL));
  g_string_free (deep, TRUE);
  assert_fails (nested, AS_ERROR_FORMAT, (const char *[]){ "nest", NULL });

  /* a header length beyond the safetensors limit, in a (sparse) file long enough for it */
  g_autofree char *big = g_build_filename (dir, "big.safetensors", NULL);
  guint64 huge = GUINT64_TO_LE ((guint64) 100000001);
  g_assert_true (g_file_set_contents (big, (const char *) &huge, 8, NULL));
  g_assert_cmpint (truncate (big, 100000100), ==, 0);
  assert_fails (big, AS_ERROR_FORMAT, (const char *[]){ "header length 100000001", NULL });

  /* only regular files: a FIFO is refused, not waited on */
  g_autofree char *fifo = g_build_filename (dir, "fifo.safetensors", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_fails (fifo, AS_ERROR_IO, (const char *[]){ "FIFO", NULL });
}

/* NaN and infinities in 16-bit weights are found, with the element. */
static void
test_nonfinite (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "nonfinite", NULL);
  guint16 bf[6] = { 0x3f80, 0x3f80, 0x3f80, 0x7fc0, 0, 0 };
  guint16 hf[4] = { 0x3c00, 0xfc00, 0, 0 };
  StEntry b = { "w", "BF16", "[6]", 0, 12 };
  StEntry h = { "w", "F16", "[4]", 0, 8 };
  const struct
  {
    const StEntry *e;
    const void *data;
    gsize size;
    const char *what;
  } cases[] = { { &b, bf, 12, "NaN at element 3" }, { &h, hf, 8, "-Inf at element 1" } };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *file = g_strdup_printf ("nan%" G_GSIZE_FORMAT ".safetensors", i);
      g_autofree char *path
          = write_st (dir, file, cases[i].e, 1, NULL, cases[i].data, cases[i].size, 0);
      g_autoptr (GError) error = NULL;
      g_autoptr (AsTensorStore) store = load (path, TRUE, &error);
      g_assert_no_error (error);
      g_assert_false (as_tensor_store_check_finite (store, &error));
      g_assert_error (error, AS_ERROR, AS_ERROR_VALUE);
      g_assert_nonnull (strstr (error->message, cases[i].what));
      g_assert_nonnull (strstr (error->message, path));
    }
}

/* Writes INDEX with the JSON WEIGHT_MAP into DIR; returns its path. */
static char *
write_index (const char *dir, const char *weight_map)
{
  char *path = g_build_filename (dir, "model.safetensors.index.json", NULL);
  g_autofree char *text
      = g_strdup_printf ("{\"metadata\":{\"total_size\":46},\"weight_map\":%s}", weight_map);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_index (void)
{
  char data[48];
  fill_data (data);
  g_autofree char *dir = g_build_filename (test_tmpdir (), "index", NULL);
  StEntry s1[] = { { "a", "F32", "[2,3]", 0, 24 }, { "extra", "F32", "[1]", 24, 28 } };
  StEntry s2[] = { { "b", "BF16", "[4]", 0, 8 }, { "c", "F16", "[7]", 8, 22 } };
  g_autofree char *f1
      = write_st (dir, "model-00001-of-00002.safetensors", s1, 2, NULL, data, 28, 0);
  g_autofree char *f2
      = write_st (dir, "model-00002-of-00002.safetensors", s2, 2, NULL, data + 24, 22, 3);

  const char *good = "{\"a\":\"model-00001-of-00002.safetensors\","
                     "\"b\":\"model-00002-of-00002.safetensors\","
                     "\"c\":\"model-00002-of-00002.safetensors\"}";
  g_autofree char *index = write_index (dir, good);
  for (int map = 0; map < 2; map++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsTensorStore) store = load (index, map, &error);
      g_assert_no_error (error);
      /* a shard's tensors beyond the map are loaded too, as transformers loads whole shards */
      g_assert_cmpuint (as_tensor_store_get_n_tensors (store), ==, 4);
      check_values (store);
      g_assert_true (g_str_has_suffix (as_tensor_store_find_suffix (store, "c")->file,
                                       "model-00002-of-00002.safetensors"));
    }

  struct
  {
    const char *map;
    int code;
    const char *needle1, *needle2;
  } bad[] = {
    { "{}", AS_ERROR_FORMAT, "weight_map", "shard" },
    { "{\"a\":3}", AS_ERROR_FORMAT, "'a'", "file name" },
    { "{\"a\":\"../model-00001-of-00002.safetensors\"}", AS_ERROR_FORMAT, "'a'", "same folder" },
    { "{\"a\":\"model.bin\"}", AS_ERROR_FORMAT, "'a'", ".safetensors" },
    { "{\"a\":\"model-00003-of-00003.safetensors\"}", AS_ERROR_NOT_FOUND,
      "model-00003-of-00003.safetensors", "does not exist" },
    { "{\"a\":\"model-00002-of-00002.safetensors\"}", AS_ERROR_FORMAT, "'a'", "does not hold it" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *path = write_index (dir, bad[i].map);
      assert_fails (path, bad[i].code, (const char *[]){ bad[i].needle1, bad[i].needle2, NULL });
    }
  g_autofree char *not_object = write_index (dir, "[]");
  assert_fails (not_object, AS_ERROR_FORMAT, (const char *[]){ "weight_map", NULL });

  /* the same tensor in two shards */
  StEntry again[] = { { "a", "F32", "[2,3]", 0, 24 } };
  g_autofree char *f3
      = write_st (dir, "model-00003-of-00003.safetensors", again, 1, NULL, data, 24, 0);
  g_autofree char *twice = write_index (dir, "{\"a\":\"model-00001-of-00002.safetensors\","
                                             "\"x\":\"model-00003-of-00003.safetensors\"}");
  assert_fails_in (twice, TRUE, AS_ERROR_FORMAT,
                   (const char *[]){ f3, "'a' appears twice", f1, NULL });
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/safetensors/dtypes", test_dtypes);
  g_test_add_func ("/core/safetensors/order-and-gaps", test_order_and_gaps);
  g_test_add_func ("/core/safetensors/bad-files", test_bad_files);
  g_test_add_func ("/core/safetensors/nonfinite", test_nonfinite);
  g_test_add_func ("/core/safetensors/index", test_index);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
