/* hf-postprocessor.c — tokenizer.json's post-processors (hf-postprocessor-private.h).
 *
 * Sources (huggingface/tokenizers src/processors/): template.rs (a template is a list of
 * {"Sequence": {"id": "A"|"B", "type_id": n}} and {"SpecialToken": {"id": name, "type_id": n}};
 * "special_tokens" maps each name to its "ids"), bert.rs, roberta.rs, sequence.rs,
 * ../pre_tokenizers/byte_level.rs; PostProcessor::process and default_process in
 * src/tokenizer/mod.rs. */
#include "hf-postprocessor-private.h"

#include <string.h>

typedef enum
{
  POST_TEMPLATE,
  POST_BERT,
  POST_ROBERTA,
  POST_BYTE_LEVEL,
  POST_SEQUENCE,
} PostKind;

/* One element of a template: a sequence (IDS == NULL, SEQUENCE 0 or 1) or special tokens. */
typedef struct
{
  int sequence;
  GArray *ids; /* int32_t, the special token's ids */
  guint32 type_id;
} TemplatePiece;

struct _AsHfPostProcessor
{
  PostKind kind;
  GArray *single, *pair;  /* Template: TemplatePiece */
  int32_t cls_id, sep_id; /* Bert, Roberta */
  GPtrArray *children;    /* Sequence */
};

static void
piece_clear (gpointer data)
{
  TemplatePiece *p = data;
  g_clear_pointer (&p->ids, g_array_unref);
}

static GArray *
template_new (void)
{
  GArray *t = g_array_new (FALSE, FALSE, sizeof (TemplatePiece));
  g_array_set_clear_func (t, piece_clear);
  return t;
}

void
as_hf_postprocessor_free (AsHfPostProcessor *p)
{
  if (p == NULL)
    return;
  g_clear_pointer (&p->single, g_array_unref);
  g_clear_pointer (&p->pair, g_array_unref);
  g_clear_pointer (&p->children, g_ptr_array_unref);
  g_free (p);
}

static int32_t
template_find_unknown_id (const GArray *t, gboolean (*known) (int32_t, gpointer), gpointer data)
{
  for (guint i = 0; t != NULL && i < t->len; i++)
    {
      const GArray *ids = g_array_index (t, TemplatePiece, i).ids;
      for (guint k = 0; ids != NULL && k < ids->len; k++)
        if (!known (g_array_index (ids, int32_t, k), data))
          return g_array_index (ids, int32_t, k);
    }
  return -1;
}

int32_t
as_hf_postprocessor_find_unknown_id (const AsHfPostProcessor *p,
                                     gboolean (*known) (int32_t id, gpointer data), gpointer data)
{
  if (p == NULL)
    return -1;
  switch (p->kind)
    {
    case POST_TEMPLATE:
      {
        int32_t id = template_find_unknown_id (p->single, known, data);
        return id >= 0 ? id : template_find_unknown_id (p->pair, known, data);
      }
    case POST_BERT:
    case POST_ROBERTA:
      return !known (p->cls_id, data) ? p->cls_id : !known (p->sep_id, data) ? p->sep_id : -1;
    case POST_SEQUENCE:
      for (guint i = 0; i < p->children->len; i++)
        {
          int32_t id = as_hf_postprocessor_find_unknown_id (p->children->pdata[i], known, data);
          if (id >= 0)
            return id;
        }
      return -1;
    case POST_BYTE_LEVEL:
      return -1;
    }
  return -1;
}

static void
template_add (GArray *t, int sequence, int32_t special, guint32 type_id)
{
  TemplatePiece p = { sequence, NULL, type_id };
  if (sequence < 0)
    {
      p.ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
      g_array_append_val (p.ids, special);
    }
  g_array_append_val (t, p);
}

