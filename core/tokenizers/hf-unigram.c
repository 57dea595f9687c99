/* hf-unigram.c — tokenizer.json's Unigram model (src/models/unigram/model.rs).
 *
 * "vocab" is a list of [piece, score]; a piece's id is its index (a repeated piece keeps its
 * last index). Viterbi over the piece's characters: at every start position each vocabulary
 * piece that is a prefix of the rest is a candidate edge with its score; when no one-character
 * piece starts there, the unknown token covers the character with score min_score − 10. The best
 * path (highest total; on ties the earliest start found wins, as HF's strict ">") is read back;
 * consecutive unknown characters fuse into one string. A string of the result that is not a
 * piece (an unknown run) becomes, with byte_fallback, one "<0xXX>" per byte when all exist,
 * else the unknown token; without unk_id an unknown character is an error, as in HF. */
#include "hf-vocab-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "as-error.h"
#include "tokenizer-work-private.h"

#define UNK_PENALTY 10.0
/* The longest vocabulary piece accepted (core/README.md, "Bad input, memory and threads"). */
#define AS_HF_UNIGRAM_MAX_PIECE_BYTES 512

/* The score HF's reader gets for the number X: serde_json without its float_roundtrip feature
 * parses "d1d2…dn" × 10^e as (double) d1d2…dn, then one multiplication or division by the double
 * nearest 10^|e| — not always the double nearest the decimal. Viterbi compares sums of scores,
 * so near-ties resolve like HF only with HF's values. The digits are X's shortest round-trip
 * decimal form, which is what tokenizer.json writers (serde_json, Python) print. */
static double
serde_score (double x)
{
  if (x == 0.0 || !isfinite (x))
    return x;
  char buf[40];
  int digits = 1;
  for (; digits <= 17; digits++)
    {
      g_snprintf (buf, sizeof buf, "%.*e", digits - 1, x);
      if (g_ascii_strtod (buf, NULL) == x)
        break;
    }
  /* buf is "[-]d.ddde±XX": collect the digits and the exponent */
  guint64 significand = 0;
  int n = 0;
  const char *p = buf + (buf[0] == '-');
  for (; *p != 'e'; p++)
    if (g_ascii_isdigit (*p))
      {
        significand = significand * 10 + (guint64) (*p - '0');
        n++;
      }
  int exponent = atoi (p + 1) - (n - 1);
  double f = (double) significand;
  while (exponent < -308 && f != 0.0)
    {
      f /= 1e308;
      exponent += 308;
    }
  char pow10[16];
  g_snprintf (pow10, sizeof pow10, "1e%d", ABS (exponent));
  double scale = g_ascii_strtod (pow10, NULL); /* the double nearest 10^|e|, as serde's table */
  f = exponent >= 0 ? f * scale : f / scale;
  return x < 0 ? -f : f;
}

static gboolean
unigram_read (AsHfModel *model, const AsHfJson *json, GError **error)
{
  JsonArray *vocab;
  gint64 unk_id;
  if (!as_hf_json_array (json, "vocab", &vocab, error)
      || !as_hf_json_int (json, "unk_id", -1, 0, G_MAXINT32, &unk_id, error)
      || !as_hf_json_bool (json, "byte_fallback", FALSE, &model->byte_fallback, error))
    return FALSE;
  guint n = json_array_get_length (vocab);
  if (n == 0)
    return as_hf_json_fail (json, error, "the vocabulary is empty");
  if (n > (1u << 24))
    return as_hf_json_fail (json, error, "the vocabulary has %u pieces, more than the %u allowed",
                            n, 1u << 24);
  if (unk_id >= (gint64) n)
    return as_hf_json_fail (json, error,
                            "unk_id %" G_GINT64_FORMAT " is not in the vocabulary of %u pieces",
                            unk_id, n);
  model->unk_id = (int32_t) unk_id;
  model->scores = g_new (double, n);
  model->min_score = G_MAXDOUBLE;
  g_ptr_array_set_size (model->id_to_token, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = as_hf_json_child_path (json, "vocab", (gint) i);
      AsHfJson sub = { json_array_get_element (vocab, i), json->file, path };
      JsonArray *item = JSON_NODE_HOLDS_ARRAY (sub.node) ? json_node_get_array (sub.node) : NULL;
      JsonNode *piece = item != NULL && json_array_get_length (item) == 2
                            ? json_array_get_element (item, 0)
                            : NULL;
      JsonNode *score = piece != NULL ? json_array_get_element (item, 1) : NULL;
      GType st = score != NULL && JSON_NODE_HOLDS_VALUE (score) ? json_node_get_value_type (score)
                                                                : G_TYPE_INVALID;
      if (piece == NULL || !JSON_NODE_HOLDS_VALUE (piece)
          || json_node_get_value_type (piece) != G_TYPE_STRING
          || (st != G_TYPE_DOUBLE && st != G_TYPE_INT64))
        return as_hf_json_fail (&sub, error, "expected [\"piece\", score]");
      gsize piece_bytes = strlen (json_node_get_string (piece));
      /* the lattice tries every prefix up to the longest piece at every position of a word, so
       * the longest piece bounds the cost; SentencePiece trains pieces of at most 16 characters */
      if (piece_bytes > AS_HF_UNIGRAM_MAX_PIECE_BYTES)
        return as_hf_json_fail (
            &sub, error, "a piece of %" G_GSIZE_FORMAT " bytes; Unigram pieces may have at most %d",
            piece_bytes, AS_HF_UNIGRAM_MAX_PIECE_BYTES);
      char *copy = g_strdup (json_node_get_string (piece));
      g_ptr_array_index (model->id_to_token, i) = copy;
      g_hash_table_replace (model->token_to_id, copy, GINT_TO_POINTER ((int32_t) i));
      model->scores[i] = serde_score (json_node_get_double (score));
      model->min_score = MIN (model->min_score, model->scores[i]);
      model->max_piece_bytes = MAX (model->max_piece_bytes, strlen (copy));
    }
  as_hf_model_find_byte_tokens (model);
  return TRUE;
}

