/* json-file.c — JSON input with its size and nesting bounded (json-file-private.h). */
#include "json-file-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-error.h"
#include "file-read-private.h"
#include "utf8-replace-private.h"

/* What json-glib must not see: nesting past the limit (its recursive parser would overflow the
 * stack) and numbers it would silently wrap (2^63 becomes -2^63) or turn into infinity. */
typedef struct
{
  const char *what; /* the file, for messages */
  int line;
  const char *key; /* the last object key seen, and its length */
  gsize key_length;
} JsonScan;

/* At most MAX bytes of BYTES (N of them) for a message: valid UTF-8, control characters shown as
 * '?' (owned). */
static char *
json_excerpt (const char *bytes, gsize n, gsize max)
{
  char *text = as_utf8_replace_invalid (bytes, MIN (n, max));
  for (char *p = text; *p != '\0'; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      *p = '?';
  return text;
}

/* The end of the well-formed number literal at DATA[I..] (RFC 8259: -?int frac? exp?), or I
 * when there is none; *INTEGER tells whether it has neither fraction nor exponent. */
static gsize
json_number_end (const char *data, gsize length, gsize i, gboolean *integer)
{
  gsize j = i;
  *integer = TRUE;
  if (j < length && data[j] == '-')
    j++;
  gsize digits = j;
  while (j < length && g_ascii_isdigit (data[j]))
    j++;
  if (j == digits)
    return i;
  if (j < length && data[j] == '.')
    {
      *integer = FALSE;
      gsize k = ++j;
      while (j < length && g_ascii_isdigit (data[j]))
        j++;
      if (j == k)
        return i;
    }
  if (j < length && (data[j] == 'e' || data[j] == 'E'))
    {
      *integer = FALSE;
      j++;
      if (j < length && (data[j] == '+' || data[j] == '-'))
        j++;
      gsize k = j;
      while (j < length && g_ascii_isdigit (data[j]))
        j++;
      if (j == k)
        return i;
    }
  return j;
}

/* Checks the number literal at DATA[*I..] (its first character is '-' or a digit) and moves *I to
 * its last character. A malformed literal is left to json-glib, which reports where it is. */
static gboolean
json_check_number (JsonScan *scan, const char *data, gsize length, gsize *i, GError **error)
{
  gboolean integer;
  gsize start = *i, end = json_number_end (data, length, start, &integer);
  if (end == start)
    return TRUE;
  *i = end - 1;
  g_autofree char *literal = g_strndup (data + start, end - start);
  gboolean fits;
  if (integer)
    fits = g_ascii_string_to_signed (literal, 10, G_MININT64, G_MAXINT64, NULL, NULL);
  else
    {
      /* underflow to zero loses the value as surely as overflow does */
      double value = g_ascii_strtod (literal, NULL);
      const char *mantissa_end = literal + strcspn (literal, "eE");
      const char *nonzero = strpbrk (literal, "123456789");
      fits = isfinite (value) && (value != 0 || nonzero == NULL || nonzero > mantissa_end);
    }
  if (fits)
    return TRUE;
  g_autofree char *shown
      = end - start > 64 ? g_strdup_printf ("%.60s…", literal) : g_strdup (literal);
  g_autofree char *key_text
      = scan->key != NULL ? json_excerpt (scan->key, scan->key_length, 200) : NULL;
  g_autofree char *key
      = key_text != NULL ? g_strdup_printf (" (key \"%s\")", key_text) : g_strdup ("");
  g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
               "%s: line %d: the number %s%s is out of range (%s); refused before parsing",
               scan->what, scan->line, shown, key,
               integer ? "integers must fit in 64 bits"
                       : "beyond the range of a floating-point number");
  return FALSE;
}

/* Whether the string whose closing quote is at DATA[END] is an object key: a ':' follows. */
static gboolean
json_is_key (const char *data, gsize length, gsize end)
{
  gsize j = end + 1;
  while (j < length && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r'))
    j++;
  return j < length && data[j] == ':';
}

/* Refuses the string DATA[BEGIN..END) (its text as written, escapes included) because it holds
 * the escape \u0000. json-glib cuts names and values at a NUL character while Python's json (and
 * so transformers) keeps the whole string: "num_hidden_layers\u0000x" would be read as
 * num_hidden_layers by attnscope and as another key by everyone else. */
static gboolean
json_refuse_nul (const JsonScan *scan, const char *data, gsize length, gsize begin, gsize end,
                 GError **error)
{
  g_autofree char *text = json_excerpt (data + begin, end - begin, 200);
  if (json_is_key (data, length, end))
    g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                 "%s: line %d: the key \"%s\" holds a NUL character (\\u0000), which JSON readers "
                 "disagree on; refused before parsing",
                 scan->what, scan->line, text);
  else
    {
      g_autofree char *key_text
          = scan->key != NULL ? json_excerpt (scan->key, scan->key_length, 200) : NULL;
      g_autofree char *key
          = key_text != NULL ? g_strdup_printf (" (key \"%s\")", key_text) : g_strdup ("");
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: line %d: the string \"%s\"%s holds a NUL character (\\u0000), which JSON "
                   "readers disagree on; refused before parsing",
                   scan->what, scan->line, text, key);
    }
  return FALSE;
}

