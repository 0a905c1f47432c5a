/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_writer.c: dedup, container packing, recipes and commit of one job. */
#include "backup/job_writer.h"
#include "backup/fragmentation.h"
#include "backup/har_history.h"
#include "backup/rewrite_stage.h"
#include "backup/segment_stage.h"
#include "index/fp_index.h"
#include "recipe/file_status.h"
#include "recipe/job_meta.h"
#include "recipe/recipe_index.h"
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "storage/container_writer.h"
#include "util/fileio.h"
#include "util/huge_pages.h"

#include <string.h>
#include <time.h>

#define CONTAINER_BUFFERS 2

struct JobWriter {
    Store *store;
    FpIndex *index;
    JobManifest m;
    char *job_dir;
    JobMetaWriter *meta;
    RecipeIndex *recipes;
    /* The recipe index is created on a thread of its own (Berkeley DB's
     * creation fdatasyncs it) while the job starts; the first entry, the
     * commit or job_writer_free joins it (recipes_ready). */
    GThread *recipes_creating;
    char *recipes_path;
    GError *recipes_err;

    /* A ring of container buffers: the open container fills one while the
     * sealed ones before it are written, oldest first, and then put in the
     * index; the last sealed container's write may still be queued when
     * the next is sealed. Two: a third (up to three writes in flight) cut
     * the store stage's waits for the device on a large-file backup from
     * 283 to 29 ms, but made it no faster once the hashers stopped waiting
     * for each other (1.295 s against 1.320, medians of 8, within the
     * noise), for 2 MiB more RSS. */
    uint8_t *container_buf[CONTAINER_BUFFERS];
    guint open_buf;             /* the buffer the open container uses */
    guint sealed;               /* sealed containers not yet in the index: the
                                   buffers just before open_buf */
    ContainerWriter *container_writer;
    ContainerBuilder container; /* open container, if chunk_count > 0 */
    ContainerId next_container;

    GArray *refcount;   /* uint32 per container id */
    JobProgress progress;

    SegmentStage *segments;     /* segment buffer, for an index that looks ahead */
    RewriteStage *rewrite;      /* rewrite buffer, with rewriting on */
    HarUsage *har;              /* this job's container use, with HAR on */
    FragmentationMeter *frag;
    FileStatusTable status;     /* each regular file's status, in record order */
    gboolean single_copies;     /* a known chunk is where its parent record names it (add_known_chunk) */
};

static gboolean open_index(JobWriter *w, const FpIndexParams *params, GError **err)
{
    ContainerId count;
    if (!store_next_container(w->store, &count, err))
        return FALSE;
    w->next_container = count;
    char *dir = g_build_filename(w->store->dir, "index", NULL);
    w->index = fp_index_open(dir, fingerprint_length(w->store->fingerprint),
                             container_store_source(w->store->containers), count, params, err);
    g_free(dir);
    if (w->index != NULL && w->store->cluster != NULL)
        fp_index_keep_new(w->index); /* published with the job (store_index.h) */
    return w->index != NULL && fp_index_begin_job(w->index, err);
}

static gboolean load_refcount(JobWriter *w, GError **err)
{
    uint32_t *counts = NULL, n = 0;
    if (!refcount_load_current(w->store->dir, &counts, &n, err))
        return FALSE;
    w->refcount = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    g_array_append_vals(w->refcount, counts, n);
    g_array_set_size(w->refcount, MAX(n, w->next_container));
    g_free(counts);
    return TRUE;
}

static gboolean store_chunk(void *ctx, const Fingerprint *fp, const uint8_t *data, size_t len, ChunkLocation *loc,
                            GError **err);
static gboolean record_entry(void *ctx, const FileRecord *r, GError **err);
static gboolean announce_segment(void *ctx, const Fingerprint *fps, guint n, GError **err);
static gboolean dedup_chunk(void *ctx, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                            GError **err);
static gboolean pass_entry(void *ctx, const FileRecord *r, GError **err);

/* An index that looks a whole segment up at once (silo) gets the chunks
 * through the segment buffer, which calls back the three above. */
static void begin_segmenting(JobWriter *w, const FpIndexParams *params)
{
    if (!fp_index_takes_segments(w->index))
        return;
    SegmentSink sink = { announce_segment, dedup_chunk, pass_entry, w };
    w->segments = segment_stage_new(&params->segment, fingerprint_length(w->store->fingerprint), &sink);
}

