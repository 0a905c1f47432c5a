/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read_session.c: the open store, SSD cache and job table behind read-file. */
#include "read/read_session.h"
#include "read/chunk_recorder.h"
#include "read/container_chunks.h"
#include "read/prefetch_source.h"
#include "read/restore_cache.h"
#include "util/error.h"

#include <string.h>

static gboolean open_cache(ReadSession *s, const Config *cfg, GError **err)
{
    if (!cached_source_open(&s->cached, cfg, s->store, err))
        return FALSE;
    s->chunk_cache = s->cached.chunk_cache;
    if (s->chunk_cache != NULL) {
        s->simulate = cfg->cache.simulate;
        return TRUE;
    }
    s->cache = s->cached.cache;
    if (s->cache == NULL) /* the SSD failed: read from the store */
        return TRUE;
    s->source = cache_core_source(s->cache);
    s->simulate = cache_core_mode(s->cache) == CACHE_MODE_SIMULATE;
    return TRUE;
}

/* Accesses as ids: no bytes, each a modelled HDD read (or logged). */
static gboolean use_ids(ReadSession *s, const Config *cfg, GArray *log, GError **err)
{
    uint32_t n;
    if (!container_store_count(s->store->containers, &n, err))
        return FALSE;
    id_source_init(&s->ids, s->store->container_size, n, log);
    s->source = &s->ids.source;
    s->simulate = TRUE;
    s->hdd_access_s = device_model_hdd_service(&cfg->cache.device, s->store->container_size);
    return TRUE;
}

/* The session over `store` (NULL: its open failed, said why). */
static ReadSession *open_session(const Config *cfg, Store *store)
{
    if (store == NULL)
        return NULL;
    ReadSession *s = g_new0(ReadSession, 1);
    s->store = store;
    s->source = container_store_source(store->containers);
    s->jobs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)job_close);
    s->restore_cache = cfg->restore_cache;
    g_mutex_init(&s->requests);
    s->announced = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)file_record_free);
    return s;
}

ReadSession *read_session_open_store(const Config *cfg, GError **err)
{
    return open_session(cfg, store_open_read(cfg, err));
}

ReadSession *read_session_open_job(const Config *cfg, uint32_t job_id, GError **err)
{
    return open_session(cfg, store_open_job(cfg, job_id, err));
}

/* The SSD cache as configured (none when recording), or the ids of a
 * simulation without one, and the session's chunk source over it. */
static gboolean open_sources(ReadSession *s, const Config *cfg, gboolean recording, GArray *log, GError **err)
{
    gboolean ok = TRUE;
    if (!recording && cache_config_enabled(&cfg->cache))
        ok = open_cache(s, cfg, err);
    if (ok && s->cache == NULL && s->chunk_cache == NULL && (recording || cfg->cache.simulate))
        ok = use_ids(s, cfg, log, err);
    if (!ok)
        return FALSE;
    s->chunks = s->chunk_cache ? chunk_cache_source_new(s->chunk_cache)
              : s->simulate ? container_chunks_new_ids_only(s->source, REQUEST_LRU_CONTAINERS)
                            : container_chunks_new(s->source, REQUEST_LRU_CONTAINERS);
    return TRUE;
}

gboolean read_session_open_cache(ReadSession *s, const Config *cfg, GError **err)
{
    return open_sources(s, cfg, FALSE, NULL, err);
}

/* A recording session: no SSD cache, ids only. */
static ReadSession *open_recording(const Config *cfg, GArray *log, GError **err)
{
    ReadSession *s = read_session_open_store(cfg, err);
    if (s != NULL && !open_sources(s, cfg, TRUE, log, err)) {
        read_session_close(s);
        return NULL;
    }
    return s;
}

ReadSession *read_session_open_recording(const Config *cfg, GArray *log, GError **err)
{
    return open_recording(cfg, log, err);
}

ReadSession *read_session_open_recording_chunks(const Config *cfg, ChunkRecording *rec, GError **err)
{
    ReadSession *s = open_recording(cfg, NULL, err);
    if (s == NULL)
        return NULL;
    /* the chunk cache's path: every file through file_output_touch, no
     * restore cache */
    s->restore_cache.set = FALSE;
    chunk_source_free(s->chunks);
    s->chunks = chunk_recorder_new(rec, s->ids.n_containers);
    return s;
}

