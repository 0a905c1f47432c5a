/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_line.c: the parser of one read-file trace line. */
#include "trace/trace_line.h"
#include "read/job.h"
#include "util/error.h"

#include <string.h>

/* A decimal u64 (digits only, no overflow) filling all of [s, end). */
static gboolean parse_u64(const char *s, const char *end, uint64_t *v)
{
    if (s == end)
        return FALSE;
    uint64_t x = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return FALSE;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return TRUE;
}

/* If `path` (NUL-terminated) ends in TAB OFFSET TAB LENGTH after a
 * non-empty path, cut them off into *range. */
static gboolean split_range(char *path, FileRange *range)
{
    char *len_tab = strrchr(path, '\t');
    if (len_tab == NULL || len_tab == path)
        return FALSE;
    char *off_tab = len_tab - 1;
    while (off_tab > path && *off_tab != '\t')
        off_tab--;
    if (off_tab == path) /* no path left before the offset */
        return FALSE;
    uint64_t offset, length;
    const char *len_text = len_tab + 1;
    if (!parse_u64(off_tab + 1, len_tab, &offset))
        return FALSE;
    if (strcmp(len_text, "-") == 0)
        length = FILE_RANGE_TO_END;
    else if (!parse_u64(len_text, len_text + strlen(len_text), &length))
        return FALSE;
    *off_tab = '\0';
    range->offset = offset;
    range->length = length;
    return TRUE;
}

/* SECONDS[.FRACTION] filling all of [s, end), FRACTION 1 to 9 digits, in
 * nanoseconds (no overflow). */
static gboolean parse_time(const char *s, const char *end, uint64_t *ns)
{
    const char *point = memchr(s, '.', (size_t)(end - s));
    uint64_t secs, frac = 0;
    if (!parse_u64(s, point ? point : end, &secs) || secs > UINT64_MAX / 1000000000u)
        return FALSE;
    if (point != NULL) {
        size_t digits = (size_t)(end - point - 1);
        if (digits > 9 || !parse_u64(point + 1, end, &frac))
            return FALSE;
        for (; digits < 9; digits++)
            frac *= 10;
    }
    if (secs * 1000000000u > UINT64_MAX - frac)
        return FALSE;
    *ns = secs * 1000000000u + frac;
    return TRUE;
}

gboolean trace_line_parse(char *line, const char *trace, int lineno, TraceRequest *req, GError **err)
{
    req->timed = line[0] == '@';
    req->time_ns = 0;
    if (req->timed) {
        char *end = strchr(line, '\t');
        if (end == NULL || !parse_time(line + 1, end, &req->time_ns)) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "%s:%d: expected a time '@SECONDS<TAB>' (decimal, at most 9 digits after the point) "
                        "before the job", trace, lineno);
            return FALSE;
        }
        line = end + 1;
    }
    char *tab = strchr(line, '\t');
    GError *local = NULL;
    if (tab == NULL || tab[1] == '\0') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "%s:%d: expected 'JOB<TAB>PATH' or 'JOB<TAB>PATH<TAB>OFFSET<TAB>LENGTH'", trace, lineno);
        return FALSE;
    }
    *tab = '\0';
    if (!job_id_parse(line, &req->job, &local)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s:%d: %s", trace, lineno, local->message);
        g_error_free(local);
        return FALSE;
    }
    req->path = tab + 1;
    req->ranged = split_range(req->path, &req->range);
    return TRUE;
}

gboolean trace_clock_check(TraceClock *c, const TraceRequest *req, const char *trace, int lineno, GError **err)
{
    if (c->requests++ == 0)
        c->timed = req->timed;
    if (req->timed != c->timed) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    req->timed ? "%s:%d: a time '@SECONDS' in a trace whose first request has none"
                               : "%s:%d: a request without a time '@SECONDS' in a trace whose first request has one",
                    trace, lineno);
        return FALSE;
    }
    if (req->time_ns < c->last_ns) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "%s:%d: its time goes back (%.9f s after %.9f s): times must not decrease", trace, lineno,
                    (double)req->time_ns / 1e9, (double)c->last_ns / 1e9);
        return FALSE;
    }
    c->last_ns = req->time_ns;
    return TRUE;
}
