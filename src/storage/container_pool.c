/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_pool.c: the pool file as a ContainerStore (container_pool.h). */
#include "storage/container_pool.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    ContainerStore store; /* first: a ContainerPool * is a ContainerStore * */
    int fd;
    int direct_fd; /* writer only: O_DIRECT when the file system allows, else -1 */
    char *path;
    size_t container_size;
    unsigned readahead; /* containers to prefetch after each read */
    gboolean uncached;  /* drop each container from the page cache once read */
    ContainerId punch_first; /* frees not punched yet: ids [punch_first, punch_end) */
    ContainerId punch_end;
} ContainerPool;

static gboolean pool_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err);
static gboolean pool_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err);
static gboolean pool_read_range(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len, uint8_t *buf,
                                GError **err);
static gboolean pool_map(ContainerSource *src, ContainerId id, const uint8_t **bytes, GError **err);
static void pool_unmap(ContainerSource *src, const uint8_t *bytes);
static gboolean punch_pending(ContainerPool *pool, GError **err);
static const ContainerStoreOps pool_ops;

static gboolean same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

ContainerStore *container_pool_open(const char *dir, size_t container_size, gboolean writable, GError **err)
{
    char *path = g_build_filename(dir, CONTAINER_POOL_FILE, NULL);
    int fd = writable ? file_open_own(path, O_RDWR | O_CREAT, 0644) : file_open_read(path);
    if (fd < 0) {
        if (writable)
            file_open_own_error(err, errno, "open container pool", path);
        else
            file_open_read_error(err, errno, "open container pool", path);
        g_free(path);
        return NULL;
    }
    ContainerPool *pool = g_new0(ContainerPool, 1);
    pool->fd = fd;
    /* Whole-container writes bypass the page cache: they are large, aligned
     * and not read back soon, and copying them into the cache was the
     * backup's largest cost (docs/PERFORMANCE.md). */
    pool->direct_fd = writable ? file_open_own(path, O_WRONLY | O_DIRECT, 0) : -1;
    if (pool->direct_fd >= 0 && !same_file(fd, pool->direct_fd)) { /* renamed over in between */
        close(pool->direct_fd);
        pool->direct_fd = -1;
    }
    pool->path = path;
    pool->container_size = container_size;
    pool->store.source.container_size = container_size;
    pool->store.source.read = pool_read;
    pool->store.source.stamp = pool_stamp;
    pool->store.source.read_range = pool_read_range;
    pool->store.source.map = pool_map;
    pool->store.source.unmap = pool_unmap;
    pool->store.ops = &pool_ops;
    pool->store.kind = CONTAINER_STORE_POOL;
    return &pool->store;
}

static void pool_close(ContainerStore *cs)
{
    ContainerPool *pool = (ContainerPool *)cs;
    GError *local = NULL;
    if (!punch_pending(pool, &local)) { /* a space leak only: the id is freed once listed */
        destor_warning("%s", local->message);
        g_error_free(local);
    }
    close(pool->fd);
    if (pool->direct_fd >= 0)
        close(pool->direct_fd);
    g_free(pool->path);
    g_free(pool);
}

static void pool_set_readahead(ContainerStore *cs, unsigned containers)
{
    ((ContainerPool *)cs)->readahead = containers;
}

static void pool_set_uncached(ContainerStore *cs, gboolean uncached)
{
    ContainerPool *pool = (ContainerPool *)cs;
    pool->uncached = uncached;
    /* a mapping would be served from the page cache: reads only */
    pool->store.source.map = uncached ? NULL : pool_map;
    /* hints: failure only costs accuracy */
    (void)posix_fadvise(pool->fd, 0, 0, uncached ? POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
}

static gboolean pool_count(ContainerStore *cs, uint32_t *count, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    struct stat st;
    if (fstat(pool->fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", pool->path);
        return FALSE;
    }
    *count = (uint32_t)(((uint64_t)st.st_size + pool->container_size - 1) / pool->container_size);
    return TRUE;
}

static gboolean pool_exists(ContainerPool *pool, ContainerId id, GError **err)
{
    uint32_t count;
    if (!pool_count(&pool->store, &count, err))
        return FALSE;
    if (id >= count) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u does not exist (the pool holds %u)", id, count);
        return FALSE;
    }
    return TRUE;
}

/* Container `id`'s offset, once it is known to exist, with the kernel
 * asked to read the next `readahead` containers (a hint: failure only
 * costs speed). -1 with *err when there is no such container. */
static off_t read_start(ContainerPool *pool, ContainerId id, GError **err)
{
    if (!pool_exists(pool, id, err))
        return -1;
    off_t off = (off_t)id * (off_t)pool->container_size;
    if (pool->readahead > 0)
        (void)posix_fadvise(pool->fd, off + (off_t)pool->container_size,
                            (off_t)pool->container_size * pool->readahead, POSIX_FADV_WILLNEED);
    return off;
}

static gboolean pool_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    off_t off = read_start(pool, id, err);
    if (off < 0 || !file_pread_all(pool->fd, buf, pool->container_size, off, pool->path, err))
        return FALSE;
    if (pool->uncached)
        (void)posix_fadvise(pool->fd, off, (off_t)pool->container_size, POSIX_FADV_DONTNEED);
    return container_verify(buf, pool->container_size, id, err);
}

/* Container `id` mapped from the pool file (with the read's hint). */
static gboolean pool_map(ContainerSource *src, ContainerId id, const uint8_t **bytes, GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    off_t off = read_start(pool, id, err);
    const uint8_t *m = off < 0 ? NULL : file_map_read(pool->fd, pool->container_size, off, pool->path, err);
    return container_verify_mapped(m, pool->container_size, id, bytes, err);
}

