/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_meta.h: a job's job_meta_data file: a 32-byte header followed by one
 * file_record per file, directory or symlink, in backup order. Written
 * sequentially during backup; read sequentially by restore and at random
 * (one record at a given offset) by read-file. */
#ifndef DESTOR_JOB_META_H
#define DESTOR_JOB_META_H

#include "recipe/file_record.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#define JOB_META_MAGIC "DPLCJMD1"
#define JOB_META_VERSION 1
#define JOB_META_HEADER_SIZE 32

typedef struct JobMetaWriter JobMetaWriter;

/* The records go to a new file of a unique name beside `path`
 * (util/file_replace.h), renamed over it at finish: a link planted at
 * `path` is replaced, never written through. */
JobMetaWriter *job_meta_writer_create(const char *path, uint32_t job_id, GError **err);
/* Append one record; *offset and *length say where it landed. */
gboolean job_meta_writer_append(JobMetaWriter *w, const FileRecord *r, uint64_t *offset, uint32_t *length, GError **err);
/* Flush, fsync, close and rename into place (the caller fsyncs the
 * directory). Returns the file size in *size. */
gboolean job_meta_writer_finish(JobMetaWriter *w, uint64_t *size, GError **err);
void job_meta_writer_abort(JobMetaWriter *w);

typedef struct JobMetaReader JobMetaReader;

JobMetaReader *job_meta_reader_open(const char *path, uint32_t job_id, GError **err);
void job_meta_reader_close(JobMetaReader *r);
/* Next record in file order; NULL with *err unset at the end. */
FileRecord *job_meta_reader_next(JobMetaReader *r, GError **err);
/* Offset of the record job_meta_reader_next() returns next. */
uint64_t job_meta_reader_offset(const JobMetaReader *r);
/* Start sequential reading over from the first record. */
void job_meta_reader_rewind(JobMetaReader *r);
/* The record at a known offset and length (from the recipe index). */
FileRecord *job_meta_reader_at(JobMetaReader *r, uint64_t offset, uint32_t length, GError **err);

/* Bytes of the file read at once for records that lie near each other (a
 * directory's entries were written one after another): a record in the
 * window is decoded from it, any other is read with the bytes after it.
 * The caller's own: one window per reader of records, never shared. */
typedef struct {
    uint64_t start;
    size_t len;
    uint8_t *bytes; /* JOB_META_WINDOW bytes once a record was read through it */
} JobMetaWindow;

#define JOB_META_WINDOW (16u << 10)

/* As job_meta_reader_at, through w (zeroed before its first use). */
FileRecord *job_meta_reader_at_window(JobMetaReader *r, JobMetaWindow *w, uint64_t offset, uint32_t length,
                                      GError **err);
void job_meta_window_clear(JobMetaWindow *w);
/* As job_meta_reader_next, through w: records read in order a window at a
 * time, not two reads each. */
FileRecord *job_meta_reader_next_window(JobMetaReader *r, JobMetaWindow *w, GError **err);

#endif
