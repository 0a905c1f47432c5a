/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_rados.c: the `rados` kind of container store (container_rados.h).
 * A container is written by one RADOS operation that creates its object
 * exclusively and writes it whole, so an object is complete or absent and a
 * container, once written, is never overwritten (not even by a second
 * writer that lost the lock). RADOS acknowledges a write once it is durable
 * on the pool's OSDs. Writes are asynchronous, a few in flight (librados
 * copies the bytes when the operation is made), so that a round trip to the
 * OSDs does not hold the container writer: sync waits for every one, and
 * proves the lock is still this writer's; a failed write fails the next
 * write or sync. Everything else waits for the writes in flight first. */
#include "storage/container_rados.h"
#include "storage/container.h"
#include "storage/rados_cluster.h"
#include "storage/rados_lock.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define OBJECT_PREFIX CONTAINER_RADOS_OBJECT_PREFIX
#define OBJECT_NAME_LEN (sizeof OBJECT_PREFIX - 1 + 8)
#define WRITES_IN_FLIGHT 4

typedef struct {
    rados_write_op_t op;
    rados_completion_t done;
    ContainerId id;
} PendingWrite;

typedef struct {
    ContainerStore store; /* first: a ContainerRados * is a ContainerStore * */
    RadosCluster *cluster; /* &own, or the target's shared one */
    RadosCluster own;
    RadosLock *lock; /* a writer's; NULL for a reader */
    RadosLock *lease; /* a reader's lease against gc, or NULL */
    size_t container_size;
    GMutex writes;       /* guards: */
    GQueue pending;      /* PendingWrite *, oldest first */
    int failed;          /* 0, or the result of the first write that failed */
    ContainerId failed_id;
    gboolean counted;    /* a writer's count, listed once and kept by its writes */
    uint32_t count;
} ContainerRados;

static void object_name(ContainerId id, char name[OBJECT_NAME_LEN + 1])
{
    snprintf(name, OBJECT_NAME_LEN + 1, OBJECT_PREFIX "%08x", id);
}

static gboolean missing(ContainerRados *r, ContainerId id, const char *name, GError **err)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u does not exist (no object %s in %s)", id,
                name, r->cluster->shown);
    return FALSE;
}

static gboolean write_error(ContainerRados *r, int rc, ContainerId id, GError **err)
{
    char name[OBJECT_NAME_LEN + 1];
    object_name(id, name);
    if (rc == -EEXIST) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED,
                    "container %u (object %s) already exists in %s: another writer wrote it; not overwritten", id,
                    name, r->cluster->shown);
    } else {
        char *what = g_strdup_printf("write container %u (object %s)", id, name);
        rados_cluster_error(r->cluster, err, rc, what);
        g_free(what);
    }
    return FALSE;
}

/* Wait for the oldest write in flight (r->writes held); remember a failure. */
static void finish_oldest(ContainerRados *r)
{
    PendingWrite *w = g_queue_pop_head(&r->pending);
    g_assert(w != NULL);
    rados_aio_wait_for_complete(w->done);
    int rc = rados_aio_get_return_value(w->done);
    if (rc < 0 && r->failed == 0) {
        r->failed = rc;
        r->failed_id = w->id;
    }
    rados_aio_release(w->done);
    rados_release_write_op(w->op);
    g_free(w);
}

/* Wait for every write in flight (a failure stays for the next write or sync). */
static void finish_writes(ContainerRados *r)
{
    g_mutex_lock(&r->writes);
    while (!g_queue_is_empty(&r->pending))
        finish_oldest(r);
    g_mutex_unlock(&r->writes);
}

/* Read `len` bytes of container `id` from `offset` into buf; *got: how
 * many the object held there. */
