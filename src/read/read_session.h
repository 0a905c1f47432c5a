/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read_session.h: what read-file keeps open across requests: the store,
 * the container source (the pool, or the SSD cache in front of it), the
 * jobs opened so far, and the per-request container LRU.
 * One request = find the recipe, fetch each container, write the bytes; in
 * simulation mode only the container ids reach the cache. A whole file is
 * read through the restore cache restore-cache configures when the config
 * sets it (restore_cache.h), a byte range through the per-request LRU. */
#ifndef DESTOR_READ_SESSION_H
#define DESTOR_READ_SESSION_H

#include "config/config.h"
#include "cache/container/cache_reader.h"
#include "read/cached_source.h"
#include "read/chunk_cache_source.h"
#include "read/chunk_recorder.h"
#include "read/chunk_source.h"
#include "read/file_output.h"
#include "read/file_range.h"
#include "read/id_source.h"
#include "read/job.h"
#include "store/store.h"

#include <glib.h>
#include <stdatomic.h>

#define REQUEST_LRU_CONTAINERS 8
/* A request served from the store (no SSD cache, not simulated) that
 * reads at least READ_PREFETCH_MIN containers has them read and checked
 * ahead by READ_PREFETCH_THREADS threads (prefetch_source.h): reading a
 * 1 GiB file is then about as fast as cat of it. Below that, starting the
 * threads would cost more than they save. */
#define READ_PREFETCH_MIN 4
#define READ_PREFETCH_THREADS 2
#define READ_PREFETCH_DEPTH 4

typedef struct {
    Store *store;
    CachedSource cached;       /* cache NULL with ssd-cache-policy none */
    CacheCore *cache;          /* = cached.cache */
    ChunkCache *chunk_cache;   /* = cached.chunk_cache (ssd-cache-granularity
                                  chunk: cache stays NULL) */
    ContainerSource *source;
    ChunkSource *chunks;
    gboolean simulate;         /* ids only: no container bytes are read */
    IdSource ids;              /* the source when simulating without a cache */
    double hdd_access_s;       /* then: the device model's time of one container read */
    GHashTable *jobs;          /* job id -> Job* */
    _Atomic uint64_t ahead_fetches; /* container reads of requests served by a source of their own
                                  (read ahead, READ_PREFETCH_MIN, a restore cache, a reader's:
                                  read_session_copy adds from any thread) */
    GMutex requests;           /* read_session_copy through the SSD chunk cache: one request at a time */
    GHashTable *announced;     /* "job:path" -> FileRecord: the records read_session_ahead decoded, each
                                  taken by the request it announced (decoded once); at most
                                  READ_SESSION_ANNOUNCED_MAX */
    RestoreCacheConfig restore_cache; /* whole files' when restore-cache is set (.set) */
} ReadSession;

/* Open a session in two steps, so that a request can be checked
 * (read_session_find) before the SSD cache is opened: a usage error then
 * leaves the cache as it was (opening one of another granularity or
 * layout rebuilds it). The first opens the store only; the second, before
 * any request, the SSD cache as configured. In simulation mode without a
 * cache (ssd-cache-policy none) no container is read: accesses are ids,
 * and each costs one modelled HDD read. */
ReadSession *read_session_open_store(const Config *cfg, GError **err);
/* The same for reading job `job_id` alone (store_open_job). */
ReadSession *read_session_open_job(const Config *cfg, uint32_t job_id, GError **err);
gboolean read_session_open_cache(ReadSession *s, const Config *cfg, GError **err);
/* Is `path` a regular file of job `job_id`? A USAGE error when not. */
gboolean read_session_find(ReadSession *s, uint32_t job_id, const char *path, GError **err);
/* A simulating session without a cache that appends every container
 * access to `log` (ContainerId): the access sequence of what it serves. */
ReadSession *read_session_open_recording(const Config *cfg, GArray *log, GError **err);
/* A simulating session without a cache whose requests take the chunk
 * cache's path (ssd-cache-granularity chunk: every chunk through
 * file_output_touch, no restore cache) and append every chunk access to
 * rec (chunk_recorder.h). */
ReadSession *read_session_open_recording_chunks(const Config *cfg, ChunkRecording *rec, GError **err);
/* Close; saves the SSD cache's metadata (a warning if that fails). */
void read_session_close(ReadSession *s);
/* Container reads of the requests served so far (per-request LRU misses). */
uint64_t read_session_fetches(const ReadSession *s);