AsHfPostProcessor *
as_hf_postprocessor_new_bert (int32_t cls_id, int32_t sep_id)
{
  AsHfPostProcessor *p = g_new0 (AsHfPostProcessor, 1);
  p->kind = POST_TEMPLATE;
  p->single = template_new ();
  template_add (p->single, -1, cls_id, 0);
  template_add (p->single, 0, 0, 0);
  template_add (p->single, -1, sep_id, 0);
  p->pair = template_new ();
  template_add (p->pair, -1, cls_id, 0);
  template_add (p->pair, 0, 0, 0);
  template_add (p->pair, -1, sep_id, 0);
  template_add (p->pair, 1, 0, 1);
  template_add (p->pair, -1, sep_id, 1);
  return p;
}

AsHfPostProcessor *
as_hf_postprocessor_new_template (int32_t bos_id, int32_t eos_id)
{
  AsHfPostProcessor *p = g_new0 (AsHfPostProcessor, 1);
  p->kind = POST_TEMPLATE;
  p->single = template_new ();
  p->pair = template_new ();
  for (guint32 s = 0; s < 2; s++)
    {
      if (bos_id >= 0)
        template_add (p->pair, -1, bos_id, s);
      template_add (p->pair, (int) s, 0, s);
      if (eos_id >= 0)
        template_add (p->pair, -1, eos_id, s);
    }
  if (bos_id >= 0)
    template_add (p->single, -1, bos_id, 0);
  template_add (p->single, 0, 0, 0);
  if (eos_id >= 0)
    template_add (p->single, -1, eos_id, 0);
  return p;
}

/* ---- reading ---- */

/* The ids of special token NAME from the "special_tokens" object. */
static GArray *
special_ids (const AsHfJson *json, const char *name, GError **error)
{
  JsonNode *specials = as_hf_json_member (json, "special_tokens");
  g_autofree char *path = as_hf_json_child_path (json, "special_tokens", -1);
  AsHfJson sub = { specials, json->file, path };
  JsonNode *entry = as_hf_json_member (&sub, name);
  if (entry == NULL)
    {
      as_hf_json_fail (&sub, error, "no entry for the template's special token \"%s\"", name);
      return NULL;
    }
  g_autofree char *entry_path = as_hf_json_child_path (&sub, name, -1);
  AsHfJson e = { entry, json->file, entry_path };
  JsonArray *ids;
  if (!as_hf_json_array (&e, "ids", &ids, error))
    return NULL;
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (int32_t));
  for (guint i = 0; i < json_array_get_length (ids); i++)
    {
      JsonNode *n = json_array_get_element (ids, i);
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
          || json_node_get_int (n) < 0 || json_node_get_int (n) >= (1 << 24))
        {
          as_hf_json_fail (&e, error, "\"ids\" must hold token ids");
          return NULL;
        }
      int32_t id = (int32_t) json_node_get_int (n);
      g_array_append_val (out, id);
    }
  return g_steal_pointer (&out);
}

static GArray *
read_template (const AsHfJson *json, const char *name, GError **error)
{
  JsonArray *items;
  if (!as_hf_json_array (json, name, &items, error))
    return NULL;
  g_autoptr (GArray) t = template_new ();
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      g_autofree char *path = as_hf_json_child_path (json, name, (gint) i);
      AsHfJson item = { json_array_get_element (items, i), json->file, path };
      JsonNode *seq = as_hf_json_member (&item, "Sequence");
      JsonNode *special = as_hf_json_member (&item, "SpecialToken");
      if ((seq == NULL) == (special == NULL))
        {
          as_hf_json_fail (&item, error, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
          return NULL;
        }
      g_autofree char *inner_path
          = as_hf_json_child_path (&item, seq != NULL ? "Sequence" : "SpecialToken", -1);
      AsHfJson inner = { seq != NULL ? seq : special, json->file, inner_path };
      const char *id;
      gint64 type_id;
      if (!as_hf_json_required_string (&inner, "id", &id, error)
          || !as_hf_json_int (&inner, "type_id", 0, 0, G_MAXUINT32, &type_id, error))
        return NULL;
      TemplatePiece p = { -1, NULL, (guint32) type_id };
      if (seq != NULL)
        {
          if (strcmp (id, "A") != 0 && strcmp (id, "B") != 0)
            {
              as_hf_json_fail (&inner, error, "a sequence id must be \"A\" or \"B\", not \"%s\"",
                               id);
              return NULL;
            }
          p.sequence = id[0] == 'A' ? 0 : 1;
        }
      else if ((p.ids = special_ids (json, id, error)) == NULL)
        return NULL;
      g_array_append_val (t, p);
    }
  return g_steal_pointer (&t);
}

