/* hub-env.c — the environment a hub client reads, as huggingface_hub reads it (its constants.py
 * and utils/_auth.py): where the cache is, which hub to ask, whether to stay offline, which
 * token to send; and what a model id and a revision may look like (validate_repo_id). One
 * difference: a variable set to the empty string counts as unset here (Python would take "" as
 * a relative path). */
#include "as-hub.h"

#include <ctype.h>
#include <pwd.h>
#include <string.h>

#include "as-error.h"
#include "family-private.h"
#include "file-read-private.h"
#include "hub-private.h"

G_DEFINE_QUARK (attnscope - hub - error - quark, as_hub_error)

static const char *
env (const char *name)
{
  const char *value = g_getenv (name);
  return value != NULL && *value != '\0' ? value : NULL;
}

/* "~" or "~user" at the start of VALUE, as os.path.expanduser. */
static char *
expand_user (const char *value)
{
  if (value[0] != '~')
    return g_strdup (value);
  const char *rest = strchr (value, '/');
  if (rest == NULL)
    rest = value + strlen (value);
  if (rest == value + 1)
    {
      const char *home = env ("HOME");
      return g_strconcat (home != NULL ? home : g_get_home_dir (), rest, NULL);
    }
  g_autofree char *user = g_strndup (value + 1, (gsize) (rest - value - 1));
  struct passwd *pw = getpwnam (user);
  if (pw == NULL || pw->pw_dir == NULL)
    return g_strdup (value);
  return g_strconcat (pw->pw_dir, rest, NULL);
}

char *
as_hub_expand_path (const char *value)
{
  g_autofree char *user = expand_user (value);
  GString *out = g_string_new (NULL);
  const char *p = user;
  while (*p != '\0')
    {
      const char *start = p + 1, *end = NULL;
      gboolean braces = p[0] == '$' && p[1] == '{';
      if (braces)
        {
          start = p + 2;
          end = strchr (start, '}');
        }
      else if (p[0] == '$')
        for (end = start; g_ascii_isalnum (*end) || *end == '_'; end++)
          ;
      if (end == NULL || end == start)
        {
          g_string_append_c (out, *p++);
          continue;
        }
      g_autofree char *name = g_strndup (start, (gsize) (end - start));
      const char *next = braces ? end + 1 : end;
      const char *value_of = g_getenv (name);
      if (value_of != NULL)
        g_string_append (out, value_of);
      else
        g_string_append_len (out, p, next - p);
      p = next;
    }
  return g_string_free (out, FALSE);
}

static char *
hf_home (void)
{
  if (env ("HF_HOME") != NULL)
    return as_hub_expand_path (env ("HF_HOME"));
  if (env ("XDG_CACHE_HOME") != NULL)
    {
      g_autofree char *home = g_build_filename (env ("XDG_CACHE_HOME"), "huggingface", NULL);
      return as_hub_expand_path (home);
    }
  g_autofree char *home = expand_user ("~");
  return g_build_filename (home, ".cache", "huggingface", NULL);
}

char *
as_hub_dup_cache_dir (void)
{
  if (env ("HF_HUB_CACHE") != NULL)
    return as_hub_expand_path (env ("HF_HUB_CACHE"));
  if (env ("HUGGINGFACE_HUB_CACHE") != NULL)
    return as_hub_expand_path (env ("HUGGINGFACE_HUB_CACHE"));
  g_autofree char *home = hf_home ();
  return g_build_filename (home, "hub", NULL);
}

char *
as_hub_dup_endpoint (void)
{
  const char *endpoint = env ("HF_ENDPOINT");
  char *out = g_strdup (endpoint != NULL ? endpoint : "https://huggingface.co");
  gsize n = strlen (out);
  while (n > 0 && out[n - 1] == '/')
    out[--n] = '\0';
  return out;
}

