/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compact.h: gc's copying of the live chunks out of containers holding
 * less than gc-live-threshold of their size in live chunks, so that those
 * containers can be freed whole.
 *
 * The records are rewritten, not forwarded: each live job that names a
 * moved chunk gets a new job_meta_data (the same records, the same sizes
 * and offsets, only the chunk references changed), written beside as
 * job_meta_data.new, fsynced and renamed over the old one. The recipe
 * index (path -> record offset and length) and the manifest stay as they
 * are. A forwarding map would keep the records primary and untouched, but
 * every reader (restore, read-file, verify, trace compile, a chunk cache)
 * would consult it on every chunk forever, and it would only grow; a
 * rewrite costs gc one sequential pass over records it reads anyway.
 *
 * Order (gc.h): the copies are written into new containers (ids past every
 * id given out), their chunks put in the fingerprint index (marked DIRTY)
 * and the containers synced, all before any record names them; then the
 * records are rewritten job by job. A kill at any point leaves every live
 * job naming chunks that exist: the old ones until its rename, the synced
 * copies after. Only then are the old containers listed freed. */
#ifndef DESTOR_COMPACT_H
#define DESTOR_COMPACT_H

#include "index/fp_index.h"
#include "store/store.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint32_t containers_copied;  /* emptied: their live chunks copied out */
    uint32_t containers_written; /* new containers holding the copies */
    uint64_t chunks_moved;
    uint64_t container_bytes_read, container_bytes_written;
    uint32_t jobs_rewritten;
} CompactReport;

/* Copy the live chunks (`live`, sealed live_chunks.h) of the containers
 * `from` (ascending) into new containers from id `first` (the store's next,
 * store_next_container) on, put them in `idx` (begun) and sync the store.
 * moved[i] (parallel to live, filled with live's own entries by the caller)
 * becomes the new location of each chunk copied. On failure the copies
 * written so far stay, for the caller to take back
 * (container_store_discard). */
gboolean compact_copy(Store *store, FpIndex *idx, ContainerId first, const GArray *from, const GArray *live,
                      GArray *moved, CompactReport *r, GError **err);
/* Point every live job's records at the copies: is_from[c] says container
 * c was emptied; live and moved as compact_copy left them. */
gboolean compact_rewrite_jobs(Store *store, const gboolean *is_from, uint32_t n, const GArray *live,
                              const GArray *moved, CompactReport *r, GError **err);

#endif
