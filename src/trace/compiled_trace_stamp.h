/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_trace_stamp.h: what ties a compiled trace to the store it was
 * resolved against. Stamping records the store's container size and pool
 * size and the manifest checksum of every job the trace reads; checking
 * refuses a trace whose store or jobs have changed since (another store, a
 * store re-created under the same path, a job re-committed), because its
 * container ids would then name other data. */
#ifndef DESTOR_COMPILED_TRACE_STAMP_H
#define DESTOR_COMPILED_TRACE_STAMP_H

#include "store/store.h"
#include "trace/compiled_trace.h"

#include <glib.h>

/* Stamp t with store's identity (zero if its store.meta has none), pool
 * size (n_containers) and the checksums of `manifests` (JobManifest*, any
 * order). */
void compiled_trace_stamp(CompiledTrace *t, const Store *store, uint32_t n_containers, GPtrArray *manifests);

/* A USAGE error "compiled trace NAME is stale: ..." unless t matches the
 * open store: the same identity (when t has one), container size, a pool
 * at least as large, and every job still committed with the same
 * manifest. */
gboolean compiled_trace_check(const CompiledTrace *t, const Store *store, const char *name, GError **err);

#endif
