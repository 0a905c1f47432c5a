/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_files.c: the `files` kind of container store (container_files.h):
 * one file per container, so that a store maps one-to-one onto an object
 * store. Each file is written whole under a unique temporary name, fsynced
 * and renamed into place: a container file is complete or absent. */
#include "storage/container_files.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUBDIR_NAME_LEN 6 /* hex digits of id >> 8 */
#define FILE_NAME_LEN 8   /* hex digits of id */

typedef struct {
    ContainerStore store; /* first: a ContainerFiles * is a ContainerStore * */
    int dir_fd;           /* containers/ */
    char *dir;
    size_t container_size;
    unsigned readahead; /* containers to prefetch after each read */
    gboolean uncached;  /* drop each container from the page cache once read */
    GMutex lock;        /* the writer thread marks, sync clears: */
    GHashTable *dirty;  /* subdirectories (id >> 8) with names not yet synced */
    gboolean dir_dirty; /* containers/ gained a subdirectory since the last sync */
} ContainerFiles;

/* "SSSSSS/NNNNNNNN" of container `id`, relative to containers/. */
static void file_name(ContainerId id, char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2])
{
    snprintf(name, SUBDIR_NAME_LEN + FILE_NAME_LEN + 2, "%06x/%08x", id >> 8, id);
}

static gboolean missing(ContainerFiles *f, ContainerId id, const char *name, GError **err)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u does not exist (no file %s/%s)", id,
                f->dir, name);
    return FALSE;
}

/* What a file of this mode is, as a message names it. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a device";
}

/* Something other than a regular file stands at container `id`'s name: an
 * INTEGRITY error saying what it is (not a freed or torn container). */
static gboolean not_regular(ContainerFiles *f, ContainerId id, const char *name, mode_t mode, GError **err)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                "container %u's file %s/%s is %s, not a regular file", id, f->dir, name, file_kind(mode));
    return FALSE;
}

/* Container `id`'s subdirectory, never through a link planted at its name
 * (O_NOFOLLOW on "SSSSSS/NNNNNNNN" guards the file's name only: a planted
 * SSSSSS had reads, gc's frees and a backup's discards reach the files of
 * the directory it points to). Every access to a container's file is
 * relative to it. Its descriptor, or -1 with errno (ENOENT: none). */
