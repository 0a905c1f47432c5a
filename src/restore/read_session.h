/* read_session.h: what read-file keeps open across requests: the store,
 * the container source (the pool, or the SSD cache in front of it), the
 * jobs opened so far, and the per-request container LRU.
 * One request = find the recipe, fetch each container, write the bytes; in
 * simulation mode only the container ids reach the cache. */
#ifndef DESTOR_READ_SESSION_H
#define DESTOR_READ_SESSION_H

#include "config.h"
#include "restore/cached_source.h"
#include "restore/container_lru.h"
#include "restore/job.h"
#include "store.h"

#include <glib.h>

#define REQUEST_LRU_CONTAINERS 8

typedef struct {
    Store *store;
    CachedSource cached;       /* cache NULL with ssd-cache-policy none */
    CacheCore *cache;          /* = cached.cache */
    ContainerSource *source;
    ContainerLru *lru;
    gboolean simulate;         /* ids only: no container bytes are read */
    GHashTable *jobs;          /* job id -> Job* */
} ReadSession;

ReadSession *read_session_open(const Config *cfg, GError **err);
/* Close; saves the SSD cache's metadata (a warning if that fails). */
void read_session_close(ReadSession *s);

/* Serve one request: write the file at `path` of job `job_id` to fd (not
 * touched in simulation mode). Adds the file's size to *bytes; with an SSD
 * cache, sets *model_s to the request's modelled latency (else leaves it). */
gboolean read_session_request(ReadSession *s, uint32_t job_id, const char *path, int fd,
                              const char *out_name, gboolean verify, uint64_t *bytes, double *model_s,
                              GError **err);

#endif
