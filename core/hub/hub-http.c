/* hub-http.c — the three requests a download makes, through libsoup 3, as huggingface_hub makes
 * them (file_download.py, hf_api.py):
 *
 *   GET  {endpoint}/api/models/{id}/revision/{revision}   the commit ("sha") and the file list
 *   HEAD {endpoint}/{id}/resolve/{commit}/{file}         X-Repo-Commit, X-Linked-Etag or ETag,
 *                                                         X-Linked-Size or Content-Length; only
 *                                                         relative redirects are followed (a
 *                                                         renamed repository), so that an LFS
 *                                                         file's redirect to its CDN is read,
 *                                                         not taken
 *   GET  the redirect's Location (else the same URL)     the bytes, from an offset with Range
 *
 * The token goes as "Authorization: Bearer" to the hub's own host only, never to a CDN on
 * another host. Bodies are asked for without compression (Accept-Encoding: identity), so sizes
 * and ranges count the file's own bytes. Errors say what the hub answered in words a user can
 * act on: which model or revision does not exist, that a gated model needs a token and how to
 * give one, that the network is down. */
#include "hub-private.h"

#include <libsoup/soup.h>
#include <string.h>

#include "as-error.h"
#include "json-file-private.h"

/* A listing of a repository with a hundred thousand files is a few megabytes. */
#define LISTING_MAX_BYTES (64u << 20)
#define READ_CHUNK (256u << 10)
#define MAX_RELATIVE_REDIRECTS 10

struct _AsHubClient
{
  SoupSession *session;
  char *endpoint;
  GUri *endpoint_uri;
  char *token;        /* NULL: none */
  char *token_source; /* where it came from, for messages */
};

AsHubClient *
as_hub_client_new (const char *endpoint, const char *token, const char *token_source)
{
  AsHubClient *client = g_new0 (AsHubClient, 1);
  client->session = soup_session_new_with_options ("user-agent", "attnscope/" ATTNSCOPE_VERSION,
                                                   "timeout", 60, "idle-timeout", 60, NULL);
  /* Sizes, ranges and hashes are of the bytes as stored: no transparent decompression. */
  soup_session_remove_feature_by_type (client->session, SOUP_TYPE_CONTENT_DECODER);
  client->endpoint = g_strdup (endpoint);
  client->endpoint_uri = g_uri_parse (endpoint, G_URI_FLAGS_NONE, NULL);
  client->token = g_strdup (token);
  client->token_source = g_strdup (token_source);
  return client;
}

void
as_hub_client_free (AsHubClient *client)
{
  if (client == NULL)
    return;
  g_clear_object (&client->session);
  g_free (client->endpoint);
  g_clear_pointer (&client->endpoint_uri, g_uri_unref);
  g_free (client->token);
  g_free (client->token_source);
  g_free (client);
}

void
as_hub_listing_free (AsHubListing *listing)
{
  if (listing == NULL)
    return;
  g_free (listing->commit);
  g_clear_pointer (&listing->siblings, g_ptr_array_unref);
  g_free (listing->gated);
  g_free (listing);
}

void
as_hub_file_meta_free (AsHubFileMeta *meta)
{
  if (meta == NULL)
    return;
  g_free (meta->commit);
  g_free (meta->etag);
  g_free (meta->location);
  g_free (meta);
}

/* The token goes to the hub's own scheme, host and port only. */
static gboolean
same_origin (AsHubClient *client, GUri *uri)
{
  GUri *hub = client->endpoint_uri;
  return hub != NULL && uri != NULL
         && g_ascii_strcasecmp (g_uri_get_scheme (hub), g_uri_get_scheme (uri)) == 0
         && g_ascii_strcasecmp (g_uri_get_host (hub), g_uri_get_host (uri)) == 0
         && g_uri_get_port (hub) == g_uri_get_port (uri);
}

