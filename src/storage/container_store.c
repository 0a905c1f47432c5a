/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_store.c: the kinds of container store, by name (container_store.h). */
#include "storage/container_store.h"
#include "storage/container_files.h"
#include "storage/container_pool.h"
#include "storage/container_rados.h"

#include <string.h>

static const struct {
    const char *name;
    const char *entry;
    const char *described;
    ContainerStore *(*open)(const char *dir, size_t container_size, gboolean writable, GError **err);
} kinds[CONTAINER_STORE_KINDS] = {
    [CONTAINER_STORE_POOL] = { "pool", CONTAINER_POOL_FILE, "in one pool file", container_pool_open },
    [CONTAINER_STORE_FILES] = { "files", CONTAINER_FILES_DIR, "in one file each", container_files_open },
    [CONTAINER_STORE_RADOS] = { "rados", NULL, "in Ceph RADOS objects", NULL }, /* opened with its target */
};

const char *container_store_kind_name(ContainerStoreKind kind)
{
    return (unsigned)kind < CONTAINER_STORE_KINDS ? kinds[kind].name : NULL;
}

gboolean container_store_kind_parse(const char *name, ContainerStoreKind *kind)
{
    for (unsigned i = 0; i < CONTAINER_STORE_KINDS; i++) {
        if (!strcmp(name, kinds[i].name)) {
            *kind = (ContainerStoreKind)i;
            return TRUE;
        }
    }
    return FALSE;
}

const char *container_store_kind_entry(ContainerStoreKind kind)
{
    g_assert((unsigned)kind < CONTAINER_STORE_KINDS);
    return kinds[kind].entry;
}

const char *container_store_kind_described(ContainerStoreKind kind)
{
    g_assert((unsigned)kind < CONTAINER_STORE_KINDS);
    return kinds[kind].described;
}

ContainerStore *container_store_open(ContainerStoreKind kind, const char *dir, size_t container_size,
                                     gboolean writable, GError **err)
{
    return container_store_open_at(kind, dir, NULL, container_size, writable, err);
}

ContainerStore *container_store_open_at(ContainerStoreKind kind, const char *dir, const ContainerStoreRados *rados,
                                        size_t container_size, gboolean writable, GError **err)
{
    g_assert((unsigned)kind < CONTAINER_STORE_KINDS);
    g_assert(kind != CONTAINER_STORE_RADOS || rados != NULL);
    ContainerStore *cs = kind == CONTAINER_STORE_RADOS ? container_rados_open(rados, container_size, writable, err)
                                                       : kinds[kind].open(dir, container_size, writable, err);
    g_assert(cs == NULL || (cs->kind == kind && cs->source.container_size == container_size));
    return cs;
}
