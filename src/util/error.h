/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.h: the one error domain of destor-plc.
 *
 * Functions that can fail take a GError ** and return FALSE / -1 / NULL;
 * the message names what failed (file, job, container, line). The CLI maps
 * the code to a documented exit status (see destor_exit_status()). */
#ifndef DESTOR_ERROR_H
#define DESTOR_ERROR_H

#include <glib.h>

#define DESTOR_ERROR (destor_error_quark())

typedef enum {
    DESTOR_ERROR_IO,        /* a system call failed: exit 1 */
    DESTOR_ERROR_LOCKED,    /* another writer holds the store: exit 1 */
    DESTOR_ERROR_USAGE,     /* bad arguments, unknown job or path: exit 2 */
    DESTOR_ERROR_CONFIG,    /* bad config line or value: exit 2 */
    DESTOR_ERROR_NO_STORE,  /* working directory holds no store: exit 2 */
    DESTOR_ERROR_INTEGRITY, /* checksum or structure mismatch: exit 3 */
    DESTOR_ERROR_PLANTED,   /* a link or other file at a name destor writes in place: exit 1 */
    DESTOR_ERROR_NO_SPACE,  /* a system call failed for want of room (ENOSPC, EDQUOT): exit 1 */
} DestorErrorCode;

enum {
    DESTOR_EXIT_OK = 0,
    DESTOR_EXIT_RUNTIME = 1,
    DESTOR_EXIT_USAGE = 2,
    DESTOR_EXIT_INTEGRITY = 3,
};

GQuark destor_error_quark(void);

/* Exit status for an error (1 when the error is not ours). */
int destor_exit_status(const GError *err);

/* Set *err to a DESTOR_ERROR_IO naming `what` and strerror(errnum), or to
 * a DESTOR_ERROR_NO_SPACE when errnum is ENOSPC or EDQUOT. */
void destor_set_errno(GError **err, int errnum, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* The code of a failed system call's error number (IO or NO_SPACE). */
DestorErrorCode destor_errno_code(int errnum);

/* A failed system call, whether for want of room or not. */
gboolean destor_error_is_io(const GError *err);

/* Longest message shown: a longer one keeps its head and tail around a
 * note of how many bytes were cut (a 10 MB trace line, a binary file). */
#define DESTOR_MESSAGE_MAX 1024

/* msg as one safe terminal line (newly allocated): bytes that are not
 * printable UTF-8 (controls, newlines, invalid sequences) become \xHH, a
 * backslash becomes \\, and at most about DESTOR_MESSAGE_MAX bytes stay. */
char *destor_message_clean(const char *msg);

/* The same escaping of len bytes, without the cut: a path (a source root, a
 * working directory) in a line of text output. */
char *destor_text_escape(const char *s, size_t len);

/* "destor: warning: ..." (cleaned) on stderr: every diagnostic that is not
 * the final error goes through here, or through GLib's log functions, which
 * destor_log_install() routes here. */
void destor_warning(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void destor_note(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void destor_log_install(void);

/* The final error line: "destor: MESSAGE" (cleaned) on stderr. */
void destor_print_error(const char *msg);

#endif
