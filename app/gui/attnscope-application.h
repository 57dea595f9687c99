/* attnscope-application.h — the AdwApplication: app-wide actions (quit, about), keyboard
 * accelerators, the GSettings of the app, and a main window per activation. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define ATTNSCOPE_APPLICATION_ID "io.github.attnscope.Attnscope"
#define ATTNSCOPE_TYPE_APPLICATION (attnscope_application_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeApplication, attnscope_application, ATTNSCOPE, APPLICATION,
                      AdwApplication)

/* FLAGS: G_APPLICATION_DEFAULT_FLAGS, or G_APPLICATION_NON_UNIQUE for tests. */
AttnscopeApplication *attnscope_application_new (GApplicationFlags flags);

/* The app's settings, or NULL when the schema is neither installed nor in the build tree (then
 * nothing is remembered between runs). */
GSettings *attnscope_application_get_settings (AttnscopeApplication *self);

/* New settings of the app (NULL without the schema, as above). Without a D-Bus session bus the
 * desktop's settings store (dconf) cannot keep a change — every switch would snap back — so the
 * settings are then kept in memory for the session, with one line in the log saying so. A
 * backend chosen with $GSETTINGS_BACKEND is used as it is. */
GSettings *attnscope_application_settings_new (void);

/* Sets up gettext for the GUI (the installed catalogue, else the build tree's). */
void attnscope_application_init_i18n (void);

G_END_DECLS
