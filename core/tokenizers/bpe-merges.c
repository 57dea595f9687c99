/* bpe-merges.c — a BPE merge table and the merge loop (see bpe-merges-private.h).
 *
 * GPT-2's original loop (encoder.py) recomputes every adjacent pair's rank after each step,
 * which is quadratic in the piece length (a 100 kB run of letters is one piece). Both rules here
 * run in O(n log n) with a heap of candidate pairs ordered by (rank, position) over a linked
 * list of symbols: popping the lowest (rank, position) merges the leftmost occurrence of the
 * best pair first; an occurrence that overlaps an earlier merge is stale and skipped, which is
 * the non-overlapping left-to-right scan. They differ only in when a pair created by a merge may
 * be taken (merge_loop), which matters only for merge files that rank a pair before the merges
 * that create its parts. Stale detection for GPT-2's rule: a node's symbol only ever grows, and
 * its right neighbour changes only when the node itself absorbs it, so (left symbol, right
 * symbol) still matching means the pair is the one that was queued; HF's rule (word.rs) checks
 * that the pair there now merges into the same symbol. */
#include "bpe-merges-private.h"

#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "byte-unicode-private.h"
#include "tokenizer-work-private.h"

typedef struct
{
  guint64 pair;   /* left symbol << 32 | right symbol; the hash key */
  int32_t rank;   /* 0-based index among the merge lines */
  int32_t merged; /* symbol of left + right */
} BpeMerge;

struct _AsBpeMerges
{
  guint vocab_size;
  GPtrArray *unknown; /* strings of symbols vocab_size, vocab_size + 1, ... (not in vocab) */
  BpeMerge *table;    /* [n_merges] */
  guint n_merges;
  GHashTable *ranks; /* &table[i].pair → &table[i] */
  int32_t byte_symbol[256];
};

/* A queued occurrence of a ranked pair: node POS holds LEFT, its right neighbour RIGHT. */
typedef struct
{
  int32_t rank;
  int32_t pos;
  int32_t left;
  int32_t right;
  int32_t merged;
} BpeCandidate;

static guint
pair_hash (gconstpointer key)
{
  guint64 v = *(const guint64 *) key;
  return (guint) ((v * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32);
}

static inline guint64
pair_key (int32_t left, int32_t right)
{
  return ((guint64) (guint32) left << 32) | (guint32) right;
}

/* ---- loading ---- */

typedef struct
{
  AsBpeMerges *merges;
  GHashTable *token_to_id; /* the vocabulary, borrowed */
  GHashTable *unknown_ids; /* string (owned by merges->unknown) → symbol */
} BpeLoad;

/* Enters merge RANK: LEFT + RIGHT → MERGED (symbols). A later duplicate of a pair wins. */
static void
set_merge (AsBpeMerges *merges, int32_t rank, int32_t left, int32_t right, int32_t merged)
{
  BpeMerge *entry = &merges->table[rank];
  *entry = (BpeMerge){ .pair = pair_key (left, right), .rank = rank, .merged = merged };
  g_hash_table_replace (merges->ranks, &entry->pair, entry);
}

/* The symbol of the string A + B (A_LEN + B_LEN bytes), numbering it when it is new. */
static int32_t
intern_symbol (BpeLoad *load, const char *a, gsize a_len, const char *b, gsize b_len)
{
  char stack[256];
  gsize len = a_len + b_len;
  g_autofree char *heap = len < sizeof stack ? NULL : g_malloc (len + 1);
  char *str = heap != NULL ? heap : stack; /* A + B as a C string, for the lookups */
  memcpy (str, a, a_len);
  if (b_len > 0)
    memcpy (str + a_len, b, b_len);
  str[len] = '\0';

  gpointer value;
  if (g_hash_table_lookup_extended (load->token_to_id, str, NULL, &value))
    return GPOINTER_TO_INT (value);
  if (g_hash_table_lookup_extended (load->unknown_ids, str, NULL, &value))
    return GPOINTER_TO_INT (value);
  int32_t symbol = (int32_t) (load->merges->vocab_size + load->merges->unknown->len);
  char *copy = g_strdup (str);
  g_ptr_array_add (load->merges->unknown, copy);
  g_hash_table_insert (load->unknown_ids, copy, GINT_TO_POINTER (symbol));
  return symbol;
}

static gboolean
is_field_space (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* Parses one merge line into table entry RANK. */
static gboolean
parse_merge_line (BpeLoad *load, const char *line, gsize len, int32_t rank, const char *path,
                  guint line_number, GError **error)
{
  const char *fields[2];
  gsize lengths[2];
  guint n_fields = 0;
  gsize i = 0;
  while (i < len)
    {
      while (i < len && is_field_space (line[i]))
        i++;
      if (i == len)
        break;
      gsize start = i;
      while (i < len && !is_field_space (line[i]))
        i++;
      if (n_fields < 2)
        {
          fields[n_fields] = line + start;
          lengths[n_fields] = i - start;
        }
      n_fields++;
    }
  if (n_fields != 2)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s line %u: expected a merge \"left right\" (two symbols separated by a "
                   "space), found %u field%s",
                   path, line_number, n_fields, n_fields == 1 ? "" : "s");
      return FALSE;
    }

  int32_t left = intern_symbol (load, fields[0], lengths[0], NULL, 0);
  int32_t right = intern_symbol (load, fields[1], lengths[1], NULL, 0);
  int32_t merged = intern_symbol (load, fields[0], lengths[0], fields[1], lengths[1]);

  set_merge (load->merges, rank, left, right, merged);
  return TRUE;
}