/* A ["token", id] pair (Bert and Roberta's "cls" and "sep"). */
static gboolean
read_token_pair (const AsHfJson *json, const char *name, int32_t *id, GError **error)
{
  JsonNode *m = as_hf_json_member (json, name);
  JsonArray *a = m != NULL && JSON_NODE_HOLDS_ARRAY (m) ? json_node_get_array (m) : NULL;
  JsonNode *v = a != NULL && json_array_get_length (a) == 2 ? json_array_get_element (a, 1) : NULL;
  if (v == NULL || !JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64
      || json_node_get_int (v) < 0 || json_node_get_int (v) >= (1 << 24))
    return as_hf_json_fail (json, error, "\"%s\" must be [\"token\", id]", name);
  *id = (int32_t) json_node_get_int (v);
  return TRUE;
}

static gboolean
read_fields (AsHfPostProcessor *p, const char *type, const AsHfJson *json, GError **error)
{
  if (strcmp (type, "TemplateProcessing") == 0)
    {
      p->kind = POST_TEMPLATE;
      return (p->single = read_template (json, "single", error)) != NULL
             && (p->pair = read_template (json, "pair", error)) != NULL;
    }
  if (strcmp (type, "BertProcessing") == 0 || strcmp (type, "RobertaProcessing") == 0)
    {
      p->kind = type[0] == 'B' ? POST_BERT : POST_ROBERTA;
      return read_token_pair (json, "cls", &p->cls_id, error)
             && read_token_pair (json, "sep", &p->sep_id, error);
    }
  if (strcmp (type, "ByteLevel") == 0)
    {
      p->kind = POST_BYTE_LEVEL;
      return TRUE;
    }
  if (strcmp (type, "Sequence") == 0)
    {
      p->kind = POST_SEQUENCE;
      p->children
          = as_hf_json_read_list (json, "processors", (AsHfJsonReader) as_hf_postprocessor_read,
                                  (GDestroyNotify) as_hf_postprocessor_free, error);
      return p->children != NULL;
    }
  return as_hf_json_fail (json, error, "unknown type \"%s\"", type);
}

AsHfPostProcessor *
as_hf_postprocessor_read (const AsHfJson *json, GError **error)
{
  const char *type;
  if (!as_hf_json_type (json, &type, error))
    return NULL;
  g_autoptr (AsHfPostProcessor) p = g_new0 (AsHfPostProcessor, 1);
  if (!read_fields (p, type, json, error))
    return NULL;
  return g_steal_pointer (&p);
}

/* ---- applying ----
 * The encodings in flight: one or two sequences of (id, type id, special) triples. */

typedef struct
{
  GArray *ids;     /* int32_t */
  GArray *types;   /* guint32 */
  GArray *special; /* guint8 */
} Seq;

static void
seq_init (Seq *s)
{
  s->ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  s->types = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->special = g_array_new (FALSE, FALSE, sizeof (guint8));
}

static void
seq_clear (Seq *s)
{
  g_array_unref (s->ids);
  g_array_unref (s->types);
  g_array_unref (s->special);
}

static void
seq_push (Seq *s, int32_t id, guint32 type, guint8 special)
{
  g_array_append_val (s->ids, id);
  g_array_append_val (s->types, type);
  g_array_append_val (s->special, special);
}

