/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_output.h: assemble one stored file from its recipe and hand its
 * bytes to a sink (a descriptor, or a caller's buffer), optionally checking
 * the whole-file digest. Shared by restore, read-file and the mount. */
#ifndef DESTOR_FILE_OUTPUT_H
#define DESTOR_FILE_OUTPUT_H

#include "recipe/file_record.h"
#include "read/chunk_source.h"
#include "read/file_range.h"

#include <glib.h>

/* Write r's content, or the part `range` covers (NULL: all of it), to fd
 * (named `out_name` in errors), reading only the chunks that hold those
 * bytes. With `verify` the store's file digest (whole files only: range
 * NULL or covering all of it; FILE_DIGEST_NONE: no check), a content whose
 * digest is not r->digest is an INTEGRITY error, after the bytes were
 * written: the caller does not keep them. */
gboolean file_output_write(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                           int fd, const char *out_name, FileDigestAlgorithm verify, GError **err);

/* Where file_output_copy hands the bytes, in file order, then data NULL
 * once after the last piece (a buffering sink flushes): FALSE with *err
 * set stops the copy. */
typedef gboolean (*FileOutputSink)(void *ctx, const uint8_t *data, size_t len, GError **err);

/* file_output_write's loop with any sink: the same chunk reads, checks and
 * digest, the bytes handed over chunk by chunk (a chunk's part inside
 * `range`). `starts` (NULL: none) is r's file_output_chunk_starts: the
 * range's first chunk is then found by binary search, not by walking the
 * chunks before it (many small reads of one large file). */
gboolean file_output_copy(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                          const uint64_t *starts, FileOutputSink sink, void *ctx, FileDigestAlgorithm verify,
                          GError **err);
/* The file offset each chunk of r starts at, and r's size after them
 * (chunks->len + 1 values; g_free). */
uint64_t *file_output_chunk_starts(const FileRecord *r);

/* The accesses of reading r of job `job_id` (or its `range`), without
 * moving bytes (simulation: the chunk source is ids-only). */
gboolean file_output_touch(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                           GError **err);

/* The chunks [*first, *last) of r that hold the bytes of `range` (NULL:
 * all of it), the ones file_output_write reads. */
void file_output_span(const FileRecord *r, const FileRange *range, guint *first, guint *last);

/* The file's key in a ChunkPosition: XXH3-64 of its path seeded with its
 * job, so the same path in two jobs is two files. */
uint64_t file_output_file_key(const FileRecord *r, uint32_t job_id);

#endif
