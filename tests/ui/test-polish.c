/* test-polish.c — the window's finish, on the tiny GPT-2 fixture under Xvfb:
 * - a saved figure's notification has an Open Folder button whose action (win.show-folder)
 *   targets the URI of the file's folder;
 * - every label that may be cut with "…" has its whole text in its tooltip, on every page;
 * - a menu button shows no tooltip while its popover is open, and its tooltip again after;
 * - every icon button has a tooltip and an icon the theme has (not the grid of zoom-fit-best
 *   for autoscale, nor the eyedropper for the colour options);
 * - the window keeps its width while every page is shown in turn;
 * - the Style choice of the main menu (app.style) sets the style manager and the setting;
 * - on a grouped-query model (a random Llama with 4 query and 2 key/value heads) the heads grid
 *   the window shows and exports puts each group of query heads on one tinted background: the
 *   gap between heads 0 and 1 is tinted, the gap between heads 1 and 2 (another key/value head)
 *   is the figure's background, as is every gap of the tiny GPT-2's grid. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "decoder-models.h"
#include "figure-export.h"
#include "gui-export.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 60000

static AttnscopeWindow *window;
static AttnscopeApplication *app;

/* The first descendant of ROOT (ROOT included) for which MATCH holds, or NULL. */
static GtkWidget *
find_widget (GtkWidget *root, gboolean (*match) (GtkWidget *, gconstpointer), gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_button_labelled (GtkWidget *w, gconstpointer label)
{
  return GTK_IS_BUTTON (w) && gtk_widget_get_mapped (w)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (w)), label) == 0;
}

static gboolean
open_folder_shown (gpointer unused)
{
  return find_widget (GTK_WIDGET (window), is_button_labelled, "Open Folder") != NULL;
}

static void
test_open_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("attnscope-saved-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "attention.png", NULL);
  g_autoptr (GError) error = NULL;
  AttnscopePage *attention = attnscope_window_get_page (window, "attention");
  g_assert_true (gui_export_write (window, attention, png, 1, &error));
  g_assert_no_error (error);
  g_assert_true (gui_test_wait_until (open_folder_shown, NULL, TIMEOUT_MS));
  GtkWidget *button = find_widget (GTK_WIDGET (window), is_button_labelled, "Open Folder");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.show-folder");
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  g_assert_nonnull (target);
  g_autofree char *want = g_filename_to_uri (dir, NULL, NULL);
  g_test_message ("Open Folder targets %s", g_variant_get_string (target, NULL));
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, want);
  g_unlink (png);
  g_rmdir (dir);
}

static const char *const pages[]
    = { "heads", "similarity", "embeddings", "compare", "predictions", "attention" };

static void
show (const char *name)
{
  AttnscopePage *page = attnscope_window_get_page (window, name);
  attnscope_window_show_page (window, name);
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS));
}

/* Asserts that every mapped label under W that ellipsizes has its text in its tooltip; counts
 * them in *N. */
static void
check_label_tooltips (GtkWidget *w, int *n)
{
  if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w)
      && gtk_label_get_ellipsize (GTK_LABEL (w)) != PANGO_ELLIPSIZE_NONE)
    {
      const char *text = gtk_label_get_text (GTK_LABEL (w));
      const char *tooltip = gtk_widget_get_tooltip_text (w);
      if (*text != '\0')
        {
          g_test_message ("label \"%s\": tooltip \"%s\"", text, tooltip ? tooltip : "(none)");
          g_assert_nonnull (tooltip);
          g_assert_nonnull (strstr (tooltip, text));
          (*n)++;
        }
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    check_label_tooltips (c, n);
}

static void
test_ellipsized_tooltips (void)
{
  int n = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      show (pages[i]);
      check_label_tooltips (GTK_WIDGET (window), &n);
    }
  g_test_message ("%d ellipsizing labels with text checked", n);
  g_assert_cmpint (n, >=, 5);
}

static gboolean
is_menu_button_with_tooltip (GtkWidget *w, gconstpointer data)
{
  return GTK_IS_MENU_BUTTON (w) && gtk_widget_get_mapped (w)
         && gtk_widget_get_tooltip_text (w) != NULL;
}

static gboolean
popover_open (gpointer button)
{
  GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  return gtk_widget_get_mapped (popover);
}

static gboolean
popover_closed (gpointer button)
{
  GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  return !gtk_widget_get_visible (popover);
}

