/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_replay.c: the request loop over a compiled trace. */
#include "trace/compiled_replay.h"
#include "util/error.h"

gboolean compiled_replay(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err)
{
    const uint32_t *ids = (const uint32_t *)(const void *)t->ids->data;
    const uint32_t *counts = (const uint32_t *)(const void *)t->req_accesses->data;
    const uint64_t *bytes = (const uint64_t *)(const void *)t->req_bytes->data;
    uint64_t n_req = compiled_trace_requests(t);
    if (s->chunk_cache != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "a compiled trace holds container accesses, not chunks: with ssd-cache-granularity chunk, "
                    "replay the text trace");
        return FALSE;
    }
    uint8_t *buf = s->simulate ? NULL : g_malloc(s->store->container_size);
    gboolean ok = TRUE;
    size_t next = 0;
    for (uint64_t r = 0; r < n_req && ok; r++) {
        double model_s = 0.0, wall_s = 0.0;
        if (s->cache && s->simulate) { /* the cache core's own loop: one lock, its clock */
            ok = cache_core_request_ids(s->cache, ids + next, counts[r], &model_s, &wall_s, err);
        } else {
            gint64 t0 = g_get_monotonic_time();
            if (s->cache)
                cache_core_request_begin(s->cache);
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