static SoupMessage *
new_message (AsHubClient *client, const char *method, const char *url, GError **error)
{
  g_autoptr (GUri) uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL
      || (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0
          && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_INPUT,
                   "'%s' is not an http(s) address (HF_ENDPOINT is '%s')", url, client->endpoint);
      return NULL;
    }
  SoupMessage *msg = soup_message_new_from_uri (method, uri);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  soup_message_headers_replace (headers, "Accept-Encoding", "identity");
  if (client->token != NULL && same_origin (client, uri))
    {
      g_autofree char *value = g_strconcat ("Bearer ", client->token, NULL);
      soup_message_headers_replace (headers, "Authorization", value);
    }
  return msg;
}

static gboolean
transport_error (AsHubClient *client, GError *cause, const char *url, GError **error)
{
  if (g_error_matches (cause, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the download was cancelled");
  else if (cause->domain == G_TLS_ERROR || strstr (cause->message, "TLS support") != NULL)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                 "no secure connection to %s: %s (HTTPS needs GLib's TLS backend, the Debian "
                 "package glib-networking)",
                 url, cause->message);
  else
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                 "cannot reach %s: %s (no network? HF_ENDPOINT and the proxy variables choose "
                 "where attnscope connects)",
                 client->endpoint, cause->message);
  return FALSE;
}

static const char *
header (SoupMessage *msg, const char *name)
{
  return soup_message_headers_get_one (soup_message_get_response_headers (msg), name);
}

/* What a request for REPO_ID (at REVISION, for FILENAME, each may be NULL) that got an HTTP error
 * status means, as huggingface_hub's hf_raise_for_status reads X-Error-Code. */
static gboolean
status_error (AsHubClient *client, SoupMessage *msg, const char *repo_id, const char *revision,
              const char *filename, GError **error)
{
  guint status = soup_message_get_status (msg);
  const char *code = header (msg, "X-Error-Code");
  const char *message = header (msg, "X-Error-Message");
  g_autofree char *url = g_uri_to_string (soup_message_get_uri (msg));
  g_autofree char *how_token
      = g_strdup_printf ("give attnscope a token with read access: export HF_TOKEN=hf_... (from "
                         "%s/settings/tokens), or the token file $HF_HOME/token that `hf auth "
                         "login` writes",
                         client->endpoint);
  g_autofree char *sent = client->token != NULL ? g_strdup_printf (", the token from %s was sent",
                                                                   client->token_source)
                                                : g_strdup (", no token was sent");
  if (g_strcmp0 (code, "GatedRepo") == 0)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DENIED,
                 "%s is a gated model (HTTP %u%s): accept its conditions on %s/%s, then %s",
                 repo_id, status, sent, client->endpoint, repo_id, how_token);
  else if (g_strcmp0 (code, "RevisionNotFound") == 0)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND,
                 "%s has no revision '%s' (HTTP %u): name a branch, a tag or a commit of it",
                 repo_id, revision != NULL ? revision : "main", status);
  else if (g_strcmp0 (code, "EntryNotFound") == 0)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND,
                 "%s has no file %s at revision %s (HTTP %u)", repo_id,
                 filename != NULL ? filename : "?", revision != NULL ? revision : "main", status);
  else if (status == 401 && client->token != NULL
           && g_strcmp0 (message, "Invalid credentials in Authorization header") == 0)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DENIED,
                 "the hub refused the token from %s as invalid or expired (HTTP 401): %s",
                 client->token_source, how_token);
  else if (g_strcmp0 (code, "RepoNotFound") == 0 || status == 404)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NOT_FOUND,
                 "%s: no such model on %s (HTTP %u%s); if it is private, %s", repo_id,
                 client->endpoint, status, sent, how_token);
  else if (status == 401 || status == 403)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_DENIED,
                 "%s: access denied (HTTP %u%s): the model may be private or gated; %s", repo_id,
                 status, sent, how_token);
  else if (status == 429)
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                 "%s answered HTTP 429 (too many requests): wait a minute and run again", url);
  else
    g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK, "%s answered HTTP %u %s%s%s", url,
                 status,
                 soup_message_get_reason_phrase (msg) ? soup_message_get_reason_phrase (msg) : "",
                 message != NULL ? ": " : "", message != NULL ? message : "");
  return FALSE;
}

