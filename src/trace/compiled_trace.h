/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace.h: a trace resolved once into its access sequence: per
 * request the job, the bytes served and the accesses the read path makes,
 * in order. Version 1 (ssd-cache-granularity container) holds the
 * containers it fetches; version 2 (chunk) the chunk accesses the SSD
 * chunk cache sees: a table of the distinct chunk references and per
 * access its entry, source address and the bytes of it read. Replaying it needs no recipe lookups, so a
 * simulated cache runs at its own speed; offline policies and exporters
 * read the whole sequence from it. It is stamped with what it was resolved
 * against (store identity, container size, pool size, each job's manifest
 * checksum) so a stale one is refused. A trace whose requests have times
 * keeps them (versions 3 and 4: versions 1 and 2 with a time a request,
 * written only then, so an untimed trace's file is as before). Byte layout: docs/FORMAT.md,
 * "Compiled trace". */
#ifndef DESTOR_COMPILED_TRACE_H
#define DESTOR_COMPILED_TRACE_H

#include "read/chunk_recorder.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define COMPILED_TRACE_MAGIC "DPLCCTR1"
#define COMPILED_TRACE_VERSION 1       /* container accesses */
#define COMPILED_TRACE_VERSION_CHUNKS 2 /* chunk accesses */
/* A timed trace's file says version + this (3: container, 4: chunk). */
#define COMPILED_TRACE_VERSION_TIMED 2
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
    GArray *req_accesses;    /* uint32_t per request: its number of accesses (containers or chunks) */
    GArray *req_time;        /* uint64_t per request when timed: its time in ns, never decreasing; else empty */
    gboolean timed;
    GArray *ids;             /* version 1: ContainerId (uint32_t): all accesses, request after request */
    ChunkRecording chunks;   /* version 2: the chunk table and every chunk access (empty in version 1) */
    uint32_t version;        /* COMPILED_TRACE_VERSION or COMPILED_TRACE_VERSION_CHUNKS (either timed or not) */
} CompiledTrace;

CompiledTrace *compiled_trace_new(uint32_t version);

static inline gboolean compiled_trace_is_chunks(const CompiledTrace *t)
{
    return t->version == COMPILED_TRACE_VERSION_CHUNKS;
}
void compiled_trace_free(CompiledTrace *t);

static inline uint64_t compiled_trace_requests(const CompiledTrace *t)
{
    return t->req_bytes->len;
}

/* Request r's time in nanoseconds (0 when the trace is not timed). */
static inline uint64_t compiled_trace_time(const CompiledTrace *t, uint64_t r)
{
    return t->timed ? g_array_index(t->req_time, uint64_t, r) : 0;
}

/* Does a file starting with these bytes hold a compiled trace? */
gboolean compiled_trace_has_magic(const void *head, size_t len);

/* The file's bytes. */
void compiled_trace_encode(const CompiledTrace *t, GByteArray *out);
/* Check and decode a whole file (magic, version, sizes, CRC-32, that the
 * per-request counts add up, ids below n_containers, jobs ascending and
 * named by every request, a request serving bytes exactly when it reads a
 * container, at most COMPILED_TRACE_MAX_BYTES in all; version 2: every
 * access names a table entry, reads a non-empty part of its chunk, and a
 * request's accesses read its bytes; versions 3 and 4: times that never
 * decrease). `name` names it
 * in the INTEGRITY error. */
CompiledTrace *compiled_trace_decode(const uint8_t *buf, size_t len, const char *name, GError **err);

#endif
