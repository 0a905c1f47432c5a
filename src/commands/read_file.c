/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read_file.c: read-file for one path, and the batch mode over a trace,
 * text (paths resolved per request) or compiled (detected by its magic).
 * An offline cache policy (belady, offline-static) needs the whole access
 * sequence first: its trace, text or compiled, is compiled, the sequence
 * handed to the cache, then replayed compiled; one file alone is refused. */
#include "commands/read_file.h"
#include "trace/compiled_replay.h"
#include "read/read_session.h"
#include "trace/trace_line.h"
#include "trace/trace_reader.h"
#include "trace/compiled_trace_stamp.h"
#include "trace/trace_compile.h"
#include "store/store.h"
#include "util/error.h"
#include "util/json_doc.h"
#include "util/output_file.h"
#include "util/size_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cache a request of `range` went through: restore-cache's for a
 * whole file when the config sets it, else the per-request LRU. */
static void request_cache(const ReadSession *s, const FileRange *range, const char **kind, unsigned *containers)
{
    gboolean own = range == NULL && s->restore_cache.set;
    *kind = own ? restore_cache_kind_name(s->restore_cache.kind) : "lru";
    *containers = own ? s->restore_cache.containers : REQUEST_LRU_CONTAINERS;
}

/* What read-file -o OUT prints: one line, or with --json one
 * destor.read-file document. */
static void print_single(const ReadSession *s, uint32_t job_id, const char *path, const char *output,
                         const FileRange *range, uint64_t bytes, double elapsed_ms, gboolean verified, gboolean json)
{
    uint64_t fetched = read_session_fetches(s);
    uint64_t fetched_bytes = fetched * s->store->container_size;
    double mbps = elapsed_ms > 0 ? (double)bytes / 1e3 / elapsed_ms : 0.0;
    const char *kind;
    unsigned containers;
    request_cache(s, range, &kind, &containers);
    if (!json) {
        char size[32];
        printf("read-file job %u %s: %llu bytes, %llu containers read (%s, restore-cache %s %u), %.3f s, "
               "%.1f MB/s\n", job_id, path, (unsigned long long)bytes, (unsigned long long)fetched,
               size_format(fetched_bytes, size, sizeof size), kind, containers, elapsed_ms / 1e3, mbps);
        return;
    }
    JsonBuilder *b = json_doc_new("destor.read-file", 1);
    json_doc_uint(b, "job", job_id);
    json_doc_path(b, "path", path, strlen(path));
    json_doc_path(b, "output", output, strlen(output));
    json_doc_uint(b, "bytes", bytes);
    json_doc_bool(b, "verified", verified);
    json_doc_uint(b, "containers_read", fetched);
    json_doc_uint(b, "container_bytes_read", fetched_bytes);
    json_doc_string(b, "restore_cache", kind);
    json_doc_uint(b, "restore_cache_containers", containers);
    json_doc_double(b, "elapsed_ms", elapsed_ms);
    json_doc_double(b, "mb_per_s", mbps);
    json_doc_print(b, stdout);
}

/* A DWPD write budget is credited by the trace's clock: it needs a cache
 * to spend it and requests with times (`timed`). `what` names the requests
 * in the USAGE error. */
static gboolean dwpd_applies(const Config *cfg, gboolean timed, const char *what, GError **err)
{
    if (!cache_config_enabled(&cfg->cache) || cfg->cache.write_dwpd <= 0 || timed)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                "ssd-cache-write-budget-dwpd is credited by the trace's time, and %s has none (a timed trace "
                "starts each request with '@SECONDS<TAB>': import-trace keeps a trace's times, gen-trace --rate "
                "makes them; or use ssd-cache-write-budget, bytes per request)",
                what);
    return FALSE;
}

/* The configured cache policy, when it is an offline one; else NULL. */
static const CachePolicyOps *offline_policy(const Config *cfg)
{
    const CachePolicyOps *ops = cfg->cache.policy_ops;
    return ops != NULL && ops->offline ? ops : NULL;
}

