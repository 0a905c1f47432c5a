/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store_index.h: a rados store's fingerprint index in its namespace
 * (docs/FORMAT.md, "The fingerprint index in the cluster"), with the
 * working directory's index/ as a cache of it.
 *
 * - A job's new entries: its object `index` (job.N.TOKEN.index), written
 *   before its commit, so the catalog entry that commits the job commits
 *   them; an uncommitted job's are named by no catalog key and never read.
 * - The shards destor.index.PP (PP: the fingerprint's first byte in hex):
 *   an omap, fingerprint -> location, into which committed jobs' entries
 *   are merged after their commit (batched: one write per shard touched,
 *   the shards written at once), rewritten whole after a gc.
 * - destor.index, the shards' state: every committed job's entries up to
 *   job J are in, and the freed list they reflect (its length and CRC).
 *   index/CLUSTER says the same of the working directory's DB.
 *
 * Entries naming a container on the freed list are never taken. Lookups
 * stay local (the DB holds every entry, so no lookup waits on the
 * cluster); what the cluster saves is the rebuild: a working directory
 * that lags (jobs from another machine, a gc elsewhere, an empty one)
 * catches up from the jobs' entries and the shards instead of reading
 * every container. */
#ifndef DESTOR_STORE_INDEX_H
#define DESTOR_STORE_INDEX_H

#include "store/store.h"

#include <glib.h>

#define STORE_INDEX_OBJECT "destor.index"
#define STORE_INDEX_SHARD_PREFIX "destor.index."
#define STORE_INDEX_SHARDS 256
#define STORE_INDEX_JOB_OBJECT "index" /* job.N.TOKEN.index */
#define STORE_INDEX_LOCAL_FILE "CLUSTER" /* in index/ */

/* Writer's open, after the pull: the working directory's DB brought up to
 * the catalog and the freed list (the newer jobs' entries; else the shards
 * and the jobs' entries past them; else, when the shards lag a gc or a
 * job's entries are missing, a rebuild from the containers), then the
 * shards brought up to it. No-op for a store without a cluster. */
gboolean store_index_sync(Store *s, GError **err);

/* Does the working directory's DB lag the cluster (its state is not the
 * newest job's and the freed list's)? Readers do not catch it up: verify
 * then leaves it unchecked. FALSE for a store without a cluster. */
gboolean store_index_lags(Store *s);

/* Before job `job_id`'s commit: its new entries (FpIndexEntry) as its
 * `index` object. */
gboolean store_index_put_job(Store *s, uint32_t job_id, const GArray *entries, GError **err);
/* After the commit (and the DB's): the entries merged into the shards and
 * both states moved to the job, when they were current. A failure is a
 * warning: the job is committed, and the next writer's sync merges them. */
void store_index_job_committed(Store *s, uint32_t job_id, const GArray *entries);

/* gc committed the DB against the new freed list, or repair rebuilt it
 * from the containers: the DB is current; the shards are brought up to it
 * (with `all`, repair's, every shard rewritten from it). */
gboolean store_index_from_local(Store *s, gboolean all, GError **err);

#endif