/* Reads STREAM whole, at most MAX bytes. */
static GBytes *
read_limited (GInputStream *stream, gsize max, const char *url, GCancellable *cancellable,
              GError **error)
{
  g_autoptr (GByteArray) data = g_byte_array_new ();
  guint8 buffer[16384];
  for (;;)
    {
      g_autoptr (GError) local = NULL;
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, cancellable, &local);
      if (n < 0)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the download was cancelled");
          else
            g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK, "reading %s failed: %s", url,
                         local->message);
          return NULL;
        }
      if (n == 0)
        break;
      if (data->len + (gsize) n > max)
        {
          g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                       "%s sent more than %zu bytes; that is no hub's answer", url, max);
          return NULL;
        }
      g_byte_array_append (data, buffer, (guint) n);
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&data));
}

static gboolean
parse_listing (AsHubListing *listing, const char *url, GBytes *body, GError **error)
{
  gsize length = 0;
  const char *data = g_bytes_get_data (body, &length);
  g_autofree char *what = g_strdup_printf ("the hub's answer to %s", url);
  g_autoptr (JsonNode) root = as_json_parse (what, data, length, error);
  if (root == NULL)
    return FALSE;
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonNode *sha = object != NULL ? json_object_get_member (object, "sha") : NULL;
  JsonNode *siblings = object != NULL ? json_object_get_member (object, "siblings") : NULL;
  if (sha == NULL || !JSON_NODE_HOLDS_VALUE (sha) || json_node_get_value_type (sha) != G_TYPE_STRING
      || !as_hub_is_commit (json_node_get_string (sha)) || siblings == NULL
      || !JSON_NODE_HOLDS_ARRAY (siblings))
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                   "%s is not a Hugging Face hub listing: it lacks a 40-digit \"sha\" or the "
                   "\"siblings\" array (check HF_ENDPOINT)",
                   what);
      return FALSE;
    }
  listing->commit = g_strdup (json_node_get_string (sha));
  listing->siblings = g_ptr_array_new_with_free_func (g_free);
  JsonArray *array = json_node_get_array (siblings);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      JsonNode *name = JSON_NODE_HOLDS_OBJECT (item)
                           ? json_object_get_member (json_node_get_object (item), "rfilename")
                           : NULL;
      if (name == NULL || !JSON_NODE_HOLDS_VALUE (name)
          || json_node_get_value_type (name) != G_TYPE_STRING)
        continue;
      /* Names that would leave the snapshot folder are never fetched (nor listed). */
      if (as_hub_check_filename (json_node_get_string (name), NULL))
        g_ptr_array_add (listing->siblings, g_strdup (json_node_get_string (name)));
    }
  g_ptr_array_add (listing->siblings, NULL);
  JsonNode *gated = json_object_get_member (object, "gated");
  if (gated != NULL && JSON_NODE_HOLDS_VALUE (gated)
      && json_node_get_value_type (gated) == G_TYPE_STRING)
    listing->gated = g_strdup (json_node_get_string (gated));
  return TRUE;
}

