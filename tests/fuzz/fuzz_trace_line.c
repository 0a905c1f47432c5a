/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_trace_line.c: read-file trace files: trace_reader and
 * trace_line_parse().
 *
 * The input is a trace file. It is read twice as read_file_trace() reads
 * it: once as a text trace and once as a --null trace, through
 * trace_reader_next() on a descriptor (a memfd), and each record is handed
 * to trace_line_parse(). Unlike read-file it does not stop at the first bad
 * line. A parsed line must give a non-empty path inside the line and, for a
 * range, the numbers after it; an error must name the trace and line. */
#include "fuzz_util.h"

#include "trace/trace_line.h"
#include "trace/trace_reader.h"

#include <sys/mman.h>

static void check_parse(char *line, int lineno)
{
    size_t text_len = strlen(line);
    char *copy = g_strndup(line, text_len);
    TraceRequest req = { 0 };
    GError *err = NULL;
    gboolean ok = trace_line_parse(line, "fuzz.trace", lineno, &req, &err);
    if (ok != (err == NULL))
        abort();
    if (ok) {
        if (req.path < line || req.path >= line + text_len || req.path[0] == '\0')
            abort();
        size_t path_len = strlen(req.path);
        /* the path is the line's bytes after the first tab, verbatim */
        const char *after_tab = strchr(copy, '\t') + 1;
        if (strncmp(after_tab, req.path, path_len) != 0)
            abort();
        if (req.ranged) { /* TAB OFFSET TAB LENGTH follow the path */
            const char *p = after_tab + path_len;
            char *end = NULL;
            if (p[0] != '\t' || !g_ascii_isdigit(p[1]) || g_ascii_strtoull(p + 1, &end, 10) != req.range.offset ||
                *end != '\t' || (strcmp(end + 1, "-") == 0) != (req.range.length == FILE_RANGE_TO_END && end[1] == '-'))
                abort();
        } else if (after_tab[path_len] != '\0') {
            abort();
        }
    } else {
        char *want = g_strdup_printf("fuzz.trace:%d: ", lineno);
        if (!g_str_has_prefix(err->message, want))
            abort();
        g_free(want);
    }
    g_clear_error(&err);
    g_free(copy);
}

static void read_all(int fd, gboolean null_terminated)
{
    if (lseek(fd, 0, SEEK_SET) != 0)
        abort();
    TraceReader *r = trace_reader_new(fd, "fuzz.trace", null_terminated, NULL, 0);
    char *line;
    int lineno, got;
    GError *err = NULL;
    while ((got = trace_reader_next(r, &line, &lineno, &err)) != 0) {
        if (got < 0) { /* only a NUL inside a text line can fail here */
            if (null_terminated || err == NULL || strstr(err->message, "a NUL byte inside a line") == NULL)
                abort();
            g_clear_error(&err);
            break;
        }
        if (err != NULL || line[0] == '\0' || line[0] == '#')
            abort();
        check_parse(line, lineno);
    }
    trace_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (size == 0)
        return 0;
    int fd = memfd_create("fuzz.trace", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    read_all(fd, FALSE);
    read_all(fd, TRUE);
    close(fd);
    return 0;
}