static int subdir_fd(ContainerFiles *f, ContainerId id)
{
    char name[SUBDIR_NAME_LEN + 1];
    snprintf(name, sizeof name, "%06x", id >> 8);
    return openat(f->dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

/* subdir_fd's failure (errno) as an error: container `id` missing, its
 * subdirectory something else than a directory (a planted link: an
 * INTEGRITY error, as a link at the file's name is), or the call's. */
static void subdir_error(ContainerFiles *f, ContainerId id, GError **err)
{
    int e = errno;
    char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
    file_name(id, name);
    name[SUBDIR_NAME_LEN] = '\0';
    struct stat st;
    if (e == ENOENT) {
        name[SUBDIR_NAME_LEN] = '/';
        missing(f, id, name, err);
    } else if ((e == ELOOP || e == ENOTDIR) && fstatat(f->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
               !S_ISDIR(st.st_mode)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u's directory %s/%s is %s, not a directory",
                    id, f->dir, name, file_kind(st.st_mode));
    } else {
        destor_set_errno(err, e, "open %s/%s", f->dir, name);
    }
}

/* Container `id`'s subdirectory (created first with `create`), never
 * through a link: subdir_fd, its failure an error (subdir_error). */
static int open_subdir(ContainerFiles *f, ContainerId id, gboolean create, GError **err)
{
    char name[SUBDIR_NAME_LEN + 1];
    snprintf(name, sizeof name, "%06x", id >> 8);
    if (create && mkdirat(f->dir_fd, name, 0755) == 0) {
        g_mutex_lock(&f->lock);
        f->dir_dirty = TRUE;
        g_mutex_unlock(&f->lock);
    } else if (create && errno != EEXIST) {
        destor_set_errno(err, errno, "create %s/%s", f->dir, name);
        return -1;
    }
    int fd = subdir_fd(f, id);
    if (fd < 0)
        subdir_error(f, id, err);
    return fd;
}

/* Container `id`'s file for reading, a regular file (O_NONBLOCK: a FIFO
 * planted there does not block the open), and *st its status; -1 with
 * *err set. */
static int open_container(ContainerFiles *f, ContainerId id, struct stat *st, GError **err)
{
    char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
    file_name(id, name);
    const char *leaf = name + SUBDIR_NAME_LEN + 1;
    int sub = open_subdir(f, id, FALSE, err);
    if (sub < 0)
        return -1;
    int fd = openat(sub, leaf, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) {
        missing(f, id, name, err);
    } else if (fd < 0 && errno == ELOOP && fstatat(sub, leaf, st, AT_SYMLINK_NOFOLLOW) == 0) {
        not_regular(f, id, name, st->st_mode, err);
    } else if (fd < 0) {
        destor_set_errno(err, errno, "open %s/%s", f->dir, name);
    } else if (fstat(fd, st) != 0) {
        destor_set_errno(err, errno, "stat %s/%s", f->dir, name);
        close(fd);
        fd = -1;
    } else if (!S_ISREG(st->st_mode)) {
        not_regular(f, id, name, st->st_mode, err);
        close(fd);
        fd = -1;
    }
    close(sub);
    return fd;
}

/* Ask the kernel for the next containers' files (a hint: failures ignored). */
static void read_ahead(ContainerFiles *f, ContainerId id)
{
    int sub = -1;
    for (unsigned i = 1; i <= f->readahead && id + i > id; i++) {
        char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
        file_name(id + i, name);
        if (sub < 0 || (id + i) % 256 == 0) { /* a new subdirectory */
            if (sub >= 0)
                close(sub);
            if ((sub = subdir_fd(f, id + i)) < 0)
                return;
        }
        int fd = openat(sub, name + SUBDIR_NAME_LEN + 1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            break;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
        close(fd);
    }
    if (sub >= 0)
        close(sub);
}

/* Container `id`'s file, whole (container_size bytes: a shorter one is
 * freed or torn, an INTEGRITY error), the next ones' asked for; its name
 * for messages in shown. -1 with *err otherwise. */
static int open_whole(ContainerFiles *f, ContainerId id, char shown[64], GError **err)
{
    struct stat st;
    int fd = open_container(f, id, &st, err);
    if (fd < 0)
        return -1;
    snprintf(shown, 64, "container %u", id);
    if ((uint64_t)st.st_size != f->container_size) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is %s (its file holds %lld of %zu bytes)",
                    shown, st.st_size == 0 ? "freed" : "torn", (long long)st.st_size, f->container_size);
        close(fd);
        return -1;
    }
    read_ahead(f, id);
    return fd;
}

static gboolean files_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)src;
    char shown[64];
    int fd = open_whole(f, id, shown, err);
    if (fd < 0)
        return FALSE;
    if (f->uncached)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    gboolean ok = file_pread_all(fd, buf, f->container_size, 0, shown, err);
    if (f->uncached)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return ok && container_verify(buf, f->container_size, id, err);
}

/* Container `id`'s file mapped (the mapping outlives the descriptor). */
static gboolean files_map(ContainerSource *src, ContainerId id, const uint8_t **bytes, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)src;
    char shown[64];
    int fd = open_whole(f, id, shown, err);
    if (fd < 0)
        return FALSE;
    const uint8_t *m = file_map_read(fd, f->container_size, 0, shown, err);
    close(fd);
    return container_verify_mapped(m, f->container_size, id, bytes, err);
}

static void files_unmap(ContainerSource *src, const uint8_t *bytes)
{
    file_unmap(bytes, ((ContainerFiles *)src)->container_size);
}

/* One chunk's range of container `id`: one pread of just those bytes (a
 * freed or torn file too short for it is an INTEGRITY error). */
static gboolean files_read_range(ContainerSource *src, ContainerId id, uint32_t offset, uint32_t len, uint8_t *buf,
                                 GError **err)
{
    ContainerFiles *f = (ContainerFiles *)src;
    if (!container_range_check(f->container_size, id, offset, len, err))
        return FALSE;
    struct stat st;
    int fd = open_container(f, id, &st, err);
    if (fd < 0)
        return FALSE;
    char shown[64];
    snprintf(shown, sizeof shown, "container %u", id);
    gboolean ok = file_pread_all(fd, buf, len, offset, shown, err);
    if (ok && f->uncached)
        (void)posix_fadvise(fd, offset, len, POSIX_FADV_DONTNEED);
    close(fd);
    return ok;
}

/* The first bytes of container `id` alone (container_stamp() pads a
 * shorter file). */
static gboolean files_stamp(ContainerSource *src, ContainerId id, uint32_t *stamp, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)src;
    struct stat st;
    int fd = open_container(f, id, &st, err);
    if (fd < 0)
        return FALSE;
    uint8_t head[CONTAINER_STAMP_BYTES];
    ssize_t got;
    do
        got = pread(fd, head, sizeof head, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        destor_set_errno(err, errno, "read container %u", id);
    else
        *stamp = container_stamp(head, (size_t)got);
    close(fd);
    return got >= 0;
}