AsHubListing *
as_hub_client_list (AsHubClient *client, const char *repo_id, const char *revision,
                    GCancellable *cancellable, GError **error)
{
  g_autofree char *escaped = g_uri_escape_string (revision, NULL, FALSE);
  g_autofree char *url
      = g_strdup_printf ("%s/api/models/%s/revision/%s", client->endpoint, repo_id, escaped);
  g_autoptr (SoupMessage) msg = new_message (client, "GET", url, error);
  if (msg == NULL)
    return NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (GInputStream) stream = soup_session_send (client->session, msg, cancellable, &local);
  if (stream == NULL)
    {
      transport_error (client, local, url, error);
      return NULL;
    }
  if (soup_message_get_status (msg) != SOUP_STATUS_OK)
    {
      status_error (client, msg, repo_id, revision, NULL, error);
      return NULL;
    }
  g_autoptr (GBytes) body = read_limited (stream, LISTING_MAX_BYTES, url, cancellable, error);
  if (body == NULL)
    return NULL;
  g_autoptr (AsHubListing) listing = g_new0 (AsHubListing, 1);
  if (!parse_listing (listing, url, body, error))
    return NULL;
  return g_steal_pointer (&listing);
}

static gboolean
parse_size (const char *text, guint64 *size)
{
  if (text == NULL || *text == '\0')
    return FALSE;
  char *end = NULL;
  guint64 value = g_ascii_strtoull (text, &end, 10);
  if (end == text || *end != '\0' || !g_ascii_isdigit (*text))
    return FALSE;
  *size = value;
  return TRUE;
}

/* Sends a HEAD for URL, following relative redirects only; returns the last message. */
static SoupMessage *
head_following_relative (AsHubClient *client, const char *url, GCancellable *cancellable,
                         GError **error)
{
  g_autofree char *current = g_strdup (url);
  for (int hop = 0; hop <= MAX_RELATIVE_REDIRECTS; hop++)
    {
      g_autoptr (SoupMessage) msg = new_message (client, "HEAD", current, error);
      if (msg == NULL)
        return NULL;
      soup_message_set_flags (msg, SOUP_MESSAGE_NO_REDIRECT);
      g_autoptr (GError) local = NULL;
      g_autoptr (GInputStream) stream
          = soup_session_send (client->session, msg, cancellable, &local);
      if (stream == NULL)
        {
          transport_error (client, local, current, error);
          return NULL;
        }
      g_input_stream_close (stream, NULL, NULL);
      guint status = soup_message_get_status (msg);
      const char *location = header (msg, "Location");
      if (status < 300 || status > 399 || location == NULL || location[0] != '/'
          || location[1] == '/')
        return g_steal_pointer (&msg);
      /* A relative redirect (a renamed repository): the same host, the new path. */
      g_autoptr (GUri) base = g_uri_parse (current, SOUP_HTTP_URI_FLAGS, NULL);
      g_autoptr (GUri) next = g_uri_parse_relative (base, location, SOUP_HTTP_URI_FLAGS, NULL);
      if (next == NULL)
        return g_steal_pointer (&msg);
      g_free (current);
      current = g_uri_to_string (next);
    }
  g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK, "%s redirects more than %d times", url,
               MAX_RELATIVE_REDIRECTS);
  return NULL;
}

AsHubFileMeta *
as_hub_client_head (AsHubClient *client, const char *repo_id, const char *commit,
                    const char *filename, GCancellable *cancellable, GError **error)
{
  g_autofree char *escaped = g_uri_escape_string (filename, "/", FALSE);
  g_autofree char *url
      = g_strdup_printf ("%s/%s/resolve/%s/%s", client->endpoint, repo_id, commit, escaped);
  g_autoptr (SoupMessage) msg = head_following_relative (client, url, cancellable, error);
  if (msg == NULL)
    return NULL;
  guint status = soup_message_get_status (msg);
  if (status >= 400 || status < 200)
    {
      status_error (client, msg, repo_id, commit, filename, error);
      return NULL;
    }
  g_autoptr (AsHubFileMeta) meta = g_new0 (AsHubFileMeta, 1);
  meta->commit = g_strdup (header (msg, "X-Repo-Commit"));
  const char *linked = header (msg, "X-Linked-Etag");
  meta->etag = as_hub_normalize_etag (linked != NULL ? linked : header (msg, "ETag"));
  const char *size = header (msg, "X-Linked-Size");
  gboolean have_size
      = parse_size (size != NULL ? size : header (msg, "Content-Length"), &meta->size);
  g_autofree char *final_url = g_uri_to_string (soup_message_get_uri (msg));
  const char *location = header (msg, "Location");
  if (status >= 300 && status <= 399 && location != NULL)
    {
      g_autoptr (GUri) next
          = g_uri_parse_relative (soup_message_get_uri (msg), location, SOUP_HTTP_URI_FLAGS, NULL);
      meta->location = next != NULL ? g_uri_to_string (next) : NULL;
    }
  if (meta->location == NULL)
    meta->location = g_strdup (final_url);
  if (meta->commit == NULL || meta->etag == NULL || !have_size)
    {
      g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                   "%s does not answer as a Hugging Face hub: its reply lacks %s (check "
                   "HF_ENDPOINT, a proxy or a firewall in between)",
                   final_url,
                   meta->commit == NULL ? "X-Repo-Commit"
                   : meta->etag == NULL ? "an ETag"
                                        : "the file's size");
      return NULL;
    }
  if (!as_hub_check_etag (meta->etag, error))
    return NULL;
  return g_steal_pointer (&meta);
}