/* With rewrite-algorithm or rewrite-enable-har, chunks go through the
 * rewrite buffer, which calls back store_chunk and record_entry. */
static gboolean begin_rewriting(JobWriter *w, const RewriteConfig *rc, unsigned restore_cache, GError **err)
{
    if (!rewrite_config_active(rc))
        return TRUE;
    GHashTable *sparse = NULL;
    if (rc->har) {
        sparse = har_sparse_load(w->store->dir, w->m.job_id, rc, err);
        if (sparse == NULL)
            return FALSE;
        w->har = har_usage_new();
    }
    RewriteSink sink = { store_chunk, record_entry, w };
    w->rewrite = rewrite_stage_new(rc, w->store->container_size, w->next_container, sparse, restore_cache, &sink);
    return TRUE;
}

static gpointer create_recipes(gpointer data)
{
    JobWriter *w = data;
    w->recipes = recipe_index_create(w->recipes_path, &w->recipes_err);
    return NULL;
}

/* Wait for the recipe index's creation, once; FALSE (err set) if it failed. */
static gboolean recipes_ready(JobWriter *w, GError **err)
{
    if (w->recipes_creating != NULL) {
        g_thread_join(w->recipes_creating);
        w->recipes_creating = NULL;
        if (w->recipes == NULL) {
            g_propagate_error(err, w->recipes_err);
            w->recipes_err = NULL;
        }
    }
    return w->recipes != NULL;
}

JobWriter *job_writer_begin(Store *store, const Config *cfg, const char *source_root, GError **err)
{
    JobWriter *w = g_new0(JobWriter, 1);
    w->store = store;
    G_STATIC_ASSERT(HUGE_PAGE_SIZE % CONTAINER_ALIGN == 0);
    for (int i = 0; i < CONTAINER_BUFFERS; i++)
        w->container_buf[i] = huge_pages_alloc(store->container_size); /* writes pin fewer pages */
    w->container_writer = container_writer_new(store->containers, CONTAINER_BUFFERS);
    if (!open_index(w, &cfg->fp_index, err) || !load_refcount(w, err) ||
        !job_catalog_create_job(store->dir, &w->m.job_id, &w->job_dir, err))
        goto fail;
    char *meta = g_build_filename(w->job_dir, JOB_META_FILE, NULL);
    w->recipes_path = g_build_filename(w->job_dir, JOB_RECIPE_INDEX_FILE, NULL);
    w->meta = job_meta_writer_create(meta, w->m.job_id, err);
    g_free(meta);
    if (w->meta == NULL)
        goto fail;
    w->recipes_creating = g_thread_new("recipe-index", create_recipes, w);
    if (!begin_rewriting(w, &cfg->rewrite, cfg->restore_cache.containers, err))
        goto fail;
    begin_segmenting(w, &cfg->fp_index);
    /* a rados store's other machines mark their duplicates in their own
     * working directories: its lookups stay */
    w->single_copies = fp_index_single_copies(w->index) && store->cluster == NULL && job_writer_takes_known_chunks(w);
    w->frag = fragmentation_meter_new(cfg->restore_cache.containers);
    w->m.fragmentation_cache_containers = cfg->restore_cache.containers;
    w->m.created_unix = time(NULL);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    file_status_table_init(&w->status, w->m.job_id, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec,
                           cfg->chunk_algorithm, &cfg->chunk_sizes);
    w->m.container_size = (uint32_t)store->container_size;
    w->m.first_new_container = w->next_container;
    w->m.source_root = g_strdup(source_root);
    w->container.chunk_count = 0;
    return w;
fail:
    job_writer_free(w);
    return NULL;
}

/* Wait for the oldest sealed container's write, then put its chunks in the
 * index: the index names only containers already in the pool (a rebuild
 * reads them back from there). */
static gboolean index_oldest(JobWriter *w, GError **err)
{
    guint oldest = (w->open_buf + CONTAINER_BUFFERS - w->sealed) % CONTAINER_BUFFERS;
    w->sealed--;
    return container_writer_wait(w->container_writer, w->sealed, err) &&
           fp_index_persist_container(w->index, w->container_buf[oldest], w->store->container_size, err);
}

/* Seal the open container and start its write; the next buffer of the
 * ring takes the next one, its own sealed container indexed first. */
