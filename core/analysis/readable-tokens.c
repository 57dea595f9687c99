/* readable-tokens.c — token texts with their whitespace made visible and characters split over
 * tokens shown once (see as-readable-tokens.h). */
#include "as-readable-tokens.h"

#include <string.h>

#define SPACE_MARK "\u2423"
#define CONTINUED "\u2026"

/* Appends C to MARKED with its whitespace made visible, and to PLAIN with spaces as spaces. */
static void
append_visible (GString *marked, GString *plain, gunichar c)
{
  if (c == ' ' || c == 0x2581)
    {
      g_string_append (marked, SPACE_MARK);
      g_string_append_c (plain, ' ');
      return;
    }
  GString *both[2] = { marked, plain };
  for (int k = 0; k < 2; k++)
    {
      GString *out = both[k];
      if (c == '\n')
        g_string_append (out, "\u21b5");
      else if (c == '\t')
        g_string_append (out, "\u21e5");
      else if (c < 0x20)
        g_string_append_unichar (out, 0x2400 + c);
      else if (c == 0x7f)
        g_string_append (out, "\u2421");
      else
        g_string_append_unichar (out, c);
    }
}

/* The bytes of N token texts laid end to end: ALL, and for each byte the token it belongs to. */
typedef struct
{
  GString *all;
  int *owner; /* [all->len] */
} Bytes;

static void
bytes_init (Bytes *b, const char *const *texts, int n)
{
  b->all = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    if (texts != NULL && texts[i] != NULL)
      g_string_append (b->all, texts[i]);
  b->owner = g_new (int, MAX (b->all->len, 1));
  gsize at = 0;
  for (int i = 0; i < n; i++)
    {
      gsize len = texts != NULL && texts[i] != NULL ? strlen (texts[i]) : 0;
      for (gsize k = 0; k < len; k++)
        b->owner[at + k] = i;
      at += len;
    }
}

static void
bytes_clear (Bytes *b)
{
  g_string_free (b->all, TRUE);
  g_free (b->owner);
}

/* The character at byte POS of B and its length in bytes, or FALSE for an invalid or cut
 * sequence. */
static gboolean
char_at (const Bytes *b, gsize pos, gunichar *c, gsize *len)
{
  const char *p = b->all->str + pos;
  gunichar u = g_utf8_get_char_validated (p, (gssize) (b->all->len - pos));
  if (u == (gunichar) -1 || u == (gunichar) -2)
    return FALSE;
  *c = u;
  *len = (gsize) (g_utf8_next_char (p) - p);
  return TRUE;
}

char **
as_readable_tokens (const char *const *tokens, const char *const *texts, int n,
                    AsReadableFlags flags)
{
  char **labels = g_new0 (char *, n + 1);
  Bytes b;
  bytes_init (&b, texts, n);
  GString **marked = g_new (GString *, MAX (n, 1)), **plain = g_new (GString *, MAX (n, 1));
  gboolean *bad = g_new0 (gboolean, MAX (n, 1)); /* [n] */
  for (int i = 0; i < n; i++)
    marked[i] = g_string_new (NULL), plain[i] = g_string_new (NULL);
  for (gsize pos = 0; pos < b.all->len;)
    {
      gunichar c;
      gsize len;
      if (!char_at (&b, pos, &c, &len))
        {
          bad[b.owner[pos]] = TRUE;
          pos++;
          continue;
        }
      int first = b.owner[pos], last = b.owner[pos + len - 1];
      append_visible (marked[first], plain[first], c);
      if (last != first)
        {
          g_string_append (marked[first], CONTINUED), g_string_append (plain[first], CONTINUED);
          for (int t = first + 1; t <= last; t++)
            g_string_append (marked[t], CONTINUED), g_string_append (plain[t], CONTINUED);
        }
      pos += len;
    }
  for (int i = 0; i < n; i++)
    {
      gboolean no_text = texts == NULL || texts[i] == NULL || texts[i][0] == '\0';
      if (no_text || bad[i])
        labels[i] = g_strdup (tokens[i] != NULL ? tokens[i] : "");
      else
        {
          g_strstrip (plain[i]->str);
          gboolean keep_marks = !(flags & AS_READABLE_NO_SPACE_MARKS) || plain[i]->str[0] == '\0';
          labels[i] = g_strdup (keep_marks ? marked[i]->str : plain[i]->str);
        }
      g_string_free (marked[i], TRUE);
      g_string_free (plain[i], TRUE);
    }
  g_free (marked);
  g_free (plain);
  g_free (bad);
  bytes_clear (&b);
  return labels;
}

char **
as_readable_tokens_of_ids (const AsTokenizer *tokenizer, const int32_t *ids, int n,
                           AsReadableFlags flags)
{
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (int i = 0; i < n; i++)
    {
      const char *vocab = as_tokenizer_get_token (tokenizer, ids[i]);
      g_ptr_array_add (tokens, vocab != NULL ? g_strdup (vocab) : g_strdup_printf ("<%d>", ids[i]));
      g_ptr_array_add (texts, as_tokenizer_dup_token_text (tokenizer, ids[i]));
    }
  return as_readable_tokens ((const char *const *) tokens->pdata,
                             (const char *const *) texts->pdata, n, flags);
}

gboolean
as_readable_split_part (const char *const *texts, int n, int i, int *part, int *n_parts,
                        gunichar *c)
{
  g_return_val_if_fail (i >= 0 && i < n, FALSE);
  Bytes b;
  bytes_init (&b, texts, n);
  gboolean found = FALSE;
  for (gsize pos = 0; pos < b.all->len && !found;)
    {
      gunichar u;
      gsize len;
      if (!char_at (&b, pos, &u, &len))
        {
          pos++;
          continue;
        }
      int first = b.owner[pos], last = b.owner[pos + len - 1];
      if (first != last && i >= first && i <= last)
        {
          *part = i - first + 1;
          *n_parts = last - first + 1;
          *c = u;
          found = TRUE;
        }
      if (first > i)
        break;
      pos += len;
    }
  bytes_clear (&b);
  return found;
}