/* Whether MSG's Content-Range starts at OFFSET ("bytes OFFSET-END/SIZE"). */
static gboolean
range_starts_at (SoupMessage *msg, guint64 offset)
{
  goffset start = 0, end = 0, total = 0;
  if (!soup_message_headers_get_content_range (soup_message_get_response_headers (msg), &start,
                                               &end, &total))
    return FALSE;
  return start >= 0 && (guint64) start == offset;
}

gboolean
as_hub_client_fetch (AsHubClient *client, const AsHubFileMeta *meta, const char *filename,
                     guint64 offset, AsHubSink sink, gpointer sink_data, gboolean *restarted,
                     guint64 *received, GCancellable *cancellable, GError **error)
{
  *restarted = FALSE;
  *received = 0;
  g_autoptr (SoupMessage) msg = new_message (client, "GET", meta->location, error);
  if (msg == NULL)
    return FALSE;
  if (offset > 0)
    soup_message_headers_set_range (soup_message_get_request_headers (msg), (goffset) offset, -1);
  g_autoptr (GError) local = NULL;
  g_autoptr (GInputStream) stream = soup_session_send (client->session, msg, cancellable, &local);
  if (stream == NULL)
    return transport_error (client, local, meta->location, error);
  guint status = soup_message_get_status (msg);
  if (status == SOUP_STATUS_PARTIAL_CONTENT && offset > 0 && range_starts_at (msg, offset))
    ;
  else if (status == SOUP_STATUS_OK)
    *restarted = offset > 0;
  else
    {
      g_set_error (
          error, AS_HUB_ERROR,
          status == 401 || status == 403 ? AS_HUB_ERROR_DENIED : AS_HUB_ERROR_NETWORK,
          "receiving %s from %s failed: HTTP %u %s (asked from byte %" G_GUINT64_FORMAT ")",
          filename, meta->location, status,
          soup_message_get_reason_phrase (msg) != NULL ? soup_message_get_reason_phrase (msg) : "",
          offset);
      return FALSE;
    }
  if (*restarted && !sink (NULL, 0, sink_data, error))
    return FALSE;
  g_autofree guint8 *buffer = g_malloc (READ_CHUNK);
  for (;;)
    {
      g_clear_error (&local);
      gssize n = g_input_stream_read (stream, buffer, READ_CHUNK, cancellable, &local);
      if (n < 0)
        {
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the download was cancelled");
          else
            g_set_error (error, AS_HUB_ERROR, AS_HUB_ERROR_NETWORK,
                         "the connection broke while receiving %s: %s", filename, local->message);
          return FALSE;
        }
      if (n == 0)
        break;
      if (!sink (buffer, (gsize) n, sink_data, error))
        return FALSE;
      *received += (guint64) n;
    }
  g_input_stream_close (stream, NULL, NULL);
  return TRUE;
}