/* Scans DATA before json-glib parses it: nesting deeper than AS_JSON_MAX_DEPTH, numbers out of
 * range, NUL bytes and strings holding \u0000 are refused. Strings are otherwise skipped. */
static gboolean
json_prescan (const char *what, const char *data, gsize length, GError **error)
{
  JsonScan scan = { .what = what, .line = 1 };
  const char *string = NULL; /* the last string, a key when a ':' follows */
  gsize string_length = 0;
  int depth = 0;
  const char *nul = memchr (data, '\0', length);
  if (nul != NULL)
    {
      for (const char *p = data; p < nul; p++)
        scan.line += *p == '\n';
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: line %d: a NUL byte at offset %" G_GSIZE_FORMAT
                   " (JSON text cannot hold one); refused before parsing",
                   what, scan.line, (gsize) (nul - data));
      return FALSE;
    }
  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];
      if (c == '\n')
        scan.line++;
      if (c == '"')
        {
          gsize begin = ++i;
          gboolean has_nul = FALSE;
          while (i < length && data[i] != '"')
            {
              if (data[i] == '\\' && i + 5 < length && data[i + 1] == 'u'
                  && memcmp (data + i + 2, "0000", 4) == 0)
                has_nul = TRUE;
              i += data[i] == '\\' ? 2 : 1;
            }
          if (has_nul)
            return json_refuse_nul (&scan, data, length, begin, MIN (i, length), error);
          string = data + begin;
          string_length = MIN (i, length) - begin;
        }
      else if (c == ':' && string != NULL)
        {
          scan.key = string;
          scan.key_length = string_length;
        }
      else if (c == '[' || c == '{')
        {
          if (++depth > AS_JSON_MAX_DEPTH)
            {
              g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                           "%s: arrays and objects nest more than %d levels deep (at line %d); "
                           "refused before parsing",
                           what, AS_JSON_MAX_DEPTH, scan.line);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
      else if ((c == '-' || g_ascii_isdigit (c))
               && !json_check_number (&scan, data, length, &i, error))
        return FALSE;
    }
  return TRUE;
}

JsonNode *
as_json_parse (const char *what, const char *data, gsize length, GError **error)
{
  /* JSON is UTF-8 (RFC 8259): a name or value from anything else would end up, undecodable, in
   * a message or a token */
  gsize valid = as_utf8_valid_prefix (data, length);
  if (valid < length)
    {
      int line = 1;
      for (gsize i = 0; i < valid; i++)
        line += data[i] == '\n';
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "%s: line %d: invalid UTF-8 (byte 0x%02x at offset %" G_GSIZE_FORMAT
                   "); JSON must be UTF-8",
                   what, line, (guint8) data[valid], valid);
      return NULL;
    }
  if (!json_prescan (what, data, length, error))
    return NULL;
  int line = 0;
  g_autoptr (JsonParser) parser = json_parser_new_immutable ();
  g_autoptr (GError) json_error = NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) length, &json_error))
    {
      /* json-glib's message reads "<data>:LINE:COL: Parse error: WHAT". */
      const char *msg = json_error->message;
      int column = 0, consumed = 0;
      if (sscanf (msg, "<data>:%d:%d: %n", &line, &column, &consumed) == 2 && consumed > 0)
        {
          const char *why = msg + consumed;
          if (g_str_has_prefix (why, "Parse error: "))
            why += strlen ("Parse error: ");
          /* json-glib quotes the text it stumbled on, cut anywhere, line breaks included */
          g_autofree char *shown = json_excerpt (why, strlen (why), 400);
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                       "%s: malformed JSON at line %d, column %d: %s", what, line, column, shown);
        }
      else
        {
          g_autofree char *shown = json_excerpt (msg, strlen (msg), 400);
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: malformed JSON: %s", what, shown);
        }
      return NULL;
    }
  JsonNode *root = json_parser_steal_root (parser);
  if (root == NULL)
    g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: empty JSON document", what);
  return root;
}

JsonNode *
as_json_load_file (const char *path, gsize max_bytes, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!as_file_read_all (path, max_bytes, &contents, &length, error))
    return NULL;
  return as_json_parse (path, contents, length, error);
}

JsonNode *
as_json_load_object_file (const char *path, gsize max_bytes, GError **error)
{
  JsonNode *root = as_json_load_file (path, max_bytes, error);
  if (root != NULL && !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: expected a JSON object at the top level",
                   path);
      g_clear_pointer (&root, json_node_unref);
    }
  return root;
}
