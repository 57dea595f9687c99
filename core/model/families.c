/* families.c — the list of model families (family-private.h). Adding a family is adding its
 * module in core/families/ and one line here. */
#include "family-private.h"

extern const AsFamily as_family_gpt2;
extern const AsFamily as_family_marian;
extern const AsFamily as_family_t5;
extern const AsFamily as_family_gpt_neox;
extern const AsFamily as_family_llama;
extern const AsFamily as_family_phi3;
extern const AsFamily as_family_gemma;
extern const AsFamily as_family_toy_attention;
extern const AsFamily as_family_bert;
extern const AsFamily as_family_distilbert;
extern const AsFamily as_family_bart;

static const AsFamily *const families[] = {
  &as_family_gpt2,  &as_family_llama,      &as_family_phi3,
  &as_family_gemma, &as_family_gpt_neox,   &as_family_toy_attention,
  &as_family_bert,  &as_family_distilbert, &as_family_marian,
  &as_family_t5,    &as_family_bart,
};

const AsFamily *
as_family_find (const char *model_type)
{
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    for (const char *const *t = families[i]->model_types; *t != NULL; t++)
      if (g_str_equal (*t, model_type))
        return families[i];
  return NULL;
}

char *
as_family_dup_supported (void)
{
  GString *out = g_string_new (NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    for (const char *const *t = families[i]->model_types; *t != NULL; t++)
      g_string_append_printf (out, "%s%s", out->len > 0 ? ", " : "", *t);
  return g_string_free (out, FALSE);
}
