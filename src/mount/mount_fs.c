/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_fs.c: the mount's FUSE operations. Metadata comes from the job's
 * recipe index and records, per path as it is visited; file bytes through
 * read_session_copy (the chunk seam, the SSD cache), into libfuse's buffer.
 * A read the store cannot serve right (a damaged chunk, an I/O error) is
 * EIO and one destor: line on stderr, never other bytes. */
#include "mount/mount_attr.h"
#include "mount/mount_dir.h"
#include "mount/mount_fuse.h"
#include "mount/mount_path.h"
#include "recipe/job_tombstone.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* An open file or directory (libfuse passes no path to the calls on one:
 * nullpath_ok). A file's record, read at open, serves every read; a
 * directory is listed by the path it was opened at. */
typedef struct {
    char *path;         /* a directory's */
    GByteArray *from;   /* a job's directory: where its listing goes on (mount_dir_list) */
    off_t from_ord;     /* ... after the entry of this ordinal */
    gboolean ended;     /* ... or that it had its last entry */
    uint32_t job;       /* a file's job and record */
    FileRecord *record; /* NULL for a directory and the figures */
    uint64_t *starts;   /* a file's chunks' offsets (file_output_chunk_starts) */
    char *text;         /* the figures: the document as it was at open */
    size_t text_len;
} MountHandle;

static MountHandle *handle_of(const struct fuse_file_info *fi)
{
    MountHandle *h = (MountHandle *)(uintptr_t)fi->fh;
    g_assert(h != NULL);
    return h;
}

static void handle_free(MountHandle *h)
{
    file_record_free(h->record);
    g_free(h->starts);
    free(h->text); /* open_memstream's */
    g_free(h->path);
    if (h->from != NULL)
        g_byte_array_unref(h->from);
    g_free(h);
}

static MountFs *fs_of_call(void)
{
    return fuse_get_context()->private_data;
}

/* The errno for err: a path or job that is not there ENOENT; anything
 * else (damage, I/O) EIO, said on stderr. */
static int fail_errno(GError *err, const char *what)
{
    int e = ENOENT;
    if (!g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE)) {
        destor_warning("%s: %s (the reader gets EIO)", what, err ? err->message : "failed");
        e = EIO;
    }
    g_clear_error(&err);
    return -e;
}

/* The newest live job; FALSE when there is none. */
static gboolean newest_job(MountFs *fs, uint32_t *id)
{
    GArray *ids = job_catalog_list_live(fs->session->store->dir, NULL);
    gboolean any = ids != NULL && ids->len > 0;
    if (any)
        *id = g_array_index(ids, uint32_t, ids->len - 1);
    if (ids != NULL)
        g_array_unref(ids);
    return any;
}

/* The job path p lies in. A deleted job is gone from the root: its
 * directory there is not found any more, so nothing new is entered; what
 * lies below it stays for those already inside (an open file's fstat,
 * a process whose directory is there) while the session holds the job. */
static Job *live_job(MountFs *fs, const MountPath *p, int *e)
{
    GError *err = NULL;
    uint32_t id = p->job;
    gboolean held = g_hash_table_contains(fs->session->jobs, GUINT_TO_POINTER(id));
    gboolean entering = p->inner[0] == '\0' && !fs->one_job; /* its directory at the root */
    if ((entering || !held) && job_is_deleted(fs->session->store->dir, id)) {
        *e = -ENOENT;
        return NULL;
    }
    Job *job = read_session_job(fs->session, id, &err);
    if (job == NULL) {
        char *what = g_strdup_printf("job %u", id);
        *e = fail_errno(err, what);
        g_free(what);
    }
    return job;
}

/* What `inner` is in job: its record (*r, NULL for a directory without
 * one: the job's top, or a parent stored without its own entry). */
