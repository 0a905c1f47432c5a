/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store.h: an open store (the working directory) and what every command
 * shares: its fixed parameters (store.meta), its containers (a ContainerStore
 * of the kind store.meta records), the writer lock, and the committed jobs.
 *
 * Layout (docs/FORMAT.md): store.meta, LOCK, containers.pool or containers/
 * (or, container-store rados, the containers in RADOS), index/,
 * jobs/NNNNNNNN/, READERS, freed. Readers never take the writer lock, see
 * only jobs whose manifest is published and not deleted, and hold the
 * readers' lock shared (reader_lock.h) while the store is open. */
#ifndef DESTOR_STORE_H
#define DESTOR_STORE_H

#include "config/config.h"
#include "recipe/job_catalog.h"
#include "storage/container_store.h"
#include "store/store_cluster.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

#define STORE_META_MAGIC "DPLCSTO1"
#define STORE_META_VERSION 4
#define STORE_ID_LEN 16

/* The store's identity: a random UUID made when the store is created (or,
 * for a store made before identities existed, at its next backup). The SSD
 * cache records it and never serves a cached container of another store or
 * of an older incarnation of this one. */
typedef struct {
    uint8_t bytes[STORE_ID_LEN];
} StoreId;

typedef struct {
    char *dir;
    size_t container_size;          /* fixed when the store was created */
    FingerprintAlgorithm fingerprint;
    StoreId id;
    gboolean has_id; /* FALSE: a version-1 store.meta no backup has upgraded yet */
    ContainerStoreKind kind; /* fixed when the store was created; pool before version 3 */
    FileDigestAlgorithm file_digest; /* fixed when the store was created; SHA-256 before version 4 */
    ContainerStore *containers;
    ContainerStoreRados rados; /* a rados store's cluster, pool, namespace (the config's) */
    StoreCluster *cluster; /* a rados store's metadata in its namespace (store_cluster.h); else NULL */
    int lock_fd; /* >= 0 for a writer */
    int readers_fd; /* >= 0: a reader holding the readers' lock shared */
    gboolean readers_lock_new; /* a writer created READERS at this open: readers
                                  already running hold no lock gc could see */
    struct RadosLock *readers_lease; /* a rados store's reader: its lease against gc on any machine */
    gboolean listing; /* store_open_list's or _job's of a rados store: the jobs are the cluster catalog's */
} Store;

/* Open an existing store for reading (a rados store's reader also holds a
 * lease in the cluster that gc on any machine honours, rados_lock.h). A
 * directory without store.meta is a NO_STORE error. Every open refuses (a CONFIG error) a config whose
 * container-store is not the store's kind. */
Store *store_open_read(const Config *cfg, GError **err);

/* Whether `path`, one of a store's own directories (index/, jobs/, a job's
 * directory, the container store's), is a symbolic link planted there: the
 * writers refuse the store then, and verify reports it, reading nothing
 * through it. */
gboolean store_planted_dir(const char *path);
/* The same for a command that only lists the jobs and their figures
 * (stat): a rados store's working directory is not brought up to the
 * cluster, its jobs are read from the cluster's catalog at the open, and
 * read through the functions below, which read the working directory's
 * files after any other open. (A new machine's stat then costs a few
 * round trips, not a pull of every job.) */
Store *store_open_list(const Config *cfg, GError **err);
/* The same for a command that reads one job (restore, read-file, list):
 * as store_open_list, and job `job_id` alone brought into a rados store's
 * working directory (store_cluster_pull_job), where job.h opens it. */
Store *store_open_job(const Config *cfg, uint32_t job_id, GError **err);
/* The jobs, deleted ones too, ascending (job_catalog_list). */
GArray *store_jobs(const Store *s, GError **err);
/* Job `job_id`'s manifest, a deleted job's too (job_manifest_load_any). */
gboolean store_job_manifest(const Store *s, uint32_t job_id, JobManifest *m, GError **err);
gboolean store_job_deleted(const Store *s, uint32_t job_id);
/* The newest job's reference counts (refcount_load_current). */
gboolean store_current_refcounts(const Store *s, uint32_t **counts, uint32_t *n, GError **err);
/* The freed list (freed_list_load). */
GArray *store_freed(const Store *s, uint32_t *containers, GError **err);
/* Every writer's open below also creates READERS, counts the current
 * reference counts again after an interrupted delete (refcount_recount.h),
 * and frees the containers an interrupted gc listed but had not freed yet
 * (freed_list.h), before anything reads them; a rados store's then brings
 * the fingerprint index up to the cluster (store_index_sync). */
