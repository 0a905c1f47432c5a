/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.h: garbage collection (`destor gc`): give back the space of every
 * container no live job references.
 *
 * Liveness comes from the primary data alone: the chunk references of
 * every live job's records (job_meta_data), never from derived counts
 * (a rados store's records read again from its cluster first,
 * store_refresh_records).
 * A container no live record names and that still holds data is dead; a
 * container whose live chunks fill less than gc-live-threshold of it is
 * emptied (compact.h: its live chunks copied into new containers and the
 * records pointed at the copies), then freed. In this order, so that a kill
 * at any step leaves every live job readable and the next writer or gc
 * finishes the work, and so that a full disk gets the dead containers' room
 * before anything is copied:
 *   1. the fingerprint index is marked DIRTY (a kill from here on rebuilds
 *      it from the containers the store still holds);
 *   2. the dead containers are listed and freed, as in 4 and 5; when
 *      copies follow, they are only freed (their room given back), made
 *      durable by 3's sync and listed by 3's publication (a publication and
 *      a sync less; a kill before leaves them unlisted, freed or not, which
 *      no record names and the next gc frees or lists, as in 5);
 *   3. the copies are written, indexed and synced; the freed list is
 *      published again with the store's count, which vouches for them
 *      (store_committed_containers); the reference counts are marked
 *      stale and the records rewritten (compact.h). A failure before that
 *      publication takes the copies back (container_store_discard);
 *   4. the list of freed containers (freed_list.h) is published with the
 *      emptied ids: they are gone from here on, whatever is still on disk;
 *   5. the containers are freed (through the ContainerStore: a hole punched
 *      in the pool, a file unlinked) and the store synced; when the list
 *      found no room in 4 (a full disk), it is published now, in the room
 *      freed (a kill between leaves freed containers unlisted, which no
 *      record names and the next gc lists);
 *   6. the index entries naming freed containers are removed and the index
 *      committed; the reference counts are counted again;
 *   7. the records, recipe indexes and file_status of deleted jobs are
 *      removed (their manifest, tombstone and reference counts stay: ids
 *      never come back),
 *      not synced: a crash that undoes a removal leaves records of a
 *      deleted job, which nothing reads, and the next gc removes them.
 * Steps 1 to 7 run only while gc holds the readers' lock exclusively
 * (reader_lock.h): with a reader open, nothing is written or freed and the
 * report says how many containers wait for the next gc. A failure (a full
 * disk while copying) stops gc with nothing freed that a live record names
 * and an error saying what the user can do; the next gc starts over from
 * the records, and one with gc-live-threshold 0 needs no room. */
#ifndef DESTOR_GC_H
#define DESTOR_GC_H

#include "lifecycle/compact.h"
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
    uint32_t sparse;           /* referenced, but less than the threshold live */
    CompactReport compact;     /* copying the sparse ones' live chunks out */
    uint32_t freed;            /* dead and emptied containers freed now */
    uint64_t reclaimed_bytes;  /* freed * container size */
    uint64_t index_entries_removed;
    uint64_t index_entries_restored; /* put back at a surviving copy (index_survivors.h) */
    uint32_t jobs_collected;   /* deleted jobs whose records were removed */
    uint32_t uncommitted_objects; /* a rados store's objects of jobs killed before their commit, removed */
    gboolean deferred;         /* a reader held the store: nothing freed */
} GcReport;

/* Called after each job scanned, each 64 containers freed, and at the end. */
typedef void (*GcProgressFn)(const GcReport *r, void *ctx);

/* Collect the store opened as a writer, emptying containers less than
 * `live_threshold` (0..1, gc-live-threshold) live; *r is filled as it goes. */
gboolean lifecycle_gc(Store *store, double live_threshold, GcProgressFn progress, void *ctx, GcReport *r,
                      GError **err);

#endif
