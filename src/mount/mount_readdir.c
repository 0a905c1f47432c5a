/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_readdir.c: the mount's directories: the root of jobs, .destor, and
 * a job's directories listed from its recipe index (mount_dir.h) a buffer
 * at a time, with each entry's attributes when the kernel asks for them
 * (readdirplus). */
#include "mount/mount_attr.h"
#include "mount/mount_dir.h"
#include "mount/mount_node.h"
#include "util/error.h"

#include <errno.h>

/* A listing handed to libfuse a buffer at a time: each entry carries its
 * ordinal (".", "..", then the rest: 1, 2, 3, ...) as the offset the next
 * readdir goes on from. */
typedef struct {
    void *buf;
    fuse_fill_dir_t filler;
    Job *job;      /* listing one of its directories */
    JobMetaWindow *records; /* ... through the open directory's window */
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
        FileRecord *r = job_record_at(f->job, f->records, e->path->data, e->path->len, e->offset, e->length, NULL);
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
        return mount_fail_errno(err, "the list of jobs");
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
    Job *job = mount_live_job(fs, p, &e);
    FileRecord *r = NULL;
    if (job == NULL || (e = mount_find_entry(job, p->inner, &r)) != 0)
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
    f->records = &h->records;
    if (!mount_dir_list(job, p->inner, h->from, put_entry, f, &h->ended, &err)) {
        char *what = g_strdup_printf("listing '%s' in job %u", p->inner, p->job);
        e = mount_fail_errno(err, what);
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

int mount_op_opendir(const char *path, struct fuse_file_info *fi)
{
    MountHandle *h = g_new0(MountHandle, 1);
    h->path = g_strdup(path);
    h->from = g_byte_array_new();
    fi->fh = (uint64_t)(uintptr_t)h;
    return 0;
}

int mount_op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
    (void)path;
    MountFs *fs = mount_fs_of_call();
    Filler f = { .buf = buf, .filler = filler, .plus = (flags & FUSE_READDIR_PLUS) != 0, .skip = off };
    g_mutex_lock(&fs->lock);
    int e = do_readdir(fs, mount_handle_of(fi), &f);
    g_mutex_unlock(&fs->lock);
    return e;
}
