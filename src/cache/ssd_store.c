/* ssd_store.c: slot file I/O and the cache directory lock. */
#include "cache/ssd_store.h"
#include "util/error.h"
#include "util/lock_file.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct SsdStore {
    char *dir;
    char *slot_path;
    int lock_fd;
    int fd;
    size_t container_size;
    gboolean o_direct;
    uint8_t *bounce; /* aligned buffer for O_DIRECT with unaligned callers */
};

const char *ssd_store_dir(const SsdStore *s)
{
    return s->dir;
}

static gboolean take_lock(SsdStore *s, GError **err)
{
    char *path = g_build_filename(s->dir, SSD_STORE_LOCK_FILE, NULL);
    char *busy = g_strdup_printf("SSD cache directory %s is in use by another process", s->dir);
    s->lock_fd = lock_file_take(path, busy, err);
    g_free(busy);
    g_free(path);
    return s->lock_fd >= 0;
}

SsdStore *ssd_store_open(const char *dir, size_t container_size, uint32_t capacity,
                         gboolean o_direct, GError **err)
{
    if (o_direct && container_size % SSD_STORE_DIRECT_ALIGN != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-o-direct needs a container size that is a multiple of %d (it is %zu)",
                    SSD_STORE_DIRECT_ALIGN, container_size);
        return NULL;
    }
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        destor_set_errno(err, errno, "create SSD cache directory %s", dir);
        return NULL;
    }
    SsdStore *s = g_new0(SsdStore, 1);
    s->dir = g_strdup(dir);
    s->slot_path = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    s->lock_fd = -1;
    s->fd = -1;
    s->container_size = container_size;
    s->o_direct = o_direct;
    if (!take_lock(s, err))
        goto fail;

    int flags = O_RDWR | O_CREAT | O_CLOEXEC | (o_direct ? O_DIRECT : 0);
    s->fd = open(s->slot_path, flags, 0644);
    if (s->fd < 0) {
        if (o_direct && errno == EINVAL)
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                        "open %s: the file system does not support O_DIRECT (ssd-cache-o-direct)",
                        s->slot_path);
        else
            destor_set_errno(err, errno, "open %s", s->slot_path);
        goto fail;
    }
    struct stat st;
    if (fstat(s->fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", s->slot_path);
        goto fail;
    }
    off_t limit = (off_t)capacity * (off_t)container_size;
    if (st.st_size > limit && ftruncate(s->fd, limit) != 0) {
        destor_set_errno(err, errno, "truncate %s", s->slot_path);
        goto fail;
    }
    if (o_direct && posix_memalign((void **)&s->bounce, SSD_STORE_DIRECT_ALIGN, container_size) != 0) {
        destor_set_errno(err, ENOMEM, "allocate an O_DIRECT buffer");
        goto fail;
    }
    return s;
fail:
    ssd_store_close(s);
    return NULL;
}

void ssd_store_close(SsdStore *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the flock */
    free(s->bounce);
    g_free(s->slot_path);
    g_free(s->dir);
    g_free(s);
}

static gboolean needs_bounce(const SsdStore *s, const void *buf)
{
    return s->o_direct && ((uintptr_t)buf % SSD_STORE_DIRECT_ALIGN) != 0;
}

gboolean ssd_store_write(SsdStore *s, uint32_t slot, const uint8_t *buf, GError **err)
{
    const uint8_t *src = buf;
    if (needs_bounce(s, buf)) {
        memcpy(s->bounce, buf, s->container_size);
        src = s->bounce;
    }
    off_t off = (off_t)slot * (off_t)s->container_size;
    return file_pwrite_all(s->fd, src, s->container_size, off, s->slot_path, err);
}

gboolean ssd_store_read(SsdStore *s, uint32_t slot, uint8_t *buf, GError **err)
{
    uint8_t *dst = needs_bounce(s, buf) ? s->bounce : buf;
    off_t off = (off_t)slot * (off_t)s->container_size;
    if (!file_pread_all(s->fd, dst, s->container_size, off, s->slot_path, err))
        return FALSE;
    if (dst != buf)
        memcpy(buf, dst, s->container_size);
    return TRUE;
}

gboolean ssd_store_sync(SsdStore *s, GError **err)
{
    return file_fsync(s->fd, s->slot_path, err);
}
