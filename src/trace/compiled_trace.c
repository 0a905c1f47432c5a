/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace.c: the compiled trace's encoding and its checking decoder. */
#include "trace/compiled_trace.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/le.h"

#include <string.h>

#define JOB_ENTRY_SIZE 8
#define REQUEST_ENTRY_SIZE 16

CompiledTrace *compiled_trace_new(void)
{
    CompiledTrace *t = g_new0(CompiledTrace, 1);
    t->jobs = g_array_new(FALSE, FALSE, sizeof(CompiledTraceJob));
    t->req_bytes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    t->req_job = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->req_accesses = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return t;
}

void compiled_trace_free(CompiledTrace *t)
{
    if (t == NULL)
        return;
    g_array_unref(t->jobs);
    g_array_unref(t->req_bytes);
    g_array_unref(t->req_job);
    g_array_unref(t->req_accesses);
    g_array_unref(t->ids);
    g_free(t);
}

gboolean compiled_trace_has_magic(const void *head, size_t len)
{
    return len >= 8 && memcmp(head, COMPILED_TRACE_MAGIC, 8) == 0;
}

void compiled_trace_encode(const CompiledTrace *t, GByteArray *out)
{
    uint64_t n_req = compiled_trace_requests(t), n_ids = t->ids->len;
    size_t len = COMPILED_TRACE_HEADER_SIZE + (size_t)t->jobs->len * JOB_ENTRY_SIZE + n_req * REQUEST_ENTRY_SIZE +
                 n_ids * 4 + 4;
    guint start = out->len;
    g_byte_array_set_size(out, start + (guint)len);
    uint8_t *p = out->data + start;
    memset(p, 0, COMPILED_TRACE_HEADER_SIZE);
    memcpy(p, COMPILED_TRACE_MAGIC, 8);
    le32_put(p + 8, COMPILED_TRACE_VERSION);
    le32_put(p + 12, COMPILED_TRACE_HEADER_SIZE);
    memcpy(p + 16, t->store_id, COMPILED_TRACE_ID_SIZE);
    le32_put(p + 32, t->container_size);
    le32_put(p + 36, t->n_containers);
    le32_put(p + 40, t->jobs->len);
    le64_put(p + 48, n_req);
    le64_put(p + 56, n_ids);
    uint8_t *q = p + COMPILED_TRACE_HEADER_SIZE;
    for (guint i = 0; i < t->jobs->len; i++, q += JOB_ENTRY_SIZE) {
        const CompiledTraceJob *j = &g_array_index(t->jobs, CompiledTraceJob, i);
        le32_put(q, j->job_id);
        le32_put(q + 4, j->manifest_checksum);
    }
    for (uint64_t i = 0; i < n_req; i++, q += REQUEST_ENTRY_SIZE) {
        le64_put(q, g_array_index(t->req_bytes, uint64_t, i));
        le32_put(q + 8, g_array_index(t->req_job, uint32_t, i));
        le32_put(q + 12, g_array_index(t->req_accesses, uint32_t, i));
    }
    for (uint64_t i = 0; i < n_ids; i++, q += 4)
        le32_put(q, g_array_index(t->ids, uint32_t, i));
    le32_put(q, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
}

static CompiledTrace *damaged(CompiledTrace *t, GError **err, const char *name, const char *what)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "compiled trace %s is damaged: %s", name, what);
    compiled_trace_free(t);
    return NULL;
}