static gboolean seal_container(JobWriter *w, GError **err)
{
    if (w->container.chunk_count == 0)
        return TRUE;
    container_builder_seal(&w->container, w->store->fingerprint);
    container_writer_submit(w->container_writer, w->container.id, w->container_buf[w->open_buf]);
    w->sealed++;
    w->open_buf = (w->open_buf + 1) % CONTAINER_BUFFERS;
    w->container.chunk_count = 0;
    return w->sealed < CONTAINER_BUFFERS || index_oldest(w, err);
}

static gboolean announce_segment(void *ctx, const Fingerprint *fps, guint n, GError **err)
{
    JobWriter *w = ctx;
    return fp_index_segment(w->index, fps, n, err);
}

/* Pack one chunk into the open container as a new chunk (a rewritten one
 * too: the index then names this copy). */
static gboolean store_chunk(void *ctx, const Fingerprint *fp, const uint8_t *data, size_t len, ChunkLocation *loc,
                            GError **err)
{
    JobWriter *w = ctx;
    if (w->container.chunk_count > 0 && !container_builder_fits(&w->container, len) && !seal_container(w, err))
        return FALSE;
    if (w->container.chunk_count == 0) {
        container_builder_init(&w->container, w->container_buf[w->open_buf], w->store->container_size, w->next_container++);
        g_array_set_size(w->refcount, MAX(w->refcount->len, w->next_container));
    }
    loc->container = w->container.id;
    loc->offset = container_builder_add(&w->container, fp, data, len);
    loc->length = (uint32_t)len;
    fp_index_add(w->index, fp, loc);
    w->m.new_chunks++;
    w->m.stored_bytes += len;
    return TRUE;
}

static void count_chunks(JobWriter *w, guint n, uint64_t bytes)
{
    w->m.chunks += n;
    atomic_fetch_add_explicit(&w->progress.bytes, bytes, memory_order_relaxed);
}

/* Look one chunk up and count it. */
static gboolean lookup_chunk(JobWriter *w, const Fingerprint *fp, size_t len, ChunkLocation *loc, gboolean *found,
                             GError **err)
{
    if (!fp_index_lookup(w->index, fp, loc, found, err))
        return FALSE;
    count_chunks(w, 1, len);
    return TRUE;
}

/* Reference the chunk where the index found it, or store it; its reference
 * goes to r->chunks. */
static gboolean place_chunk(JobWriter *w, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                            ChunkLocation *loc, gboolean found, GError **err)
{
    if (!found && !store_chunk(w, fp, data, len, loc, err))
        return FALSE;
    ChunkRef ref = { .fp = *fp, .container = loc->container, .offset = loc->offset, .length = loc->length };
    g_array_append_val(r->chunks, ref);
    return TRUE;
}

/* Look one chunk up, then reference, store or hand it to the rewrite
 * buffer; its reference goes to r->chunks (now or when placed). */
static gboolean dedup_chunk(void *ctx, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                            GError **err)
{
    JobWriter *w = ctx;
    ChunkLocation loc;
    gboolean found;
    if (!lookup_chunk(w, fp, len, &loc, &found, err))
        return FALSE;
    if (w->rewrite != NULL)
        return rewrite_stage_add_chunk(w->rewrite, r, fp, data, len, found ? &loc : NULL, err);
    return place_chunk(w, r, fp, data, len, &loc, found, err);
}

gboolean job_writer_takes_known_chunks(const JobWriter *w)
{
    return w->segments == NULL && w->rewrite == NULL;
}

/* One chunk of an unchanged file, not read, where no fingerprint is known
 * to be stored once: looked up as a read chunk would be, and one the index
 * does not find is read from `was`'s place, checked against its
 * fingerprint; its reference goes to r->chunks. */
static gboolean add_known_chunk(JobWriter *w, FileRecord *r, const ChunkRef *was, GError **err)
{
    ChunkLocation loc = { .container = was->container, .offset = was->offset, .length = was->length };
    gboolean found = TRUE;
    if (!lookup_chunk(w, &was->fp, was->length, &loc, &found, err))
        return FALSE;
    if (found)
        return place_chunk(w, r, &was->fp, NULL, was->length, &loc, TRUE, err);
    /* not in the index (a near-exact design's miss): the bytes from where
     * the parent's record names them, checked against the fingerprint */
    uint8_t *data = g_malloc(was->length);
    gboolean ok = chunk_read(container_store_source(w->store->containers), was->container, was->offset, was->length,
                             w->store->fingerprint, &was->fp, data, NULL, err) &&
                  place_chunk(w, r, &was->fp, data, was->length, &loc, FALSE, err);
    g_free(data);
    return ok;
}

