/* trace_compile.h: `destor trace compile TRACE -o FILE`: resolve a text
 * trace once, through the same read path read-file uses (recipe lookups,
 * ranges, the per-request container LRU), into its container-access
 * sequence, stamped with the store and jobs it was resolved against. */
#ifndef DESTOR_TRACE_COMPILE_H
#define DESTOR_TRACE_COMPILE_H

#include "config.h"
#include "trace/compiled_trace.h"

#include <glib.h>

/* The compiled form of the text trace at `trace_path` ("-": standard
 * input; --null records when null_terminated). A trace that already is
 * compiled is checked against the store and returned as it is. */
CompiledTrace *trace_compile(const Config *cfg, const char *trace_path, gboolean null_terminated, GError **err);

/* Compile and write to out_path (replaced atomically). */
gboolean trace_compile_run(const Config *cfg, const char *trace_path, gboolean null_terminated,
                           const char *out_path, GError **err);

#endif
