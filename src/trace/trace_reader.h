/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_reader.h: the records of a read-file trace, one at a time. Text
 * traces end records at a newline (CRs before it dropped; a NUL inside is
 * an error); --null traces end them at a NUL byte and keep every other
 * byte. Empty records and records starting with '#' are skipped. A read
 * error is told from the end of the file: it is an IO error, never a short
 * trace. Bytes a caller already took from the stream (to look at a magic
 * number) are handed back as a prefix and come first. Reads use read(2)
 * on the descriptor directly, no stdio, so every failure is seen. */
#ifndef DESTOR_TRACE_READER_H
#define DESTOR_TRACE_READER_H

#include <glib.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct TraceReader TraceReader;

/* Open a trace for reading: "-" is standard input; a directory, or a path
 * that names no file we may read, is a USAGE error, other failures of
 * open(2) are IO errors. Returns the descriptor or -1. */
int trace_open(const char *path, GError **err);
/* Close what trace_open() returned (standard input stays open). */
void trace_close(int fd);
/* Read up to `len` bytes from the start of the trace (fewer only at its
 * end): the caller's look at a magic number. -1 with an IO error. */
ssize_t trace_read_head(int fd, const char *name, void *buf, size_t len, GError **err);
/* Append the rest of the trace, up to its end, to `out` (compiled traces
 * are read whole). FALSE with an IO error. */
gboolean trace_read_rest(int fd, const char *name, GByteArray *out, GError **err);

/* `name` names the trace in errors; the descriptor stays the caller's. */
TraceReader *trace_reader_new(int fd, const char *name, gboolean null_terminated, const void *prefix,
                              size_t prefix_len);
void trace_reader_free(TraceReader *r);

/* The next request record, NUL-terminated and without its terminator, in
 * the reader's buffer (valid until the next call); *lineno is its 1-based
 * record number. Returns 1 for a record, 0 at the end, -1 with *err set
 * (IO for a failed read, USAGE "TRACE:N: ..." for a NUL inside a text line). */
int trace_reader_next(TraceReader *r, char **record, int *lineno, GError **err);

#endif
