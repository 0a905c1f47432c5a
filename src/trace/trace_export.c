/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_export.c: writing the access sequence as CSV, oracleGeneral or
 * plain text. */
#include "trace/trace_export.h"
#include "trace/trace_reader.h"
#include "trace/compiled_trace.h"
#include "trace/trace_compile.h"
#include "store/store.h"
#include "util/error.h"
#include "util/le.h"
#include "util/output_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { EXPORT_CSV, EXPORT_ORACLE, EXPORT_TXT } ExportFormat;

static gboolean parse_format(const char *name, ExportFormat *f, GError **err)
{
    if (name != NULL && !strcmp(name, "libcachesim-csv"))
        *f = EXPORT_CSV;
    else if (name != NULL && !strcmp(name, "oracle-general"))
        *f = EXPORT_ORACLE;
    else if (name != NULL && !strcmp(name, "txt"))
        *f = EXPORT_TXT;
    else {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "trace export needs --format libcachesim-csv, oracle-general or txt%s%s",
                    name ? ", not " : "", name ? name : "");
        return FALSE;
    }
    return TRUE;
}

/* A compiled trace as it is (no store needed), or a text trace compiled. */
static CompiledTrace *load(const Config *cfg, const char *path, gboolean null_terminated, GError **err)
{
    int fd = trace_open(path, err);
    if (fd < 0)
        return NULL;
    uint8_t head[8];
    ssize_t n = trace_read_head(fd, path, head, sizeof head, err);
    CompiledTrace *t = NULL;
    if (n >= 0 && compiled_trace_has_magic(head, (size_t)n)) {
        t = compiled_trace_read_fd(fd, path, head, (size_t)n, err);
    } else if (n >= 0) {
        if (fd == STDIN_FILENO) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "trace export reads a text trace from a file only (or compile it first)");
        } else {
            trace_close(fd);
            return trace_compile(cfg, path, null_terminated, err);
        }
    }
    trace_close(fd);
    if (t != NULL && compiled_trace_is_chunks(t)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "%s holds chunk accesses (compiled at ssd-cache-granularity chunk): trace export writes "
                    "container accesses",
                    path);
        g_clear_pointer(&t, compiled_trace_free);
    }
    return t;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* next[i]: 1-based index of the next record naming the same container, or
 * -1 (libCacheSim's oracleGeneral convention). The accesses sorted by
 * (id, position) put each id's accesses side by side: memory follows the
 * sequence, never the pool size the file claims (no store checks it here). */
static int64_t *next_access(const CompiledTrace *t)
{
    const uint32_t *ids = (const uint32_t *)(const void *)t->ids->data;
    guint n = t->ids->len;
    int64_t *next = g_new(int64_t, MAX(n, 1));
    uint64_t *by_id = g_new(uint64_t, MAX(n, 1));
    for (guint i = 0; i < n; i++)
        by_id[i] = (uint64_t)ids[i] << 32 | i;
    qsort(by_id, n, sizeof *by_id, compare_u64);
    for (guint k = 0; k < n; k++) {
        guint i = (guint)(by_id[k] & 0xFFFFFFFFu);
        gboolean more = k + 1 < n && by_id[k + 1] >> 32 == by_id[k] >> 32;
        next[i] = more ? (int64_t)(by_id[k + 1] & 0xFFFFFFFFu) + 1 : -1;
    }
    g_free(by_id);
    return next;
}

/* A record's time: a timed trace's request time in whole seconds (the
 * unit libCacheSim's readers take), else the request's number. */
static uint64_t export_time(const CompiledTrace *t, guint r)
{
    return t->timed ? compiled_trace_time(t, r) / 1000000000u : r;
}

static gboolean write_records(const CompiledTrace *t, ExportFormat f, FILE *out)
{
    const uint32_t *ids = (const uint32_t *)(const void *)t->ids->data;
    int64_t *next = f == EXPORT_ORACLE ? next_access(t) : NULL;
    if (f == EXPORT_CSV)
        fputs("time,obj_id,obj_size\n", out);
    guint a = 0;
    for (guint r = 0; r < t->req_accesses->len && !ferror(out); r++) {
        uint32_t count = g_array_index(t->req_accesses, uint32_t, r);
        for (uint32_t k = 0; k < count; k++, a++) {
            if (f == EXPORT_CSV) {
                fprintf(out, "%" PRIu64 ",%u,%u\n", export_time(t, r), ids[a], t->container_size);
            } else if (f == EXPORT_TXT) {
                fprintf(out, "%u\n", ids[a]);
            } else {
                uint8_t rec[24];
                le32_put(rec, (uint32_t)export_time(t, r));
                le64_put(rec + 4, ids[a]);
                le32_put(rec + 12, t->container_size);
                le64_put(rec + 16, (uint64_t)next[a]);
                fwrite(rec, 1, sizeof rec, out);
            }
        }
    }
    g_free(next);
    return !ferror(out);
}

gboolean trace_export_run(const Config *cfg, const char *path, gboolean null_terminated, const char *format,
                          const char *out_path, GError **err)
{
    ExportFormat f;
    if (!parse_format(format, &f, err))
        return FALSE;
    CompiledTrace *t = load(cfg, path, null_terminated, err);
    if (t == NULL)
        return FALSE;
    /* time is a u32 in oracleGeneral (csv writes it whole, txt not at all;
     * times never go back, so the last request's is the largest) */
    uint64_t n = f == EXPORT_ORACLE ? compiled_trace_requests(t) : 0;
    const char *too_big = n > UINT32_MAX ? "%s has more requests than oracleGeneral's 32-bit time can number"
                          : n > 0 && export_time(t, (guint)(n - 1)) > UINT32_MAX
                              ? "%s has times past what oracleGeneral's 32-bit count of seconds holds"
                              : NULL;
    if (too_big != NULL) {
        compiled_trace_free(t);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, too_big, path);
        return FALSE;
    }
    const char *dirs[STORE_DIRS];
    store_dirs(cfg, dirs);
    OutputFile of;
    gboolean ok = output_file_open(&of, out_path, dirs, STORE_DIRS, err);
    FILE *out = ok ? fdopen(dup(of.fd), "wb") : NULL;
    if (ok && out == NULL) {
        destor_set_errno(err, errno, "open %s", of.name);
        ok = FALSE;
    }
    errno = 0;
    if (ok && (!write_records(t, f, out) || fflush(out) != 0)) {
        destor_set_errno(err, errno ? errno : EIO, "write %s", of.name);
        ok = FALSE;
    }
    if (out != NULL && fclose(out) != 0 && ok) {
        destor_set_errno(err, errno, "close %s", of.name);
        ok = FALSE;
    }
    if (of.fd >= 0)
        ok = output_file_finish(&of, ok, err);
    compiled_trace_free(t);
    return ok;
}