gboolean read_file_single(const Config *cfg, uint32_t job_id, const char *path,
                          const ReadFileOptions *opt, GError **err)
{
    const CachePolicyOps *offline = offline_policy(cfg);
    if (offline != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "ssd-cache-policy %s is offline: it needs the whole access sequence, so it runs only "
                    "on a trace (read-file --trace FILE --simulate)",
                    offline->name);
        return FALSE;
    }
    if (opt->verify && opt->range != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "--verify checks a whole file's digest; it cannot be combined with --offset or --length");
        return FALSE;
    }
    if (!dwpd_applies(cfg, FALSE, "one file's read", err))
        return FALSE;
    const char *output = opt->output != NULL && strcmp(opt->output, "-") != 0 ? opt->output : NULL;
    if (opt->json && output == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "--json with a single file needs -o OUT (the file's bytes go to stdout otherwise)");
        return FALSE;
    }
    /* the job, the path and the output are checked before the SSD cache
     * is opened: a mistyped command leaves the cache as it was */
    ReadSession *s = read_session_open_job(cfg, job_id, err);
    if (s == NULL)
        return FALSE;
    gint64 start = g_get_monotonic_time();
    const char *dirs[STORE_DIRS];
    store_dirs(cfg, dirs);
    OutputFile out;
    if (!read_session_find(s, job_id, path, err) || !output_file_open(&out, output, dirs, STORE_DIRS, err)) {
        read_session_close(s);
        return FALSE;
    }
    uint64_t bytes = 0;
    double model_s = 0.0;
    gboolean verified = FALSE;
    /* a whole file is checked against its digest (a forged chunk list is
     * caught) unasked when the store's digest is cheap; OUT is then put in
     * place only if it matched */
    gboolean check = opt->verify || file_digest_checked_by_default(s->store->file_digest);
    gboolean ok = read_session_open_cache(s, cfg, err) &&
                  read_session_request(s, job_id, path, opt->range, 0, out.fd, out.name, check, &verified, &bytes,
                                       &model_s, err);
    ok = output_file_finish(&out, ok, err);
    /* the file's bytes go to stdout without -o */
    if (ok && output != NULL)
        print_single(s, job_id, path, output, opt->range, bytes, (double)(g_get_monotonic_time() - start) / 1e3,
                     verified, opt->json);
    read_session_close(s);
    return ok;
}

/* Replay a compiled trace; the summary's seconds time the request loop. */
static gboolean replay_timed(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err)
{
    gint64 start = g_get_monotonic_time();
    gboolean ok = compiled_replay(s, t, sum, err);
    sum->seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    return ok;
}

/* A compiled trace whose first bytes are `head`: read the rest, check it,
 * its stamp and its granularity (before the SSD cache is opened: a trace
 * of the other granularity leaves the cache as it was), and serve it. */
static gboolean serve_compiled(ReadSession *s, const Config *cfg, int fd, const char *trace_path,
                               const uint8_t *head, size_t head_len, const ReadFileOptions *opt, TraceSummary *sum,
                               GError **err)
{
    /* --null says how text records end: nothing to a compiled trace (tools
     * that pass it for any trace holding a NUL byte may pass it here) */
    if (opt->verify) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "%s is a compiled trace: --verify needs the files' recipes (use the text trace)", trace_path);
        return FALSE;
    }
    gboolean chunk = cache_config_enabled(&cfg->cache) && cfg->cache.granularity == CACHE_GRANULARITY_CHUNK;
    CompiledTrace *t = compiled_trace_read_fd(fd, trace_path, head, head_len, err);
    gboolean ok = t != NULL && compiled_trace_check(t, s->store, trace_path, err) &&
                  compiled_replay_granularity(t, chunk, err);
    ok = ok && dwpd_applies(cfg, t->timed, trace_path, err) && read_session_open_cache(s, cfg, err) &&
         replay_timed(s, t, sum, err);
    compiled_trace_free(t);
    return ok;
}

/* Lines of a text trace read before their turn, so that their chunks can
 * be announced to the SSD chunk cache (read_session_ahead): an
 * announcement covers at most this many (READ_SESSION_AHEAD_BYTES of
 * 64 KiB ranges), and the replay holds two: the one being served and
 * the next, read on the cache's reader threads meanwhile. */
#define TRACE_LOOKAHEAD_LINES 16

typedef struct {
    char *line; /* a copy (parsing changes it) */
    int lineno;
} PendingLine;

/* Announce the chunks of the pending requests from the `from`th on (at
 * most TRACE_LOOKAHEAD_LINES), up to the first line that does not parse
 * (its turn reports it); returns how many requests the announcement
 * covered. */
