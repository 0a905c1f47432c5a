/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_store.h: where a store keeps its containers, behind one
 * interface, so that every caller (backup, repair, verify, the read path,
 * the SSD cache, garbage collection to come) is the same whatever the kind:
 *   pool   one file, containers.pool, container i at byte i * container_size
 *          (container_pool.c; every store made before kinds existed);
 *   files  one file per container under containers/ (container_files.c);
 *   rados  one object per container in a Ceph RADOS pool and namespace
 *          (container_rados.c).
 * Containers are only appended, never rewritten, so an index entry or
 * recipe naming a durable container stays valid whatever happens to later
 * writes; ids are never reused (a freed id stays counted). */
#ifndef DESTOR_CONTAINER_STORE_H
#define DESTOR_CONTAINER_STORE_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

/* Alignment of container buffers that lets writes bypass the page cache;
 * container sizes are multiples of it too. */
#define CONTAINER_ALIGN 4096

/* The kinds, as store.meta (version 3) records them. */
typedef enum {
    CONTAINER_STORE_POOL = 0,
    CONTAINER_STORE_FILES = 1,
    CONTAINER_STORE_RADOS = 2,
} ContainerStoreKind;
#define CONTAINER_STORE_KINDS 3

/* Where a `rados` store's containers are (the other kinds need only the
 * working directory). */
typedef struct {
    const char *conf;       /* the cluster's ceph.conf */
    const char *pool;
    const char *ns;         /* the store's namespace in the pool ("": the default one) */
    unsigned timeout;       /* seconds: connecting, and each monitor or OSD operation */
    unsigned lock_duration; /* seconds the writer's lock outlives a writer that stopped renewing it */
    /* A connection to the same pool and namespace to use (the store's
     * metadata's, store_cluster.h; the caller closes it after the
     * container store), or NULL: the container store connects itself. */
    struct RadosCluster *shared;
    /* A reader's lease against gc (rados_lock.h), checked before each
     * container read: one that lapsed reads nothing more. NULL: none. */
    struct RadosLock *lease;
} ContainerStoreRados;

typedef struct ContainerStore ContainerStore;

typedef struct {
    /* Slots, counting a torn or missing last one as taken: the next id to
     * append at. */
    gboolean (*count)(ContainerStore *cs, uint32_t *count, GError **err);
    /* Write container `id` (container_size bytes); durable only after sync.
     * Called from one writer thread at a time. */
    gboolean (*write)(ContainerStore *cs, ContainerId id, const uint8_t *buf, GError **err);
    /* Make every write before it durable, with the names that reach it. */
    gboolean (*sync)(ContainerStore *cs, GError **err);
    /* Release container `id`'s space; its id stays taken (never reused).
     * A store may gather the frees of adjacent ids and release them together
     * by the next sync or live call (or at close). */
    gboolean (*free)(ContainerStore *cs, ContainerId id, GError **err);
    /* *live: container `id` holds data (written and not freed). */
    gboolean (*live)(ContainerStore *cs, ContainerId id, gboolean *live, GError **err);
    /* Remove every container from id `first` on, so that the count is
     * `first` again, durably: containers written since the count was
     * `first` that nothing committed names (gc's copies after a failed
     * copy). Newest first: a kill midway leaves a count between. */
    gboolean (*discard)(ContainerStore *cs, ContainerId first, GError **err);
    /* Hints (see container_store_set_readahead/_uncached below). */
    void (*set_readahead)(ContainerStore *cs, unsigned containers);
    void (*set_uncached)(ContainerStore *cs, gboolean uncached);
    void (*close)(ContainerStore *cs);
    /* Optional (NULL: the kind lives in the working directory, which is the
     * store): bind the containers to the store of identity `id`, so that
     * two stores never share them (see container_store_claim). */
    gboolean (*claim)(ContainerStore *cs, const uint8_t *id, size_t len, gboolean writable, GError **err);
    /* Optional (NULL: every free releases its space at once): release the
     * gathered frees now, their room given back, durable only after the
     * next sync. */
    gboolean (*release)(ContainerStore *cs, GError **err);
} ContainerStoreOps;

