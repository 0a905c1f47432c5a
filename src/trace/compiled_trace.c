/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace.c: the compiled trace's encoding and its checking decoder. */
#include "trace/compiled_trace.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/le.h"

#include <string.h>

#define JOB_ENTRY_SIZE 8
#define REQUEST_ENTRY_SIZE 16
#define CHUNK_ENTRY_SIZE 44 /* fingerprint slot 32, container, offset, length */
#define TOUCH_ENTRY_SIZE 20 /* chunk entry, touch offset, touch length, address u64 */

CompiledTrace *compiled_trace_new(uint32_t version)
{
    g_assert(version == COMPILED_TRACE_VERSION || version == COMPILED_TRACE_VERSION_CHUNKS);
    CompiledTrace *t = g_new0(CompiledTrace, 1);
    t->version = version;
    t->chunks.chunks = g_array_new(FALSE, FALSE, sizeof(ChunkRef));
    t->chunks.touches = g_array_new(FALSE, FALSE, sizeof(ChunkTouch));
    t->jobs = g_array_new(FALSE, FALSE, sizeof(CompiledTraceJob));
    t->req_bytes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    t->req_job = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->req_accesses = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    t->req_time = g_array_new(FALSE, FALSE, sizeof(uint64_t));
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
    g_array_unref(t->req_time);
    g_array_unref(t->ids);
    g_array_unref(t->chunks.chunks);
    g_array_unref(t->chunks.touches);
    g_free(t);
}

gboolean compiled_trace_has_magic(const void *head, size_t len)
{
    return len >= 8 && memcmp(head, COMPILED_TRACE_MAGIC, 8) == 0;
}

/* The bytes after the request entries: container ids (version 1), or the
 * chunk table and the chunk accesses (version 2), then the times of a
 * timed trace. */
static size_t sequence_size(const CompiledTrace *t)
{
    size_t times = t->timed ? (size_t)compiled_trace_requests(t) * 8 : 0;
    if (!compiled_trace_is_chunks(t))
        return (size_t)t->ids->len * 4 + times;
    return (size_t)t->chunks.chunks->len * CHUNK_ENTRY_SIZE + (size_t)t->chunks.touches->len * TOUCH_ENTRY_SIZE +
           times;
}

/* Returns the end of what it wrote. */
static uint8_t *encode_chunks(const CompiledTrace *t, uint8_t *q)
{
    for (guint i = 0; i < t->chunks.chunks->len; i++, q += CHUNK_ENTRY_SIZE) {
        const ChunkRef *r = &g_array_index(t->chunks.chunks, ChunkRef, i);
        G_STATIC_ASSERT(sizeof r->fp.bytes == 32);
        memcpy(q, r->fp.bytes, 32);
        le32_put(q + 32, r->container);
        le32_put(q + 36, r->offset);
        le32_put(q + 40, r->length);
    }
    for (guint i = 0; i < t->chunks.touches->len; i++, q += TOUCH_ENTRY_SIZE) {
        const ChunkTouch *x = &g_array_index(t->chunks.touches, ChunkTouch, i);
        le32_put(q, x->chunk);
        le32_put(q + 4, x->touch_offset);
        le32_put(q + 8, x->touch_length);
        le64_put(q + 12, x->address);
    }
    return q;
}