static size_t announce(ReadSession *s, GQueue *pending, guint from, const char *trace_path)
{
    ReadSessionAhead reqs[TRACE_LOOKAHEAD_LINES];
    TraceRequest parsed[TRACE_LOOKAHEAD_LINES];
    char *copies[TRACE_LOOKAHEAD_LINES] = { NULL };
    size_t k = 0;
    for (GList *l = g_queue_peek_nth_link(pending, from); l != NULL && k < TRACE_LOOKAHEAD_LINES; l = l->next) {
        const PendingLine *p = l->data;
        copies[k] = g_strdup(p->line);
        if (!trace_line_parse(copies[k], trace_path, p->lineno, &parsed[k], NULL))
            break;
        reqs[k] = (ReadSessionAhead){ .job = parsed[k].job, .path = parsed[k].path,
                                      .range = parsed[k].ranged ? &parsed[k].range : NULL };
        k++;
    }
    size_t covered = read_session_ahead(s, reqs, k);
    for (size_t i = 0; i < TRACE_LOOKAHEAD_LINES; i++)
        g_free(copies[i]);
    return covered;
}

static void pending_free(gpointer p)
{
    g_free(((PendingLine *)p)->line);
    g_free(p);
}

/* Read the next record into `pending`; FALSE at the end or on a read
 * error (*read_err, reported after the lines before it are served). */
static gboolean read_pending(TraceReader *reader, GQueue *pending, GError **read_err)
{
    char *line;
    int lineno;
    if (trace_reader_next(reader, &line, &lineno, read_err) <= 0)
        return FALSE;
    PendingLine *p = g_new(PendingLine, 1);
    p->line = g_strdup(line);
    p->lineno = lineno;
    g_queue_push_tail(pending, p);
    return TRUE;
}

/* A text trace, path by path, its first record already in `pending` (or
 * at_end). With the SSD chunk cache in real mode and
 * the trace a regular file, the next lines are read ahead of their turn
 * and their chunks announced (read_session_ahead); requests are still
 * served one by one, in order. */
static gboolean serve_text(ReadSession *s, int fd, TraceReader *reader, GQueue *first, gboolean at_end,
                           GError *read_err, const char *trace_path, const ReadFileOptions *opt, TraceSummary *sum,
                           GError **err)
{
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0) {
        g_queue_clear_full(first, pending_free);
        g_clear_error(&read_err);
        destor_set_errno(err, errno, "open /dev/null");
        return FALSE;
    }
    /* a trace from a pipe or terminal is served as its lines come */
    struct stat st;
    gboolean regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    guint look = regular && read_session_reads_ahead(s) ? 2 * TRACE_LOOKAHEAD_LINES : 1;
    GQueue pending = *first;
    TraceClock clock = { 0 };
    gboolean ok = TRUE;
    size_t cur_left = 0, next_left = 0; /* pending requests announced: the window served, the next one */
    gint64 start = g_get_monotonic_time();
    while (ok) {
        while (!at_end && g_queue_get_length(&pending) < look)
            at_end = !read_pending(reader, &pending, &read_err);
        if (look > 1 && cur_left == 0) {
            cur_left = next_left > 0 ? next_left : announce(s, &pending, 0, trace_path);
            next_left = 0;
        }
        PendingLine *p = g_queue_pop_head(&pending);
        if (p == NULL) {
            if (read_err != NULL) {
                g_propagate_error(err, read_err);
                read_err = NULL;
                ok = FALSE;
            }
            break;
        }
        TraceRequest req;
        ok = trace_line_parse(p->line, trace_path, p->lineno, &req, err) &&
             trace_clock_check(&clock, &req, trace_path, p->lineno, err);
        if (ok && req.ranged && opt->verify) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "%s:%d: a range request, but --verify checks whole files only", trace_path, p->lineno);
            ok = FALSE;
        }
        gint64 t0 = g_get_monotonic_time();
        double model_s = 0.0;
        if (ok)
            ok = read_session_request(s, req.job, req.path, req.ranged ? &req.range : NULL, req.time_ns, null_fd,
                                      "/dev/null",
                                      opt->verify, NULL, &sum->bytes, &model_s, err);
        if (ok)
            trace_summary_add(sum, (double)(g_get_monotonic_time() - t0), model_s * 1e6);
        else if (err && *err && !g_str_has_prefix((*err)->message, trace_path))
            g_prefix_error(err, "%s:%d: ", trace_path, p->lineno);
        pending_free(p);
        if (cur_left > 0)
            cur_left--;
        /* the next window is read while this one is served */
        if (ok && look > 1 && next_left == 0 && g_queue_get_length(&pending) > cur_left)
            next_left = announce(s, &pending, (guint)cur_left, trace_path);
    }
    sum->seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    sum->accesses = read_session_fetches(s);
    g_queue_clear_full(&pending, pending_free);
    g_clear_error(&read_err);
    close(null_fd);
    return ok;
}

