/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_table.h: an open-addressing table from a full fingerprint to a chunk
 * location, for the bounded indexes (the sampled index's samples, the
 * locality cache). Its memory is one array whose size it reports exactly,
 * so an index can say what RAM it uses; a key matches only on all FP_SLOT
 * bytes, never on a hash or a prefix (a false match would be a false
 * duplicate, which is data loss). */
#ifndef DESTOR_FP_TABLE_H
#define DESTOR_FP_TABLE_H

#include "index/fp_index.h"

#include <glib.h>
#include <stdint.h>

typedef struct FpTable FpTable;

FpTable *fp_table_new(void);
void fp_table_free(FpTable *t);

/* The location stored for fp, or NULL. */
const ChunkLocation *fp_table_get(const FpTable *t, const Fingerprint *fp);
/* Insert or replace fp's location. */
void fp_table_put(FpTable *t, const Fingerprint *fp, const ChunkLocation *loc);
/* Remove fp if its location is in container `c` (another copy stays). */
void fp_table_remove_in(FpTable *t, const Fingerprint *fp, ContainerId c);
/* Remove fp whatever its location. */
void fp_table_remove(FpTable *t, const Fingerprint *fp);

/* Call fn on every entry, in no particular order. */
void fp_table_foreach(const FpTable *t, void (*fn)(const Fingerprint *fp, const ChunkLocation *loc, void *ctx),
                      void *ctx);

/* Call fn on every entry's location, which it may change in place. */
void fp_table_update(FpTable *t, void (*fn)(ChunkLocation *loc, void *ctx), void *ctx);

guint fp_table_size(const FpTable *t);
/* Bytes the table holds (its slot array and header). */
size_t fp_table_bytes(const FpTable *t);

#endif