static gboolean has_job(const CompiledTrace *t, uint32_t job)
{
    guint lo = 0, hi = t->jobs->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        uint32_t v = g_array_index(t->jobs, CompiledTraceJob, mid).job_id;
        if (v == job)
            return TRUE;
        if (v < job)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

CompiledTrace *compiled_trace_decode(const uint8_t *buf, size_t len, const char *name, GError **err)
{
    if (len < COMPILED_TRACE_HEADER_SIZE + 4 || !compiled_trace_has_magic(buf, len))
        return damaged(NULL, err, name, "no compiled-trace header");
    if (le32_get(buf + 8) != COMPILED_TRACE_VERSION || le32_get(buf + 12) != COMPILED_TRACE_HEADER_SIZE)
        return damaged(NULL, err, name, "unknown version");
    uint32_t n_jobs = le32_get(buf + 40);
    uint64_t n_req = le64_get(buf + 48), n_ids = le64_get(buf + 56);
    /* each count is bounded by the length before anything is multiplied */
    size_t body = len - COMPILED_TRACE_HEADER_SIZE - 4;
    if (n_jobs > body / JOB_ENTRY_SIZE || n_req > body / REQUEST_ENTRY_SIZE || n_ids > body / 4 ||
        (uint64_t)n_jobs * JOB_ENTRY_SIZE + n_req * REQUEST_ENTRY_SIZE + n_ids * 4 != body)
        return damaged(NULL, err, name, "its length does not match its counts");
    if (le32_get(buf + len - 4) != checksum_crc32(CHECKSUM_CRC32_START, buf, len - 4))
        return damaged(NULL, err, name, "checksum mismatch");
    if (n_ids > G_MAXUINT || n_req > G_MAXUINT)
        return damaged(NULL, err, name, "too many entries");
    CompiledTrace *t = compiled_trace_new();
    memcpy(t->store_id, buf + 16, COMPILED_TRACE_ID_SIZE);
    t->container_size = le32_get(buf + 32);
    t->n_containers = le32_get(buf + 36);
    if (t->container_size == 0)
        return damaged(t, err, name, "container size 0");
    const uint8_t *q = buf + COMPILED_TRACE_HEADER_SIZE;
    g_array_set_size(t->jobs, n_jobs);
    for (uint32_t i = 0; i < n_jobs; i++, q += JOB_ENTRY_SIZE) {
        CompiledTraceJob *j = &g_array_index(t->jobs, CompiledTraceJob, i);
        j->job_id = le32_get(q);
        j->manifest_checksum = le32_get(q + 4);
        if (i > 0 && j->job_id <= j[-1].job_id)
            return damaged(t, err, name, "jobs out of order");
    }
    g_array_set_size(t->req_bytes, (guint)n_req);
    g_array_set_size(t->req_job, (guint)n_req);
    g_array_set_size(t->req_accesses, (guint)n_req);
    uint64_t total = 0, served = 0;
    for (uint64_t i = 0; i < n_req; i++, q += REQUEST_ENTRY_SIZE) {
        uint32_t job = le32_get(q + 8), count = le32_get(q + 12);
        uint64_t bytes = le64_get(q);
        g_array_index(t->req_bytes, uint64_t, i) = bytes;
        g_array_index(t->req_job, uint32_t, i) = job;
        g_array_index(t->req_accesses, uint32_t, i) = count;
        total += count;
        if (!has_job(t, job))
            return damaged(t, err, name, "a request names a job the trace does not list");
        /* every byte served comes from a container the request reads */
        if ((bytes == 0) != (count == 0))
            return damaged(t, err, name, "a request's bytes and its container accesses disagree");
        /* the replay's summary adds them up and reports the sum exactly */
        if (bytes > COMPILED_TRACE_MAX_BYTES - served)
            return damaged(t, err, name, "its requests serve more bytes than a replay can count");
        served += bytes;
    }
    if (total != n_ids)
        return damaged(t, err, name, "the requests' accesses do not add up to the sequence");
    g_array_set_size(t->ids, (guint)n_ids);
    uint32_t *ids = (uint32_t *)(void *)t->ids->data;
    for (uint64_t i = 0; i < n_ids; i++, q += 4) {
        ids[i] = le32_get(q);
        if (ids[i] >= t->n_containers)
            return damaged(t, err, name, "a container id past the pool it was compiled against");
    }
    return t;
}