static gboolean read_object(ContainerRados *r, ContainerId id, uint8_t *buf, size_t len, uint64_t offset, size_t *got,
                            GError **err)
{
    char name[OBJECT_NAME_LEN + 1];
    object_name(id, name);
    finish_writes(r);
    if (r->lease != NULL && !rados_lock_kept(r->lease, err))
        return FALSE;
    int n = rados_read(r->cluster->io, name, (char *)buf, len, offset);
    if (n == -ENOENT)
        return missing(r, id, name, err);
    if (n < 0) {
        char *what = g_strdup_printf("read container %u (object %s)", id, name);
        rados_cluster_error(r->cluster, err, n, what);
        g_free(what);
        return FALSE;
    }
    *got = (size_t)n;
    return TRUE;
}

static gboolean rados_container_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    ContainerRados *r = (ContainerRados *)src;
    size_t got;
    if (!read_object(r, id, buf, r->container_size, 0, &got, err))
        return FALSE;
    if (got != r->container_size) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u is %s (its object holds %zu of %zu bytes)",
                    id, got == 0 ? "freed" : "short", got, r->container_size);
        return FALSE;
    }
    return container_verify(buf, r->container_size, id, err);
}

/* The first bytes alone: one small ranged read. */
static gboolean rados_container_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err)
{
    uint8_t head[CONTAINER_STAMP_BYTES];
    size_t got;
    if (!read_object((ContainerRados *)src, id, head, sizeof head, 0, &got, err))
        return FALSE;
    *stamp = container_stamp(head, got);
    return TRUE;
}

/* One chunk's range: one rados_read at its offset. */
static gboolean rados_container_read_range(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len,
                                           uint8_t *buf, GError **err)
{
    ContainerRados *r = (ContainerRados *)src;
    size_t got;
    if (!container_range_check(r->container_size, id, offset, len, err) ||
        !read_object(r, id, buf, len, offset, &got, err))
        return FALSE;
    if (got != len) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u is %s (its object holds %zu of the %u bytes at offset %u)", id,
                    got == 0 ? "freed or short" : "short", got, len, offset);
        return FALSE;
    }
    return TRUE;
}

/* One past the largest container object in the namespace (other objects,
 * the lock's, skipped; a freed newest container is an empty object, so
 * freeing never lowers the count): a listing of every object. */
static gboolean list_count(ContainerRados *r, uint32_t *count, GError **err)
{
    rados_list_ctx_t list;
    int rc = rados_nobjects_list_open(r->cluster->io, &list);
    if (rc < 0) {
        rados_cluster_error(r->cluster, err, rc, "list the containers");
        return FALSE;
    }
    *count = 0;
    const char *entry;
    while ((rc = rados_nobjects_list_next(list, &entry, NULL, NULL)) == 0) {
        size_t len = strlen(entry);
        const char *hex = entry + sizeof OBJECT_PREFIX - 1;
        if (len != OBJECT_NAME_LEN || strncmp(entry, OBJECT_PREFIX, sizeof OBJECT_PREFIX - 1) != 0 ||
            strspn(hex, "0123456789abcdef") != 8)
            continue;
        uint32_t id = (uint32_t)g_ascii_strtoull(hex, NULL, 16);
        if (id != UINT32_MAX && id + 1 > *count)
            *count = id + 1;
    }
    rados_nobjects_list_close(list);
    if (rc != -ENOENT) {
        rados_cluster_error(r->cluster, err, rc, "list the containers");
        return FALSE;
    }
    return TRUE;
}

/* A writer lists once: while it holds the lock nobody else adds objects, and
 * its own writes raise the count. A reader lists each time. */
static gboolean rados_count(ContainerStore *cs, uint32_t *count, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    finish_writes(r);
    g_mutex_lock(&r->writes);
    gboolean known = r->counted;
    *count = r->count;
    g_mutex_unlock(&r->writes);
    if (known)
        return TRUE;
    if (!list_count(r, count, err))
        return FALSE;
    g_mutex_lock(&r->writes);
    r->counted = r->lock != NULL;
    r->count = *count;
    g_mutex_unlock(&r->writes);
    return TRUE;
}

