/* SPDX-License-Identifier: GPL-3.0-or-later */
/* index_survivors.h: after gc drops the index entries of freed containers,
 * a fingerprint may still be stored in a container that lives on: a chunk
 * written again by rewriting (rewrite-algorithm, HAR) has two copies, the
 * index names the newer, and gc may free the newer while an older job
 * keeps the older. This puts such fingerprints back, pointing at the copy a
 * live record names, so the index again names every stored chunk. */
#ifndef DESTOR_INDEX_SURVIVORS_H
#define DESTOR_INDEX_SURVIVORS_H

#include "index/fp_index.h"
#include "store/store.h"

#include <glib.h>
#include <stdint.h>

/* removed: the prefixes fp_index_drop_containers gave (sorted here);
 * freed: ascending freed container ids; containers: the store's count.
 * *put: entries written back. */
gboolean index_survivors_restore(Store *s, FpIndex *idx, GArray *removed, const GArray *freed, uint32_t containers,
                                 uint64_t *put, GError **err);

#endif
