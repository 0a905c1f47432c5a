/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_replay.c: the request loop over a compiled trace. */
#include "trace/compiled_replay.h"
#include "storage/container.h"
#include "util/error.h"

/* Real mode on a layout that reads ahead: the chunks of the requests to
 * come are announced to the cache as the text replay announces them (a
 * window of whole requests of about READ_SESSION_AHEAD_BYTES, two windows
 * ahead: the one served and the next, read meanwhile). Announcements are
 * hints; every decision is still chunk_cache_read's. */
typedef struct {
    gboolean on;
    uint64_t req;     /* the first request not announced yet */
    size_t touch;     /* its first access */
    uint64_t end[2];  /* the announced windows still ahead: their ends */
    int windows;
    GArray *refs;
} Lookahead;

static void announce(ReadSession *s, const CompiledTrace *t, Lookahead *la)
{
    const ChunkRef *table = (const ChunkRef *)(const void *)t->chunks.chunks->data;
    const ChunkTouch *touches = (const ChunkTouch *)(const void *)t->chunks.touches->data;
    const uint32_t *counts = (const uint32_t *)(const void *)t->req_accesses->data;
    uint64_t n_req = compiled_trace_requests(t), bytes = 0;
    g_array_set_size(la->refs, 0);
    do {
        for (uint32_t i = 0; i < counts[la->req]; i++) {
            const ChunkRef *ref = &table[touches[la->touch + i].chunk];
            g_array_append_val(la->refs, *ref);
            bytes += ref->length;
        }
        la->touch += counts[la->req++];
    } while (la->req < n_req && bytes < READ_SESSION_AHEAD_BYTES);
    if (la->refs->len > 0)
        chunk_cache_read_ahead(s->chunk_cache, (const ChunkRef *)(const void *)la->refs->data, la->refs->len);
    la->end[la->windows++] = la->req;
}

/* Before request r: drop the window served, keep two announced. */
static void look_ahead(ReadSession *s, const CompiledTrace *t, Lookahead *la, uint64_t r)
{
    if (!la->on)
        return;
    if (la->windows > 0 && r >= la->end[0]) {
        la->end[0] = la->end[1];
        la->windows--;
    }
    while (la->windows < 2 && la->req < compiled_trace_requests(t))
        announce(s, t, la);
}

static gint by_container(gconstpointer a, gconstpointer b, gpointer table)
{
    const ChunkRef *refs = table;
    ContainerId x = refs[*(const guint *)a].container, y = refs[*(const guint *)b].container;
    return x < y ? -1 : x > y;
}

/* Simulation reads no chunk, so nothing would notice a chunk table naming,
 * at a container's offset, another chunk than the one stored there (real
 * mode's fetch checks each chunk it reads, container_check_chunk): before
 * the first request every container the table names is read once from the
 * store and each entry checked against its metadata. A container that
 * cannot be read, or an entry it does not list, is an INTEGRITY error. */
static gboolean check_table(ReadSession *s, const CompiledTrace *t, GError **err)
{
    const ChunkRef *refs = (const ChunkRef *)(const void *)t->chunks.chunks->data;
    guint n = t->chunks.chunks->len;
    guint *order = g_new(guint, n);
    for (guint i = 0; i < n; i++)
        order[i] = i;
    g_qsort_with_data(order, (gint)n, sizeof *order, by_container, (gpointer)refs);
    ContainerSource *store = container_store_source(s->store->containers);
    size_t size = s->store->container_size;
    uint8_t *buf = g_malloc(size);
    gboolean ok = TRUE;
    for (guint i = 0; i < n && ok; i++) {
        const ChunkRef *r = &refs[order[i]];
        if (i == 0 || r->container != refs[order[i - 1]].container)
            ok = container_source_read(store, r->container, buf, err);
        ok = ok && container_check_chunk(buf, size, r->container, &r->fp, r->offset, r->length, err);
        if (!ok)
            g_prefix_error(err, "the compiled trace's chunk table (entry %u): ", order[i]);
    }
    g_free(buf);
    g_free(order);
    return ok;
}

/* A version-2 trace through the SSD chunk cache: each recorded access one
 * chunk_cache_touch (simulation) or chunk_cache_read (real mode), at its
 * recorded position, requests bracketed as read_session_request does. */
