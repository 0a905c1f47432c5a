/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store_cluster.h: a `rados` store's metadata in its RADOS namespace, beside
 * the containers (docs/FORMAT.md, "The store in the cluster"): store.meta,
 * the job catalog (an omap whose entry per job is the job's commit), each
 * job's records, recipe index (an omap, path -> record), reference counts
 * and utilization, the tombstones, the freed list and the stale-refcount
 * mark. The cluster's copy is the store; the working directory is a cache
 * of it that every open brings up to date (store_cluster_pull), so any
 * working directory given the conf opens the store, and losing one loses
 * nothing. Writers (under the store's RADOS lock) write each piece to the
 * cluster before the working directory's copy: what the working directory
 * holds, the cluster holds. The fingerprint index is store_index.h's. */
#ifndef DESTOR_STORE_CLUSTER_H
#define DESTOR_STORE_CLUSTER_H

#include "storage/container_store.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_CLUSTER_META_OBJECT "destor.meta"
#define STORE_CLUSTER_JOBS_OBJECT "destor.jobs"
#define STORE_CLUSTER_FREED_OBJECT "destor.freed"
#define STORE_CLUSTER_DIRTY_OBJECT "destor.refcount-dirty"
/* The command that moves an older rados store's local metadata in. */
#define STORE_CLUSTER_MIGRATE_COMMAND "destor rados-migrate"

typedef struct StoreCluster StoreCluster;

/* Connect to `target`'s pool and namespace (rados_cluster.h's errors). */
StoreCluster *store_cluster_open(const ContainerStoreRados *target, GError **err);
void store_cluster_close(StoreCluster *sc);

/* store.meta's bytes as the cluster holds them; *found FALSE if none. */
gboolean store_cluster_get_meta(StoreCluster *sc, uint8_t **meta, size_t *len, gboolean *found, GError **err);
/* Does the namespace hold a store's identity (container_rados.h) and a
 * container? (Without a container, a store whose creation was stopped:
 * the next backup takes the namespace over.) */
gboolean store_cluster_claimed(StoreCluster *sc, gboolean *claimed, GError **err);
/* The connection, for the store's containers to use too (one per command). */
struct RadosCluster *store_cluster_connection(StoreCluster *sc);
/* "RADOS pool P namespace 'N'", for messages. */
const char *store_cluster_shown(const StoreCluster *sc);
gboolean store_cluster_put_meta(StoreCluster *sc, const uint8_t *meta, size_t len, GError **err);

/* Bring `workdir` up to the cluster's state: every committed job the
 * working directory lacks (or holds otherwise) written there, manifest
 * last; tombstones; the freed list (with the records of every live job
 * when it changed: gc rewrites records before it frees); the newest
 * reference counts when anything changed; the stale-refcount mark.
 * *index_stale: the freed list changed: a local fingerprint index may
 * name containers gc freed elsewhere (jobs brought in are store_index.h's
 * to catch up). A namespace without STORE_CLUSTER_META_OBJECT
 * holds an older store whose metadata is local: a CONFIG error naming
 * STORE_CLUSTER_MIGRATE_COMMAND. A working directory holding a job the
 * cluster does not is not this store's: an INTEGRITY error. */
gboolean store_cluster_pull(StoreCluster *sc, const char *workdir, gboolean *index_stale, GError **err);

/* Only what reading job `job_id` needs of store_cluster_pull: the catalog
 * read, and that job brought into `workdir` as a pull would (a deleted
 * one as a tombstone; one the catalog lacks, nothing), its records again
 * if gc rewrote them since (the cluster's freed list differs from the
 * working directory's, which stays as it was). The same errors as
 * store_cluster_pull. The other jobs are read from the catalog
 * (store_cluster_jobs, _manifest, _deleted). */
gboolean store_cluster_pull_job(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);

/* The catalog alone read, nothing written to any working directory: for a
 * command that only lists the jobs (store_open_list), which then reads
 * them from store_cluster_jobs, _manifest and _deleted. The same errors
 * as store_cluster_pull for a namespace without store.meta. */
gboolean store_cluster_read(StoreCluster *sc, const char *workdir, GError **err);
/* Committed job `job_id`'s manifest bytes as the catalog holds them (NULL: none). */
GBytes *store_cluster_manifest(const StoreCluster *sc, uint32_t job_id);
gboolean store_cluster_deleted(const StoreCluster *sc, uint32_t job_id);
/* The freed list's bytes (g_free); *found FALSE when there is none. */
gboolean store_cluster_get_freed(StoreCluster *sc, uint8_t **bytes, size_t *len, gboolean *found, GError **err);

/* Job `job_id`'s records, as the cluster holds them, into `workdir`:
 * gc reads the live jobs' records from the cluster, never from a working
 * directory a killed gc may have left ahead of it (records rewritten here,
 * not yet there). */
gboolean store_cluster_fetch_records(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);

/* Writer only. Job `job_id`'s records, recipe index, reference counts and
 * utilization, from its directory in `workdir`. Nothing refers to them
 * until the job is committed. */
gboolean store_cluster_put_job(StoreCluster *sc, const char *workdir, uint32_t job_id, gboolean with_records,
                               GError **err);
/* Writer only. Job `job_id`'s object `what` (as its records: nothing refers
 * to it until the job is committed). */
gboolean store_cluster_put_job_object(StoreCluster *sc, uint32_t job_id, const char *what, const void *bytes,
                                      size_t len, GError **err);
/* Committed job `job_id`'s object `what`; *found FALSE when it has none. */
gboolean store_cluster_get_job_object(StoreCluster *sc, uint32_t job_id, const char *what, uint8_t **bytes,
                                      size_t *len, gboolean *found, GError **err);
/* The committed jobs' ids (deleted ones too), ascending, as the last pull
 * read them and the commits since added. */
const GArray *store_cluster_jobs(const StoreCluster *sc);

/* The commit: the job's catalog entry (its manifest's bytes), one omap
 * write that fails (a LOCKED error) if the entry exists: a writer that lost
 * the lock never replaces another's job. */
gboolean store_cluster_commit_job(StoreCluster *sc, uint32_t job_id, const uint8_t *manifest, size_t len,
                                  GError **err);
gboolean store_cluster_put_tombstone(StoreCluster *sc, uint32_t job_id, const uint8_t *bytes, size_t len,
                                     GError **err);
/* Job `job_id`'s records again (gc rewrote them; same sizes, same recipe index). */
gboolean store_cluster_put_records(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);
/* A deleted job's records and recipe index, removed (gc). */
gboolean store_cluster_drop_records(StoreCluster *sc, uint32_t job_id, GError **err);
/* Committed job `job_id`'s recipe omap set again from its records in
 * `workdir` (repair). */
gboolean store_cluster_put_recipe(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);
gboolean store_cluster_put_refcount(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);
gboolean store_cluster_put_freed(StoreCluster *sc, const uint8_t *bytes, size_t len, GError **err);
gboolean store_cluster_mark_refcounts(StoreCluster *sc, gboolean stale, GError **err);

/* Writer only. Remove every job object (job.N.T.*) no catalog key names: a
 * job killed before its commit, or a writer's that lost the lock. *removed:
 * how many. */
gboolean store_cluster_drop_uncommitted(StoreCluster *sc, uint32_t *removed, GError **err);

/* An older rados store (metadata in `workdir` only): every committed job
 * the cluster lacks written there and committed, in id order, with the
 * freed list and the stale-refcount mark, store.meta (`meta`) last.
 * *jobs: how many were moved. */
gboolean store_cluster_migrate(StoreCluster *sc, const char *workdir, const uint8_t *meta, size_t meta_len,
                               uint32_t *jobs, GError **err);

#endif