void read_session_close(ReadSession *s)
{
    if (s == NULL)
        return;
    chunk_source_free(s->chunks);
    cached_source_close(&s->cached);
    g_hash_table_destroy(s->announced);
    g_hash_table_destroy(s->jobs);
    store_close(s->store);
    g_mutex_clear(&s->requests);
    g_free(s);
}

/* A job committed since the session opened may name containers written
 * since, which the pool serves: let the SSD cache, or the ids a simulation
 * without one counts, reach them too. A recording session (trace compile)
 * keeps the pool it stamps its output with. */
static gboolean follow_store(ReadSession *s, GError **err)
{
    if (s->cache != NULL)
        return cached_source_follow(&s->cached, s->store, err);
    if (s->simulate && s->ids.log == NULL)
        return container_store_count(s->store->containers, &s->ids.n_containers, err);
    return TRUE;
}

Job *read_session_job(ReadSession *s, uint32_t job_id, GError **err)
{
    Job *job = g_hash_table_lookup(s->jobs, GUINT_TO_POINTER(job_id));
    if (job == NULL) {
        job = job_open(s->store, job_id, err);
        if (job != NULL && !follow_store(s, err)) {
            job_close(job);
            job = NULL;
        }
        if (job != NULL)
            g_hash_table_insert(s->jobs, GUINT_TO_POINTER(job_id), job);
    }
    return job;
}

/* The key of a request's record in s->announced. */
static char *announced_key(uint32_t job, const char *path)
{
    return g_strdup_printf("%u:%s", job, path);
}

gboolean read_session_reads_ahead(const ReadSession *s)
{
    return s->chunk_cache != NULL && !s->simulate && chunk_cache_reads_ahead(s->chunk_cache);
}

size_t read_session_ahead(ReadSession *s, const ReadSessionAhead *reqs, size_t n)
{
    if (!read_session_reads_ahead(s))
        return 0;
    GArray *refs = g_array_new(FALSE, FALSE, sizeof(ChunkRef));
    uint64_t bytes = 0;
    size_t covered = 0;
    while (covered < n && bytes < READ_SESSION_AHEAD_BYTES) {
        const ReadSessionAhead *q = &reqs[covered++];
        Job *job = read_session_job(s, q->job, NULL);
        FileRecord *r = job != NULL ? job_find(job, q->path, NULL) : NULL;
        if (r == NULL || r->type != ENTRY_FILE) {
            file_record_free(r);
            continue;
        }
        guint first, last;
        file_output_span(r, q->range, &first, &last);
        for (guint i = first; i < last; i++) {
            const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
            g_array_append_val(refs, *c);
            bytes += c->length;
        }
        char *key = announced_key(q->job, q->path);
        if (g_hash_table_size(s->announced) >= READ_SESSION_ANNOUNCED_MAX)
            g_hash_table_remove_all(s->announced); /* requests announced and never served */
        if (g_hash_table_contains(s->announced, key)) { /* announced twice: the second decodes its own */
            g_free(key);
            file_record_free(r);
        } else {
            g_hash_table_insert(s->announced, key, r);
        }
    }
    if (refs->len > 0)
        chunk_cache_read_ahead(s->chunk_cache, (const ChunkRef *)(const void *)refs->data, refs->len);
    g_array_unref(refs);
    return covered;
}

uint64_t read_session_fetches(const ReadSession *s)
{
    return chunk_source_fetches(s->chunks) + s->ahead_fetches;
}

/* The container reads serving r (or its range) will make through a
 * per-request LRU, in order. */
static GArray *request_plan(ReadSession *s, const FileRecord *r, const FileRange *range)
{
    IdSource ids;
    GArray *plan = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    id_source_init(&ids, s->store->container_size, UINT32_MAX, plan);
    ChunkSource *chunks = container_chunks_new_ids_only(&ids.source, REQUEST_LRU_CONTAINERS);
    /* An id no store can hold ends the plan there: the real read reports it. */
    (void)file_output_touch(chunks, r, 0, range, NULL);
    chunk_source_free(chunks);
    return plan;
}

/* Write r (or its range) from the store; its containers read ahead when
 * there are enough of them. */
