/* container_pool.c: the pool file and its ContainerSource. */
#include "storage/container_pool.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct ContainerPool {
    ContainerSource source; /* first: a ContainerPool * is a ContainerSource * */
    int fd;
    int direct_fd; /* writer only: O_DIRECT when the file system allows, else -1 */
    char *path;
    size_t container_size;
    unsigned readahead; /* containers to prefetch after each read */
    gboolean uncached;  /* drop each container from the page cache once read */
};

static gboolean container_pool_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err);
static gboolean container_pool_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err);

ContainerPool *container_pool_open(const char *path, size_t container_size, gboolean writable, GError **err)
{
    int fd = open(path, (writable ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
    if (fd < 0) {
        destor_set_errno(err, errno, "open container pool %s", path);
        return NULL;
    }
    ContainerPool *pool = g_new0(ContainerPool, 1);
    pool->fd = fd;
    /* Whole-container writes bypass the page cache: they are large, aligned
     * and not read back soon, and copying them into the cache was the
     * backup's largest cost (docs/ARCHITECTURE.md, "Performance"). */
    pool->direct_fd = writable ? open(path, O_WRONLY | O_DIRECT | O_CLOEXEC) : -1;
    pool->path = g_strdup(path);
    pool->container_size = container_size;
    pool->source.container_size = container_size;
    pool->source.read = container_pool_read;
    pool->source.stamp = container_pool_stamp;
    return pool;
}

void container_pool_close(ContainerPool *pool)
{
    if (pool == NULL)
        return;
    close(pool->fd);
    if (pool->direct_fd >= 0)
        close(pool->direct_fd);
    g_free(pool->path);
    g_free(pool);
}

void container_pool_set_readahead(ContainerPool *pool, unsigned containers)
{
    pool->readahead = containers;
}

void container_pool_set_uncached(ContainerPool *pool, gboolean uncached)
{
    pool->uncached = uncached;
    /* hints: failure only costs accuracy */
    (void)posix_fadvise(pool->fd, 0, 0, uncached ? POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
}

ContainerSource *container_pool_source(ContainerPool *pool)
{
    return &pool->source;
}

gboolean container_pool_count(ContainerPool *pool, uint32_t *count, GError **err)
{
    struct stat st;
    if (fstat(pool->fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", pool->path);
        return FALSE;
    }
    *count = (uint32_t)(((uint64_t)st.st_size + pool->container_size - 1) / pool->container_size);
    return TRUE;
}

static gboolean container_pool_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    uint32_t count;
    if (!container_pool_count(pool, &count, err))
        return FALSE;
    if (id >= count) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u does not exist (the pool holds %u)", id, count);
        return FALSE;
    }
    off_t off = (off_t)id * (off_t)pool->container_size;
    if (pool->readahead > 0) /* a hint: failure only costs speed */
        (void)posix_fadvise(pool->fd, off + (off_t)pool->container_size,
                            (off_t)pool->container_size * pool->readahead, POSIX_FADV_WILLNEED);
    if (!file_pread_all(pool->fd, buf, pool->container_size, off, pool->path, err))
        return FALSE;
    if (pool->uncached)
        (void)posix_fadvise(pool->fd, off, (off_t)pool->container_size, POSIX_FADV_DONTNEED);
    return container_verify(buf, pool->container_size, id, err);
}

/* The first bytes of container `id` alone (a torn last container may hold
 * fewer: container_stamp() pads them). */
static gboolean container_pool_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err)
{
    ContainerPool *pool = (ContainerPool *)src;
    uint32_t count;
    if (!container_pool_count(pool, &count, err))
        return FALSE;
    if (id >= count) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "container %u does not exist (the pool holds %u)", id, count);
        return FALSE;
    }
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

gboolean container_pool_write(ContainerPool *pool, ContainerId id, const uint8_t *buf, GError **err)
{
    off_t off = (off_t)id * (off_t)pool->container_size;
    gboolean aligned = ((uintptr_t)buf % CONTAINER_ALIGN) == 0;
    int fd = pool->direct_fd >= 0 && aligned ? pool->direct_fd : pool->fd;
    return file_pwrite_all(fd, buf, pool->container_size, off, pool->path, err);
}

gboolean container_pool_sync(ContainerPool *pool, GError **err)
{
    /* O_DIRECT bypasses the cache but not the device's: fsync either way. */
    return file_fsync(pool->fd, pool->path, err);
}