static void
test_popover_hides_tooltip (void)
{
  show ("attention");
  GtkWidget *button = find_widget (GTK_WIDGET (window), is_menu_button_with_tooltip, NULL);
  g_assert_nonnull (button);
  g_test_message ("menu button \"%s\"", gtk_widget_get_tooltip_text (button));
  g_assert_true (gtk_widget_get_has_tooltip (button));
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  g_assert_true (gui_test_wait_until (popover_open, button, TIMEOUT_MS));
  g_assert_false (gtk_widget_get_has_tooltip (button));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  g_assert_true (gui_test_wait_until (popover_closed, button, TIMEOUT_MS));
  g_assert_true (gtk_widget_get_has_tooltip (button));
  g_assert_nonnull (gtk_widget_get_tooltip_text (button));
}

/* Asserts that every mapped button under W with an icon has a tooltip and a themed icon. */
static void
check_icon_buttons (GtkWidget *w, int *n)
{
  const char *icon = NULL;
  if (GTK_IS_MENU_BUTTON (w))
    icon = gtk_menu_button_get_icon_name (GTK_MENU_BUTTON (w));
  else if (GTK_IS_BUTTON (w))
    icon = gtk_button_get_icon_name (GTK_BUTTON (w));
  /* (a spin button's − and +, a toast's close button: GTK's and libadwaita's own) */
  GType toast = g_type_from_name ("AdwToastWidget");
  if (icon != NULL && gtk_widget_get_mapped (w)
      && gtk_widget_get_ancestor (w, GTK_TYPE_SPIN_BUTTON) == NULL
      && (toast == 0 || gtk_widget_get_ancestor (w, toast) == NULL))
    {
      const char *tooltip = gtk_widget_get_tooltip_text (w);
      g_test_message ("%s: %s", icon, tooltip ? tooltip : "(no tooltip)");
      g_assert_nonnull (tooltip);
      GtkIconTheme *theme = gtk_icon_theme_get_for_display (gtk_widget_get_display (w));
      g_assert_true (gtk_icon_theme_has_icon (theme, icon));
      g_assert_cmpstr (icon, !=, "zoom-fit-best-symbolic");
      g_assert_cmpstr (icon, !=, "color-select-symbolic");
      (*n)++;
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    check_icon_buttons (c, n);
}

static void
test_icons (void)
{
  int n = 0;
  for (gsize i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      show (pages[i]);
      check_icon_buttons (GTK_WIDGET (window), &n);
    }
  g_test_message ("%d icon buttons", n);
  g_assert_cmpint (n, >=, 8);
}

static gboolean
narrowed (gpointer wide)
{
  return gtk_widget_get_width (GTK_WIDGET (window)) < GPOINTER_TO_INT (wide);
}

/* At a narrow width, where a page that asks for more than the others would widen the window. */
static void
test_no_resize (void)
{
  show ("attention");
  int wide = gtk_widget_get_width (GTK_WIDGET (window));
  g_assert_cmpint (wide, >, 760);
  gtk_window_set_default_size (GTK_WINDOW (window), 760, 700);
  g_assert_true (gui_test_wait_until (narrowed, GINT_TO_POINTER (wide), TIMEOUT_MS));
  g_assert_true (gui_test_wait_drawn (GTK_WIDGET (window), TIMEOUT_MS));
  int width = gtk_widget_get_width (GTK_WIDGET (window));
  g_test_message ("attention: window %d px wide", width);
  for (int round = 0; round < 2; round++)
    for (gsize i = 0; i < G_N_ELEMENTS (pages); i++)
      {
        show (pages[i]);
        g_test_message ("%s: window %d px wide", pages[i],
                        gtk_widget_get_width (GTK_WIDGET (window)));
        g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, width);
      }
}

static gboolean
scheme_is (gpointer scheme)
{
  return adw_style_manager_get_color_scheme (adw_style_manager_get_default ())
         == (AdwColorScheme) GPOINTER_TO_INT (scheme);
}

static void
test_style_choice (void)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();
  GSettings *settings = attnscope_application_get_settings (app);
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("dark"));
  g_assert_true (
      gui_test_wait_until (scheme_is, GINT_TO_POINTER (ADW_COLOR_SCHEME_FORCE_DARK), TIMEOUT_MS));
  g_assert_cmpint (adw_style_manager_get_color_scheme (manager), ==, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (adw_style_manager_get_dark (manager));
  if (settings != NULL)
    {
      g_autofree char *style = g_settings_get_string (settings, "style");
      g_assert_cmpstr (style, ==, "dark");
    }
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("light"));
  g_assert_true (
      gui_test_wait_until (scheme_is, GINT_TO_POINTER (ADW_COLOR_SCHEME_FORCE_LIGHT), TIMEOUT_MS));
  g_assert_cmpint (adw_style_manager_get_color_scheme (manager), ==, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_false (adw_style_manager_get_dark (manager));
  g_action_group_activate_action (G_ACTION_GROUP (app), "style", g_variant_new_string ("system"));
  g_assert_true (
      gui_test_wait_until (scheme_is, GINT_TO_POINTER (ADW_COLOR_SCHEME_DEFAULT), TIMEOUT_MS));
  g_assert_cmpint (adw_style_manager_get_color_scheme (manager), ==, ADW_COLOR_SCHEME_DEFAULT);
  g_autoptr (GVariant) state = g_action_group_get_action_state (G_ACTION_GROUP (app), "style");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "system");
}