static gboolean write_from_store(ReadSession *s, const FileRecord *r, uint32_t job_id, const FileRange *range,
                                 int fd, const char *out_name, FileDigestAlgorithm verify, GError **err)
{
    GArray *plan = request_plan(s, r, range);
    if (plan->len < READ_PREFETCH_MIN) {
        g_array_unref(plan);
        return file_output_write(s->chunks, r, job_id, range, fd, out_name, verify, err);
    }
    PrefetchSource *ahead = prefetch_source_new(s->source, plan, READ_PREFETCH_DEPTH, READ_PREFETCH_THREADS);
    ChunkSource *chunks = container_chunks_new(prefetch_source_source(ahead), REQUEST_LRU_CONTAINERS);
    gboolean ok = file_output_write(chunks, r, job_id, range, fd, out_name, verify, err);
    s->ahead_fetches += chunk_source_fetches(chunks);
    chunk_source_free(chunks);
    prefetch_source_free(ahead);
    return ok;
}

/* A whole file through a restore cache of its own (restore-cache set):
 * over the SSD cache, the ids of a simulation, or the store, read ahead in
 * the order the cache will read when that is enough containers. *fetched:
 * its container reads. */
static gboolean write_whole(ReadSession *s, const FileRecord *r, uint32_t job_id, int fd, const char *out_name,
                            FileDigestAlgorithm verify, uint64_t *fetched, GError **err)
{
    const RestoreCacheConfig *rc = &s->restore_cache;
    ContainerSource *src = s->source;
    PrefetchSource *ahead = NULL;
    if (!s->simulate && s->cache == NULL) {
        GArray *plan = restore_cache_plan(rc, s->store->container_size, chunk_stream_file(r), chunk_stream_file(r));
        if (plan->len < READ_PREFETCH_MIN) {
            g_array_unref(plan);
        } else {
            ahead = prefetch_source_new(s->source, plan, READ_PREFETCH_DEPTH, READ_PREFETCH_THREADS);
            src = prefetch_source_source(ahead);
        }
    }
    ChunkSource *chunks = restore_cache_new(rc, src, chunk_stream_file(r), s->simulate);
    gboolean ok = s->simulate ? file_output_touch(chunks, r, job_id, NULL, err)
                              : file_output_write(chunks, r, job_id, NULL, fd, out_name, verify, err);
    *fetched = chunk_source_fetches(chunks);
    s->ahead_fetches += *fetched;
    chunk_source_free(chunks);
    prefetch_source_free(ahead);
    return ok;
}

/* The record of `path` in job job_id: as read_session_ahead decoded it,
 * or decoded now. */
static FileRecord *find_record(ReadSession *s, uint32_t job_id, const char *path, GError **err)
{
    if (g_hash_table_size(s->announced) > 0) {
        char *key = announced_key(job_id, path);
        gpointer k, r;
        gboolean found = g_hash_table_steal_extended(s->announced, key, &k, &r);
        g_free(key);
        if (found) {
            g_free(k);
            return r;
        }
    }
    Job *job = read_session_job(s, job_id, err);
    return job != NULL ? job_find(job, path, err) : NULL;
}

FileRecord *read_session_file(ReadSession *s, uint32_t job_id, const char *path, GError **err)
{
    FileRecord *r = find_record(s, job_id, path, err);
    if (r == NULL)
        return NULL;
    size_t len = strlen(path);
    if (r->type == ENTRY_FILE && len > 1 && path[len - 1] == '/') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "'%s' in job %u: not a directory (a regular file)", path,
                    job_id);
    } else if (r->type != ENTRY_FILE) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "'%s' in job %u is a %s, not a regular file", path,
                    job_id, r->type == ENTRY_DIR ? "directory" : "symlink");
    } else {
        return r;
    }
    file_record_free(r);
    return NULL;
}

gboolean read_session_find(ReadSession *s, uint32_t job_id, const char *path, GError **err)
{
    FileRecord *r = read_session_file(s, job_id, path, err);
    file_record_free(r);
    return r != NULL;
}