static gboolean rados_container_write(ContainerStore *cs, ContainerId id, const uint8_t *buf, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    g_assert(r->lock != NULL);
    if (!rados_lock_kept(r->lock, err))
        return FALSE;
    char name[OBJECT_NAME_LEN + 1];
    object_name(id, name);
    g_mutex_lock(&r->writes);
    while (r->failed == 0 && g_queue_get_length(&r->pending) >= WRITES_IN_FLIGHT)
        finish_oldest(r);
    int rc = r->failed;
    ContainerId failed_id = r->failed_id;
    if (rc == 0) {
        PendingWrite *w = g_new0(PendingWrite, 1);
        w->id = id;
        w->op = rados_create_write_op();
        rados_write_op_create(w->op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
        rados_write_op_write_full(w->op, (const char *)buf, r->container_size); /* copies buf */
        rados_aio_create_completion2(NULL, NULL, &w->done);
        rc = rados_aio_write_op_operate(w->op, r->cluster->io, w->done, name, NULL, 0);
        failed_id = id;
        if (rc == 0) {
            g_queue_push_tail(&r->pending, w);
            r->count = MAX(r->count, id + 1);
        } else {
            rados_aio_release(w->done);
            rados_release_write_op(w->op);
            g_free(w);
        }
    }
    g_mutex_unlock(&r->writes);
    return rc == 0 || write_error(r, rc, failed_id, err);
}

static gboolean rados_sync(ContainerStore *cs, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    g_assert(r->lock != NULL);
    finish_writes(r);
    g_mutex_lock(&r->writes);
    int rc = r->failed;
    ContainerId failed_id = r->failed_id;
    g_mutex_unlock(&r->writes);
    if (rc < 0)
        return write_error(r, rc, failed_id, err);
    return rados_lock_renew(r->lock, err);
}

/* Remove the object; the newest container's is emptied instead, which
 * keeps the count (ids are never reused). */
static gboolean rados_free(ContainerStore *cs, ContainerId id, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    g_assert(r->lock != NULL);
    uint32_t count;
    char name[OBJECT_NAME_LEN + 1];
    object_name(id, name);
    if (!rados_lock_kept(r->lock, err) || !rados_count(cs, &count, err))
        return FALSE;
    int rc = id + 1 == count ? rados_write_full(r->cluster->io, name, "", 0) : rados_remove(r->cluster->io, name);
    if (rc == -ENOENT)
        return missing(r, id, name, err);
    if (rc < 0) {
        char *what = g_strdup_printf("free container %u (object %s)", id, name);
        rados_cluster_error(r->cluster, err, rc, what);
        g_free(what);
        return FALSE;
    }
    return TRUE;
}

/* The objects from `first` on removed, newest first, the count with them. */
static gboolean rados_discard(ContainerStore *cs, ContainerId first, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    g_assert(r->lock != NULL);
    uint32_t count;
    if (!rados_lock_kept(r->lock, err) || !rados_count(cs, &count, err))
        return FALSE;
    for (ContainerId id = count; id > first; id--) {
        char name[OBJECT_NAME_LEN + 1];
        object_name(id - 1, name);
        int rc = rados_remove(r->cluster->io, name);
        if (rc < 0 && rc != -ENOENT) {
            char *what = g_strdup_printf("remove container %u (object %s)", id - 1, name);
            rados_cluster_error(r->cluster, err, rc, what);
            g_free(what);
            return FALSE;
        }
        g_mutex_lock(&r->writes);
        r->count = id - 1;
        g_mutex_unlock(&r->writes);
    }
    return TRUE;
}

static gboolean rados_live(ContainerStore *cs, ContainerId id, gboolean *live, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    char name[OBJECT_NAME_LEN + 1];
    object_name(id, name);
    uint64_t size;
    time_t mtime;
    finish_writes(r);
    int rc = rados_stat(r->cluster->io, name, &size, &mtime);
    *live = rc == 0 && size > 0;
    if (rc == 0 || rc == -ENOENT)
        return TRUE;
    char *what = g_strdup_printf("stat container %u (object %s)", id, name);
    rados_cluster_error(r->cluster, err, rc, what);
    g_free(what);
    return FALSE;
}

/* Restore's prefetch thread already reads ahead through the source, and no
 * page cache stands between destor and the cluster: both hints are moot. */
static void rados_set_readahead(ContainerStore *cs, unsigned containers)
{
    (void)cs;
    (void)containers;
}

static void rados_set_uncached(ContainerStore *cs, gboolean uncached)
{
    (void)cs;
    (void)uncached;
}

static void rados_close(ContainerStore *cs)
{
    ContainerRados *r = (ContainerRados *)cs;
    finish_writes(r);
    rados_lock_release(r->lock);
    if (r->cluster == &r->own)
        rados_cluster_close(&r->own);
    g_mutex_clear(&r->writes);
    g_free(r);
}

static gboolean other_store(ContainerRados *r, const char *why, GError **err)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                "%s belongs to another store (%s); one store a namespace: check rados-namespace", r->cluster->shown,
                why);
    return FALSE;
}

