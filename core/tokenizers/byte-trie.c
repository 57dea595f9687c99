/* byte-trie.c — a breadth-first trie of byte strings with Aho–Corasick links
 * (byte-trie-private.h).
 *
 * Building: the keys are sorted (bytes, then index, so that the first of equal keys comes first);
 * a node covers the range of sorted keys that share its string, and its children are the groups
 * of that range by the next byte, appended to the node arrays as the queue reaches the node —
 * which numbers the nodes breadth first and keeps siblings consecutive and sorted. The failure
 * link of a node is the node of the longest proper suffix of its string that is in the trie
 * (computed in breadth-first order, so a shorter node's link is always known); its output is its
 * own key, else its failure node's output. */
#include "byte-trie-private.h"

#include <stdlib.h>
#include <string.h>

#include "tokenizer-work-private.h"

struct _AsByteTrie
{
  guint n_nodes;
  guint32 *first_child; /* [n_nodes] index of the first child */
  guint16 *n_children;  /* [n_nodes] 0..256 */
  guint8 *label;        /* [n_nodes] the byte leading to the node (0 for the root) */
  int32_t *key;         /* [n_nodes] the key ending here, or -1 */
  guint32 *fail;        /* [n_nodes] failure link, or NULL without links */
  int32_t *output;      /* [n_nodes] longest key that is a suffix, or NULL without links */
};

typedef struct
{
  const char *const *keys;
  const gsize *lengths;
} KeySet;

static int
compare_keys (const void *a, const void *b, void *data)
{
  const KeySet *set = data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  gsize n = MIN (set->lengths[i], set->lengths[j]);
  int c = n > 0 ? memcmp (set->keys[i], set->keys[j], n) : 0;
  if (c != 0)
    return c;
  if (set->lengths[i] != set->lengths[j])
    return set->lengths[i] < set->lengths[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

void
as_byte_trie_free (AsByteTrie *trie)
{
  if (trie == NULL)
    return;
  g_free (trie->first_child);
  g_free (trie->n_children);
  g_free (trie->label);
  g_free (trie->key);
  g_free (trie->fail);
  g_free (trie->output);
  g_free (trie);
}

guint32
as_byte_trie_child (const AsByteTrie *trie, guint32 node, guint8 byte)
{
  guint32 lo = trie->first_child[node], hi = lo + trie->n_children[node];
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (trie->label[mid] < byte)
        lo = mid + 1;
      else
        hi = mid;
    }
  as_tokenizer_work_add (1);
  return lo < trie->first_child[node] + trie->n_children[node] && trie->label[lo] == byte
             ? lo
             : AS_BYTE_TRIE_NONE;
}

int32_t
as_byte_trie_key (const AsByteTrie *trie, guint32 node)
{
  return trie->key[node];
}

guint32
as_byte_trie_walk (const AsByteTrie *trie, guint32 node, const char *bytes, gsize length)
{
  for (gsize i = 0; i < length && node != AS_BYTE_TRIE_NONE; i++)
    node = as_byte_trie_child (trie, node, (guint8) bytes[i]);
  return node;
}

guint32
as_byte_trie_step (const AsByteTrie *trie, guint32 state, guint8 byte)
{
  for (;;)
    {
      guint32 next = as_byte_trie_child (trie, state, byte);
      if (next != AS_BYTE_TRIE_NONE)
        return next;
      if (state == 0)
        return 0;
      state = trie->fail[state];
    }
}

int32_t
as_byte_trie_output (const AsByteTrie *trie, guint32 state)
{
  return trie->output[state];
}

guint64
as_byte_trie_bytes (const AsByteTrie *trie)
{
  gsize per_node = sizeof (guint32) + sizeof (guint16) + 1 + sizeof (int32_t);
  if (trie->fail != NULL)
    per_node += sizeof (guint32) + sizeof (int32_t);
  return sizeof *trie + (guint64) trie->n_nodes * per_node;
}

/* Fills the failure links and outputs, in breadth-first order. PARENT: [n_nodes]. */
static void
build_links (AsByteTrie *trie, const guint32 *parent)
{
  trie->fail = g_new0 (guint32, trie->n_nodes);
  trie->output = g_new (int32_t, trie->n_nodes);
  trie->output[0] = trie->key[0];
  for (guint32 v = 1; v < trie->n_nodes; v++)
    {
      guint32 p = parent[v], f = 0;
      if (p != 0)
        {
          f = trie->fail[p];
          guint32 g;
          while ((g = as_byte_trie_child (trie, f, trie->label[v])) == AS_BYTE_TRIE_NONE && f != 0)
            f = trie->fail[f];
          f = g != AS_BYTE_TRIE_NONE ? g : 0;
        }
      trie->fail[v] = f;
      trie->output[v] = trie->key[v] >= 0 ? trie->key[v] : trie->output[f];
    }
}

AsByteTrie *
as_byte_trie_new (const char *const *keys, const gsize *lengths, guint n, gboolean links)
{
  KeySet set = { keys, lengths };
  g_autofree guint *order = g_new (guint, MAX (n, 1)); /* [n] key indices, sorted */
  guint m = 0;
  gsize total = 1;
  for (guint i = 0; i < n; i++)
    if (lengths[i] > 0)
      {
        order[m++] = i;
        total += lengths[i];
      }
  g_qsort_with_data (order, (gint) m, sizeof *order, compare_keys, &set);

  AsByteTrie *trie = g_new0 (AsByteTrie, 1);
  trie->first_child = g_new (guint32, total);
  trie->n_children = g_new (guint16, total);
  trie->label = g_new (guint8, total);
  trie->key = g_new (int32_t, total);
  g_autofree guint32 *lo = g_new (guint32, total); /* [total] the node's range of ORDER */
  g_autofree guint32 *hi = g_new (guint32, total);
  g_autofree guint32 *parent = g_new (guint32, total);
  g_autofree guint32 *depth = g_new (guint32, total);
  guint32 count = 1;
  lo[0] = 0, hi[0] = m, parent[0] = 0, depth[0] = 0, trie->label[0] = 0;
  for (guint32 v = 0; v < count; v++)
    {
      guint32 a = lo[v], b = hi[v], d = depth[v];
      trie->key[v] = -1;
      /* the keys that end here sort first; the first of them has the lowest index */
      if (a < b && lengths[order[a]] == d)
        trie->key[v] = (int32_t) order[a];
      while (a < b && lengths[order[a]] == d)
        a++;
      trie->first_child[v] = count;
      while (a < b)
        {
          guint8 byte = (guint8) keys[order[a]][d];
          guint32 c = a;
          while (c < b && (guint8) keys[order[c]][d] == byte)
            c++;
          lo[count] = a, hi[count] = c, parent[count] = v, depth[count] = d + 1;
          trie->label[count] = byte;
          count++;
          a = c;
        }
      trie->n_children[v] = (guint16) (count - trie->first_child[v]);
    }
  trie->n_nodes = count;
  if (links)
    build_links (trie, parent);
  return trie;
}