static gboolean
parse_merges (BpeLoad *load, const char *contents, gsize size, const char *path, GError **error)
{
  /* Count the lines first so that the table never moves (the hash keys point into it). */
  guint max_lines = 1;
  for (gsize i = 0; i < size; i++)
    max_lines += contents[i] == '\n';
  load->merges->table = g_new0 (BpeMerge, max_lines);

  gsize pos = 0;
  guint line_number = 0;
  int32_t rank = 0;
  while (pos < size)
    {
      const char *nl = memchr (contents + pos, '\n', size - pos);
      gsize end = nl != NULL ? (gsize) (nl - contents) : size;
      const char *line = contents + pos;
      gsize len = end - pos;
      line_number++;
      pos = end + 1;
      if (line_number == 1 && len >= 8 && memcmp (line, "#version", 8) == 0)
        continue;
      if (!parse_merge_line (load, line, len, rank, path, line_number, error))
        return FALSE;
      rank++;
    }
  load->merges->n_merges = (guint) rank;
  return TRUE;
}

AsBpeMerges *
as_bpe_merges_load (const char *path, GHashTable *token_to_id, guint vocab_size, GError **error)
{
  g_autofree char *contents = NULL;
  gsize size = 0;
  if (!as_file_read_all (path, AS_LIMIT_VOCABULARY_BYTES, &contents, &size, error))
    return NULL;
  if (!g_utf8_validate_len (contents, size, NULL))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the merges file is not valid UTF-8",
                   path);
      return NULL;
    }

  g_autoptr (AsBpeMerges) merges = g_new0 (AsBpeMerges, 1);
  merges->vocab_size = vocab_size;
  merges->unknown = g_ptr_array_new_with_free_func (g_free);
  merges->ranks = g_hash_table_new (pair_hash, g_int64_equal);
  BpeLoad load = {
    .merges = merges,
    .token_to_id = token_to_id,
    .unknown_ids = g_hash_table_new (g_str_hash, g_str_equal),
  };

  for (guint b = 0; b < 256; b++)
    {
      char utf8[8];
      gint n = g_unichar_to_utf8 (as_byte_unicode_from_byte ((guint8) b), utf8);
      merges->byte_symbol[b] = intern_symbol (&load, utf8, (gsize) n, NULL, 0);
    }
  gboolean ok = parse_merges (&load, contents, size, path, error);
  g_hash_table_unref (load.unknown_ids);
  if (!ok)
    return NULL;
  if (merges->n_merges == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: the file holds no merges", path);
      return NULL;
    }
  return g_steal_pointer (&merges);
}

void
as_bpe_merges_free (AsBpeMerges *merges)
{
  if (merges == NULL)
    return;
  g_clear_pointer (&merges->ranks, g_hash_table_unref);
  g_clear_pointer (&merges->unknown, g_ptr_array_unref);
  g_free (merges->table);
  g_free (merges);
}

guint64
as_bpe_merges_bytes (const AsBpeMerges *merges)
{
  /* the table, and a hash entry (key, value, hash, node) per merge */
  guint64 bytes = sizeof *merges + (guint64) merges->n_merges * (sizeof (BpeMerge) + 32);
  for (guint i = 0; i < merges->unknown->len; i++)
    bytes += strlen (g_ptr_array_index (merges->unknown, i)) + 1 + 16;
  return bytes;
}

int32_t
as_bpe_merges_byte_symbol (const AsBpeMerges *merges, guint8 byte)
{
  return merges->byte_symbol[byte];
}

const char *
as_bpe_merges_first_unknown (const AsBpeMerges *merges)
{
  return merges->unknown->len > 0 ? g_ptr_array_index (merges->unknown, 0) : NULL;
}

/* ---- a table from tokenizer.json ---- */

AsBpeMerges *
as_bpe_merges_new_vocab (guint vocab_size, guint n_merges)
{
  AsBpeMerges *merges = g_new0 (AsBpeMerges, 1);
  merges->vocab_size = vocab_size;
  merges->unknown = g_ptr_array_new_with_free_func (g_free);
  merges->ranks = g_hash_table_new (pair_hash, g_int64_equal);
  merges->table = g_new0 (BpeMerge, MAX (n_merges, 1));
  merges->n_merges = n_merges;
  for (guint b = 0; b < 256; b++)
    merges->byte_symbol[b] = -1;
  return merges;
}

void
as_bpe_merges_set (AsBpeMerges *merges, guint rank, int32_t left, int32_t right, int32_t merged)
{
  g_assert (rank < merges->n_merges);
  set_merge (merges, (int32_t) rank, left, right, merged);
}

/* ---- the merge loop ---- */

