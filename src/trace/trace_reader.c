/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_reader.c: records of a trace file, split from buffered reads. */
#include "trace/trace_reader.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BLOCK (64u * 1024)

struct TraceReader {
    int fd;
    char *name;
    int end;          /* '\n' or '\0' */
    GByteArray *buf;  /* unread bytes start at pos */
    size_t pos;
    gboolean eof;
    int lineno;
};

int trace_open(const char *path, GError **err)
{
    if (strcmp(path, "-") == 0)
        return STDIN_FILENO;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "trace %s is a directory, not a trace file", path);
        return -1;
    }
    if (fd < 0) {
        /* A path that names no readable trace is the user's mistake (exit 2);
         * a device or system failure opening it is a runtime failure (exit 1). */
        int e = errno;
        destor_set_errno(err, e, "open trace %s", path);
        if (e == ENOENT || e == ENOTDIR || e == EACCES || e == ENAMETOOLONG || e == ELOOP)
            (*err)->code = DESTOR_ERROR_USAGE;
    }
    return fd;
}

void trace_close(int fd)
{
    if (fd >= 0 && fd != STDIN_FILENO)
        close(fd);
}

ssize_t trace_read_head(int fd, const char *name, void *buf, size_t len, GError **err)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            destor_set_errno(err, errno, "read trace %s", name);
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

gboolean trace_read_rest(int fd, const char *name, GByteArray *out, GError **err)
{
    for (;;) {
        guint old = out->len;
        g_byte_array_set_size(out, old + READ_BLOCK);
        ssize_t got = trace_read_head(fd, name, out->data + old, READ_BLOCK, err);
        g_byte_array_set_size(out, old + (guint)MAX(got, 0));
        if (got < 0)
            return FALSE;
        if (got < (ssize_t)READ_BLOCK)
            return TRUE;
    }
}

TraceReader *trace_reader_new(int fd, const char *name, gboolean null_terminated, const void *prefix,
                              size_t prefix_len)
{
    TraceReader *r = g_new0(TraceReader, 1);
    r->fd = fd;
    r->name = g_strdup(name);
    r->end = null_terminated ? '\0' : '\n';
    r->buf = g_byte_array_sized_new(READ_BLOCK); /* data never NULL */
    if (prefix_len > 0)
        g_byte_array_append(r->buf, prefix, (guint)prefix_len);
    return r;
}

void trace_reader_free(TraceReader *r)
{
    if (r == NULL)
        return;
    g_byte_array_unref(r->buf);
    g_free(r->name);
    g_free(r);
}

/* Append what one read(2) gives, up to READ_BLOCK bytes; 0 bytes is the
 * end. FALSE with an IO error if the read failed. */
static gboolean fill(TraceReader *r, GError **err)
{
    if (r->pos > 0) { /* drop what was consumed */
        g_byte_array_remove_range(r->buf, 0, (guint)r->pos);
        r->pos = 0;
    }
    guint old = r->buf->len;
    g_byte_array_set_size(r->buf, old + READ_BLOCK);
    ssize_t got;
    do
        got = read(r->fd, r->buf->data + old, READ_BLOCK);
    while (got < 0 && errno == EINTR);
    int e = errno;
    g_byte_array_set_size(r->buf, old + (guint)MAX(got, 0));
    if (got < 0) {
        destor_set_errno(err, e, "read trace %s", r->name);
        return FALSE;
    }
    r->eof = got == 0;
    return TRUE;
}

/* One raw record, terminator removed; FALSE at the end. */
static int next_raw(TraceReader *r, char **rec, size_t *len, GError **err)
{
    size_t scanned = 0;
    for (;;) {
        uint8_t *start = r->buf->data + r->pos;
        size_t avail = r->buf->len - r->pos;
        uint8_t *hit = scanned < avail ? memchr(start + scanned, r->end, avail - scanned) : NULL;
        if (hit != NULL || (r->eof && avail > 0)) {
            size_t n = hit ? (size_t)(hit - start) : avail;
            if (hit == NULL) { /* last record without a terminator: make room for one */
                g_byte_array_append(r->buf, (const guint8 *)"", 1);
                start = r->buf->data + r->pos;
            }
            start[n] = '\0';
            r->pos += n + 1;
            *rec = (char *)start;
            *len = n;
            return 1;
        }
        if (r->eof)
            return 0;
        scanned = avail;
        if (!fill(r, err))
            return -1;
    }
}

int trace_reader_next(TraceReader *r, char **record, int *lineno, GError **err)
{
    for (;;) {
        char *rec;
        size_t n;
        int got = next_raw(r, &rec, &n, err);
        if (got <= 0)
            return got;
        r->lineno++;
        while (r->end == '\n' && n > 0 && rec[n - 1] == '\r')
            rec[--n] = '\0';
        if (r->end == '\n' && memchr(rec, '\0', n) != NULL) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s:%d: a NUL byte inside a line (a --null trace?)",
                        r->name, r->lineno);
            return -1;
        }
        if (n == 0 || rec[0] == '#')
            continue;
        *record = rec;
        *lineno = r->lineno;
        return 1;
    }
}
