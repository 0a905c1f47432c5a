/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compiled_replay.h: read-file --trace over a compiled trace: the recorded
 * container accesses go straight to the session's container source (the
 * SSD cache, or the pool), request by request, with no path lookups. In
 * simulation with a cache each access is one cache_access() on an id; in
 * simulation without one (HDD only) accesses are counted and modelled and
 * no container is read; in real mode every container is read (and
 * checked), though no file bytes are assembled. A version-2 trace (chunk
 * accesses) goes to the SSD chunk cache, each access at its recorded
 * position, as the text trace's replay makes it (in simulation after its
 * chunk table is checked against the metadata of the containers it names;
 * in real mode with the
 * chunks of the next requests announced ahead, as the text replay
 * announces them); each version needs its granularity (a usage error
 * otherwise). */
#ifndef DESTOR_COMPILED_REPLAY_H
#define DESTOR_COMPILED_REPLAY_H

#include "read/read_session.h"
#include "trace/trace_summary.h"
#include "trace/compiled_trace.h"

#include <glib.h>

/* Can t be replayed with the SSD chunk cache (chunk_cache) or without?
 * A USAGE error naming the way out when not; compiled_replay checks it
 * too, and read-file first from the configuration, before the cache is
 * opened. */
gboolean compiled_replay_granularity(const CompiledTrace *t, gboolean chunk_cache, GError **err);

/* Serve every request of t through s (t checked against s's store by the
 * caller), adding to sum. */
gboolean compiled_replay(ReadSession *s, const CompiledTrace *t, TraceSummary *sum, GError **err);

#endif
