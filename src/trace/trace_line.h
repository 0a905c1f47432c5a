/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_line.h: one request record of a read-file trace:
 *   JOB<TAB>PATH                      the whole file
 *   JOB<TAB>PATH<TAB>OFFSET<TAB>LENGTH a byte range of it
 * The path is raw bytes (it may hold tabs). When the last two tab-separated
 * fields after the path are an OFFSET (decimal) and a LENGTH (decimal, or
 * `-` for "to the end"), they are the range, and the path is what lies
 * between; so a path that itself ends in TAB NUMBER TAB NUMBER is asked for
 * whole as JOB<TAB>PATH<TAB>0<TAB>-. A record may start with the
 * request's time, @SECONDS<TAB> (decimal seconds, at most 9 digits after
 * a point), kept in nanoseconds (at most 2^64-1). docs/FORMAT.md, "Trace file". */
#ifndef DESTOR_TRACE_LINE_H
#define DESTOR_TRACE_LINE_H

#include "read/file_range.h"

#include <glib.h>
#include <stdint.h>

typedef struct {
    uint32_t job;
    char *path;      /* points into the parsed line */
    gboolean ranged; /* range holds the request's bytes; else the whole file */
    FileRange range;
    gboolean timed;   /* the record gave a time */
    uint64_t time_ns; /* its time in nanoseconds (0 when not timed) */
} TraceRequest;

/* Parse `line` (NUL-terminated, without its terminator) in place: the tab
 * after the job id (and, for a range, the tab after the path) is
 * overwritten, and req->path points into `line`. A time is parsed and
 * skipped (its order against other records is the reader's to check). FALSE with a USAGE error
 * "TRACE:LINENO: ..." when the line is not one of the forms above. */
gboolean trace_line_parse(char *line, const char *trace, int lineno, TraceRequest *req, GError **err);

/* The times of a trace's requests, checked in order: the first request
 * decides whether the trace is timed, and then every request has a time
 * (timed) or none, and times never go back. */
typedef struct {
    int requests; /* seen so far */
    gboolean timed;
    uint64_t last_ns;
} TraceClock;

/* Check req against those before it; FALSE with a USAGE error
 * "TRACE:LINENO: ..." when it has a time in an untimed trace, none in a
 * timed one, or a time before the previous request's. */
gboolean trace_clock_check(TraceClock *c, const TraceRequest *req, const char *trace, int lineno, GError **err);

#endif
