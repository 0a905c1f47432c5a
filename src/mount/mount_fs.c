/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_fs.c: the mount's FUSE operations on entries: attributes and
 * links from the job's records, per path as it is visited (under the
 * mount's lock); file bytes through read_session_copy (the chunk seam, the
 * SSD cache) by a reader of the pool (mount_readers.h), into libfuse's
 * buffer, reads of different files at once. A read the store cannot
 * serve right (a damaged chunk, an I/O error) is EIO and one destor: line
 * on stderr, never other bytes.
 * Directories: mount_readdir.c; every change refused: mount_refuse.c. */
#include "mount/mount_attr.h"
#include "mount/mount_node.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static int do_getattr(MountFs *fs, const char *path, struct stat *st)
{
    MountPath p = mount_path_parse(path, fs->one_job, fs->job);
    uint32_t newest;
    int e = 0;
    switch (p.kind) {
    case MOUNT_PATH_ROOT:
        mount_attr_dir(fs->mounted_unix, st);
        return 0;
    case MOUNT_PATH_LATEST:
        if (!mount_newest_job(fs, &newest))
            return -ENOENT;
        char name[16];
        mount_attr_link((size_t)g_snprintf(name, sizeof name, "%u", newest), fs->mounted_unix, st);
        return 0;
    case MOUNT_PATH_JOB: {
        Job *job = mount_live_job(fs, &p, &e);
        FileRecord *r = NULL;
        if (job != NULL && p.inner[0] == '\0' && !fs->one_job) {
            gint64 *when = g_new(gint64, 1);
            *when = g_get_monotonic_time();
            g_hash_table_insert(fs->entered, GUINT_TO_POINTER(p.job), when);
        }
        if (job != NULL && (e = mount_find_entry(job, p.inner, &r)) == 0) {
            if (r != NULL)
                mount_attr_record(r, st);
            else
                mount_attr_dir(job->manifest.created_unix, st);
        }
        file_record_free(r);
        return e;
    }
    case MOUNT_PATH_STATS_DIR:
        mount_attr_dir(fs->mounted_unix, st);
        return 0;
    case MOUNT_PATH_STATS: {
        size_t len;
        free(mount_stats_json(&fs->stats, fs->session, fs->mountpoint, &len));
        mount_attr_file(len, fs->mounted_unix, st);
        return 0;
    }
    case MOUNT_PATH_NONE:
        return -ENOENT;
    }
    g_assert_not_reached();
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    MountHandle *h = fi != NULL ? mount_handle_of(fi) : NULL;
    if (h != NULL && h->record != NULL) {
        mount_attr_record(h->record, st);
        return 0;
    }
    MountFs *fs = mount_fs_of_call();
    g_mutex_lock(&fs->lock);
    int e = do_getattr(fs, h != NULL ? h->path : path, st);
    g_mutex_unlock(&fs->lock);
    return e;
}

static int do_readlink(MountFs *fs, const char *path, char *buf, size_t size)
{
    MountPath p = mount_path_parse(path, fs->one_job, fs->job);
    uint32_t newest;
    int e = -EINVAL;
    if (p.kind == MOUNT_PATH_LATEST) {
        if (!mount_newest_job(fs, &newest))
            return -ENOENT;
        g_snprintf(buf, size, "%u", newest);
        return 0;
    }
    Job *job = p.kind == MOUNT_PATH_JOB ? mount_live_job(fs, &p, &e) : NULL;
    FileRecord *r = NULL;
    if (job != NULL && (e = mount_find_entry(job, p.inner, &r)) == 0) {
        e = -EINVAL;
        if (r != NULL && r->type == ENTRY_SYMLINK) {
            size_t n = MIN(r->link->len, size - 1); /* cut as readlink(2) cuts */
            memcpy(buf, r->link->data, n);
            buf[n] = '\0';
            e = 0;
        }
    }
    file_record_free(r);
    return e;
}

static int op_readlink(const char *path, char *buf, size_t size)
{
    MountFs *fs = mount_fs_of_call();
    g_assert(size > 0);
    g_mutex_lock(&fs->lock);
    int e = do_readlink(fs, path, buf, size);
    g_mutex_unlock(&fs->lock);
    return e;
}

