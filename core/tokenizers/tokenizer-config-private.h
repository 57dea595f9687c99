/* tokenizer-config-private.h — what tokenizer_config.json and special_tokens_map.json say about a
 * Hugging Face tokenizer: the special tokens' strings and the flags that change the pipeline
 * (tokenizer-config.c). Read by the loaders of tokenizer.json and of BERT's vocab.txt. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The special-token roles of tokenizer_config.json / special_tokens_map.json. */
typedef enum
{
  AS_TOKENIZER_ROLE_BOS,
  AS_TOKENIZER_ROLE_EOS,
  AS_TOKENIZER_ROLE_UNK,
  AS_TOKENIZER_ROLE_SEP,
  AS_TOKENIZER_ROLE_PAD,
  AS_TOKENIZER_ROLE_CLS,
  AS_TOKENIZER_ROLE_MASK,
  AS_TOKENIZER_N_ROLES,
} AsTokenizerRole;

typedef struct
{
  /* -1 when the flag is absent. add_bos/add_eos only for the tokenizer classes whose fast
   * tokenizer rebuilds its post-processor from them (tokenizer-config.c). */
  int add_bos, add_eos, lowercase, strip_accents, chinese;
  char *role_tokens[AS_TOKENIZER_N_ROLES]; /* owned, NULL when not given */
} AsTokenizerConfig;

/* Reads FOLDER's tokenizer_config.json and special_tokens_map.json (when present) into CONFIG,
 * which it initializes first. CONFIG must be cleared even after a failure. */
gboolean as_tokenizer_config_read (AsTokenizerConfig *config, const char *folder, GError **error);

void as_tokenizer_config_clear (AsTokenizerConfig *config);

G_END_DECLS