/* The largest number among the entries of directory `fd` named by exactly
 * `digits` hex digits (temporary files and anything else skipped), at most
 * `below` (exclusive; G_MAXINT64 for none). FALSE when there is none. */
static gboolean largest_entry(int fd, int digits, gint64 below, gint64 *largest, gboolean *found, const char *shown,
                              GError **err)
{
    int copy = dup(fd);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (d == NULL) {
        destor_set_errno(err, errno, "list %s", shown);
        if (copy >= 0)
            close(copy);
        return FALSE;
    }
    rewinddir(d);
    *found = FALSE;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strlen(e->d_name) != (size_t)digits || strspn(e->d_name, "0123456789abcdef") != (size_t)digits)
            continue;
        gint64 n = g_ascii_strtoll(e->d_name, NULL, 16);
        if (n < below && (!*found || n > *largest)) {
            *largest = n;
            *found = TRUE;
        }
    }
    closedir(d);
    return TRUE;
}

/* One past the largest container file (a freed newest container leaves an
 * empty file, so freeing never lowers the count). */
static gboolean files_count(ContainerStore *cs, uint32_t *count, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    gint64 sub = G_MAXINT64;
    gboolean found;
    *count = 0;
    for (;;) {
        if (!largest_entry(f->dir_fd, SUBDIR_NAME_LEN, sub, &sub, &found, f->dir, err))
            return FALSE;
        if (!found)
            return TRUE;
        char name[SUBDIR_NAME_LEN + 1];
        snprintf(name, sizeof name, "%06x", (unsigned)sub);
        int fd = openat(f->dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
            destor_set_errno(err, errno, "open %s/%s", f->dir, name);
            return FALSE;
        }
        char *shown = g_build_filename(f->dir, name, NULL);
        gint64 id;
        gboolean ok = largest_entry(fd, FILE_NAME_LEN, G_MAXINT64, &id, &found, shown, err);
        g_free(shown);
        close(fd);
        if (!ok)
            return FALSE;
        if (found && id >> 8 == sub) {
            *count = (uint32_t)id + 1;
            return TRUE;
        }
    }
}


static void mark_dirty(ContainerFiles *f, ContainerId id)
{
    g_mutex_lock(&f->lock);
    g_hash_table_add(f->dirty, GUINT_TO_POINTER(id >> 8));
    g_mutex_unlock(&f->lock);
}

/* Replace container `id`'s file by `len` bytes of buf, durably; the name
 * is durable after the next sync. */
static gboolean replace_file(ContainerFiles *f, ContainerId id, const uint8_t *buf, size_t len, GError **err)
{
    int sub = open_subdir(f, id, TRUE, err);
    if (sub < 0)
        return FALSE;
    char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
    file_name(id, name);
    char *shown = g_build_filename(f->dir, name, NULL);
    FileReplace r;
    gboolean ok = file_replace_begin(&r, sub, name + SUBDIR_NAME_LEN + 1, shown, 0644, err);
    if (ok && !file_write_all(r.fd, buf, len, shown, err)) {
        file_replace_abort(&r);
        ok = FALSE;
    } else if (ok) {
        ok = file_replace_commit(&r, TRUE, err);
    }
    if (ok)
        mark_dirty(f, id);
    g_free(shown);
    close(sub);
    return ok;
}

static gboolean files_write(ContainerStore *cs, ContainerId id, const uint8_t *buf, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    return replace_file(f, id, buf, f->container_size, err);
}

static gboolean sync_subdir(ContainerFiles *f, guint sub, GError **err)
{
    char *path = g_strdup_printf("%s/%06x", f->dir, sub);
    gboolean ok = dir_fsync(path, err);
    g_free(path);
    return ok;
}

/* Every file is fsynced before its rename: what is left is the names, in
 * the subdirectories written to and, for new subdirectories, containers/. */
static gboolean files_sync(ContainerStore *cs, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    g_mutex_lock(&f->lock);
    GHashTableIter it;
    gpointer key;
    gboolean ok = TRUE;
    g_hash_table_iter_init(&it, f->dirty);
    while (ok && g_hash_table_iter_next(&it, &key, NULL)) {
        ok = sync_subdir(f, GPOINTER_TO_UINT(key), err);
        if (ok)
            g_hash_table_iter_remove(&it);
    }
    if (ok && f->dir_dirty && (ok = file_fsync(f->dir_fd, f->dir, err)))
        f->dir_dirty = FALSE;
    g_mutex_unlock(&f->lock);
    return ok;
}

/* Unlink the file; the newest container's is replaced by an empty file
 * instead, which keeps the count (ids are never reused). */
