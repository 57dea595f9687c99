/* attnscope-download-dialog.h — "Download a Model…": a model id (and a revision) from the Hugging
 * Face hub into the Hugging Face cache, with the model types attnscope opens named, a progress
 * bar with the bytes received, the speed and the time left, and Cancel. The download runs in a
 * worker thread (as-hub.h); the window never waits for it. When it is done the dialog closes and
 * the window opens the model; a failure is said in the dialog, which stays open; Cancel (or
 * closing the dialog) stops the download and keeps what was received, so Download resumes it.
 * The functions below do what the controls do (for tests). */
#pragma once

#include "attnscope-window.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_DOWNLOAD_DIALOG (attnscope_download_dialog_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeDownloadDialog, attnscope_download_dialog, ATTNSCOPE,
                      DOWNLOAD_DIALOG, AdwWindow)

/* A dialog over WINDOW, which opens the model once it is downloaded. */
AttnscopeDownloadDialog *attnscope_download_dialog_new (AttnscopeWindow *window);

void attnscope_download_dialog_set_model_id (AttnscopeDownloadDialog *self, const char *id);
void attnscope_download_dialog_set_revision (AttnscopeDownloadDialog *self, const char *revision);

/* What Download does: starts the download; FALSE (the status line says why) for a malformed id
 * or revision, or while a download runs. */
gboolean attnscope_download_dialog_start (AttnscopeDownloadDialog *self);
/* What Cancel does while a download runs: stops it (the status line says so once it stopped). */
void attnscope_download_dialog_cancel (AttnscopeDownloadDialog *self);

/* TRUE while a download runs. */
gboolean attnscope_download_dialog_get_running (AttnscopeDownloadDialog *self);
/* The progress bar's fraction. */
double attnscope_download_dialog_get_fraction (AttnscopeDownloadDialog *self);
/* The line under the bar: bytes, speed and time left while receiving; else what happened. */
const char *attnscope_download_dialog_get_status (AttnscopeDownloadDialog *self);

G_END_DECLS