static void pool_unmap(ContainerSource *src, const uint8_t *bytes)
{
    file_unmap(bytes, ((ContainerPool *)src)->container_size);
}

/* One chunk's range of container `id`: one pread of just those bytes. */
static gboolean pool_read_range(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len, uint8_t *buf,
                                GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    if (!container_range_check(pool->container_size, id, offset, len, err) || !pool_exists(pool, id, err))
        return FALSE;
    off_t off = (off_t)id * (off_t)pool->container_size + offset;
    if (!file_pread_all(pool->fd, buf, len, off, pool->path, err))
        return FALSE;
    if (pool->uncached)
        (void)posix_fadvise(pool->fd, off, len, POSIX_FADV_DONTNEED);
    return TRUE;
}

/* The first bytes of container `id` alone (a torn last container may hold
 * fewer: container_stamp() pads them). */
static gboolean pool_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    if (!pool_exists(pool, id, err))
        return FALSE;
    uint8_t head[CONTAINER_STAMP_BYTES];
    ssize_t got;
    do
        got = pread(pool->fd, head, sizeof head, (off_t)id * (off_t)pool->container_size);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        destor_set_errno(err, errno, "read %s", pool->path);
        return FALSE;
    }
    *stamp = container_stamp(head, (size_t)got);
    return TRUE;
}

static gboolean pool_write(ContainerStore *cs, ContainerId id, const uint8_t *buf, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    off_t off = (off_t)id * (off_t)pool->container_size;
    gboolean aligned = ((uintptr_t)buf % CONTAINER_ALIGN) == 0;
    int fd = pool->direct_fd >= 0 && aligned ? pool->direct_fd : pool->fd;
    return file_pwrite_all(fd, buf, pool->container_size, off, pool->path, err);
}

/* One hole in place of the gathered containers: the file keeps its size,
 * so the count and every later id stay as they were. A file system that
 * discards freed blocks does so once per call, so adjacent frees (gc frees
 * in ascending order) cost one call, not one each. */
static gboolean punch_pending(ContainerPool *pool, GError **err)
{
    if (pool->punch_end == pool->punch_first)
        return TRUE;
    off_t off = (off_t)pool->punch_first * (off_t)pool->container_size;
    off_t len = (off_t)(pool->punch_end - pool->punch_first) * (off_t)pool->container_size;
    ContainerId first = pool->punch_first;
    pool->punch_first = pool->punch_end = 0;
    if (fallocate(pool->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) != 0) {
        destor_set_errno(err, errno, "free containers %u to %u in %s", first,
                         first + (ContainerId)(len / (off_t)pool->container_size) - 1, pool->path);
        return FALSE;
    }
    return TRUE;
}

static gboolean pool_sync(ContainerStore *cs, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    /* O_DIRECT bypasses the cache but not the device's: fsync either way. */
    return punch_pending(pool, err) && file_fsync(pool->fd, pool->path, err);
}

static gboolean pool_release(ContainerStore *cs, GError **err)
{
    return punch_pending((ContainerPool *)cs, err);
}

/* Gathered with the frees of the ids just before it; punched when the run
 * breaks, at the next sync, release or live, or at close. */
static gboolean pool_free(ContainerStore *cs, ContainerId id, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    if (!pool_exists(pool, id, err))
        return FALSE;
    if (pool->punch_end != pool->punch_first && id == pool->punch_end) {
        pool->punch_end++;
        return TRUE;
    }
    if (!punch_pending(pool, err))
        return FALSE;
    pool->punch_first = id;
    pool->punch_end = id + 1;
    return TRUE;
}

/* Live: inside the file and not all hole (a file system without SEEK_DATA
 * reports every byte as data). */
static gboolean pool_live(ContainerStore *cs, ContainerId id, gboolean *live, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    uint32_t count;
    if (!punch_pending(pool, err) || !pool_count(cs, &count, err))
        return FALSE;
    *live = FALSE;
    if (id >= count)
        return TRUE;
    off_t off = (off_t)id * (off_t)pool->container_size;
    off_t data = lseek(pool->fd, off, SEEK_DATA);
    if (data < 0 && errno != ENXIO) {
        destor_set_errno(err, errno, "seek %s", pool->path);
        return FALSE;
    }
    *live = data >= 0 && data < off + (off_t)pool->container_size;
    return TRUE;
}

/* The file cut back to `first` containers (never grown: a shorter file
 * has nothing from `first` on). */
static gboolean pool_discard(ContainerStore *cs, ContainerId first, GError **err)
{
    ContainerPool *pool = (ContainerPool *)cs;
    uint32_t count;
    if (!punch_pending(pool, err) || !pool_count(cs, &count, err))
        return FALSE;
    if (count <= first)
        return TRUE;
    if (ftruncate(pool->fd, (off_t)first * (off_t)pool->container_size) != 0) {
        destor_set_errno(err, errno, "remove containers %u to %u from %s", first, count - 1, pool->path);
        return FALSE;
    }
    return file_fsync(pool->fd, pool->path, err);
}

static const ContainerStoreOps pool_ops = {
    .count = pool_count,
    .write = pool_write,
    .sync = pool_sync,
    .free = pool_free,
    .live = pool_live,
    .discard = pool_discard,
    .set_readahead = pool_set_readahead,
    .set_uncached = pool_set_uncached,
    .release = pool_release,
    .close = pool_close,
};
