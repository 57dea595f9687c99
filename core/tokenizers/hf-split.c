/* hf-split.c — pieces and NormalizedString::split's behaviours (hf-split-private.h). */
#include "hf-split-private.h"

#include <string.h>

static void
split_clear (gpointer data)
{
  AsHfSplit *s = data;
  if (s->text != NULL)
    g_string_free (s->text, TRUE);
  s->text = NULL;
}

GArray *
as_hf_splits_new (void)
{
  GArray *splits = g_array_new (FALSE, FALSE, sizeof (AsHfSplit));
  g_array_set_clear_func (splits, split_clear);
  return splits;
}

void
as_hf_splits_append (GArray *splits, const char *text, gsize length, int32_t id, gboolean at_start)
{
  AsHfSplit s = { g_string_new_len (text, (gssize) length), id, at_start };
  g_array_append_val (splits, s);
}

gboolean
as_hf_behavior_parse (const char *name, AsHfBehavior *behavior)
{
  static const char *const names[]
      = { "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      {
        *behavior = (AsHfBehavior) i;
        return TRUE;
      }
  return FALSE;
}

static void
push_stretch (GArray *stretches, gsize start, gsize end, gboolean is_match)
{
  AsHfStretch s = { start, end, is_match };
  g_array_append_val (stretches, s);
}

void
as_hf_stretches_from_ranges (const GArray *ranges, gsize length, gboolean invert, GArray *stretches)
{
  if (length == 0)
    {
      push_stretch (stretches, 0, 0, invert);
      return;
    }
  gsize prev = 0;
  for (guint i = 0; i < ranges->len; i++)
    {
      const AsHfRange *r = &g_array_index (ranges, AsHfRange, i);
      if (prev != r->start)
        push_stretch (stretches, prev, r->start, invert);
      push_stretch (stretches, r->start, r->end, !invert);
      prev = r->end;
    }
  if (prev != length)
    push_stretch (stretches, prev, length, invert);
}

void
as_hf_stretches_from_chars (const char *text, gsize length, AsHfCharClass is_match,
                            gconstpointer data, gboolean invert, GArray *stretches)
{
  if (length == 0)
    {
      push_stretch (stretches, 0, 0, invert);
      return;
    }
  gsize last = 0;
  const char *end = text + length;
  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      if (!is_match (g_utf8_get_char (p), data))
        continue;
      gsize b = (gsize) (p - text), e = (gsize) (g_utf8_next_char (p) - text);
      if (last < b)
        push_stretch (stretches, last, b, invert);
      push_stretch (stretches, b, e, !invert);
      last = e;
    }
  if (last < length)
    push_stretch (stretches, last, length, invert);
}

/* Rewrites STRETCHES so that is_match means "remove", as the behaviours define it. */
static void
apply_behavior (GArray *stretches, AsHfBehavior behavior)
{
  AsHfStretch *s = (AsHfStretch *) stretches->data;
  guint n = stretches->len, out = 0;
  gboolean previous_match = FALSE;
  switch (behavior)
    {
    case AS_HF_REMOVED:
      return;
    case AS_HF_ISOLATED:
      for (guint i = 0; i < n; i++)
        s[i].is_match = FALSE;
      return;
    case AS_HF_CONTIGUOUS:
    case AS_HF_MERGED_WITH_PREVIOUS:
      for (guint i = 0; i < n; i++)
        {
          gboolean m = s[i].is_match;
          gboolean merge
              = behavior == AS_HF_CONTIGUOUS ? m == previous_match : (m && !previous_match);
          if (merge && out > 0)
            s[out - 1].end = s[i].end;
          else
            s[out++] = (AsHfStretch){ s[i].start, s[i].end, FALSE };
          previous_match = m;
        }
      g_array_set_size (stretches, out);
      return;
    case AS_HF_MERGED_WITH_NEXT:
      /* walk backwards, merging a match into the stretch after it */
      for (guint k = n; k-- > 0;)
        {
          gboolean m = s[k].is_match;
          if (m && !previous_match && out > 0)
            s[n - out].start = s[k].start;
          else
            {
              out++;
              s[n - out] = (AsHfStretch){ s[k].start, s[k].end, FALSE };
            }
          previous_match = m;
        }
      memmove (s, s + (n - out), out * sizeof (AsHfStretch));
      g_array_set_size (stretches, out);
      return;
    }
}

void
as_hf_split_by_stretches (const AsHfSplit *piece, GArray *stretches, AsHfBehavior behavior,
                          GArray *out)
{
  apply_behavior (stretches, behavior);
  for (guint i = 0; i < stretches->len; i++)
    {
      const AsHfStretch *s = &g_array_index (stretches, AsHfStretch, i);
      if (s->is_match || s->end == s->start)
        continue;
      as_hf_splits_append (out, piece->text->str + s->start, s->end - s->start, -1,
                           piece->at_start && s->start == 0);
    }
}
