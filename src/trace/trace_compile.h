/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_compile.h: `destor trace compile TRACE -o FILE`: resolve a text
 * trace once, through the same read path read-file uses (recipe lookups,
 * ranges, the per-request container LRU), into its access sequence at the
 * configured ssd-cache-granularity (container: version 1, the container
 * reads; chunk: version 2, the chunk accesses the SSD chunk cache sees),
 * stamped with the store and jobs it was resolved against. */
#ifndef DESTOR_TRACE_COMPILE_H
#define DESTOR_TRACE_COMPILE_H

#include "config/config.h"
#include "trace/compiled_trace.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The compiled form of the text trace at `trace_path` ("-": standard
 * input; --null records when null_terminated). A trace that already is
 * compiled is checked against the store and returned as it is. */
CompiledTrace *trace_compile(const Config *cfg, const char *trace_path, gboolean null_terminated, GError **err);

/* The rest of a compiled trace whose first head_len bytes (its magic) the
 * caller has read from fd: read to the end and decode (INTEGRITY error if
 * damaged, IO error if the read fails). */
CompiledTrace *compiled_trace_read_fd(int fd, const char *name, const uint8_t *head, size_t head_len, GError **err);

/* Compile and write to out_path (util/output_file: a regular file is
 * replaced whole by a rename, a device or FIFO written into). */
gboolean trace_compile_run(const Config *cfg, const char *trace_path, gboolean null_terminated,
                           const char *out_path, GError **err);

#endif
