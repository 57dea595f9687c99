/* spm-charsmap.c — the character maps of a SentencePiece model, checked before the library sees
 * them (spm-charsmap-private.h).
 *
 * darts-clone's unit (darts.h, DoubleArrayUnit): has_leaf = bit 8, value = the low 31 bits,
 * label = bits 0–7 and 31 (bit 31 marks a value unit, which no byte matches), offset =
 * (u >> 10) << ((u & 512) >> 6). A prefix search (commonPrefixSearch) starts at
 * pos = offset (array[0]); for each key byte c it reads unit = array[pos ^ c], stops unless
 * label (unit) == c, moves to pos ^= offset (unit), and when has_leaf (unit) records
 * value (array[pos]). So the nodes an input can reach are positions ("bases"), and the children
 * of base b are the units q in b's 256-slot block whose label c has q ^ c == b. The protobuf
 * framing (ModelProto: field 3 normalizer_spec, field 5 denormalizer_spec; NormalizerSpec: field 2
 * precompiled_charsmap) is read by hand: varints, fixed 32/64-bit and length-delimited fields;
 * groups are refused (SentencePiece never writes them). A field given twice is checked twice. */
#include "spm-charsmap-private.h"

#include <string.h>

#include "as-error.h"

typedef struct
{
  const guint8 *units; /* [n] little-endian 32-bit units, read through unit_at */
  gsize n;
  const guint8 *strings; /* [n_strings] the NUL-separated replacements */
  gsize n_strings;
} Charsmap;

static guint32
unit_at (const Charsmap *map, gsize i)
{
  const guint8 *b = map->units + 4 * i;
  return (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 | (guint32) b[3] << 24;
}

static guint32
unit_offset (guint32 u)
{
  return (u >> 10) << ((u & (1u << 9)) >> 6);
}

/* The children of every base: CHILD[FIRST[b] .. FIRST[b + 1]) are the units whose label makes
 * them a child of b (counting sort over the parent each unit can have). FIRST has N + 1 entries;
 * a unit's parent q ^ label < N when its block lies inside the array, which the walk demands of
 * every base it enters. */
static void
group_children (const Charsmap *map, guint32 *first, guint32 *child)
{
  memset (first, 0, (map->n + 1) * sizeof *first);
  for (gsize q = 0; q < map->n; q++)
    {
      guint32 u = unit_at (map, q);
      gsize parent = q ^ (u & 0xFF);
      if ((u >> 31) == 0 && parent < map->n)
        first[parent + 1]++;
    }
  for (gsize b = 0; b < map->n; b++)
    first[b + 1] += first[b];
  g_autofree guint32 *fill = g_memdup2 (first, map->n * sizeof *first);
  for (gsize q = 0; q < map->n; q++)
    {
      guint32 u = unit_at (map, q);
      gsize parent = q ^ (u & 0xFF);
      if ((u >> 31) == 0 && parent < map->n)
        child[fill[parent]++] = (guint32) q;
    }
}

/* Whether BASE's 256 slots lie inside the array; else sets ERROR naming WHAT reached it. */
static gboolean
check_base (const Charsmap *map, gsize base, const char *what, GError **error)
{
  if ((base | 0xFF) < map->n)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "the trie's %s points to unit %" G_GSIZE_FORMAT ", outside its %" G_GSIZE_FORMAT
               " units",
               what, base, map->n);
  return FALSE;
}

/* Whether the value of the leaf at BASE names a NUL-terminated string inside the strings. */
static gboolean
check_value (const Charsmap *map, gsize base, GError **error)
{
  guint32 value = unit_at (map, base) & 0x7FFFFFFFu;
  if (value < map->n_strings && memchr (map->strings + value, '\0', map->n_strings - value) != NULL)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               value < map->n_strings
                   ? "the replacement at byte %u of its %" G_GSIZE_FORMAT
                     "-byte strings has no terminating NUL"
                   : "a replacement points to byte %u, outside its %" G_GSIZE_FORMAT
                     "-byte strings",
               value, map->n_strings);
  return FALSE;
}

/* One step of the depth-first walk: a base and the next of its children to visit. */
typedef struct
{
  guint32 base;
  guint32 next; /* index into CHILD */
  guint32 best; /* the most values on a path from this base, over the children done so far */
} Frame;

enum
{
  UNSEEN,
  ON_PATH,
  DONE
};

/* The next base after child unit Q of a base, and whether the step records a value. */
static gsize
step (const Charsmap *map, guint32 q, gboolean *leaf)
{
  guint32 u = unit_at (map, q);
  *leaf = (u >> 8) & 1;
  return q ^ unit_offset (u);
}

/* Walks every base an input can reach, depth first from the root's, checking each. MOST[b] (for
 * DONE bases) is the most values a path from b meets. */
