/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.c: the error domain and the code -> exit status mapping. */
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK(destor-error-quark, destor_error)

int destor_exit_status(const GError *err)
{
    if (err == NULL)
        return DESTOR_EXIT_OK;
    if (err->domain != DESTOR_ERROR)
        return DESTOR_EXIT_RUNTIME;
    switch ((DestorErrorCode)err->code) {
    case DESTOR_ERROR_USAGE:
    case DESTOR_ERROR_CONFIG:
    case DESTOR_ERROR_NO_STORE:
        return DESTOR_EXIT_USAGE;
    case DESTOR_ERROR_INTEGRITY:
        return DESTOR_EXIT_INTEGRITY;
    case DESTOR_ERROR_IO:
    case DESTOR_ERROR_NO_SPACE:
    case DESTOR_ERROR_LOCKED:
    case DESTOR_ERROR_PLANTED:
        break;
    }
    return DESTOR_EXIT_RUNTIME;
}

void destor_set_errno(GError **err, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(err, DESTOR_ERROR, destor_errno_code(errnum), "%s: %s", what, g_strerror(errnum));
    g_free(what);
}

DestorErrorCode destor_errno_code(int errnum)
{
    return errnum == ENOSPC || errnum == EDQUOT ? DESTOR_ERROR_NO_SPACE : DESTOR_ERROR_IO;
}

gboolean destor_error_is_io(const GError *err)
{
    return g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO) || g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_NO_SPACE);
}

/* Appends one byte as \xHH. */
static void append_hex(GString *out, unsigned char c)
{
    g_string_append_printf(out, "\\x%02x", c);
}

static GString *clean_bytes(const char *s, size_t len)
{
    GString *out = g_string_sized_new(len + 16);
    const char *end = s + len;
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\') {
            g_string_append(out, "\\\\");
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            append_hex(out, c);
            s++;
        } else if (c < 0x80) {
            g_string_append_c(out, (char)c);
            s++;
        } else {
            gunichar u = g_utf8_get_char_validated(s, end - s);
            if (u == (gunichar)-1 || u == (gunichar)-2 || !g_unichar_isprint(u)) {
                append_hex(out, c);
                s++;
            } else {
                const char *next = g_utf8_next_char(s);
                g_string_append_len(out, s, next - s);
                s = next;
            }
        }
    }
    return out;
}

char *destor_text_escape(const char *s, size_t len)
{
    return g_string_free(clean_bytes(s, len), FALSE);
}

/* The start of a cut, moved back to a UTF-8 character boundary. */
static size_t char_boundary(const char *s, size_t at)
{
    while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
        at--;
    return at;
}

char *destor_message_clean(const char *msg)
{
    size_t len = strlen(msg);
    if (len <= DESTOR_MESSAGE_MAX) {
        GString *out = clean_bytes(msg, len);
        if (out->len <= DESTOR_MESSAGE_MAX + DESTOR_MESSAGE_MAX / 2)
            return g_string_free(out, FALSE);
        g_string_free(out, TRUE);
    }
    /* Head and tail of the raw bytes, each cleaned: the tail usually says
     * what went wrong, the head where. */
    size_t keep = DESTOR_MESSAGE_MAX / 4;
    size_t head = char_boundary(msg, keep), tail = char_boundary(msg, len - keep);
    GString *out = clean_bytes(msg, head);
    g_string_append_printf(out, " [... %zu bytes cut ...] ", tail - head);
    GString *rest = clean_bytes(msg + tail, len - tail);
    g_string_append_len(out, rest->str, rest->len);
    g_string_free(rest, TRUE);
    return g_string_free(out, FALSE);
}

static void print_line(const char *prefix, const char *msg)
{
    char *clean = destor_message_clean(msg);
    fflush(stdout);
    fprintf(stderr, "destor: %s%s\n", prefix, clean);
    g_free(clean);
}

static void print_line_va(const char *prefix, const char *fmt, va_list ap)
{
    char *msg = g_strdup_vprintf(fmt, ap);
    print_line(prefix, msg);
    g_free(msg);
}

void destor_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_line_va("warning: ", fmt, ap);
    va_end(ap);
}

void destor_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_line_va("note: ", fmt, ap);
    va_end(ap);
}

void destor_print_error(const char *msg)
{
    print_line("", msg);
}

/* GLib's warnings and messages (ours and any library's) as destor: lines;
 * debug and info output stays off. */
static void log_handler(const char *domain, GLogLevelFlags level, const char *msg, gpointer data)
{
    (void)domain;
    (void)data;
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
        print_line("internal error: ", msg);
    else if (level & G_LOG_LEVEL_WARNING)
        print_line("warning: ", msg);
    else if (level & G_LOG_LEVEL_MESSAGE)
        print_line("note: ", msg);
}

void destor_log_install(void)
{
    g_log_set_default_handler(log_handler, NULL);
}