struct ContainerStore {
    ContainerSource source; /* first: reads verify each container's checksum */
    const ContainerStoreOps *ops;
    ContainerStoreKind kind;
};

/* The kind's config and store.meta name ("pool", "files"), NULL if none. */
const char *container_store_kind_name(ContainerStoreKind kind);
gboolean container_store_kind_parse(const char *name, ContainerStoreKind *kind);
/* What the kind keeps in the working directory (the pool file, the
 * directory of container files): its absence once a job is committed means
 * the containers are lost. NULL for a kind that keeps nothing there (rados). */
const char *container_store_kind_entry(ContainerStoreKind kind);
/* Where a store of this kind keeps its containers, for messages ("in one
 * pool file"). */
const char *container_store_kind_described(ContainerStoreKind kind);

/* Open (with `writable`, create) the containers of the store in `dir`. */
ContainerStore *container_store_open(ContainerStoreKind kind, const char *dir, size_t container_size,
                                     gboolean writable, GError **err);
/* The same, for any kind: `rados` names a rados store's cluster, pool and
 * namespace (required for that kind, ignored by the others). A writable
 * rados store holds the store's exclusive lock in RADOS until closed. */
ContainerStore *container_store_open_at(ContainerStoreKind kind, const char *dir, const ContainerStoreRados *rados,
                                        size_t container_size, gboolean writable, GError **err);

static inline ContainerSource *container_store_source(ContainerStore *cs)
{
    return &cs->source;
}
static inline gboolean container_store_count(ContainerStore *cs, uint32_t *count, GError **err)
{
    return cs->ops->count(cs, count, err);
}
static inline gboolean container_store_write(ContainerStore *cs, ContainerId id, const uint8_t *buf, GError **err)
{
    return cs->ops->write(cs, id, buf, err);
}
static inline gboolean container_store_sync(ContainerStore *cs, GError **err)
{
    return cs->ops->sync(cs, err);
}
static inline gboolean container_store_free(ContainerStore *cs, ContainerId id, GError **err)
{
    return cs->ops->free(cs, id, err);
}
static inline gboolean container_store_live(ContainerStore *cs, ContainerId id, gboolean *live, GError **err)
{
    return cs->ops->live(cs, id, live, err);
}
static inline gboolean container_store_discard(ContainerStore *cs, ContainerId first, GError **err)
{
    return cs->ops->discard(cs, first, err);
}
/* Restore reads containers mostly in ascending order: ask the kernel to
 * read the next `containers` ahead of each read (0 turns it off). */
static inline void container_store_set_readahead(ContainerStore *cs, unsigned containers)
{
    cs->ops->set_readahead(cs, containers);
}
/* Measuring the device rather than RAM: with `uncached`, reads are hinted
 * random (no kernel readahead) and each container's pages are dropped from
 * the page cache once read, so every container read costs a device read
 * (store-read-uncached). */
static inline void container_store_set_uncached(ContainerStore *cs, gboolean uncached)
{
    cs->ops->set_uncached(cs, uncached);
}
/* The containers are the store `id`'s: a CONFIG error when they hold another
 * store's identity, or for a reader none, or for a writer containers of no
 * known store; a writer records `id` where there is none, or none but an
 * identity without containers (a store never written to, or made and
 * dropped before its store.meta was published). */
static inline gboolean container_store_claim(ContainerStore *cs, const uint8_t *id, size_t len, gboolean writable,
                                             GError **err)
{
    return cs->ops->claim == NULL || cs->ops->claim(cs, id, len, writable, err);
}
static inline gboolean container_store_release(ContainerStore *cs, GError **err)
{
    return cs->ops->release == NULL || cs->ops->release(cs, err);
}
static inline void container_store_close(ContainerStore *cs)
{
    if (cs != NULL)
        cs->ops->close(cs);
}

#endif