void compiled_trace_encode(const CompiledTrace *t, GByteArray *out)
{
    gboolean chunks = compiled_trace_is_chunks(t);
    g_assert(t->req_time->len == (t->timed ? t->req_bytes->len : 0));
    uint64_t n_req = compiled_trace_requests(t), n_ids = chunks ? t->chunks.touches->len : t->ids->len;
    size_t len = COMPILED_TRACE_HEADER_SIZE + (size_t)t->jobs->len * JOB_ENTRY_SIZE + n_req * REQUEST_ENTRY_SIZE +
                 sequence_size(t) + 4;
    guint start = out->len;
    g_byte_array_set_size(out, start + (guint)len);
    uint8_t *p = out->data + start;
    memset(p, 0, COMPILED_TRACE_HEADER_SIZE);
    memcpy(p, COMPILED_TRACE_MAGIC, 8);
    le32_put(p + 8, t->version + (t->timed ? COMPILED_TRACE_VERSION_TIMED : 0));
    le32_put(p + 12, COMPILED_TRACE_HEADER_SIZE);
    memcpy(p + 16, t->store_id, COMPILED_TRACE_ID_SIZE);
    le32_put(p + 32, t->container_size);
    le32_put(p + 36, t->n_containers);
    le32_put(p + 40, t->jobs->len);
    le32_put(p + 44, chunks ? t->chunks.chunks->len : 0);
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
    if (chunks)
        q = encode_chunks(t, q);
    else
        for (uint64_t i = 0; i < n_ids; i++, q += 4)
            le32_put(q, g_array_index(t->ids, uint32_t, i));
    for (guint i = 0; i < t->req_time->len; i++, q += 8)
        le64_put(q, g_array_index(t->req_time, uint64_t, i));
    g_assert(q == p + len - 4);
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

/* Version 2's chunk table and accesses from q; the requests are decoded. */
static CompiledTrace *decode_chunks(CompiledTrace *t, const uint8_t *q, uint32_t n_chunks, uint64_t n_touches,
                                    const char *name, GError **err)
{
    g_array_set_size(t->chunks.chunks, n_chunks);
    for (uint32_t i = 0; i < n_chunks; i++, q += CHUNK_ENTRY_SIZE) {
        ChunkRef *r = &g_array_index(t->chunks.chunks, ChunkRef, i);
        memcpy(r->fp.bytes, q, 32);
        r->container = le32_get(q + 32);
        r->offset = le32_get(q + 36);
        r->length = le32_get(q + 40);
        if (r->container >= t->n_containers)
            return damaged(t, err, name, "a container id past the pool it was compiled against");
        if (r->length == 0 || r->length > t->container_size || r->offset > t->container_size - r->length)
            return damaged(t, err, name, "a chunk outside its container");
    }
    g_array_set_size(t->chunks.touches, (guint)n_touches);
    const uint32_t *counts = (const uint32_t *)(const void *)t->req_accesses->data;
    const uint64_t *bytes = (const uint64_t *)(const void *)t->req_bytes->data;
    uint64_t next = 0;
    for (guint r = 0; r < t->req_accesses->len; r++) {
        uint64_t read = 0;
        for (uint32_t k = 0; k < counts[r]; k++, next++, q += TOUCH_ENTRY_SIZE) {
            ChunkTouch *x = &g_array_index(t->chunks.touches, ChunkTouch, next);
            x->chunk = le32_get(q);
            x->touch_offset = le32_get(q + 4);
            x->touch_length = le32_get(q + 8);
            x->address = le64_get(q + 12);
            if (x->chunk >= n_chunks)
                return damaged(t, err, name, "an access names a chunk the table does not hold");
            uint32_t length = g_array_index(t->chunks.chunks, ChunkRef, x->chunk).length;
            if (x->touch_length == 0 || x->touch_length > length || x->touch_offset > length - x->touch_length)
                return damaged(t, err, name, "an access reads outside its chunk");
            read += x->touch_length;
        }
        if (read != bytes[r])
            return damaged(t, err, name, "a request's bytes and its chunk accesses disagree");
    }
    return t;
}

CompiledTrace *compiled_trace_decode(const uint8_t *buf, size_t len, const char *name, GError **err)
{
    if (len < COMPILED_TRACE_HEADER_SIZE + 4 || !compiled_trace_has_magic(buf, len))
        return damaged(NULL, err, name, "no compiled-trace header");
    uint32_t version = le32_get(buf + 8);
    gboolean timed = version > COMPILED_TRACE_VERSION_TIMED;
    if (timed)
        version -= COMPILED_TRACE_VERSION_TIMED;
    if ((version != COMPILED_TRACE_VERSION && version != COMPILED_TRACE_VERSION_CHUNKS) ||
        le32_get(buf + 12) != COMPILED_TRACE_HEADER_SIZE)
        return damaged(NULL, err, name, "unknown version");
    gboolean chunks = version == COMPILED_TRACE_VERSION_CHUNKS;
    uint32_t n_jobs = le32_get(buf + 40), n_chunks = le32_get(buf + 44);
    uint64_t n_req = le64_get(buf + 48), n_ids = le64_get(buf + 56);
    uint64_t id_size = chunks ? TOUCH_ENTRY_SIZE : 4;
    /* each count is bounded by the length before anything is multiplied */
    size_t body = len - COMPILED_TRACE_HEADER_SIZE - 4;
    if (!chunks && n_chunks != 0)
        return damaged(NULL, err, name, "a chunk table in a container trace");
    uint64_t request_size = REQUEST_ENTRY_SIZE + (timed ? 8 : 0); /* a timed request's time too */
    if (n_jobs > body / JOB_ENTRY_SIZE || n_req > body / request_size || n_ids > body / id_size ||
        n_chunks > body / CHUNK_ENTRY_SIZE ||
        (uint64_t)n_jobs * JOB_ENTRY_SIZE + n_req * request_size + (uint64_t)n_chunks * CHUNK_ENTRY_SIZE +
                n_ids * id_size !=
            body)
        return damaged(NULL, err, name, "its length does not match its counts");
    if (le32_get(buf + len - 4) != checksum_crc32(CHECKSUM_CRC32_START, buf, len - 4))
        return damaged(NULL, err, name, "checksum mismatch");
    if (n_ids > G_MAXUINT || n_req > G_MAXUINT)
        return damaged(NULL, err, name, "too many entries");
    CompiledTrace *t = compiled_trace_new(version);
    t->timed = timed;
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
        /* every byte served comes from a container (a chunk) the request reads */
        if ((bytes == 0) != (count == 0))
            return damaged(t, err, name, "a request's bytes and its accesses disagree");
        /* the replay's summary adds them up and reports the sum exactly */
        if (bytes > COMPILED_TRACE_MAX_BYTES - served)
            return damaged(t, err, name, "its requests serve more bytes than a replay can count");
        served += bytes;
    }
    if (total != n_ids)
        return damaged(t, err, name, "the requests' accesses do not add up to the sequence");
    if (timed) { /* the last 8R bytes before the CRC */
        const uint8_t *tq = buf + len - 4 - 8 * n_req;
        g_array_set_size(t->req_time, (guint)n_req);
        uint64_t *times = (uint64_t *)(void *)t->req_time->data;
        for (uint64_t i = 0; i < n_req; i++, tq += 8) {
            times[i] = le64_get(tq);
            if (i > 0 && times[i] < times[i - 1])
                return damaged(t, err, name, "a request's time before the previous request's");
        }
    }
    if (chunks)
        return decode_chunks(t, q, n_chunks, n_ids, name, err);
    g_array_set_size(t->ids, (guint)n_ids);
    uint32_t *ids = (uint32_t *)(void *)t->ids->data;
    for (uint64_t i = 0; i < n_ids; i++, q += 4) {
        ids[i] = le32_get(q);
        if (ids[i] >= t->n_containers)
            return damaged(t, err, name, "a container id past the pool it was compiled against");
    }
    return t;
}
