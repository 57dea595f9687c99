/* colormap-private.h — the generated lookup tables behind colormap.c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

extern const guint8 ar_colormap_table_ylgnbu[256][3];
extern const guint8 ar_colormap_table_viridis[256][3];
extern const guint8 ar_colormap_table_magma[256][3];
extern const guint8 ar_colormap_table_greys[256][3];
extern const guint8 ar_colormap_table_rdbu_r[256][3];
extern const guint8 ar_colormap_table_tab10[10][3];

G_END_DECLS
