/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_status.h: a job's file_status file: for each regular file the job
 * recorded, in record order, the status its record does not hold (device,
 * inode, change time) and whether it may be trusted by the next backup's
 * files cache (backup/files_cache.h); with the job's start time and the
 * chunking parameters its chunk lists were cut with. Published atomically
 * before the manifest; a job without one (older, or written with the files
 * cache off) is no parent. Layout: docs/FORMAT.md, "file_status". */
#ifndef DESTOR_FILE_STATUS_H
#define DESTOR_FILE_STATUS_H

#include "chunking/chunker.h"

#include <glib.h>
#include <stdint.h>

#define JOB_FILE_STATUS_FILE "file_status"
#define FILE_STATUS_MAGIC "DPLCFST1"
#define FILE_STATUS_VERSION 1
#define FILE_STATUS_HEADER_SIZE 48
#define FILE_STATUS_ENTRY_SIZE 32

/* The file was seen to change while it was read: its record may mix old and
 * new bytes and must never be reused. */
#define FILE_STATUS_CHANGED 1u

typedef struct {
    uint64_t dev, ino;
    int64_t ctime_sec;
    uint32_t ctime_nsec;
    uint32_t flags; /* FILE_STATUS_CHANGED */
} FileStatus;

typedef struct {
    uint32_t job_id;
    int64_t start_ns;      /* the job's start (CLOCK_REALTIME, ns): what changed after it is racy */
    ChunkAlgorithm chunk_algorithm;
    ChunkSizes chunk_sizes;
    GArray *entries;       /* FileStatus, one per regular-file record, in record order */
} FileStatusTable;

void file_status_table_init(FileStatusTable *t, uint32_t job_id, int64_t start_ns, ChunkAlgorithm alg,
                            const ChunkSizes *sizes);
void file_status_table_clear(FileStatusTable *t);

/* The file's bytes (g_free), *len of them. */
uint8_t *file_status_encode(const FileStatusTable *t, size_t *len);
/* Decode and check (magic, version, job id, length, CRC); `path` names it in
 * the INTEGRITY error. */
gboolean file_status_decode(const uint8_t *buf, size_t len, uint32_t job_id, const char *path, FileStatusTable *t,
                            GError **err);

/* Publish in job_dir (atomically, the bytes durably; the caller fsyncs
 * job_dir before anything relies on the file). */
gboolean file_status_save(const FileStatusTable *t, const char *job_dir, GError **err);
/* Load job_dir's file; *present FALSE (and TRUE returned) when there is none. */
gboolean file_status_load(const char *job_dir, uint32_t job_id, FileStatusTable *t, gboolean *present, GError **err);

#endif
