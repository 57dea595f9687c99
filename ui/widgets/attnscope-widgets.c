/* attnscope-widgets.c — registers the resource bundle and the widget types (see
 * attnscope-widgets.h). Types must be registered before GtkBuilder meets their names in a
 * template: in a static build it cannot find their get_type functions by symbol lookup. */
#include "attnscope-widgets.h"

#include "attnscope-alignment-page.h"
#include "attnscope-attention-page.h"
#include "attnscope-compare-page.h"
#include "attnscope-embeddings-page.h"
#include "attnscope-heads-page.h"
#include "attnscope-heatmap-view.h"
#include "attnscope-lens-page.h"
#include "attnscope-attribution-page.h"
#include "attnscope-predictions-page.h"
#include "attnscope-similarity-page.h"
#include "attnscope-resources.h"
#include "attnscope-token-strip.h"

void
attnscope_widgets_init (void)
{
  static gsize initialized = 0;
  if (!g_once_init_enter (&initialized))
    return;
  attnscope_register_resource ();
  g_type_ensure (ATTNSCOPE_TYPE_SESSION);
  g_type_ensure (ATTNSCOPE_TYPE_TOKEN_STRIP);
  g_type_ensure (ATTNSCOPE_TYPE_HEATMAP_VIEW);
  g_type_ensure (ATTNSCOPE_TYPE_ATTENTION_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_HEADS_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_SIMILARITY_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_EMBEDDINGS_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_COMPARE_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_PREDICTIONS_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_ALIGNMENT_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_LENS_PAGE);
  g_type_ensure (ATTNSCOPE_TYPE_ATTRIBUTION_PAGE);
  g_once_init_leave (&initialized, 1);
}
