/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_compile.c: a text trace resolved into a compiled trace. */
#include "trace/trace_compile.h"
#include "read/read_session.h"
#include "trace/trace_line.h"
#include "trace/trace_reader.h"
#include "trace/compiled_trace_stamp.h"
#include "store/store.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/output_file.h"

/* Every request of the text trace, through a recording session. */
static gboolean resolve(ReadSession *s, CompiledTrace *t, int fd, const char *name, const uint8_t *head,
                        size_t head_len, gboolean null_terminated, GError **err)
{
    TraceReader *reader = trace_reader_new(fd, name, null_terminated, head, head_len);
    gboolean ok = TRUE;
    char *line;
    int lineno, got;
    TraceClock clock = { 0 };
    while (ok && (got = trace_reader_next(reader, &line, &lineno, err)) != 0) {
        TraceRequest req;
        ok = got > 0 && trace_line_parse(line, name, lineno, &req, err) &&
             trace_clock_check(&clock, &req, name, lineno, err);
        if (!ok)
            break;
        guint before = compiled_trace_is_chunks(t) ? t->chunks.touches->len : t->ids->len;
        uint64_t bytes = 0;
        double model_s;
        ok = read_session_request(s, req.job, req.path, req.ranged ? &req.range : NULL, req.time_ns, -1, NULL, FALSE,
                                  NULL, &bytes, &model_s, err);
        if (!ok) {
            if (!g_str_has_prefix((*err)->message, name))
                g_prefix_error(err, "%s:%d: ", name, lineno);
            break;
        }
        uint32_t count = (compiled_trace_is_chunks(t) ? t->chunks.touches->len : t->ids->len) - before;
        g_array_append_val(t->req_bytes, bytes);
        g_array_append_val(t->req_job, req.job);
        g_array_append_val(t->req_accesses, count);
        if (req.timed)
            g_array_append_val(t->req_time, req.time_ns);
    }
    t->timed = clock.timed;
    trace_reader_free(reader);
    return ok;
}

/* The manifests of the jobs the session opened. */
static GPtrArray *session_manifests(ReadSession *s)
{
    GPtrArray *m = g_ptr_array_new();
    GHashTableIter it;
    gpointer key, job;
    g_hash_table_iter_init(&it, s->jobs);
    while (g_hash_table_iter_next(&it, &key, &job))
        g_ptr_array_add(m, &((Job *)job)->manifest);
    return m;
}

CompiledTrace *compiled_trace_read_fd(int fd, const char *name, const uint8_t *head, size_t head_len, GError **err)
{
    GByteArray *bytes = g_byte_array_new();
    g_byte_array_append(bytes, head, (guint)head_len);
    CompiledTrace *t =
        trace_read_rest(fd, name, bytes, err) ? compiled_trace_decode(bytes->data, bytes->len, name, err) : NULL;
    g_byte_array_unref(bytes);
    return t;
}

CompiledTrace *trace_compile(const Config *cfg, const char *trace_path, gboolean null_terminated, GError **err)
{
    int fd = trace_open(trace_path, err);
    if (fd < 0)
        return NULL;
    /* the accesses of the granularity configured */
    gboolean chunks = cfg->cache.granularity == CACHE_GRANULARITY_CHUNK;
    CompiledTrace *t = compiled_trace_new(chunks ? COMPILED_TRACE_VERSION_CHUNKS : COMPILED_TRACE_VERSION);
    uint8_t head[8];
    ssize_t head_len = trace_read_head(fd, trace_path, head, sizeof head, err);
    ReadSession *s = head_len < 0 ? NULL
                   : chunks      ? read_session_open_recording_chunks(cfg, &t->chunks, err)
                                 : read_session_open_recording(cfg, t->ids, err);
    gboolean ok = s != NULL;
    uint32_t n_containers = ok ? s->ids.n_containers : 0; /* the pool every recorded id is below */
    if (ok && compiled_trace_has_magic(head, (size_t)head_len)) {
        compiled_trace_free(t);
        t = compiled_trace_read_fd(fd, trace_path, head, (size_t)head_len, err);
        ok = t != NULL && compiled_trace_check(t, s->store, trace_path, err);
    } else if (ok) {
        ok = resolve(s, t, fd, trace_path, head, (size_t)head_len, null_terminated, err);
        if (ok) {
            GPtrArray *manifests = session_manifests(s);
            compiled_trace_stamp(t, s->store, n_containers, manifests);
            g_ptr_array_unref(manifests);
        }
    }
    read_session_close(s);
    trace_close(fd);
    if (!ok)
        g_clear_pointer(&t, compiled_trace_free);
    return t;
}

gboolean trace_compile_run(const Config *cfg, const char *trace_path, gboolean null_terminated,
                           const char *out_path, GError **err)
{
    CompiledTrace *t = trace_compile(cfg, trace_path, null_terminated, err);
    if (t == NULL)
        return FALSE;
    GByteArray *bytes = g_byte_array_new();
    compiled_trace_encode(t, bytes);
    compiled_trace_free(t);
    const char *dirs[STORE_DIRS];
    store_dirs(cfg, dirs);
    OutputFile out;
    gboolean ok = output_file_open(&out, out_path, dirs, STORE_DIRS, err);
    if (ok)
        ok = output_file_finish(&out, file_write_all(out.fd, bytes->data, bytes->len, out.name, err), err);
    g_byte_array_unref(bytes);
    return ok;
}