/* The ARGB pixel of IMAGE at (X, Y). */
static guint32
pixel (cairo_surface_t *image, double x, double y)
{
  cairo_surface_flush (image);
  const guint8 *row = cairo_image_surface_get_data (image)
                      + (gsize) floor (y) * cairo_image_surface_get_stride (image);
  return ((const guint32 *) row)[(int) floor (x)];
}

/* The heads grid exported as PNG at scale 1 by the window; the pixels in the middle of the
 * gaps right of heads 0 and 1 in layer 0 (*IN_GROUP, *BETWEEN: the background's with two heads)
 * and a corner's (*BACKGROUND). */
static void
grid_gaps (guint32 *in_group, guint32 *between, guint32 *background, int *n_kv_heads)
{
  AttnscopePage *heads = attnscope_window_get_page (window, "heads");
  show ("heads");
  ArFigure figure;
  g_assert_true (attnscope_page_get_figure (heads, &figure));
  g_assert_cmpint (figure.kind, ==, AR_FIGURE_GRID);
  const ArGridFigure *grid = figure.grid;
  g_assert_cmpint (grid->n_heads, >=, 2);
  *n_kv_heads = grid->n_kv_heads;
  double w, h;
  ar_figure_get_size (&figure, &w, &h);
  g_autofree char *dir = g_dir_make_tmp ("attnscope-grid-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "heads.png", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (gui_export_write (window, heads, png, 1, &error));
  g_assert_no_error (error);
  cairo_surface_t *image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, (int) w);
  double x[3], y, size;
  int n = MIN (grid->n_heads, 3);
  for (int head = 0; head < n; head++)
    ar_grid_get_thumb_rect (grid, w, h, 0, head, &x[head], &y, &size);
  *background = pixel (image, 2, 2);
  *in_group = pixel (image, (x[0] + size + x[1]) / 2, y + size / 2);
  *between = n > 2 ? pixel (image, (x[1] + size + x[2]) / 2, y + size / 2) : *background;
  g_test_message ("n_kv_heads %d: in group %08x, between groups %08x, background %08x", *n_kv_heads,
                  *in_group, *between, *background);
  cairo_surface_destroy (image);
  g_unlink (png);
  g_rmdir (dir);
}

static void
test_kv_groups (void)
{
  guint32 in_group, between, background;
  int n_kv;
  /* the tiny GPT-2 (2 heads): every head its own key/value head, no groups */
  grid_gaps (&in_group, &between, &background, &n_kv);
  g_assert_cmphex (in_group, ==, background);

  g_autofree char *llama = decoder_model_llama_spm ();
  if (llama == NULL)
    return;
  gui_test_open (window, llama, "The man hit the car because he was angry", TIMEOUT_MS);
  grid_gaps (&in_group, &between, &background, &n_kv);
  g_assert_cmpint (n_kv, ==, 2);
  g_assert_cmphex (in_group, !=, background);
  g_assert_cmphex (between, ==, background);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  app = gui_test_app_new (1280, 800, &window);
  gui_test_park_pointer ();
  g_autofree char *tiny = gui_test_fixture_path ("tiny-gpt2");
  gui_test_open (window, tiny, "The man hit the car because he was angry", TIMEOUT_MS);
  /* first: every page shown for the first time */
  g_test_add_func ("/ui/polish/no-resize", test_no_resize);
  g_test_add_func ("/ui/polish/open-folder", test_open_folder);
  g_test_add_func ("/ui/polish/ellipsized-tooltips", test_ellipsized_tooltips);
  g_test_add_func ("/ui/polish/popover-hides-tooltip", test_popover_hides_tooltip);
  g_test_add_func ("/ui/polish/icons", test_icons);
  g_test_add_func ("/ui/polish/style-choice", test_style_choice);
  /* last: it opens another model */
  g_test_add_func ("/ui/polish/kv-groups", test_kv_groups);
  int status = g_test_run ();
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (app);
  return status;
}