static gboolean replay_chunks(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err)
{
    const ChunkRef *refs = (const ChunkRef *)(const void *)t->chunks.chunks->data;
    const ChunkTouch *touches = (const ChunkTouch *)(const void *)t->chunks.touches->data;
    const uint32_t *counts = (const uint32_t *)(const void *)t->req_accesses->data;
    const uint64_t *bytes = (const uint64_t *)(const void *)t->req_bytes->data;
    uint64_t n_req = compiled_trace_requests(t);
    uint8_t *buf = NULL;
    uint32_t buf_size = 0;
    gboolean ok = TRUE;
    size_t next = 0;
    if (s->simulate && !check_table(s, t, err))
        return FALSE;
    Lookahead la = { .on = !s->simulate && read_session_reads_ahead(s) };
    la.refs = g_array_new(FALSE, FALSE, sizeof(ChunkRef));
    for (uint64_t r = 0; r < n_req && ok; r++) {
        look_ahead(s, t, &la, r);
        gint64 t0 = g_get_monotonic_time();
        chunk_cache_request_begin(s->chunk_cache, compiled_trace_time(t, r));
        for (uint32_t i = 0; i < counts[r] && ok; i++) {
            const ChunkTouch *x = &touches[next + i];
            const ChunkRef *ref = &refs[x->chunk];
            ChunkCachePosition pos = { x->address, x->touch_offset, x->touch_length };
            if (s->simulate) {
                ok = chunk_cache_touch(s->chunk_cache, ref, &pos, err);
                continue;
            }
            if (buf_size < ref->length) {
                buf = g_realloc(buf, ref->length);
                buf_size = ref->length;
            }
            ok = chunk_cache_read(s->chunk_cache, ref, &pos, buf, err);
        }
        double model_s = chunk_cache_request_end(s->chunk_cache);
        if (!ok) {
            g_prefix_error(err, "compiled trace request %llu: ", (unsigned long long)r + 1);
            break;
        }
        next += counts[r];
        sum->bytes += bytes[r];
        trace_summary_add(sum, (double)(g_get_monotonic_time() - t0), model_s * 1e6);
    }
    /* as the text replay counts them: the reads that reached the store */
    sum->accesses = read_session_fetches(s);
    g_array_unref(la.refs);
    g_free(buf);
    return ok;
}

gboolean compiled_replay_granularity(const CompiledTrace *t, gboolean chunk_cache, GError **err)
{
    if (compiled_trace_is_chunks(t) != chunk_cache) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    compiled_trace_is_chunks(t)
                        ? "the compiled trace holds chunk accesses: replay it with ssd-cache-granularity chunk "
                          "and an ssd-cache-policy, or compile the trace again at container granularity"
                        : "the compiled trace holds container accesses: with ssd-cache-granularity chunk, compile "
                          "the trace again at chunk granularity (destor -p \"ssd-cache-granularity chunk\" trace "
                          "compile)");
        return FALSE;
    }
    return TRUE;
}

gboolean compiled_replay(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err)
{
    if (!compiled_replay_granularity(t, s->chunk_cache != NULL, err))
        return FALSE;
    if (s->chunk_cache != NULL)
        return replay_chunks(s, t, sum, err);
    const uint32_t *ids = (const uint32_t *)(const void *)t->ids->data;
    const uint32_t *counts = (const uint32_t *)(const void *)t->req_accesses->data;
    const uint64_t *bytes = (const uint64_t *)(const void *)t->req_bytes->data;
    uint64_t n_req = compiled_trace_requests(t);
    uint8_t *buf = s->simulate ? NULL : g_malloc(s->store->container_size);
    gboolean ok = TRUE;
    size_t next = 0;
    for (uint64_t r = 0; r < n_req && ok; r++) {
        double model_s = 0.0, wall_s = 0.0;
        if (s->cache && s->simulate) { /* the cache core's own loop: one lock, its clock */
            ok = cache_core_request_ids(s->cache, ids + next, counts[r], compiled_trace_time(t, r), &model_s, &wall_s,
                                        err);
        } else {
            gint64 t0 = g_get_monotonic_time();
            if (s->cache)
                cache_core_request_begin(s->cache, compiled_trace_time(t, r));
            for (uint32_t i = 0; i < counts[r] && ok; i++)
                ok = container_source_read(s->source, ids[next + i], buf, err);
            if (s->cache)
                model_s = cache_core_request_end(s->cache);
            else if (s->simulate)
                model_s = counts[r] * s->hdd_access_s;
            wall_s = (double)(g_get_monotonic_time() - t0) / 1e6;
        }
        if (!ok) {
            g_prefix_error(err, "compiled trace request %llu: ", (unsigned long long)r + 1);
            break;
        }
        next += counts[r];
        sum->bytes += bytes[r];
        sum->accesses += counts[r];
        trace_summary_add(sum, wall_s * 1e6, model_s * 1e6);
    }
    g_free(buf);
    return ok;
}