static void
seq_append (Seq *dst, const Seq *src, gboolean set_type, guint32 type)
{
  for (guint i = 0; i < src->ids->len; i++)
    seq_push (dst, g_array_index (src->ids, int32_t, i),
              set_type ? type : g_array_index (src->types, guint32, i),
              g_array_index (src->special, guint8, i));
}

static void
set_types (Seq *s, guint32 type)
{
  for (guint i = 0; i < s->types->len; i++)
    g_array_index (s->types, guint32, i) = type;
}

/* process_encodings of P on SEQS[0..n) (n = 1 or 2); the result may be 1 or N sequences. */
static void
process (const AsHfPostProcessor *p, Seq *seqs, guint *n, gboolean add_special)
{
  switch (p->kind)
    {
    case POST_BYTE_LEVEL:
      return;
    case POST_SEQUENCE:
      for (guint i = 0; i < p->children->len; i++)
        process (g_ptr_array_index (p->children, i), seqs, n, add_special);
      return;
    case POST_BERT:
    case POST_ROBERTA:
      {
        gboolean roberta = p->kind == POST_ROBERTA;
        if (roberta)
          for (guint i = 0; i < *n; i++)
            set_types (&seqs[i], 0);
        if (!add_special)
          return;
        for (guint i = 0; i < *n; i++)
          {
            Seq out;
            seq_init (&out);
            guint32 t = roberta || i == 0 ? 0 : 1;
            if (i == 0)
              seq_push (&out, p->cls_id, 0, 1);
            else if (roberta)
              seq_push (&out, p->sep_id, 0, 1);
            seq_append (&out, &seqs[i], FALSE, 0);
            seq_push (&out, p->sep_id, t, 1);
            seq_clear (&seqs[i]);
            seqs[i] = out;
          }
        return;
      }
    case POST_TEMPLATE:
      {
        const GArray *t = *n == 2 ? p->pair : p->single;
        Seq out;
        seq_init (&out);
        for (guint k = 0; k < t->len; k++)
          {
            const TemplatePiece *piece = &g_array_index (t, TemplatePiece, k);
            if (piece->ids == NULL)
              {
                if ((guint) piece->sequence < *n)
                  seq_append (&out, &seqs[piece->sequence], TRUE, piece->type_id);
              }
            else if (add_special)
              for (guint j = 0; j < piece->ids->len; j++)
                seq_push (&out, g_array_index (piece->ids, int32_t, j), piece->type_id, 1);
          }
        for (guint i = 0; i < *n; i++)
          seq_clear (&seqs[i]);
        seqs[0] = out;
        *n = 1;
        return;
      }
    }
}

void
as_hf_postprocessor_apply (const AsHfPostProcessor *p, const GArray *a, const GArray *pair,
                           gboolean add_special, GArray *ids, GArray *type_ids,
                           GArray *special_mask)
{
  Seq seqs[2];
  guint n = pair != NULL ? 2 : 1;
  for (guint i = 0; i < n; i++)
    {
      const GArray *src = i == 0 ? a : pair;
      seq_init (&seqs[i]);
      for (guint k = 0; k < src->len; k++)
        seq_push (&seqs[i], g_array_index (src, int32_t, k), i, 0);
    }
  if (p != NULL)
    process (p, seqs, &n, add_special);
  for (guint i = 0; i < n; i++)
    {
      g_array_append_vals (ids, seqs[i].ids->data, seqs[i].ids->len);
      for (guint k = 0; k < seqs[i].types->len; k++)
        {
          int32_t t = (int32_t) g_array_index (seqs[i].types, guint32, k);
          g_array_append_val (type_ids, t);
        }
      g_array_append_vals (special_mask, seqs[i].special->data, seqs[i].special->len);
      seq_clear (&seqs[i]);
    }
}