static gboolean
is_true (const char *value)
{
  static const char *const yes[] = { "1", "ON", "YES", "TRUE" };
  for (gsize i = 0; value != NULL && i < G_N_ELEMENTS (yes); i++)
    if (g_ascii_strcasecmp (value, yes[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
as_hub_get_offline (void)
{
  const char *value = env ("HF_HUB_OFFLINE");
  return is_true (value != NULL ? value : env ("TRANSFORMERS_OFFLINE"));
}

/* _clean_token: line breaks removed, blanks stripped, "" is no token. */
static char *
clean_token (const char *raw)
{
  GString *out = g_string_new (NULL);
  for (const char *p = raw; *p != '\0'; p++)
    if (*p != '\r' && *p != '\n')
      g_string_append_c (out, *p);
  g_strstrip (out->str);
  if (out->str[0] == '\0')
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

char *
as_hub_dup_token (char **source)
{
  if (source != NULL)
    *source = NULL;
  if (is_true (env ("HF_HUB_DISABLE_IMPLICIT_TOKEN")))
    return NULL;
  const char *names[] = { "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (env (names[i]) != NULL)
      {
        if (source != NULL)
          *source = g_strdup (names[i]);
        return clean_token (env (names[i]));
      }
  g_autofree char *path = NULL;
  if (env ("HF_TOKEN_PATH") != NULL)
    path = as_hub_expand_path (env ("HF_TOKEN_PATH"));
  else
    {
      g_autofree char *home = hf_home ();
      path = g_build_filename (home, "token", NULL);
    }
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!as_file_read_all (path, 64 * 1024, &contents, &length, NULL))
    return NULL;
  char *token = clean_token (contents);
  if (token != NULL && source != NULL)
    *source = g_steal_pointer (&path);
  return token;
}

static gboolean
is_word_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

static gboolean
check_id_part (const char *part)
{
  gsize n = strlen (part);
  if (n == 0 || !is_word_char (part[0]) || !is_word_char (part[n - 1]))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!is_word_char (part[i]) && part[i] != '-' && part[i] != '.')
      return FALSE;
  return TRUE;
}

gboolean
as_hub_check_repo_id (const char *repo_id, GError **error)
{
  gboolean ok = repo_id != NULL && *repo_id != '\0' && strlen (repo_id) <= 96
                && strstr (repo_id, "--") == NULL && strstr (repo_id, "..") == NULL
                && !g_str_has_suffix (repo_id, ".git");
  if (ok)
    {
      g_auto (GStrv) parts = g_strsplit (repo_id, "/", -1);
      guint n = g_strv_length (parts);
      ok = n >= 1 && n <= 2;
      for (guint i = 0; ok && i < n; i++)
        ok = check_id_part (parts[i]);
    }
  if (!ok)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_INPUT,
                 "'%s' is not a Hugging Face model id: expected NAME or ORG/NAME (letters, "
                 "digits, '-', '_', '.'; no '--' or '..'; at most 96 characters), e.g. "
                 "openai-community/gpt2",
                 repo_id != NULL ? repo_id : "");
  return ok;
}

gboolean
as_hub_check_revision (const char *revision, GError **error)
{
  gboolean ok = revision != NULL && *revision != '\0' && strlen (revision) <= 255;
  for (const char *p = revision; ok && *p != '\0'; p++)
    ok = (guchar) *p > 0x20 && *p != 0x7f && *p != '\\';
  if (ok)
    {
      g_auto (GStrv) parts = g_strsplit (revision, "/", -1);
      for (guint i = 0; ok && parts[i] != NULL; i++)
        ok = *parts[i] != '\0' && !g_str_equal (parts[i], ".") && !g_str_equal (parts[i], "..");
    }
  if (!ok)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_INPUT,
                 "--revision '%s' is not a revision: expected a branch, a tag or a commit "
                 "(e.g. main, v1.0, refs/pr/1)",
                 revision != NULL ? revision : "");
  return ok;
}

char *
as_hub_dup_supported_types (void)
{
  return as_family_dup_supported ();
}
