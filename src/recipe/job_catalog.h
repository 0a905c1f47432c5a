/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_catalog.h: committed jobs and their manifests.
 *
 * A job lives in WORKDIR/jobs/NNNNNNNN/ and exists only once its manifest
 * file is there: the manifest is published last, by atomic rename, after
 * everything it vouches for is durable. Each job directory also holds the
 * store's per-container reference counts as of that job ("refcount"): the
 * newest committed job's copy is the current one (that job may have been
 * deleted since: a deleted job keeps its manifest and refcount, and
 * `destor delete` recounts the newest copy over the jobs still live). */
#ifndef DESTOR_JOB_CATALOG_H
#define DESTOR_JOB_CATALOG_H

#include "recipe/file_record.h"
#include "recipe/job_meta.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define MANIFEST_MAGIC "DPLCMAN1"
/* Version 2 added the job's rewriting and fragmentation figures after
 * version 1's 128 fixed bytes; version 1 manifests (older stores) still
 * open, without them. */
#define MANIFEST_VERSION 2
#define MANIFEST_V1_FIXED_SIZE 128
#define MANIFEST_FIXED_SIZE 160
/* The fixed part's size of a manifest of `version` (1 or 2). */
#define MANIFEST_FIXED_SIZE_OF(version) ((version) == 1 ? MANIFEST_V1_FIXED_SIZE : MANIFEST_FIXED_SIZE)

#define JOB_MANIFEST_FILE "manifest"
#define JOB_META_FILE "job_meta_data"
#define JOB_RECIPE_INDEX_FILE "recipe_index.db"
#define JOB_REFCOUNT_FILE "refcount"
/* With rewrite-enable-har: how much of each container the job used (backup/har_history.h). */
#define JOB_UTILIZATION_FILE "container_utilization"

typedef struct {
    uint32_t job_id;
    int64_t created_unix;
    uint64_t files, dirs, symlinks, skipped;
    uint64_t logical_bytes; /* bytes of regular files */
    uint64_t stored_bytes;  /* bytes of new chunks this job wrote */
    uint64_t chunks, new_chunks;
    uint32_t containers_total;    /* containers in the pool after this job */
    uint32_t first_new_container; /* first container this job wrote */
    uint64_t job_meta_size;
    uint32_t container_size;
    /* Version 2: what rewriting did and the fragmentation it left (the
     * backup summary's figures, as of the backup). has_fragmentation is
     * FALSE for a version 1 manifest, which does not record them. */
    gboolean has_fragmentation;
    uint64_t rewritten_chunks, rewritten_bytes;
    uint64_t restore_container_reads;      /* a restore's reads, modelled as an LRU of: */
    uint32_t fragmentation_cache_containers; /* ... this many containers (restore-cache N) */
    char *source_root; /* the PATH given to backup */
    uint32_t checksum; /* the manifest file's CRC-32 trailer: identifies this
                          job's commit (compiled traces are stamped with it) */
} JobManifest;

void job_manifest_clear(JobManifest *m);
/* Containers read per MiB restored (0 without logical bytes). */
double job_manifest_containers_per_mib(const JobManifest *m);

char *job_dir_path(const char *workdir, uint32_t job_id);

/* The manifest file's bytes (g_free), *len of them. */
uint8_t *job_manifest_encode(const JobManifest *m, size_t *len);
gboolean job_manifest_publish(const char *job_dir, const JobManifest *m, GError **err);
/* Load job `job_id`'s manifest; a missing or deleted job is a USAGE error. */
gboolean job_manifest_load(const char *workdir, uint32_t job_id, JobManifest *m, GError **err);
/* The same for a deleted job too (ids, container counts, repair). */
gboolean job_manifest_load_any(const char *workdir, uint32_t job_id, JobManifest *m, GError **err);
/* The checks and decoding of job_manifest_load() on a manifest's bytes;
 * `path` names the file in the INTEGRITY error. *m is zeroed first. */
gboolean job_manifest_decode(const uint8_t *buf, size_t len, uint32_t job_id, const char *path,
                             JobManifest *m, GError **err);

/* Ids of committed jobs, deleted ones included, ascending. */
GArray *job_catalog_list(const char *workdir, GError **err);
/* Ids of committed jobs not deleted, ascending: what readers see. */
GArray *job_catalog_list_live(const char *workdir, GError **err);

/* The records (job_meta_data) of committed job `job_id`, for reading. */
JobMetaReader *job_catalog_open_records(const char *workdir, uint32_t job_id, GError **err);

/* Id for a new job (one past the newest committed); removes the leftovers
 * of an interrupted job that used the same id. Creates the job directory. */
gboolean job_catalog_create_job(const char *workdir, uint32_t *job_id, char **job_dir, GError **err);

/* Reference counts (distinct files per container, summed over jobs). */
/* Count file r: +1 for each container among counts[0..n) it references at
 * least once (how backup keeps them and verify and repair recompute them). */
void refcount_add_file(uint32_t *counts, uint32_t n, const FileRecord *r);
/* Publish in job_dir (atomically, the bytes durably; the caller fsyncs
 * job_dir before anything relies on the file). */
gboolean refcount_save(const char *job_dir, const uint32_t *counts, uint32_t n, GError **err);
/* Counts as of committed job `job_id` (a missing file is an INTEGRITY
 * error: it is written before the manifest). */
gboolean refcount_load_job(const char *workdir, uint32_t job_id, uint32_t **counts, uint32_t *n, GError **err);
/* Counts as of the newest committed job; n = 0 when there is none. */
gboolean refcount_load_current(const char *workdir, uint32_t **counts, uint32_t *n, GError **err);
/* The checks and decoding of a refcount file's bytes; `path` names it in
 * the INTEGRITY error. On success *counts (g_free) holds *n counts. */
gboolean refcount_decode(const uint8_t *buf, size_t len, const char *path, uint32_t **counts, uint32_t *n,
                         GError **err);

#endif