/* A text trace: its first record is read before the SSD cache is opened,
 * so that a DWPD budget over an untimed trace leaves the cache as it was. */
static gboolean serve_text_trace(ReadSession *s, const Config *cfg, int fd, const char *trace_path,
                                 const uint8_t *head, size_t head_len, const ReadFileOptions *opt, TraceSummary *sum,
                                 GError **err)
{
    TraceReader *reader = trace_reader_new(fd, trace_path, opt->null_terminated, head, head_len);
    GQueue first = G_QUEUE_INIT;
    GError *read_err = NULL;
    gboolean at_end = !read_pending(reader, &first, &read_err);
    gboolean timed = !at_end && ((PendingLine *)g_queue_peek_head(&first))->line[0] == '@';
    gboolean ok = dwpd_applies(cfg, timed, trace_path, err) && read_session_open_cache(s, cfg, err);
    if (ok)
        ok = serve_text(s, fd, reader, &first, at_end, read_err, trace_path, opt, sum, err);
    else {
        g_queue_clear_full(&first, pending_free);
        g_clear_error(&read_err);
    }
    trace_reader_free(reader);
    return ok;
}

/* An offline policy needs the trace's whole container-access sequence
 * before the first access: the trace, text or compiled, compiled and
 * checked against the store (simulation only, no --verify). */
static CompiledTrace *compile_for_offline(const Config *cfg, const CachePolicyOps *ops, const char *trace_path,
                                          const ReadFileOptions *opt, GError **err)
{
    if (!cfg->cache.simulate) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "ssd-cache-policy %s is offline (it needs the whole future access sequence): "
                    "use it with --simulate",
                    ops->name);
        return NULL;
    }
    if (opt->verify) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "--verify: the offline policy %s replays the compiled trace, which has no recipes to check",
                    ops->name);
        return NULL;
    }
    return trace_compile(cfg, trace_path, opt->null_terminated, err);
}

/* Hand the cache the very sequence the replay then performs. */
static gboolean serve_offline(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err)
{
    gboolean ok = s->cache == NULL ||
                  cache_core_prepare(s->cache, (const ContainerId *)(const void *)t->ids->data, t->ids->len, err);
    return ok && replay_timed(s, t, sum, err);
}

gboolean read_file_trace(const Config *cfg, const char *trace_path, const ReadFileOptions *opt, GError **err)
{
    const CachePolicyOps *offline = offline_policy(cfg);
    CompiledTrace *whole = NULL;
    int fd = -1;
    uint8_t head[8] = { 0 };
    ssize_t head_len = 0;
    if (offline != NULL) {
        whole = compile_for_offline(cfg, offline, trace_path, opt, err);
        if (whole == NULL)
            return FALSE;
    } else {
        fd = trace_open(trace_path, err);
        if (fd < 0)
            return FALSE;
        head_len = trace_read_head(fd, trace_path, head, sizeof head, err);
    }
    ReadSession *s = head_len < 0 ? NULL : read_session_open_store(cfg, err);
    gboolean ok = s != NULL;
    TraceSummary sum;
    trace_summary_init(&sum);
    if (ok && whole != NULL)
        ok = read_session_open_cache(s, cfg, err) && serve_offline(s, whole, &sum, err);
    else if (ok && compiled_trace_has_magic(head, (size_t)head_len))
        ok = serve_compiled(s, cfg, fd, trace_path, head, (size_t)head_len, opt, &sum, err);
    else if (ok)
        ok = serve_text_trace(s, cfg, fd, trace_path, head, (size_t)head_len, opt, &sum, err);
    if (ok)
        trace_summary_print(&sum, trace_path, s->cache, s->chunk_cache, s->simulate, opt->json, stdout);
    trace_summary_clear(&sum);
    read_session_close(s);
    compiled_trace_free(whole);
    trace_close(fd);
    return ok;
}
