/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace.h: a trace resolved once into its container-access
 * sequence: per request the job, the bytes served and the containers the
 * read path fetches, in order. Replaying it needs no recipe lookups, so a
 * simulated cache runs at its own speed; offline policies and exporters
 * read the whole sequence from it. It is stamped with what it was resolved
 * against (store identity, container size, pool size, each job's manifest
 * checksum) so a stale one is refused. Byte layout: docs/FORMAT.md,
 * "Compiled trace". */
#ifndef DESTOR_COMPILED_TRACE_H
#define DESTOR_COMPILED_TRACE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define COMPILED_TRACE_MAGIC "DPLCCTR1"
#define COMPILED_TRACE_VERSION 1
#define COMPILED_TRACE_HEADER_SIZE 64
#define COMPILED_TRACE_ID_SIZE 16
/* The most bytes a trace's requests may serve in all (a JSON integer). */
#define COMPILED_TRACE_MAX_BYTES ((uint64_t)INT64_MAX)

typedef struct {
    uint32_t job_id;
    uint32_t manifest_checksum; /* JobManifest.checksum when compiled */
} CompiledTraceJob;

typedef struct {
    uint8_t store_id[COMPILED_TRACE_ID_SIZE]; /* store.meta's identity (UUID); zero if it has none */
    uint32_t container_size;
    uint32_t n_containers;   /* the pool's containers when compiled: every id is below */
    GArray *jobs;            /* CompiledTraceJob, ascending job id */
    GArray *req_bytes;       /* uint64_t per request: bytes served */
    GArray *req_job;         /* uint32_t per request */
    GArray *req_accesses;    /* uint32_t per request: its number of container accesses */
    GArray *ids;             /* ContainerId (uint32_t): all accesses, request after request */
} CompiledTrace;

CompiledTrace *compiled_trace_new(void);
void compiled_trace_free(CompiledTrace *t);

static inline uint64_t compiled_trace_requests(const CompiledTrace *t)
{
    return t->req_bytes->len;
}

/* Does a file starting with these bytes hold a compiled trace? */
gboolean compiled_trace_has_magic(const void *head, size_t len);

/* The file's bytes. */
void compiled_trace_encode(const CompiledTrace *t, GByteArray *out);
/* Check and decode a whole file (magic, version, sizes, CRC-32, that the
 * per-request counts add up, ids below n_containers, jobs ascending and
 * named by every request, a request serving bytes exactly when it reads a
 * container, at most COMPILED_TRACE_MAX_BYTES in all). `name` names it
 * in the INTEGRITY error. */
CompiledTrace *compiled_trace_decode(const uint8_t *buf, size_t len, const char *name, GError **err);

#endif
