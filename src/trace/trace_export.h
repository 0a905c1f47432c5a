/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace_export.h: `destor trace export FILE --format F [-o OUT]`: a
 * compiled trace's container-access sequence in a format libCacheSim's
 * cachesim reads, so any of its policies can run on our workloads. One
 * record per container access: the container id is the object id, the
 * container size the object size, the destor request's number (from 0)
 * the time. Formats (docs/FORMAT.md, "Exported access sequences"):
 *   libcachesim-csv  header "time,obj_id,obj_size", then one line each
 *   oracle-general   24-byte little-endian records: time u32, id u64,
 *                    size u32, next access i64 (1-based index of the
 *                    object's next record, -1 if none)
 *   txt              one container id per line */
#ifndef DESTOR_TRACE_EXPORT_H
#define DESTOR_TRACE_EXPORT_H

#include "config/config.h"

#include <glib.h>

/* Export the trace at `path` (compiled; a text trace is compiled first,
 * which needs the store) to out_path (NULL: standard output). An unknown
 * format is a USAGE error. */
gboolean trace_export_run(const Config *cfg, const char *path, gboolean null_terminated, const char *format,
                          const char *out_path, GError **err);

#endif