/* Open for backup: create the store if needed (with a new identity and the
 * config's file-digest, XXH3-128 unless it says otherwise), take the writer
 * lock, give a version-1 store an identity (rewriting store.meta as version
 * 4, SHA-256 kept), and check the config agrees with the store's fixed
 * parameters (a file-digest the config does not set is the store's own). */
Store *store_open_write(const Config *cfg, GError **err);
/* Open an existing store (NO_STORE error otherwise) for repair, delete and
 * gc: take the writer lock; the store's own parameters rule, whatever the config says,
 * except its kind of container store (which must match). */
Store *store_open_repair(const Config *cfg, GError **err);
/* Open an older rados store (its metadata in the working directory only)
 * as store_open_repair does, and move its metadata into the cluster
 * (store_cluster_migrate); *jobs: how many jobs were moved. A store of
 * another kind is a CONFIG error. */
Store *store_open_migrate(const Config *cfg, uint32_t *jobs, GError **err);
void store_close(Store *s);

/* The id the next new container gets (writer only): the container count
 * (container_store.h), which is at least the newest committed job's container
 * count; ids are never reused. A store holding fewer containers than the
 * newest manifest that reads back says were committed has lost data: an
 * INTEGRITY error (writing would give the lost ids new contents). */
gboolean store_next_container(Store *s, ContainerId *next, GError **err);

/* The containers the store vouches for: the newest committed job's count
 * (deleted or not), or more when gc wrote copies since (freed_list.h).
 * Every id a live record names is below it. */
gboolean store_committed_containers(const Store *s, uint32_t *n, GError **err);
/* Count the current reference counts again if a delete or gc left them
 * marked stale (refcount_recount.h), over the committed containers. */
gboolean store_settle_refcounts(const Store *s, GError **err);

/* What writers publish, each into the cluster first when the store has
 * one (store_cluster.h), then into the working directory (store_publish.c). */
/* Job m->job_id's commit: its files in job_dir are durable; the manifest
 * last. With a cluster, `new_entries` are the job's new fingerprint index
 * entries (FpIndexEntry, store_index.h), committed with it; else NULL. */
gboolean store_publish_job(Store *s, const char *job_dir, const JobManifest *m, const GArray *new_entries,
                           GError **err);
gboolean store_publish_tombstone(Store *s, uint32_t job_id, int64_t when, GError **err);
gboolean store_publish_freed(Store *s, const GArray *ids, uint32_t containers, GError **err);
/* The current reference counts may be stale (refcount_recount.h). */
gboolean store_mark_refcounts_stale(Store *s, GError **err);
/* Job `job_id`'s records, rewritten in place by gc (same sizes). */
gboolean store_publish_records(Store *s, uint32_t job_id, GError **err);
/* Job `job_id`'s reference counts, rebuilt in place by repair, into the cluster. */
gboolean store_publish_refcount(Store *s, uint32_t job_id, GError **err);
/* Job `job_id`'s recipe index, rebuilt from its records by repair, into the cluster. */
gboolean store_publish_recipe(Store *s, uint32_t job_id, GError **err);
/* A deleted job's records and recipe index are going (gc): the cluster's first. */
gboolean store_drop_records(Store *s, uint32_t job_id, GError **err);

/* gc: a rados store's objects of jobs killed before their commit removed
 * (store_cluster_drop_uncommitted); *removed 0 without a cluster. */
gboolean store_drop_uncommitted(Store *s, uint32_t *removed, GError **err);

/* gc, before it reads the live jobs' records: with a cluster, each one
 * read again from it (store_cluster_fetch_records says why). */
gboolean store_refresh_records(Store *s, GError **err);

/* A reader open for long (a mount): the working directory brought up to
 * the cluster again, as its open did (jobs other machines committed or
 * deleted since); TRUE at once without a cluster. */
gboolean store_pull(Store *s, GError **err);

/* The directories what a command writes must stay out of: the working
 * directory and the SSD cache's (NULL when unset). */
#define STORE_DIRS 2
void store_dirs(const Config *cfg, const char *dirs[STORE_DIRS]);

#endif