gboolean job_writer_add_known_file(JobWriter *w, FileRecord *r, GError **err)
{
    g_assert(job_writer_takes_known_chunks(w) && r->type == ENTRY_FILE);
    if (w->single_copies) {
        /* The store holds each fingerprint once (fp_index_single_copies),
         * where the parent, a live job, names it: a lookup would find every
         * chunk where r names it. Not looked up (one Berkeley DB read a
         * chunk less), and r's chunk list stays as it is. */
        count_chunks(w, r->chunks->len, r->size);
        return TRUE;
    }
    GArray *was = r->chunks;
    r->chunks = g_array_sized_new(FALSE, FALSE, sizeof(ChunkRef), was->len);
    gboolean ok = TRUE;
    for (guint i = 0; i < was->len && ok; i++)
        ok = add_known_chunk(w, r, &g_array_index(was, ChunkRef, i), err);
    g_array_unref(was);
    return ok;
}

void job_writer_add_file_status(JobWriter *w, const FileStatus *st)
{
    g_array_append_val(w->status.entries, *st);
}

gboolean job_writer_add_chunk(JobWriter *w, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len,
                              GError **err)
{
    return w->segments != NULL ? segment_stage_add_chunk(w->segments, r, fp, data, len, err)
                               : dedup_chunk(w, r, fp, data, len, err);
}

/* Write one entry whose chunks are all placed. */
static gboolean record_entry(void *ctx, const FileRecord *r, GError **err)
{
    JobWriter *w = ctx;
    uint64_t offset;
    uint32_t length;
    if (!job_meta_writer_append(w->meta, r, &offset, &length, err) || !recipes_ready(w, err) ||
        !recipe_index_put(w->recipes, r->path->data, r->path->len, offset, length, err))
        return FALSE;
    refcount_add_file((uint32_t *)w->refcount->data, w->refcount->len, r);
    fragmentation_meter_add_file(w->frag, r);
    if (w->har != NULL)
        har_usage_add_file(w->har, r);
    switch (r->type) {
    case ENTRY_FILE:
        w->m.files++;
        w->m.logical_bytes += r->size;
        break;
    case ENTRY_DIR:
        w->m.dirs++;
        break;
    case ENTRY_SYMLINK:
        w->m.symlinks++;
        break;
    }
    atomic_fetch_add(&w->progress.files, 1);
    return TRUE;
}

/* An entry whose chunks have all been deduplicated. */
static gboolean pass_entry(void *ctx, const FileRecord *r, GError **err)
{
    JobWriter *w = ctx;
    return w->rewrite != NULL ? rewrite_stage_add_entry(w->rewrite, r, err) : record_entry(w, r, err);
}

gboolean job_writer_add_entry(JobWriter *w, const FileRecord *r, GError **err)
{
    return w->segments != NULL ? segment_stage_add_entry(w->segments, r, err) : pass_entry(w, r, err);
}

/* The job's records, made durable on a thread of their own at the commit
 * (job_writer_commit). */
typedef struct {
    JobWriter *w;
    gboolean ok;
    GError *err;
} RecordsCommit;

/* job_meta_data's flush, fsync and rename, then the recipe index's close
 * (Berkeley DB's writes and fdatasyncs). finish frees what it finishes;
 * what is not reached, job_writer_free aborts. */
static gpointer commit_records(gpointer data)
{
    RecordsCommit *rc = data;
    JobWriter *w = rc->w;
    rc->ok = job_meta_writer_finish(w->meta, &w->m.job_meta_size, &rc->err);
    w->meta = NULL;
    if (rc->ok) {
        rc->ok = recipe_index_finish(w->recipes, &rc->err);
        w->recipes = NULL;
    }
    return NULL;
}

