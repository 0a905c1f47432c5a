/* read_session.h: what read-file keeps open across requests: the store,
 * the container source, the jobs opened so far, and per-request counters.
 * One request = find the recipe, fetch each container once, write bytes. */
#ifndef DESTOR_READ_SESSION_H
#define DESTOR_READ_SESSION_H

#include "config.h"
#include "restore/container_lru.h"
#include "restore/job.h"
#include "store.h"

#include <glib.h>

#define REQUEST_LRU_CONTAINERS 8

typedef struct {
    Store *store;
    ContainerSource *source;
    ContainerLru *lru;
    GHashTable *jobs; /* job id -> Job* */
} ReadSession;

ReadSession *read_session_open(const Config *cfg, GError **err);
void read_session_close(ReadSession *s);

/* Serve one request: write the file at `path` of job `job_id` to fd.
 * Adds the file's size to *bytes. */
gboolean read_session_request(ReadSession *s, uint32_t job_id, const char *path, int fd,
                              const char *out_name, gboolean verify, uint64_t *bytes, GError **err);

#endif