static int find_entry(Job *job, const char *inner, FileRecord **r)
{
    *r = NULL;
    if (inner[0] == '\0')
        return 0;
    GError *err = NULL;
    *r = job_find(job, inner, &err);
    if (*r != NULL)
        return 0;
    gboolean has = FALSE;
    if (g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE)) {
        g_clear_error(&err);
        if (mount_dir_has_entries(job, inner, &has, &err) && has)
            return 0;
        if (err == NULL)
            return -ENOENT;
    }
    char *what = g_strdup_printf("'%s' in job %u", inner, job->manifest.job_id);
    int e = fail_errno(err, what);
    g_free(what);
    return e;
}

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
        if (!newest_job(fs, &newest))
            return -ENOENT;
        char name[16];
        mount_attr_link((size_t)g_snprintf(name, sizeof name, "%u", newest), fs->mounted_unix, st);
        return 0;
    case MOUNT_PATH_JOB: {
        Job *job = live_job(fs, &p, &e);
        FileRecord *r = NULL;
        if (job != NULL && (e = find_entry(job, p.inner, &r)) == 0) {
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
    MountHandle *h = fi != NULL ? handle_of(fi) : NULL;
    if (h != NULL && h->record != NULL) {
        mount_attr_record(h->record, st);
        return 0;
    }
    MountFs *fs = fs_of_call();
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
        if (!newest_job(fs, &newest))
            return -ENOENT;
        g_snprintf(buf, size, "%u", newest);
        return 0;
    }
    Job *job = p.kind == MOUNT_PATH_JOB ? live_job(fs, &p, &e) : NULL;
    FileRecord *r = NULL;
    if (job != NULL && (e = find_entry(job, p.inner, &r)) == 0) {
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
    MountFs *fs = fs_of_call();
    g_assert(size > 0);
    g_mutex_lock(&fs->lock);
    int e = do_readlink(fs, path, buf, size);
    g_mutex_unlock(&fs->lock);
    return e;
}

/* A listing handed to libfuse a buffer at a time: each entry carries its
 * ordinal (".", "..", then the rest: 1, 2, 3, ...) as the offset the next
 * readdir goes on from. */
typedef struct {
    void *buf;
    fuse_fill_dir_t filler;
    Job *job;      /* listing one of its directories */
    gboolean plus; /* the kernel asked for each entry's attributes too (readdirplus) */
    off_t ord;     /* the ordinal of the entry last offered */
    off_t skip;    /* entries up to this ordinal were handed over before */
} Filler;

/* Offer one entry: FALSE when the buffer is full (then it was not taken). */
static gboolean put(Filler *f, const char *name, const struct stat *st)
{
    if (++f->ord <= f->skip)
        return TRUE;
    if (f->filler(f->buf, name, st, f->ord, st != NULL ? FUSE_FILL_DIR_PLUS : 0) == 0)
        return TRUE;
    f->ord--;
    return FALSE;
}

/* An entry of a job's directory; with readdirplus its attributes from its
 * record, read where the listing found it (no lookup per entry: `ls -l`
 * of a large directory is one request per buffer of entries). */
static gboolean put_entry(void *ctx, const MountDirEntry *e)
{
    Filler *f = ctx;
    struct stat st;
    if (!f->plus)
        return put(f, e->name, NULL);
    if (e->has_record) {
        FileRecord *r = job_record_at(f->job, e->path->data, e->path->len, e->offset, e->length, NULL);
        if (r == NULL) /* damaged: a lookup of the name says so */
            return put(f, e->name, NULL);
        mount_attr_record(r, &st);
        file_record_free(r);
    } else {
        mount_attr_dir(f->job->manifest.created_unix, &st);
    }
    return put(f, e->name, &st);
}

/* The root of jobs: `latest`, .destor and each live job. */
static int list_jobs(MountFs *fs, Filler *f)
{
    GError *err = NULL;
    GArray *ids = job_catalog_list_live(fs->session->store->dir, &err);
    if (ids == NULL)
        return fail_errno(err, "the list of jobs");
    gboolean room = (ids->len == 0 || put(f, MOUNT_LATEST, NULL)) && put(f, MOUNT_STATS_DIR, NULL);
    for (guint i = 0; room && i < ids->len; i++) {
        char name[16];
        g_snprintf(name, sizeof name, "%u", g_array_index(ids, uint32_t, i));
        room = put(f, name, NULL);
    }
    g_array_unref(ids);
    return 0;
}

/* A job's directory, from where the last buffer ended when the kernel goes
 * on from there (h->from), else from its start, skipping what it had. */
static int list_job_dir(MountFs *fs, MountHandle *h, const MountPath *p, Filler *f)
{
    int e = -ENOENT;
    Job *job = live_job(fs, p, &e);
    FileRecord *r = NULL;
    if (job == NULL || (e = find_entry(job, p->inner, &r)) != 0)
        return e;
    gboolean dir = r == NULL || r->type == ENTRY_DIR;
    file_record_free(r);
    if (!dir)
        return -ENOTDIR;
    if (f->skip == 0 || f->skip != h->from_ord) { /* from the start */
        g_byte_array_set_size(h->from, 0);
        h->ended = FALSE;
        if (!put(f, ".", NULL) || !put(f, "..", NULL))
            return 0;
    } else {
        f->ord = f->skip; /* on from h->from */
    }
    if (h->ended)
        return 0;
    GError *err = NULL;
    f->job = job;
    if (!mount_dir_list(job, p->inner, h->from, put_entry, f, &h->ended, &err)) {
        char *what = g_strdup_printf("listing '%s' in job %u", p->inner, p->job);
        e = fail_errno(err, what);
        g_free(what);
        return e;
    }
    h->from_ord = f->ord;
    return 0;
}

static int do_readdir(MountFs *fs, MountHandle *h, Filler *f)
{
    MountPath p = mount_path_parse(h->path, fs->one_job, fs->job);
    if (p.kind == MOUNT_PATH_ROOT)
        return put(f, ".", NULL) && put(f, "..", NULL) ? list_jobs(fs, f) : 0;
    if (p.kind == MOUNT_PATH_STATS_DIR) {
        (void)(put(f, ".", NULL) && put(f, "..", NULL) && put(f, MOUNT_STATS_FILE, NULL));
        return 0;
    }
    return p.kind == MOUNT_PATH_JOB ? list_job_dir(fs, h, &p, f) : -ENOENT;
}

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
    MountHandle *h = g_new0(MountHandle, 1);
    h->path = g_strdup(path);
    h->from = g_byte_array_new();
    fi->fh = (uint64_t)(uintptr_t)h;
    return 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
    (void)path;
    MountFs *fs = fs_of_call();
    Filler f = { .buf = buf, .filler = filler, .plus = (flags & FUSE_READDIR_PLUS) != 0, .skip = off };
    g_mutex_lock(&fs->lock);
    int e = do_readdir(fs, handle_of(fi), &f);
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
    Job *job = p.kind == MOUNT_PATH_JOB ? live_job(fs, &p, &e) : NULL;
    FileRecord *r = NULL;
    if (job == NULL || (e = find_entry(job, p.inner, &r)) != 0)
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
    MountFs *fs = fs_of_call();
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
    MountFs *fs = fs_of_call();
    MountHandle *h = handle_of(fi);
    g_assert(off >= 0);
    if (h->text != NULL)
        return read_text(h, buf, size, off);
    g_assert(h->record != NULL);
    FileRange range = { .offset = (uint64_t)off, .length = size };
    Copy c = { .buf = buf };
    GError *err = NULL;
    double model_s = 0.0;
    g_mutex_lock(&fs->lock);
    gint64 t0 = g_get_monotonic_time();
    gboolean ok = read_session_copy(fs->session, h->record, h->job, &range, h->starts, copy_sink, &c, &model_s, &err);
    if (ok)
        mount_stats_add(&fs->stats, c.used, g_get_monotonic_time() - t0, model_s);
    g_mutex_unlock(&fs->lock);
    if (!ok) {
        char *shown = file_record_path_display(h->record);
        char *what = g_strdup_printf("read of '%s' in job %u at offset %lld", shown, h->job, (long long)off);
        int e = fail_errno(err, what);
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
    handle_free(handle_of(fi));
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

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    (void)conn;
    cfg->kernel_cache = 1; /* a job's bytes never change: the page cache keeps them across opens */
    cfg->use_ino = 0;
    /* reads and releases need only the open file: they go on when the
     * file's path is gone (its job deleted, the name looked up again) */
    cfg->nullpath_ok = 1;
    return fs_of_call();
}

/* Every change: the mount is read-only (mounted "ro" too, so the kernel
 * refuses most before they get here). */
static int refuse_path(const char *path)
{
    (void)path;
    return -EROFS;
}

static int refuse_mknod(const char *path, mode_t mode, dev_t dev)
{
    (void)dev;
    (void)mode;
    return refuse_path(path);
}

static int refuse_mode(const char *path, mode_t mode)
{
    (void)mode;
    return refuse_path(path);
}

static int refuse_two(const char *path, const char *other)
{
    (void)other;
    return refuse_path(path);
}

static int refuse_rename(const char *path, const char *to, unsigned int flags)
{
    (void)flags;
    return refuse_two(path, to);
}

static int refuse_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return refuse_mode(path, mode);
}

