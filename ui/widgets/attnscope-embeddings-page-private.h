/* attnscope-embeddings-page-private.h — the embeddings page's fields and the functions its two
 * parts share: attnscope-embeddings-page.c (the projections asked for and the figure shown) and
 * attnscope-embeddings-sentences-panel.c (the panel listing text A and the further sentences,
 * their failures, adding, removing and loading them). Private to ui/widgets. */
#pragma once

#include "attnscope-embeddings-page.h"
#include "attnscope-layer-controls.h"

G_BEGIN_DECLS

typedef struct
{
  AttnscopeAnalysis *analysis; /* compared, never used */
  guint others_hash;           /* of the other sentences' traces (their addresses) */
  int n_others;
  AsVectorSource source;
  int layer, head;
  AttnscopeProjection method;
  gboolean beside; /* the token embeddings beside */
} Request;

struct _AttnscopeEmbeddingsPage
{
  AttnscopePage parent_instance;

  GtkDropDown *method_dropdown;
  GtkDropDown *source_dropdown;
  AttnscopeLayerControls *layer_controls;
  GtkCheckButton *static_check;
  GtkEntry *highlight_entry;
  GtkToggleButton *labels_button;
  GtkLabel *status_label;
  GtkProgressBar *progress_bar;
  GtkButton *run_button;
  GtkButton *add_button;
  GtkButton *load_button;
  GtkListBox *sentence_list;
  GtkLabel *sentence_error_label;
  AttnscopeScatterView *scatter;

  AttnscopeProjection method;
  AsVectorSource source;
  AttnscopeSentences *sentences;
  GPtrArray *other_traces; /* AsTrace, owned: the further sentences when last all ready */
  GPtrArray *other_texts;  /* char *, owned: the texts of those traces */
  char *sentence_error;
  GSignalGroup *progress_signals; /* on the analysis computing the projection */
  Request cancelled;              /* the request the user cancelled (analysis NULL: none) */
  /* what the figure on screen was built from */
  AttnscopeAnalysis *built_analysis; /* a reference, so that the pointers below stay unique */
  Request built_request;
  const AsProjection *built_projection, *built_static;
  ArViewSelection built_view;
  gboolean built_labels;
  char *built_highlight;
};

/* Rebuilds the panel's rows when they no longer show the list (its length or a text changed from
 * outside: a file was loaded); an edit in a row never rebuilds it. */
void attnscope_embeddings_page_sync_rows (AttnscopeEmbeddingsPage *self);

/* Reads the further sentences' state into other_traces / other_texts (kept as they were unless
 * every sentence is ready) and shows a failure under the panel. Returns the state. */
AttnscopeSentencesState attnscope_embeddings_page_read_sentences (AttnscopeEmbeddingsPage *self);

/* Connects the panel's Add and Load buttons. */
void attnscope_embeddings_page_init_sentence_panel (AttnscopeEmbeddingsPage *self);

G_END_DECLS
