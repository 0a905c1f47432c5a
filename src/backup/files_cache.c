/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files_cache.c: the parent job's records walked beside the tree
 * (files_cache.h). A thread of its own reads and decodes them ahead of the
 * walker (their checksums checked there), so the walker, backup's busiest
 * thread on an unchanged tree, only compares. */
#include "backup/files_cache.h"
#include "recipe/file_status.h"
#include "recipe/job_catalog.h"
#include "util/bounded_queue.h"
#include "util/error.h"
#include "util/thread_cpu.h"

#include <string.h>

/* Records decoded ahead of the walker: as many entries as the walk may run
 * ahead of the store stage (backup.c's QUEUE_DEPTH), a few hundred KiB. */
#define FILES_CACHE_AHEAD 256
/* They are handed over a lot at a time, a quarter of the queue (as the
 * walker's unread entries, walker.h): one lock of the queue per lot on
 * each side, not per record, and the reader woken once per lot at most. */
#define FILES_CACHE_LOT (FILES_CACHE_AHEAD / 4)

struct FilesCache {
    uint32_t parent;
    FileStatusTable status;
    JobMetaReader *records; /* the reader thread's */
    JobMetaWindow window;   /* the records are read in order, a window at a time */
    GThread *reader;
    BoundedQueue *ahead;    /* decoded records in order, then end_of_records */
    gint stop;              /* set by close: the reader stops early */
    gboolean ended;         /* end_of_records was taken from `ahead` */
    gpointer lot[FILES_CACHE_LOT]; /* the walker's: records taken from `ahead`, */
    guint lot_len, lot_next;       /* lot[lot_next..lot_len) not yet passed */
    double reader_cpu;      /* the reader's CPU time, once it has ended */
    FileRecord *current;  /* the parent's first record not yet passed; NULL: not read yet */
    guint current_status; /* its status entry, when a regular file */
    guint files;          /* regular-file records read so far */
    gboolean done;        /* the parent's records ran out, or could not be read */
};

/* What the reader sends after the last record (or a damaged one). */
static FileRecord end_of_records;

static gpointer read_ahead(gpointer data);

int files_cache_walk_order(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t i = 0, j = 0;
    for (;;) {
        if (i >= alen || j >= blen)
            return (i >= alen ? 0 : 1) - (j >= blen ? 0 : 1);
        const uint8_t *ae = memchr(a + i, '/', alen - i), *be = memchr(b + j, '/', blen - j);
        size_t la = ae ? (size_t)(ae - (a + i)) : alen - i, lb = be ? (size_t)(be - (b + j)) : blen - j;
        int c = memcmp(a + i, b + j, MIN(la, lb));
        if (c != 0)
            return c;
        if (la != lb)
            return la < lb ? -1 : 1;
        i += la + 1;
        j += lb + 1;
    }
}

/* The newest live job backed up from source_root, or -1. A manifest that
 * does not read back is verify's to report: that job is no parent. */
static int64_t find_parent(const char *workdir, const char *source_root, GError **err)
{
    GArray *live = job_catalog_list_live(workdir, err);
    if (live == NULL)
        return -2;
    int64_t parent = -1;
    for (guint i = live->len; i-- > 0 && parent < 0;) {
        JobManifest m;
        uint32_t id = g_array_index(live, uint32_t, i);
        GError *damaged = NULL;
        if (!job_manifest_load(workdir, id, &m, &damaged)) {
            g_error_free(damaged);
            continue;
        }
        if (strcmp(m.source_root, source_root) == 0)
            parent = id;
        job_manifest_clear(&m);
    }
    g_array_unref(live);
    return parent;
}

FilesCache *files_cache_open(const char *workdir, const char *source_root, const Config *cfg, GError **err)
{
    int64_t parent = find_parent(workdir, source_root, err);
    if (parent < 0)
        return NULL;
    FilesCache *fc = g_new0(FilesCache, 1);
    fc->parent = (uint32_t)parent;
    char *dir = job_dir_path(workdir, fc->parent);
    gboolean present = FALSE;
    GError *local = NULL;
    if (file_status_load(dir, fc->parent, &fc->status, &present, &local) && present)
        fc->records = job_catalog_open_records(workdir, fc->parent, &local);
    g_free(dir);
    const ChunkSizes *s = &fc->status.chunk_sizes;
    gboolean same_chunks = present && fc->status.chunk_algorithm == cfg->chunk_algorithm &&
                           s->min_size == cfg->chunk_sizes.min_size && s->avg_size == cfg->chunk_sizes.avg_size &&
                           s->max_size == cfg->chunk_sizes.max_size;
    if (local != NULL)
        destor_warning("files cache: job %u: %s; every file is read", fc->parent, local->message);
    if (fc->records == NULL || !same_chunks) {
        g_clear_error(&local);
        files_cache_close(fc);
        return NULL;
    }
    fc->ahead = bounded_queue_new_batched(FILES_CACHE_AHEAD);
    fc->reader = g_thread_new("files-cache", read_ahead, fc);
    return fc;
}