/* The namespace is the store's: CONTAINER_RADOS_ID_OBJECT holds its
 * identity. A namespace without containers is free to take. */
static gboolean rados_claim(ContainerStore *cs, const uint8_t *id, size_t len, gboolean writable, GError **err)
{
    ContainerRados *r = (ContainerRados *)cs;
    g_assert(len > 0 && len <= 64);
    char held[64];
    finish_writes(r);
    int n = rados_read(r->cluster->io, CONTAINER_RADOS_ID_OBJECT, held, sizeof held, 0);
    if (n < 0 && n != -ENOENT) {
        rados_cluster_error(r->cluster, err, n, "read the store's identity");
        return FALSE;
    }
    if (n == (int)len && memcmp(held, id, len) == 0)
        return TRUE;
    if (!writable && n == -ENOENT) { /* a store claims its namespace before its store.meta is published */
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "%s holds no destor store (no object %s): check rados-namespace; if it is right, the "
                    "store's containers are lost",
                    r->cluster->shown, CONTAINER_RADOS_ID_OBJECT);
        return FALSE;
    }
    if (!writable)
        return other_store(r, "object " CONTAINER_RADOS_ID_OBJECT " names it", err);
    uint32_t count;
    if (!rados_count(cs, &count, err))
        return FALSE;
    if (count > 0)
        return other_store(r, n >= 0 ? "object " CONTAINER_RADOS_ID_OBJECT " names it"
                                     : "it holds containers but no " CONTAINER_RADOS_ID_OBJECT,
                           err);
    g_assert(r->lock != NULL);
    int rc = rados_write_full(r->cluster->io, CONTAINER_RADOS_ID_OBJECT, (const char *)id, len);
    if (rc < 0)
        rados_cluster_error(r->cluster, err, rc, "record the store's identity");
    return rc == 0;
}

static const ContainerStoreOps rados_ops = {
    .count = rados_count,
    .write = rados_container_write,
    .sync = rados_sync,
    .free = rados_free,
    .live = rados_live,
    .discard = rados_discard,
    .set_readahead = rados_set_readahead,
    .set_uncached = rados_set_uncached,
    .close = rados_close,
    .claim = rados_claim,
};

ContainerStore *container_rados_open(const ContainerStoreRados *target, size_t container_size, gboolean writable,
                                     GError **err)
{
    ContainerRados *r = g_new0(ContainerRados, 1);
    r->container_size = container_size;
    g_mutex_init(&r->writes);
    g_queue_init(&r->pending);
    r->store.source.container_size = container_size;
    r->store.source.read = rados_container_read;
    r->store.source.stamp = rados_container_stamp;
    r->store.source.read_range = rados_container_read_range;
    r->store.ops = &rados_ops;
    r->store.kind = CONTAINER_STORE_RADOS;
    r->cluster = target->shared != NULL ? target->shared : &r->own;
    r->lease = target->lease;
    if ((target->shared == NULL && !rados_cluster_connect(&r->own, target, err)) ||
        (writable && (r->lock = rados_lock_take(r->cluster, target->lock_duration, err)) == NULL)) {
        rados_close(&r->store);
        return NULL;
    }
    return &r->store;
}
