/* SPDX-License-Identifier: GPL-3.0-or-later */
/* record_cache.h: the file records a read session decoded last, by job and
 * path, so that the requests of one file (a trace's ranges of it, a request
 * announced ahead and then served) decode its record once: a request for
 * a 64 KiB range otherwise reads and decodes the whole file's chunk list.
 * Each record handed out is a file_record_share of the one kept (its
 * arrays shared, never changed once decoded: a job's records are final).
 * The least recently used go first past a bound of chunk references. One
 * thread at a time. */
#ifndef DESTOR_READ_RECORD_CACHE_H
#define DESTOR_READ_RECORD_CACHE_H

#include "recipe/file_record.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The chunk references a session keeps decoded: 256 Ki (about 12 MiB of
 * ChunkRef), the chunk lists of 2 GiB of files at the default 8 KiB
 * average chunk. Fixed by that memory, as the chunk cache's read-ahead
 * bound is (a few MiB a session), not measured. */
#define RECORD_CACHE_CHUNKS (256u * 1024u)

typedef struct RecordCache RecordCache;

RecordCache *record_cache_new(size_t max_chunks);
void record_cache_free(RecordCache *rc);
/* The record of `path` in job `job` (a share: free it), or NULL. */
FileRecord *record_cache_get(RecordCache *rc, uint32_t job, const char *path);
/* Keep a share of r as the record of `path` in job `job` (the most
 * recent); a record of more than the bound's chunks is not kept. */
void record_cache_put(RecordCache *rc, uint32_t job, const char *path, const FileRecord *r);
/* Chunk references kept now. */
size_t record_cache_chunks(const RecordCache *rc);

#endif