/* Serve one request: write the file at `path` of job `job_id`, or the part
 * `range` covers (NULL: all), to fd (not touched in simulation mode). Adds
 * the bytes served to *bytes; with an SSD cache or in simulation, sets
 * *model_s to the request's modelled latency (else leaves it). With
 * `verify`, a request that covers the whole file (no range, or one from
 * offset 0 to the end or past it) is checked against the record's digest
 * (an INTEGRITY error if it differs) and *verified (unless NULL) says
 * whether it was; a part of a file cannot be. time_ns: the request's time,
 * for the SSD cache's DWPD write budget (cache_core_request_begin). */
gboolean read_session_request(ReadSession *s, uint32_t job_id, const char *path, const FileRange *range,
                              uint64_t time_ns, int fd, const char *out_name, gboolean verify, gboolean *verified, uint64_t *bytes,
                              double *model_s, GError **err);

/* A long-lived reader's pieces (the mount): the job `job_id` as the
 * session holds it (opened once, the SSD cache told of containers written
 * since: a USAGE error for a missing or deleted job), and the record of
 * the regular file `path` in it (a USAGE error when it is not one). */
Job *read_session_job(ReadSession *s, uint32_t job_id, GError **err);
FileRecord *read_session_file(ReadSession *s, uint32_t job_id, const char *path, GError **err);
/* A reader of its own over the session's SSD cache or store, for a reader
 * that serves requests from several threads at once (the mount): one for
 * each thread, each a chunk source with `containers` container buffers of
 * its own that it keeps between requests (the SSD chunk cache holds no
 * containers: then a chunk buffer of its own). What lies behind is shared:
 * the store's containers (safe from any thread) and the SSD cache (under
 * its own lock; the container cache through a reader of its own,
 * cache_reader.h, so that each request is counted as one). Real mode
 * only; free it before the session closes. */
typedef struct {
    ChunkSource *chunks;
    CacheReader *cache; /* the container cache's reader below chunks, or NULL */
} ReadSessionReader;
ReadSessionReader *read_session_reader_new(ReadSession *s, guint containers);
void read_session_reader_free(ReadSessionReader *r);
/* Hand the bytes of r (a regular file of job `job_id`; `starts`: its
 * file_output_chunk_starts, or NULL) that `range` covers to sink, through
 * `reader` (one of this session's: the chunk seam, every chunk checked by
 * its fingerprint, the SSD cache as configured) as one request of the
 * cache. Unlike read_session_request the reader keeps what it holds:
 * consecutive reads of a file reuse its containers. Sets *model_s as
 * read_session_request does. May be called from several threads at once,
 * each with a reader of its own: requests from the store and through the
 * container cache go on together (the cache does each access under its
 * lock, and counts each reader's request as one); requests through the
 * chunk cache take turns (`requests`), since it counts and models one
 * request at a time (and the containers a request read whole) and does
 * each chunk's lookup, SSD read, check and store read under its lock
 * anyway. */
gboolean read_session_copy(ReadSession *s, ReadSessionReader *reader, const FileRecord *r, uint32_t job_id,
                           const FileRange *range, const uint64_t *starts, FileOutputSink sink, void *ctx,
                           double *model_s, GError **err);

/* Does read_session_ahead do anything (the SSD chunk cache in real mode,
 * on a layout it reads ahead: chunk_cache_reads_ahead)? */
gboolean read_session_reads_ahead(const ReadSession *s);

/* One request of read_session_ahead. */
typedef struct {
    uint32_t job;
    const char *path;
    const FileRange *range; /* NULL: the whole file */
} ReadSessionAhead;

/* Real mode with the SSD chunk cache (nothing otherwise): the requests
 * that follow will be served next, in this order (a trace's next lines):
 * the chunks of as many of them as hold READ_SESSION_AHEAD_BYTES (at least
 * one request) are announced to the cache, which reads the cached ones
 * together (chunk_cache_read_ahead), so that short requests served one
 * after another still keep several SSD reads in flight. Each file's record
 * is kept for the request's turn (read_session_file takes it). A request whose
 * file cannot be found is skipped (its own turn reports it). Returns how
 * many requests were covered (0 when nothing was announced). */
size_t read_session_ahead(ReadSession *s, const ReadSessionAhead *reqs, size_t n);
/* 1 MiB, as file_output announces a request's own chunks. */
#define READ_SESSION_AHEAD_BYTES (1u << 20)
/* Records of announced requests kept for their turn: the two windows a
 * trace replay announces (read_file.c) with room to spare; past it they
 * are all let go (each request then decodes its own). */
#define READ_SESSION_ANNOUNCED_MAX 64u

#endif