ReadSessionReader *read_session_reader_new(ReadSession *s, guint containers)
{
    g_assert(!s->simulate && containers > 0);
    ReadSessionReader *r = g_new0(ReadSessionReader, 1);
    if (s->chunk_cache != NULL) {
        r->chunks = chunk_cache_source_new(s->chunk_cache);
        return r;
    }
    if (s->cache != NULL)
        r->cache = cache_reader_new(s->cache);
    r->chunks = container_chunks_new(r->cache != NULL ? cache_reader_source(r->cache) : s->source, containers);
    return r;
}

void read_session_reader_free(ReadSessionReader *r)
{
    if (r == NULL)
        return;
    chunk_source_free(r->chunks);
    if (r->cache != NULL)
        cache_reader_free(r->cache);
    g_free(r);
}

/* The cache's request bracket around one read: begin. */
static void request_begin(ReadSession *s, uint64_t time_ns)
{
    if (s->cache)
        cache_core_request_begin(s->cache, time_ns);
    if (s->chunk_cache)
        chunk_cache_request_begin(s->chunk_cache, time_ns);
}

gboolean read_session_request(ReadSession *s, uint32_t job_id, const char *path, const FileRange *range,
                              uint64_t time_ns, int fd, const char *out_name, gboolean verify, gboolean *verified, uint64_t *bytes,
                              double *model_s, GError **err)
{
    FileRecord *r = read_session_file(s, job_id, path, err);
    if (r == NULL)
        return FALSE;
    gboolean ok = TRUE;
    chunk_source_clear(s->chunks); /* each request fetches its containers afresh */
    uint64_t fetched = chunk_source_fetches(s->chunks), own = 0;
    request_begin(s, time_ns);
    gboolean whole = range == NULL || (range->offset == 0 && range->length >= r->size);
    FileDigestAlgorithm check = verify && whole && !s->simulate ? s->store->file_digest : FILE_DIGEST_NONE;
    if (verified != NULL)
        *verified = check != FILE_DIGEST_NONE;
    if (range == NULL && s->restore_cache.set && s->chunk_cache == NULL)
        ok = write_whole(s, r, job_id, fd, out_name, check, &own, err);
    else if (s->simulate)
        ok = file_output_touch(s->chunks, r, job_id, range, err);
    else if (s->cache != NULL || s->chunk_cache != NULL) /* the cache decides what it reads */
        ok = file_output_write(s->chunks, r, job_id, range, fd, out_name, check, err);
    else
        ok = write_from_store(s, r, job_id, range, fd, out_name, check, err);
    if (s->cache)
        *model_s = cache_core_request_end(s->cache);
    else if (s->chunk_cache)
        *model_s = chunk_cache_request_end(s->chunk_cache);
    else if (s->simulate) /* HDD only: one modelled read per access */
        *model_s = (double)(chunk_source_fetches(s->chunks) - fetched + own) * s->hdd_access_s;
    uint64_t start, end;
    file_range_clip(range, r->size, &start, &end);
    if (ok)
        *bytes += end - start;
    file_record_free(r);
    return ok;
}

gboolean read_session_copy(ReadSession *s, ReadSessionReader *reader, const FileRecord *r, uint32_t job_id,
                           const FileRange *range, const uint64_t *starts, FileOutputSink sink, void *ctx,
                           double *model_s, GError **err)
{
    g_assert(!s->simulate && r->type == ENTRY_FILE);
    g_assert((reader->cache != NULL) == (s->cache != NULL));
    gboolean ok;
    if (s->chunk_cache != NULL) { /* its sources count the cache's HDD reads: the session's own does */
        g_mutex_lock(&s->requests);
        chunk_cache_request_begin(s->chunk_cache, 0); /* the mount's requests have no time */
        ok = file_output_copy(reader->chunks, r, job_id, range, starts, sink, ctx, FILE_DIGEST_NONE, err);
        *model_s = chunk_cache_request_end(s->chunk_cache);
        g_mutex_unlock(&s->requests);
        return ok;
    }
    uint64_t fetched = chunk_source_fetches(reader->chunks);
    if (reader->cache != NULL)
        cache_reader_request_begin(reader->cache);
    ok = file_output_copy(reader->chunks, r, job_id, range, starts, sink, ctx, FILE_DIGEST_NONE, err);
    if (reader->cache != NULL)
        *model_s = cache_reader_request_end(reader->cache);
    atomic_fetch_add(&s->ahead_fetches, chunk_source_fetches(reader->chunks) - fetched);
    return ok;
}
