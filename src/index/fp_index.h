/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_index.h: the exact-dedup fingerprint index.
 *
 * Every fingerprint ever stored lives in a Berkeley DB hash file in the
 * working directory; a backup's lookups go to the design the config
 * chooses (fp_design.h): the exact index (the job's new fingerprints in
 * memory, then the DB) or the near-exact sampled index (samples and a
 * locality cache in memory; the DB only written). The DB is derived
 * data: a DIRTY marker exists while it may disagree with the container pool
 * (a job is running or was killed), and opening a dirty, missing or damaged
 * index rebuilds it from the containers' metadata sections. */
#ifndef DESTOR_FP_INDEX_H
#define DESTOR_FP_INDEX_H

#include "index/fp_index_params.h"
#include "storage/container_source.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    ContainerId container;
    uint32_t offset;
    uint32_t length;
} ChunkLocation;

typedef struct {
    Fingerprint fp;
    ChunkLocation loc;
} FpIndexEntry;

typedef struct FpIndex FpIndex;

/* Open (creating) the index in `dir`; the caller holds the store's writer
 * lock. `params` chooses the design that answers lookups (NULL: exact; gc
 * and repair, which look nothing up). Removes what a killed process left of creating the DB; if the index
 * was left dirty, rebuilds it from the `container_count` containers of
 * `pool` first. A clean index that is missing, fails to open as damaged, or
 * lacks the chunks of the newest sound container (a cheap spot check) is
 * rebuilt too, with one destor: line on stderr saying so. A lookup or write
 * that meets a damaged page later rebuilds it the same way and goes on. */
FpIndex *fp_index_open(const char *dir, size_t fp_len, ContainerSource *pool, uint32_t container_count,
                       const FpIndexParams *params, GError **err);
/* The same, rebuilding the DB from the pool whatever its state (repair),
 * without reading the containers `skip` names (gc's freed ones: their
 * chunks must not come back into the index; NULL skips none). */
FpIndex *fp_index_rebuild(const char *dir, size_t fp_len, ContainerSource *pool, uint32_t container_count,
                          gboolean (*skip)(ContainerId id, void *ctx), void *skip_ctx, GError **err);
/* The containers (ContainerId) its latest rebuild could not read back
 * sound and left out, in order; NULL if it was not rebuilt. */
const GArray *fp_index_unreadable(const FpIndex *idx);
void fp_index_close(FpIndex *idx);

/* Every entry of the DB in `dir` (FpIndexEntry), read-only and without the
 * writer lock (verify). A missing DB gives no entries and *exists FALSE;
 * a page failing its checksum or a malformed entry is an INTEGRITY error. */
GArray *fp_index_read_all(const char *dir, size_t fp_len, gboolean *exists, GError **err);

/* Read container `id` of `pool` into `buf`, as the designs and rebuilds do:
 * a container that does not read back sound (torn, or freed by gc since
 * something named it) sets *sound FALSE and is not an error. FALSE only
 * when the read fails otherwise (I/O). */
gboolean fp_index_read_sound(ContainerSource *pool, ContainerId id, uint8_t *buf, gboolean *sound, GError **err);

/* Is the index in `dir` marked dirty (a backup or gc is running or was
 * stopped)? Without the writer lock only a hint. */
gboolean fp_index_marked_dirty(const char *dir);
/* Mark the index in `dir` dirty without opening it (durably): the next
 * open rebuilds it from the containers (another machine's gc freed some). */
gboolean fp_index_mark_stale(const char *dir, GError **err);

/* Mark the index dirty (durably) before the job adds anything; opening
 * marks it already (so this is then free), committing clears the mark. A
 * backup's exact index over a pool that holds containers, clean at open,
 * is opened read-only instead and marked at its first write: a job that
 * writes nothing to it syncs no mark in or out. */
gboolean fp_index_begin_job(FpIndex *idx, GError **err);
/* Flush the DB, save what the design keeps beside it, and clear the dirty
 * mark; call after the containers it names are fsynced. */
gboolean fp_index_commit_job(FpIndex *idx, GError **err);

/* Is fp stored? Found only with the location of a chunk a container holds
 * under the full fingerprint; a near-exact design may say not found for a
 * stored chunk (a missed duplicate), never the reverse. */
gboolean fp_index_lookup(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err);

/* Does the design look ahead (fp_index_segment)? */
gboolean fp_index_takes_segments(const FpIndex *idx);
/* The next n lookups are of these fingerprints, in order: a design that
 * looks ahead (SiLo) prepares for them; the others ignore it. */
gboolean fp_index_segment(FpIndex *idx, const Fingerprint *fps, guint n, GError **err);

/* Remember a new chunk in memory (visible to lookups at once). */
void fp_index_add(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc);
/* Write the chunks of one sealed container, already in the pool, to the DB
 * (a fingerprint stored twice keeps its newest copy there, and is marked in
 * index/COPIES at the commit). */
gboolean fp_index_persist_container(FpIndex *idx, const uint8_t *container, size_t size, GError **err);
/* gc: the same for a container of copies (compact.h) whose originals are
 * freed before fp_index_commit_job: not counted as stored twice (a kill
 * before the commit leaves DIRTY, and the rebuild counts them). */
gboolean fp_index_persist_copies(FpIndex *idx, const uint8_t *container, size_t size, GError **err);
/* No fingerprint is stored twice (index/COPIES and DUPLICATES are absent:
 * every second copy a job put or a rebuild met, a gc stopped midway, is
 * marked there, since index/COUNTED says so) and the design is exact: a
 * live job's reference to a chunk names where a lookup finds it. */
gboolean fp_index_single_copies(const FpIndex *idx);

/* gc: remove every entry whose container `dropped` says is freed (*count:
 * how many), appending the first 8 bytes of each removed fingerprint (as a
 * uint64_t) to `removed` unless it is NULL: another copy of one may live on
 * (a rewritten chunk's older copy) and be put back with fp_index_put. Call
 * between fp_index_begin_job and fp_index_commit_job. */
gboolean fp_index_drop_containers(FpIndex *idx, gboolean (*dropped)(ContainerId id, void *ctx), void *ctx,
                                  GArray *removed, uint64_t *count, GError **err);
/* gc: write one entry to the DB (under the DIRTY mark). */
gboolean fp_index_put(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc, GError **err);
/* The first 8 bytes of a fingerprint, as fp_index_drop_containers gives them. */
uint64_t fp_index_prefix(const Fingerprint *fp);

/* Keep every entry fp_index_persist_container puts from now on: a rados
 * store's writer publishes a job's new entries with the job
 * (store_index.h). */
void fp_index_keep_new(FpIndex *idx);
/* The kept entries (FpIndexEntry), in the order they were put. */
const GArray *fp_index_new_entries(const FpIndex *idx);

/* The index in `dir` opened as a cache that is filled from elsewhere (a
 * rados store's cluster, store_index.h), under the writer lock: marked
 * dirty, its DB emptied first with `fresh`; fill it with fp_index_put and
 * close it with fp_index_cache_commit, which drops what the designs keep
 * beside the DB (they rebuild it). No design answers lookups. */
FpIndex *fp_index_open_cache(const char *dir, size_t fp_len, gboolean fresh, GError **err);
gboolean fp_index_cache_commit(FpIndex *idx, GError **err);

/* What the index did in this job: its RAM, disk lookups, missed duplicates. */
void fp_index_stats(FpIndex *idx, FpIndexStats *st);

/* Entries in the DB (for stat). */
gboolean fp_index_count(FpIndex *idx, uint64_t *count, GError **err);

#endif
