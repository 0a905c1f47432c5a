/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.h: garbage collection (`destor gc`): give back the space of every
 * container no live job references.
 *
 * Liveness comes from the primary data alone: the chunk references of
 * every live job's records (job_meta_data), never from derived counts.
 * A container no live record names and that still holds data is freed
 * through the ContainerStore (a hole punched in the pool, a file unlinked),
 * in this order, so that a kill at any step leaves every live job readable
 * and the next writer finishes the work:
 *   1. the fingerprint index is marked DIRTY (a kill from here on rebuilds
 *      it from the containers the store still holds);
 *   2. the list of freed containers (freed_list.h) is published with the
 *      new ids: they are gone from here on, whatever is still on disk;
 *   3. the containers are freed and the store synced;
 *   4. the index entries naming them are removed and the index committed;
 *   5. the records and recipe indexes of deleted jobs are removed (their
 *      manifest, tombstone and reference counts stay: ids never come back).
 * Steps 1 to 5 run only while gc holds the readers' lock exclusively
 * (reader_lock.h): with a reader open, nothing is freed and the report says
 * how many containers wait for the next gc. Containers are freed whole;
 * copying the live chunks out of half-empty ones (compaction) is not done. */
#ifndef DESTOR_GC_H
#define DESTOR_GC_H

#include "store/store.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint32_t containers;       /* ids in the store */
    uint32_t live_jobs;        /* jobs whose records were read */
    uint32_t jobs_scanned;     /* so far (progress) */
    uint64_t recipe_bytes_read; /* job_meta_data bytes read */
    uint32_t referenced;       /* containers a live record names */
    uint32_t already_freed;    /* freed by an earlier gc */
    uint32_t dead;             /* unreferenced containers still holding data */
    uint32_t freed;            /* of them, freed now */
    uint64_t reclaimed_bytes;  /* freed * container size */
    uint64_t index_entries_removed;
    uint32_t jobs_collected;   /* deleted jobs whose records were removed */
    gboolean deferred;         /* a reader held the store: nothing freed */
} GcReport;

/* Called after each job scanned and each 64 containers freed. */
typedef void (*GcProgressFn)(const GcReport *r, void *ctx);

/* Collect the store opened as a writer; *r is filled as it goes. */
gboolean lifecycle_gc(Store *store, GcProgressFn progress, void *ctx, GcReport *r, GError **err);

#endif