static int do_open(MountFs *fs, const char *path, MountHandle **out)
{
    MountPath p = mount_path_parse(path, fs->one_job, fs->job);
    int e = -ENOENT;
    if (p.kind == MOUNT_PATH_STATS) {
        *out = g_new0(MountHandle, 1);
        (*out)->text = mount_stats_json(&fs->stats, fs->session, fs->mountpoint, &(*out)->text_len);
        return 0;
    }
    Job *job = p.kind == MOUNT_PATH_JOB ? mount_live_job(fs, &p, &e) : NULL;
    FileRecord *r = NULL;
    if (job == NULL || (e = mount_find_entry(job, p.inner, &r)) != 0)
        return p.kind == MOUNT_PATH_ROOT ? -EISDIR : e;
    if (r == NULL || r->type != ENTRY_FILE) {
        file_record_free(r);
        return -EISDIR; /* a symlink is followed by the kernel: never here */
    }
    *out = g_new0(MountHandle, 1);
    (*out)->job = p.job;
    (*out)->record = r;
    (*out)->starts = file_output_chunk_starts(r);
    return 0;
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
        return -EROFS;
    MountFs *fs = mount_fs_of_call();
    MountHandle *h = NULL;
    g_mutex_lock(&fs->lock);
    int e = do_open(fs, path, &h);
    g_mutex_unlock(&fs->lock);
    if (e == 0) {
        fi->fh = (uint64_t)(uintptr_t)h;
        if (h->text != NULL)
            fi->direct_io = 1; /* the figures: read to their end, whatever the size said */
        else
            fi->keep_cache = 1; /* a job's files never change */
    }
    return e;
}

typedef struct {
    char *buf;
    size_t used;
} Copy;

static gboolean copy_sink(void *ctx, const uint8_t *data, size_t len, GError **err)
{
    (void)err;
    Copy *c = ctx;
    if (data != NULL) {
        memcpy(c->buf + c->used, data, len);
        c->used += len;
    }
    return TRUE;
}

/* The figures' document, as it was when opened. */
static int read_text(const MountHandle *h, char *buf, size_t size, off_t off)
{
    if ((uint64_t)off >= h->text_len)
        return 0;
    size_t n = MIN(size, h->text_len - (size_t)off);
    memcpy(buf, h->text + off, n);
    return (int)n;
}

static int op_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    MountFs *fs = mount_fs_of_call();
    MountHandle *h = mount_handle_of(fi);
    g_assert(off >= 0);
    if (h->text != NULL)
        return read_text(h, buf, size, off);
    g_assert(h->record != NULL);
    FileRange range = { .offset = (uint64_t)off, .length = size };
    Copy c = { .buf = buf };
    GError *err = NULL;
    double model_s = 0.0;
    ReadSessionReader *reader = mount_readers_take(fs->readers, h);
    gint64 t0 = g_get_monotonic_time();
    gboolean ok = read_session_copy(fs->session, reader, h->record, h->job, &range, h->starts, copy_sink, &c,
                                    &model_s, &err);
    gint64 usec = g_get_monotonic_time() - t0;
    mount_readers_give(fs->readers, reader);
    if (ok)
        mount_stats_add(&fs->stats, c.used, usec, model_s);
    if (!ok) {
        char *shown = file_record_path_display(h->record);
        char *what = g_strdup_printf("read of '%s' in job %u at offset %lld", shown, h->job, (long long)off);
        int e = mount_fail_errno(err, what);
        g_free(what);
        g_free(shown);
        return e == -ENOENT ? -EIO : e;
    }
    g_assert(c.used <= size);
    return (int)c.used;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    MountHandle *h = mount_handle_of(fi);
    mount_readers_forget(mount_fs_of_call()->readers, h);
    mount_handle_free(h);
    return 0;
}

static int op_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    memset(st, 0, sizeof *st);
    st->f_bsize = st->f_frsize = 4096;
    st->f_namemax = 255;
    st->f_flag = ST_RDONLY;
    return 0;
}

/* How long the kernel keeps a name and its attributes: a job's never
 * change; the root's that do are forgotten as they change (mount_watch.h). */
#define MOUNT_KERNEL_CACHE_S 86400.0

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->kernel_cache = 1; /* a job's bytes never change: the page cache keeps them across opens */
    cfg->entry_timeout = cfg->attr_timeout = MOUNT_KERNEL_CACHE_S;
    cfg->use_ino = 0;
    /* reads and releases need only the open file: they go on when the
     * file's path is gone (its job deleted, the name looked up again) */
    cfg->nullpath_ok = 1;
    return mount_fs_of_call();
}

void mount_fs_operations(struct fuse_operations *ops)
{
    *ops = (struct fuse_operations){
        .init = op_init,
        .getattr = op_getattr,
        .readlink = op_readlink,
        .opendir = mount_op_opendir,
        .readdir = mount_op_readdir,
        .releasedir = op_release,
        .open = op_open,
        .read = op_read,
        .release = op_release,
        .statfs = op_statfs,
    };
    mount_refuse_changes(ops);
}
