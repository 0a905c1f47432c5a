/* SPDX-License-Identifier: GPL-3.0-or-later */
/* freed_list.h: the containers gc freed, WORKDIR/freed (docs/FORMAT.md).
 *
 * gc publishes the list (atomically) before it frees the containers it
 * adds, both under the fingerprint index's DIRTY mark, so a gc killed
 * midway leaves containers listed and maybe not yet freed, and the mark:
 * the next writer then frees them before it opens the fingerprint index
 * (freed_list_finish), so no index rebuilt from the containers names them
 * again. On a full disk gc may free first and publish right after (gc.h).
 * Ids only grow and are never reused, so the list is also what a
 * cache (of containers now, of chunks later) holds its entries against: a
 * listed id is never served again. */
#ifndef DESTOR_FREED_LIST_H
#define DESTOR_FREED_LIST_H

#include "storage/container_store.h"

#include <glib.h>

#define FREED_LIST_FILE "freed"

/* The freed ids (ContainerId), ascending; a missing file is an empty list,
 * a damaged one an INTEGRITY error. *containers (unless NULL): the store's
 * container count when the list was published (0 without a list): gc's
 * copies lie past the newest manifest's count, and this vouches for them. */
GArray *freed_list_load(const char *workdir, uint32_t *containers, GError **err);
/* freed_list_load on the list's bytes (`shown` names them in errors). */
GArray *freed_list_decode(const uint8_t *p, size_t len, const char *shown, uint32_t *containers, GError **err);
/* The list's bytes (g_free) for `ids` (ascending, distinct) and `containers`. */
uint8_t *freed_list_encode(const GArray *ids, uint32_t containers, size_t *len);
/* Publish `ids` (ascending, distinct) as the list, with the store's
 * container count now. */
gboolean freed_list_publish(const char *workdir, const GArray *ids, uint32_t containers, GError **err);
gboolean freed_list_has(const GArray *ids, ContainerId id);
/* Free every listed container the store still holds, and sync (writer). */
gboolean freed_list_finish(ContainerStore *cs, const GArray *ids, GError **err);

#endif
