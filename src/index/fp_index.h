/* fp_index.h: the exact-dedup fingerprint index.
 *
 * New fingerprints of the running job live in an in-memory table; every
 * fingerprint ever stored lives in a Berkeley DB hash file in the working
 * directory, so a later job in a new process finds them. The DB is derived
 * data: a DIRTY marker exists while it may disagree with the container pool
 * (a job is running or was killed), and opening a dirty index rebuilds it
 * from the containers' metadata sections. */
#ifndef DESTOR_FP_INDEX_H
#define DESTOR_FP_INDEX_H

#include "storage/container_source.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    ContainerId container;
    uint32_t offset;
    uint32_t length;
} ChunkLocation;

typedef struct FpIndex FpIndex;

/* Open (creating) the index in `dir`; the caller holds the store's writer
 * lock. Removes what a killed process left of creating the DB; if the index
 * was left dirty, rebuilds it from the `container_count` containers of
 * `pool` first. */
FpIndex *fp_index_open(const char *dir, size_t fp_len, ContainerSource *pool,
                       uint32_t container_count, GError **err);
void fp_index_close(FpIndex *idx);

/* Mark the index dirty (durably) before the job adds anything. */
gboolean fp_index_begin_job(FpIndex *idx, GError **err);
/* Flush the DB and clear the dirty mark; call after the containers it names
 * are fsynced. */
gboolean fp_index_commit_job(FpIndex *idx, GError **err);

gboolean fp_index_lookup(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err);

/* Remember a new chunk in memory (visible to lookups at once). */
void fp_index_add(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc);
/* Write the chunks of one sealed container to the DB. */
gboolean fp_index_persist_container(FpIndex *idx, const uint8_t *container, size_t size, GError **err);

/* Entries in the DB (for stat). */
gboolean fp_index_count(FpIndex *idx, uint64_t *count, GError **err);

#endif
