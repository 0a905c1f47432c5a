/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_writer.h: the last backup stage: dedup against the fingerprint index,
 * pack new chunks into containers, write each entry's record to
 * job_meta_data and the recipe index, keep reference counts, and commit the
 * job durably (containers, index, recipes, then the manifest). */
#ifndef DESTOR_JOB_WRITER_H
#define DESTOR_JOB_WRITER_H

#include "config/config.h"
#include "index/fp_index_params.h"
#include "recipe/file_record.h"
#include "recipe/file_status.h"
#include "recipe/job_catalog.h"
#include "store/store.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct JobWriter JobWriter;

typedef struct {
    _Atomic uint64_t files; /* entries recorded so far (for progress) */
    _Atomic uint64_t bytes; /* logical bytes consumed so far */
} JobProgress;

/* What rewriting (rewrite_stage.h) did and how fragmented the job is
 * (fragmentation.h), for the backup summary. */
typedef struct {
    uint64_t rewritten_chunks, rewritten_bytes;
    uint64_t restore_reads;     /* containers a restore with the restore cache reads */
    double containers_per_mib;  /* of them, per MiB restored */
} JobRewriteReport;

/* cfg: fingerprint-index* (the index design), rewrite-* and restore-cache
 * (the fragmentation level's cache). */
JobWriter *job_writer_begin(Store *store, const Config *cfg, const char *source_root, GError **err);
/* Dedup and store one chunk of regular file `r` (its next, in file order)
 * and append its reference to r->chunks (with an index that looks ahead,
 * fingerprint-index near-exact logical silo, once the chunk's segment
 * ends: segment_stage.h). FALSE on a fatal error. */
gboolean job_writer_add_chunk(JobWriter *w, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                              GError **err);
/* Whether job_writer_add_known_file may be called: no stage holds chunks'
 * bytes (no segment or rewrite buffer). */
gboolean job_writer_takes_known_chunks(const JobWriter *w);
/* As job_writer_add_chunk for each chunk of an unchanged file whose bytes
 * were not read (backup/files_cache.h): r is the parent's record, its
 * chunk list the parent's references. Where no fingerprint is stored twice
 * (fp_index_single_copies; not on a rados store), each reference is what
 * a lookup finds, and r is kept as it is, unlooked-up; else each is looked
 * up as a read chunk would be, and one the index does not find is read
 * from its place, checked against its fingerprint, and stored again. Then
 * job_writer_add_entry as for a read file. */
gboolean job_writer_add_known_file(JobWriter *w, FileRecord *r, GError **err);
/* The status of the regular file recorded next (calls in record order):
 * published with the job for the next job's files cache. */
void job_writer_add_file_status(JobWriter *w, const FileStatus *st);
/* Record a whole entry (a file after its last chunk, a directory, a
 * symlink) in job_meta_data and the recipe index, and count its
 * references. The caller keeps `r`. FALSE on a fatal error. */
gboolean job_writer_add_entry(JobWriter *w, const FileRecord *r, GError **err);
/* Make the job durable and visible. Fills *manifest (caller clears it). */
gboolean job_writer_commit(JobWriter *w, uint64_t skipped, JobManifest *manifest, GError **err);
/* Free everything; an uncommitted job stays invisible. */
void job_writer_free(JobWriter *w);

const JobProgress *job_writer_progress(const JobWriter *w);
JobRewriteReport job_writer_rewrite_report(const JobWriter *w);
/* What the job's fingerprint index did (read it after the commit). */
void job_writer_index_stats(const JobWriter *w, FpIndexStats *st);
/* CPU time of the thread that writes the job's containers, so far. */
double job_writer_write_cpu_seconds(const JobWriter *w);

#endif