gboolean job_writer_commit(JobWriter *w, uint64_t skipped, JobManifest *manifest, GError **err)
{
    /* Order matters: every structure is durable before the manifest that
     * makes the job visible is published. */
    gboolean ok = (w->segments == NULL || segment_stage_flush(w->segments, err)) &&
                  (w->rewrite == NULL || rewrite_stage_flush(w->rewrite, err)) && seal_container(w, err);
    while (ok && w->sealed > 0)
        ok = index_oldest(w, err);
    /* Nothing orders the job's records (job_meta_data, the recipe index)
     * against the containers' and the index's syncs or the files below,
     * only all of them before the job directory's fsync and the manifest:
     * their syncs run on a thread of their own meanwhile (the job is
     * invisible until the manifest), and syncs in flight together share
     * the file system's journal commits. The thread alone touches w->meta
     * and w->recipes until it is joined. */
    RecordsCommit rc = { .w = w };
    ok = ok && recipes_ready(w, err);
    GThread *records = ok ? g_thread_new("commit-records", commit_records, &rc) : NULL;
    ok = ok && container_store_sync(w->store->containers, err) && fp_index_commit_job(w->index, err);
    w->m.containers_total = w->next_container;
    w->m.skipped = skipped;
    /* the backup summary's rewriting and fragmentation figures, kept for list and stat */
    JobRewriteReport rw = job_writer_rewrite_report(w);
    w->m.rewritten_chunks = rw.rewritten_chunks;
    w->m.rewritten_bytes = rw.rewritten_bytes;
    w->m.restore_container_reads = rw.restore_reads;
    w->m.has_fragmentation = TRUE;
    g_assert(!ok || w->status.entries->len == w->m.files); /* one status per regular-file record */
    /* Each file's bytes are fsynced before its rename into the job's
     * directory; one fsync of the directory then makes every rename
     * (job_meta_data, recipe index, refcount, file_status, HAR's record)
     * durable before the manifest's publishes the job. */
    ok = ok && refcount_save(w->job_dir, (const uint32_t *)w->refcount->data, w->refcount->len, err) &&
         file_status_save(&w->status, w->job_dir, err) &&
         (w->har == NULL || har_usage_save(w->har, w->job_dir, (uint32_t)w->store->container_size, err));
    if (records != NULL) {
        g_thread_join(records);
        if (!rc.ok && ok)
            g_propagate_error(err, rc.err);
        else
            g_clear_error(&rc.err);
        ok = ok && rc.ok;
    }
    ok = ok && dir_fsync(w->job_dir, err) &&
         store_publish_job(w->store, w->job_dir, &w->m,
                           w->store->cluster != NULL ? fp_index_new_entries(w->index) : NULL, err);
    if (ok) {
        *manifest = w->m;
        manifest->source_root = g_strdup(w->m.source_root);
    }
    return ok;
}

void job_writer_free(JobWriter *w)
{
    if (w == NULL)
        return;
    segment_stage_free(w->segments); /* its waiting records before the writers go */
    rewrite_stage_free(w->rewrite);
    har_usage_free(w->har);
    fragmentation_meter_free(w->frag);
    job_meta_writer_abort(w->meta);
    recipes_ready(w, NULL);
    g_clear_error(&w->recipes_err);
    recipe_index_close(w->recipes);
    g_free(w->recipes_path);
    fp_index_close(w->index);
    if (w->refcount)
        g_array_unref(w->refcount);
    job_manifest_clear(&w->m);
    file_status_table_clear(&w->status);
    g_free(w->job_dir);
    container_writer_free(w->container_writer); /* before its buffers go */
    for (int i = 0; i < CONTAINER_BUFFERS; i++)
        huge_pages_free(w->container_buf[i]);
    g_free(w);
}

void job_writer_index_stats(const JobWriter *w, FpIndexStats *st)
{
    fp_index_stats(w->index, st);
}

double job_writer_write_cpu_seconds(const JobWriter *w)
{
    return container_writer_cpu_seconds(w->container_writer);
}

JobRewriteReport job_writer_rewrite_report(const JobWriter *w)
{
    RewriteTotals t = w->rewrite ? rewrite_stage_totals(w->rewrite) : (RewriteTotals){ 0 };
    return (JobRewriteReport){ .rewritten_chunks = t.rewritten_chunks, .rewritten_bytes = t.rewritten_bytes,
                               .restore_reads = fragmentation_meter_reads(w->frag),
                               .containers_per_mib = fragmentation_meter_per_mib(w->frag) };
}

const JobProgress *job_writer_progress(const JobWriter *w)
{
    return &w->progress;
}
