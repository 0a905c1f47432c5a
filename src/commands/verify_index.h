/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verify_index.h: verify's check of the fingerprint index, derived data
 * that backup trusts for dedup: the whole DB is read (every page's checksum)
 * and compared with the containers: every entry names a container that
 * holds that fingerprint at that offset with that length, and every chunk
 * of every committed container is indexed. The check runs on a stable
 * index only: while a backup has it dirty, or if it changed while it was
 * read, it is skipped with a note (never a false problem). */
#ifndef DESTOR_VERIFY_INDEX_H
#define DESTOR_VERIFY_INDEX_H

#include "read/container_lru.h"
#include "store/store.h"

#include <glib.h>
#include <stdint.h>

/* One problem found, for the container (or -1) and offset (or -1). */
typedef void (*IndexProblemFn)(void *ctx, int64_t container, int64_t offset, const char *what);

/* Report every problem through `report`; FALSE only for a failure to read
 * (an I/O error), not for damage. */
gboolean verify_index(Store *store, ContainerLru *lru, IndexProblemFn report, void *ctx, GError **err);

#endif