static gboolean files_free(ContainerStore *cs, ContainerId id, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    uint32_t count;
    char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
    file_name(id, name);
    if (!files_count(cs, &count, err))
        return FALSE;
    if (id + 1 == count)
        return replace_file(f, id, NULL, 0, err);
    int sub = open_subdir(f, id, FALSE, err);
    if (sub < 0)
        return FALSE;
    gboolean ok = unlinkat(sub, name + SUBDIR_NAME_LEN + 1, 0) == 0;
    if (!ok && errno == ENOENT)
        missing(f, id, name, err);
    else if (!ok)
        destor_set_errno(err, errno, "free %s/%s", f->dir, name);
    close(sub);
    if (ok)
        mark_dirty(f, id);
    return ok;
}

static gboolean files_live(ContainerStore *cs, ContainerId id, gboolean *live, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
    file_name(id, name);
    struct stat st;
    *live = FALSE;
    int sub = subdir_fd(f, id);
    if (sub < 0 && errno == ENOENT)
        return TRUE;
    if (sub < 0) {
        subdir_error(f, id, err);
        return FALSE;
    }
    int r = fstatat(sub, name + SUBDIR_NAME_LEN + 1, &st, AT_SYMLINK_NOFOLLOW), e = errno;
    close(sub);
    if (r == 0) {
        if (!S_ISREG(st.st_mode))
            return not_regular(f, id, name, st.st_mode, err);
        *live = st.st_size > 0;
        return TRUE;
    }
    if (e == ENOENT)
        return TRUE;
    destor_set_errno(err, e, "stat %s/%s", f->dir, name);
    return FALSE;
}

static gboolean files_discard(ContainerStore *cs, ContainerId first, GError **err)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    uint32_t count;
    if (!files_count(cs, &count, err))
        return FALSE;
    for (ContainerId id = count; id > first; id--) {
        char name[SUBDIR_NAME_LEN + FILE_NAME_LEN + 2];
        file_name(id - 1, name);
        int sub = subdir_fd(f, id - 1);
        if (sub < 0 && errno == ENOENT)
            continue;
        if (sub < 0) {
            subdir_error(f, id - 1, err);
            return FALSE;
        }
        int r = unlinkat(sub, name + SUBDIR_NAME_LEN + 1, 0), e = errno;
        close(sub);
        if (r != 0 && e != ENOENT) {
            destor_set_errno(err, e, "remove %s/%s", f->dir, name);
            return FALSE;
        }
        mark_dirty(f, id - 1);
    }
    return files_sync(cs, err);
}

static void files_set_readahead(ContainerStore *cs, unsigned containers)
{
    ((ContainerFiles *)cs)->readahead = containers;
}

static void files_set_uncached(ContainerStore *cs, gboolean uncached)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    f->uncached = uncached;
    /* a mapping would be served from the page cache: reads only */
    f->store.source.map = uncached ? NULL : files_map;
}

static void files_close(ContainerStore *cs)
{
    ContainerFiles *f = (ContainerFiles *)cs;
    close(f->dir_fd);
    g_hash_table_destroy(f->dirty);
    g_mutex_clear(&f->lock);
    g_free(f->dir);
    g_free(f);
}

static const ContainerStoreOps files_ops = {
    .count = files_count,
    .write = files_write,
    .sync = files_sync,
    .free = files_free,
    .live = files_live,
    .discard = files_discard,
    .set_readahead = files_set_readahead,
    .set_uncached = files_set_uncached,
    .close = files_close,
};

ContainerStore *container_files_open(const char *dir, size_t container_size, gboolean writable, GError **err)
{
    char *path = g_build_filename(dir, CONTAINER_FILES_DIR, NULL);
    /* A new containers/ is made durable in the working directory at once:
     * store.meta, published after it, must never name a store without it. */
    if (writable && mkdir(path, 0755) == 0 && !dir_fsync(dir, err)) {
        g_free(path);
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        destor_set_errno(err, errno, "open container directory %s", path);
        g_free(path);
        return NULL;
    }
    ContainerFiles *f = g_new0(ContainerFiles, 1);
    f->dir_fd = fd;
    f->dir = path;
    f->container_size = container_size;
    g_mutex_init(&f->lock);
    f->dirty = g_hash_table_new(g_direct_hash, g_direct_equal);
    f->store.source.container_size = container_size;
    f->store.source.read = files_read;
    f->store.source.read_range = files_read_range;
    f->store.source.stamp = files_stamp;
    f->store.source.map = files_map;
    f->store.source.unmap = files_unmap;
    f->store.ops = &files_ops;
    f->store.kind = CONTAINER_STORE_FILES;
    return &f->store;
}