static int refuse_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)uid;
    (void)gid;
    (void)fi;
    return refuse_path(path);
}

static int refuse_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    (void)size;
    (void)fi;
    return refuse_path(path);
}

static int refuse_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)buf;
    (void)size;
    (void)off;
    (void)fi;
    return refuse_path(path);
}

static int refuse_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return refuse_mode(path, mode);
}

static int refuse_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    (void)tv;
    (void)fi;
    return refuse_path(path);
}

static int refuse_setxattr(const char *path, const char *name, const char *value, size_t size, int flags)
{
    (void)name;
    (void)value;
    (void)size;
    (void)flags;
    return refuse_path(path);
}

static int refuse_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)mode;
    (void)off;
    (void)len;
    (void)fi;
    return refuse_path(path);
}

const struct fuse_operations mount_fs_operations = {
    .init = op_init,
    .getattr = op_getattr,
    .readlink = op_readlink,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_release,
    .open = op_open,
    .read = op_read,
    .release = op_release,
    .statfs = op_statfs,
    .mknod = refuse_mknod,
    .mkdir = refuse_mode,
    .unlink = refuse_path,
    .rmdir = refuse_path,
    .symlink = refuse_two,
    .rename = refuse_rename,
    .link = refuse_two,
    .chmod = refuse_chmod,
    .chown = refuse_chown,
    .truncate = refuse_truncate,
    .write = refuse_write,
    .create = refuse_create,
    .utimens = refuse_utimens,
    .setxattr = refuse_setxattr,
    .removexattr = refuse_two,
    .fallocate = refuse_fallocate,
};