static gboolean
walk (const Charsmap *map, const guint32 *first, const guint32 *child, GError **error)
{
  g_autofree guint8 *state = g_new0 (guint8, map->n); /* [n] UNSEEN, ON_PATH, DONE */
  g_autofree guint32 *most = g_new0 (guint32, map->n);
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  gsize root = unit_offset (unit_at (map, 0));
  if (!check_base (map, root, "root", error))
    return FALSE;
  Frame start = { (guint32) root, first[root], 0 };
  g_array_append_val (stack, start);
  state[root] = ON_PATH;
  while (stack->len > 0)
    {
      Frame *f = &g_array_index (stack, Frame, stack->len - 1);
      if (f->next == first[f->base + 1])
        {
          state[f->base] = DONE;
          most[f->base] = f->best;
          guint32 done = f->best;
          g_array_set_size (stack, stack->len - 1);
          if (stack->len > 0)
            {
              Frame *parent = &g_array_index (stack, Frame, stack->len - 1);
              gboolean leaf;
              step (map, child[parent->next - 1], &leaf);
              parent->best = MAX (parent->best, done + (leaf ? 1u : 0u));
            }
          continue;
        }
      guint32 q = child[f->next++];
      gboolean leaf;
      gsize next = step (map, q, &leaf);
      if (!check_base (map, next, "node", error) || (leaf && !check_value (map, next, error)))
        return FALSE;
      if (state[next] == ON_PATH)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "the trie loops back to unit %" G_GSIZE_FORMAT, next);
          return FALSE;
        }
      if (state[next] == DONE)
        {
          f->best = MAX (f->best, most[next] + (leaf ? 1u : 0u));
          continue;
        }
      state[next] = ON_PATH;
      Frame frame = { (guint32) next, first[next], 0 };
      g_array_append_val (stack, frame);
    }
  if (most[root] > AS_SPM_MAX_TRIE_RESULTS)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "a key passes %u values in the trie, more than the %d a search may return",
                   most[root], AS_SPM_MAX_TRIE_RESULTS);
      return FALSE;
    }
  return TRUE;
}

gboolean
as_spm_charsmap_check (const guint8 *blob, gsize size, GError **error)
{
  if (size == 0)
    return TRUE; /* no map: SentencePiece normalizes nothing */
  guint32 trie_size = size >= 4 ? (guint32) blob[0] | (guint32) blob[1] << 8
                                      | (guint32) blob[2] << 16 | (guint32) blob[3] << 24
                                : 0;
  if (size <= 4 || trie_size >= size - 4 + 1 || trie_size / 4 == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "a trie of %u bytes does not fit the map's %" G_GSIZE_FORMAT " bytes", trie_size,
                   size);
      return FALSE;
    }
  Charsmap map = { blob + 4, trie_size / 4, blob + 4 + trie_size, size - 4 - trie_size };
  g_autofree guint32 *first = g_new (guint32, map.n + 1); /* [n + 1] */
  g_autofree guint32 *child = g_new (guint32, map.n);     /* [n] */
  group_children (&map, first, child);
  return walk (&map, first, child, error);
}

/* ---- the protobuf framing ---- */

/* Reads a varint at *POS (< END); FALSE when it is cut short or longer than 10 bytes. */
static gboolean
read_varint (const guint8 *bytes, gsize end, gsize *pos, guint64 *value)
{
  *value = 0;
  for (int shift = 0; shift < 70 && *pos < end; shift += 7)
    {
      guint8 b = bytes[(*pos)++];
      *value |= shift < 64 ? (guint64) (b & 0x7F) << shift : 0;
      if ((b & 0x80) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Calls FOUND for every length-delimited field FIELD of the message BYTES[BEGIN, END); FALSE with
 * *BROKEN at the byte where the framing breaks. */
typedef gboolean (*FieldFound) (const guint8 *value, gsize length, gpointer data, GError **error);

static gboolean
each_field (const guint8 *bytes, gsize begin, gsize end, guint64 field, FieldFound found,
            gpointer data, gsize *broken, GError **error)
{
  gsize pos = begin;
  while (pos < end)
    {
      guint64 key, length = 0;
      *broken = pos;
      if (!read_varint (bytes, end, &pos, &key))
        return FALSE;
      switch (key & 7)
        {
        case 0:
          if (!read_varint (bytes, end, &pos, &length))
            return FALSE;
          continue;
        case 1:
        case 5:
          length = (key & 7) == 1 ? 8 : 4;
          if (length > end - pos)
            return FALSE;
          pos += length;
          continue;
        case 2:
          if (!read_varint (bytes, end, &pos, &length) || length > end - pos)
            return FALSE;
          if ((key >> 3) == field && !found (bytes + pos, length, data, error))
            {
              *broken = G_MAXSIZE; /* the field itself is at fault: ERROR says why */
              return FALSE;
            }
          pos += length;
          continue;
        default:
          return FALSE; /* groups (3, 4) and wire types 6, 7 */
        }
    }
  return TRUE;
}

typedef struct
{
  const char *path;
  const char *spec; /* "normalizer_spec" or "denormalizer_spec" */
} CheckContext;

static gboolean
charsmap_found (const guint8 *value, gsize length, gpointer data, GError **error)
{
  const CheckContext *c = data;
  GError *local = NULL;
  if (as_spm_charsmap_check (value, length, &local))
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "%s: %s.precompiled_charsmap is damaged (%s); refused before SentencePiece reads it",
               c->path, c->spec, local->message);
  g_error_free (local);
  return FALSE;
}

static gboolean
spec_found (const guint8 *value, gsize length, gpointer data, GError **error)
{
  gsize broken = 0;
  if (each_field (value, 0, length, 2, charsmap_found, data, &broken, error))
    return TRUE;
  if (broken != G_MAXSIZE)
    {
      const CheckContext *c = data;
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s is not a SentencePiece model: its %s breaks off at byte %" G_GSIZE_FORMAT,
                   c->path, c->spec, broken);
    }
  return FALSE;
}

gboolean
as_spm_check_charsmaps (const char *path, const guint8 *bytes, gsize length, GError **error)
{
  static const struct
  {
    guint64 field;
    const char *spec;
  } specs[] = { { 3, "normalizer_spec" }, { 5, "denormalizer_spec" } };
  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      CheckContext c = { path, specs[i].spec };
      gsize broken = 0;
      if (each_field (bytes, 0, length, specs[i].field, spec_found, &c, &broken, error))
        continue;
      if (broken != G_MAXSIZE)
        g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                     "%s is not a SentencePiece model: the protobuf breaks off at byte "
                     "%" G_GSIZE_FORMAT,
                     path, broken);
      return FALSE;
    }
  return TRUE;
}