/* One position of the Viterbi lattice: the best path ending here. */
typedef struct
{
  double score;
  gssize start; /* where its last piece starts; -1 = unreached */
  int32_t id;
} BestNode;

/* Appends the id(s) of the result string PIECE[start, end). */
static gboolean
append_string (const AsHfModel *model, const char *s, gsize n, GArray *ids, GError **error)
{
  int32_t id = as_hf_model_lookup (model, s, n);
  if (id >= 0)
    {
      g_array_append_val (ids, id);
      return TRUE;
    }
  if (model->byte_fallback)
    {
      gboolean all = TRUE;
      for (gsize k = 0; k < n; k++)
        all = all && model->byte_ids[(guint8) s[k]] >= 0;
      if (all)
        {
          for (gsize k = 0; k < n; k++)
            g_array_append_val (ids, model->byte_ids[(guint8) s[k]]);
          return TRUE;
        }
    }
  if (model->unk_id < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "the Unigram model has no unknown token (unk_id) for \"%.*s\"", (int) n, s);
      return FALSE;
    }
  g_array_append_val (ids, model->unk_id);
  return TRUE;
}

/* The Viterbi pass: fills BEST[0..length]. */
static gboolean
viterbi (const AsHfModel *model, const char *piece, gsize length, BestNode *best, GError **error)
{
  double unk_score = model->min_score - UNK_PENALTY;
  best[0].start = 0;
  g_autoptr (GString) key = g_string_new (NULL);
  gsize start = 0;
  while (start < length)
    {
      gsize mblen = (gsize) (g_utf8_next_char (piece + start) - (piece + start));
      gboolean single = FALSE;
      double here = best[start].score;
      /* every vocabulary piece that is a prefix of piece[start..], shortest first */
      for (gsize end = start + mblen; end <= length;
           end = end < length ? (gsize) (g_utf8_next_char (piece + end) - piece) : length + 1)
        {
          int32_t id = as_hf_model_lookup (model, piece + start, end - start);
          as_tokenizer_work_add (1);
          if (id >= 0)
            {
              double candidate = model->scores[id] + here;
              if (best[end].start < 0 || candidate > best[end].score)
                best[end] = (BestNode){ candidate, (gssize) start, id };
              single = single || end - start == mblen;
            }
          if (end - start >= model->max_piece_bytes)
            break;
        }
      if (!single)
        {
          if (model->unk_id < 0)
            {
              g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                           "the Unigram model has no unknown token (unk_id) for \"%.*s\"",
                           (int) mblen, piece + start);
              return FALSE;
            }
          double candidate = unk_score + here;
          BestNode *target = &best[start + mblen];
          if (target->start < 0 || candidate > target->score)
            *target = (BestNode){ candidate, (gssize) start, model->unk_id };
        }
      start += mblen;
    }
  return TRUE;
}

static gboolean
unigram_tokenize (AsHfModel *model, const char *piece, gsize length, GArray *ids, GError **error)
{
  if (as_word_cache_lookup (model->cache, piece, length, ids))
    return TRUE;
  g_autofree BestNode *best = g_new (BestNode, length + 1); /* [length + 1] */
  for (gsize i = 0; i <= length; i++)
    best[i] = (BestNode){ 0.0, -1, -1 };
  if (!viterbi (model, piece, length, best, error))
    return FALSE;

  /* read the path back: (start, end) of each piece, unknown runs fused */
  g_autoptr (GArray) bounds = g_array_new (FALSE, FALSE, sizeof (gsize)); /* end, start, ... */
  gsize end = length;
  gssize unk_end = -1;
  while (end > 0)
    {
      const BestNode *node = &best[end];
      gsize start = (gsize) node->start;
      if (node->id == model->unk_id && model->unk_id >= 0)
        {
          if (unk_end < 0)
            unk_end = (gssize) end;
        }
      else
        {
          if (unk_end >= 0)
            {
              gsize ue = (gsize) unk_end;
              g_array_append_val (bounds, ue);
              g_array_append_val (bounds, end);
              unk_end = -1;
            }
          g_array_append_val (bounds, end);
          g_array_append_val (bounds, start);
        }
      end = start;
    }
  if (unk_end >= 0)
    {
      gsize ue = (gsize) unk_end, zero = 0;
      g_array_append_val (bounds, ue);
      g_array_append_val (bounds, zero);
    }
  guint first = ids->len;
  for (guint k = bounds->len; k >= 2; k -= 2)
    {
      gsize e = g_array_index (bounds, gsize, k - 2), s = g_array_index (bounds, gsize, k - 1);
      if (!append_string (model, piece + s, e - s, ids, error))
        return FALSE;
    }
  as_word_cache_insert (model->cache, piece, length, &g_array_index (ids, int32_t, first),
                        ids->len - first);
  return TRUE;
}

/* Every id counts, a repeated piece's earlier one too. */
static int32_t
unigram_vocab_size (const AsHfModel *model)
{
  return (int32_t) model->id_to_token->len;
}

const AsHfModelClass as_hf_model_unigram = {
  .type = "Unigram",
  .read = unigram_read,
  .tokenize = unigram_tokenize,
  .vocab_size = unigram_vocab_size,
};