/* The reader thread: every record of the parent in order onto `ahead`,
 * then end_of_records (also after a damaged record, or once close asks). */
static gpointer read_ahead(gpointer data)
{
    FilesCache *fc = data;
    GError *err = NULL;
    FileRecord *r;
    gpointer lot[FILES_CACHE_LOT];
    guint n = 0;
    while (!g_atomic_int_get(&fc->stop) && (r = job_meta_reader_next_window(fc->records, &fc->window, &err)) != NULL) {
        lot[n++] = r;
        if (n == FILES_CACHE_LOT) {
            bounded_queue_push_many(fc->ahead, lot, n);
            n = 0;
        }
    }
    if (err != NULL) {
        destor_warning("files cache: job %u: %s; the rest is read", fc->parent, err->message);
        g_error_free(err);
    }
    fc->reader_cpu = thread_cpu_seconds();
    lot[n++] = &end_of_records;
    bounded_queue_push_many(fc->ahead, lot, n);
    return NULL;
}

/* The parent's next record from `ahead`, a lot at a time. */
static FileRecord *next_record(FilesCache *fc)
{
    if (fc->lot_next == fc->lot_len) {
        fc->lot_len = bounded_queue_pop_many(fc->ahead, fc->lot, FILES_CACHE_LOT);
        fc->lot_next = 0;
    }
    FileRecord *r = fc->lot[fc->lot_next++];
    fc->ended = r == &end_of_records;
    g_assert(!fc->ended || fc->lot_next == fc->lot_len); /* nothing follows the end */
    return r;
}

/* Stop the reader at its next record, free what it sent, join it. */
static void stop_reader(FilesCache *fc)
{
    if (fc->reader == NULL)
        return;
    g_atomic_int_set(&fc->stop, 1);
    while (!fc->ended) {
        FileRecord *r = next_record(fc);
        if (!fc->ended)
            file_record_free(r);
    }
    g_thread_join(fc->reader);
    fc->reader = NULL;
}

double files_cache_reader_cpu_seconds(FilesCache *fc)
{
    stop_reader(fc);
    return fc->reader_cpu;
}

uint32_t files_cache_parent(const FilesCache *fc)
{
    return fc->parent;
}

/* Step to the parent's next record. */
static void advance(FilesCache *fc)
{
    g_clear_pointer(&fc->current, file_record_free);
    FileRecord *next = next_record(fc);
    if (!fc->ended && next->type == ENTRY_FILE && (fc->current_status = fc->files++) >= fc->status.entries->len) {
        destor_warning("files cache: job %u: more files than its file_status holds; the rest is read", fc->parent);
        file_record_free(next);
        next = NULL;
    }
    fc->current = fc->ended ? NULL : next;
    fc->done = fc->current == NULL;
}

static gboolean unchanged(const FilesCache *fc, const FileStatus *was, const FileRecord *rec, const struct stat *st)
{
    int64_t ctime_ns = (int64_t)was->ctime_sec * 1000000000LL + was->ctime_nsec;
    return !(was->flags & FILE_STATUS_CHANGED) && ctime_ns < fc->status.start_ns - FILES_CACHE_RACY_NS &&
           was->dev == (uint64_t)st->st_dev && was->ino == (uint64_t)st->st_ino &&
           was->ctime_sec == st->st_ctim.tv_sec && was->ctime_nsec == (uint32_t)st->st_ctim.tv_nsec &&
           rec->size == (uint64_t)st->st_size && rec->mtime_sec == st->st_mtim.tv_sec &&
           rec->mtime_nsec == (uint32_t)st->st_mtim.tv_nsec && rec->mode == (st->st_mode & 07777);
}

FileRecord *files_cache_take(FilesCache *fc, const char *rel, size_t rel_len, const struct stat *st)
{
    int order = 1;
    while (!fc->done) {
        if (fc->current == NULL)
            advance(fc);
        if (fc->done)
            break;
        order = files_cache_walk_order(fc->current->path->data, fc->current->path->len, (const uint8_t *)rel, rel_len);
        if (order >= 0)
            break;
        g_clear_pointer(&fc->current, file_record_free);
    }
    if (fc->done || order != 0 || fc->current->type != ENTRY_FILE)
        return NULL;
    const FileStatus *was = &g_array_index(fc->status.entries, FileStatus, fc->current_status);
    if (!unchanged(fc, was, fc->current, st))
        return NULL;
    FileRecord *taken = fc->current;
    fc->current = NULL;
    return taken;
}

void files_cache_close(FilesCache *fc)
{
    if (fc == NULL)
        return;
    stop_reader(fc);
    bounded_queue_free(fc->ahead);
    file_record_free(fc->current);
    if (fc->records != NULL)
        job_meta_reader_close(fc->records);
    job_meta_window_clear(&fc->window);
    file_status_table_clear(&fc->status);
    g_free(fc);
}