static gboolean
candidate_before (const BpeCandidate *a, const BpeCandidate *b)
{
  return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void
heap_push (GArray *heap, const BpeCandidate *c)
{
  g_array_append_val (heap, *c);
  BpeCandidate *h = (BpeCandidate *) heap->data;
  guint i = heap->len - 1;
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      if (!candidate_before (&h[i], &h[parent]))
        break;
      BpeCandidate t = h[i];
      h[i] = h[parent];
      h[parent] = t;
      i = parent;
    }
}

static BpeCandidate
heap_pop (GArray *heap)
{
  BpeCandidate *h = (BpeCandidate *) heap->data;
  BpeCandidate top = h[0];
  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  guint n = heap->len, i = 0;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < n && candidate_before (&h[l], &h[m]))
        m = l;
      if (r < n && candidate_before (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      BpeCandidate t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
  return top;
}

static const BpeMerge *
lookup_pair (const AsBpeMerges *merges, int32_t left, int32_t right)
{
  guint64 key = pair_key (left, right);
  return g_hash_table_lookup (merges->ranks, &key);
}

/* Queues the pair at node POS (with its right neighbour NEXT_POS) into QUEUE when it has a
 * rank. */
static void
queue_pair (const AsBpeMerges *merges, GArray *queue, const int32_t *sym, int32_t pos,
            int32_t next_pos)
{
  if (pos < 0 || next_pos < 0)
    return;
  const BpeMerge *m = lookup_pair (merges, sym[pos], sym[next_pos]);
  if (m == NULL)
    return;
  BpeCandidate c = { m->rank, pos, sym[pos], sym[next_pos], m->merged };
  g_array_append_val (queue, c);
}

/* Whether candidate C (at node C.pos, right neighbour RIGHT) still applies. GPT-2's rule: the
 * same two symbols are still there. HF's rule: the pair there now merges into the same symbol. */
static gboolean
still_valid (const AsBpeMerges *merges, const BpeCandidate *c, const int32_t *sym, int32_t right,
             gboolean hf)
{
  if (sym[c->pos] < 0 || right < 0)
    return FALSE; /* absorbed, or the last symbol */
  if (!hf)
    return sym[c->pos] == c->left && sym[right] == c->right;
  const BpeMerge *now = lookup_pair (merges, sym[c->pos], sym[right]);
  return now != NULL && now->merged == c->merged;
}

/* The merge loop over a linked list of symbols. HF: new pairs enter the heap at once (word.rs).
 * GPT-2: the pairs a merge creates are held back until every occurrence of the current rank is
 * done, so a new pair never jumps ahead of the current step, even in a merges file that ranks a
 * pair below its own parts' merges (encoder.py merges all occurrences of one pair per step). */
static void
merge_loop (const AsBpeMerges *merges, GArray *symbols, gboolean hf)
{
  gint n = (gint) symbols->len;
  if (n < 2)
    return;
  int32_t *sym = (int32_t *) symbols->data;      /* [n] symbol of each node; -1 once absorbed */
  g_autofree int32_t *next = g_new (int32_t, n); /* [n] right neighbour of a live node, or -1 */
  g_autofree int32_t *prev = g_new (int32_t, n); /* [n] left neighbour of a live node, or -1 */
  for (gint i = 0; i < n; i++)
    {
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }

  g_autoptr (GArray) heap = g_array_sized_new (FALSE, FALSE, sizeof (BpeCandidate), (guint) n);
  g_autoptr (GArray) held = g_array_new (FALSE, FALSE, sizeof (BpeCandidate)); /* not yet queued */
  for (gint i = 0; i + 1 < n; i++)
    queue_pair (merges, held, sym, i, i + 1);

  int32_t current_rank = -1;
  for (;;)
    {
      if (held->len > 0
          && (hf || heap->len == 0 || ((BpeCandidate *) heap->data)[0].rank != current_rank))
        {
          for (guint k = 0; k < held->len; k++)
            heap_push (heap, &g_array_index (held, BpeCandidate, k));
          g_array_set_size (held, 0);
        }
      if (heap->len == 0)
        break;
      BpeCandidate c = heap_pop (heap);
      as_tokenizer_work_add (1);
      current_rank = c.rank;
      int32_t right = next[c.pos];
      if (!still_valid (merges, &c, sym, right, hf))
        continue;

      sym[c.pos] = c.merged;
      sym[right] = -1;
      next[c.pos] = next[right];
      if (next[right] >= 0)
        prev[next[right]] = c.pos;
      queue_pair (merges, held, sym, prev[c.pos], c.pos);
      queue_pair (merges, held, sym, c.pos, next[c.pos]);
    }

  /* Node 0 is never absorbed (only right neighbours are); collect the live nodes in order. */
  gint out = 0;
  for (gint i = 0; i >= 0; i = next[i])
    sym[out++] = sym[i];
  g_array_set_size (symbols, (guint) out);
}

void
as_bpe_merges_apply (const AsBpeMerges *merges, GArray *symbols)
{
  merge_loop (merges, symbols, FALSE);
}

void
as_bpe_merges_apply_hf (const AsBpeMerges *merges, GArray *symbols)
{
  merge_loop (merges, symbols, TRUE);
}
