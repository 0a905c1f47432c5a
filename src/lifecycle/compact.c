/* SPDX-License-Identifier: GPL-3.0-or-later */
/* compact.c: copying live chunks into new containers and rewriting the
 * records that name them (see compact.h). */
#include "lifecycle/compact.h"
#include "lifecycle/live_chunks.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "storage/container.h"
#include "storage/container_writer.h"
#include "util/error.h"
#include "util/fileio.h"

/* Copies being filled or written: the device writes one while the next is
 * filled from the containers read meanwhile. */
#define OUT_BUFFERS 2

typedef struct {
    Store *store;
    FpIndex *idx;
    ContainerWriter *writer;
    uint8_t *out[OUT_BUFFERS];
    guint open;     /* the buffer being filled */
    guint in_flight; /* writes not known done */
    ContainerBuilder builder;
    CompactReport *r;
} Copier;

/* Seal and index the container being filled and start its write; go on in
 * the next buffer once its own write is done. */
static gboolean flush_container(Copier *cp, GError **err)
{
    ContainerBuilder *b = &cp->builder;
    size_t size = cp->store->container_size;
    if (b->chunk_count == 0)
        return TRUE;
    container_builder_seal(b, cp->store->fingerprint);
    if (!fp_index_persist_copies(cp->idx, cp->out[cp->open], size, err)) /* the index is DIRTY */
        return FALSE;
    container_writer_submit(cp->writer, b->id, cp->out[cp->open]);
    cp->r->containers_written++;
    cp->r->container_bytes_written += size;
    cp->open = (cp->open + 1) % OUT_BUFFERS;
    if (++cp->in_flight == OUT_BUFFERS) {
        if (!container_writer_wait(cp->writer, OUT_BUFFERS - 1, err))
            return FALSE;
        cp->in_flight--;
    }
    container_builder_init(b, cp->out[cp->open], size, b->id + 1);
    return TRUE;
}

/* The live chunks of container `id`, read in `in`, appended to the copies. */
static gboolean copy_container(Copier *cp, ContainerId id, const uint8_t *in, const GArray *live, GArray *moved,
                               GError **err)
{
    size_t size = cp->store->container_size;
    const LiveChunk *c = (const LiveChunk *)live->data;
    for (guint i = live_chunks_first(live, id); i < live->len && c[i].container == id; i++) {
        Fingerprint fp;
        uint32_t length;
        if (!container_find_chunk(in, size, c[i].offset, &fp, &length) || length != c[i].length) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                        "gc stopped: container %u holds no chunk of %u bytes at offset %u, which a live "
                        "job's records name ('destor verify' tells more)", id, c[i].length, c[i].offset);
            return FALSE;
        }
        if (!container_builder_fits(&cp->builder, length) && !flush_container(cp, err))
            return FALSE;
        g_assert(container_builder_fits(&cp->builder, length));
        LiveChunk *to = &g_array_index(moved, LiveChunk, i);
        to->container = cp->builder.id;
        to->offset = container_builder_add(&cp->builder, &fp, in + c[i].offset, length);
        cp->r->chunks_moved++;
    }
    cp->r->containers_copied++;
    return TRUE;
}

gboolean compact_copy(Store *store, FpIndex *idx, ContainerId first, const GArray *from, const GArray *live,
                      GArray *moved, CompactReport *r, GError **err)
{
    size_t size = store->container_size;
    if (from->len == 0)
        return TRUE;
    Copier cp = { .store = store, .idx = idx, .r = r };
    for (guint i = 0; i < OUT_BUFFERS; i++)
        cp.out[i] = g_aligned_alloc(1, size, CONTAINER_ALIGN);
    cp.writer = container_writer_new(store->containers, OUT_BUFFERS);
    uint8_t *in = g_aligned_alloc(1, size, CONTAINER_ALIGN);
    container_builder_init(&cp.builder, cp.out[0], size, first);
    gboolean ok = TRUE;
    for (guint i = 0; i < from->len && ok; i++) {
        ContainerId id = g_array_index(from, ContainerId, i);
        ok = container_source_read(container_store_source(store->containers), id, in, err) &&
             copy_container(&cp, id, in, live, moved, err);
        r->container_bytes_read += ok ? size : 0;
    }
    ok = ok && flush_container(&cp, err) && container_writer_wait(cp.writer, 0, err) &&
         container_store_sync(store->containers, err);
    container_writer_free(cp.writer); /* before its buffers go */
    g_aligned_free(in);
    for (guint i = 0; i < OUT_BUFFERS; i++)
        g_aligned_free(cp.out[i]);
    return ok;
}

/* Does any record of the job name a chunk in an emptied container? */
static gboolean names_moved(JobMetaReader *meta, const gboolean *is_from, uint32_t n, gboolean *found,
                            GError **err)
{
    FileRecord *rec;
    GError *local = NULL;
    *found = FALSE;
    while (!*found && (rec = job_meta_reader_next(meta, &local)) != NULL) {
        for (guint i = 0; i < rec->chunks->len && !*found; i++) {
            ContainerId c = g_array_index(rec->chunks, ChunkRef, i).container;
            *found = c < n && is_from[c];
        }
        file_record_free(rec);
    }
    job_meta_reader_rewind(meta);
    if (local == NULL)
        return TRUE;
    g_propagate_error(err, local);
    return FALSE;
}

/* Every record of `meta` into `out`, its moved chunks pointing at the copies. */
static gboolean write_moved(JobMetaReader *meta, JobMetaWriter *out, const gboolean *is_from, uint32_t n,
                            const GArray *live, const GArray *moved, GError **err)
{
    FileRecord *rec;
    GError *local = NULL;
    gboolean ok = TRUE;
    while (ok && (rec = job_meta_reader_next(meta, &local)) != NULL) {
        for (guint i = 0; i < rec->chunks->len; i++) {
            ChunkRef *ref = &g_array_index(rec->chunks, ChunkRef, i);
            if (ref->container >= n || !is_from[ref->container])
                continue;
            gint64 at = live_chunks_find(live, ref->container, ref->offset);
            g_assert(at >= 0); /* every chunk a live record names is live */
            const LiveChunk *to = &g_array_index(moved, LiveChunk, at);
            g_assert(to->container != ref->container && to->length == ref->length);
            ref->container = to->container;
            ref->offset = to->offset;
        }
        uint64_t offset;
        uint32_t length;
        ok = job_meta_writer_append(out, rec, &offset, &length, err);
        file_record_free(rec);
    }
    if (local != NULL) {
        g_propagate_error(err, local);
        ok = FALSE;
    }
    return ok;
}

static gboolean rewrite_job(Store *store, uint32_t job_id, const gboolean *is_from, uint32_t n, const GArray *live,
                            const GArray *moved, CompactReport *r, GError **err)
{
    char *dir = job_dir_path(store->dir, job_id);
    char *path = g_build_filename(dir, JOB_META_FILE, NULL);
    JobMetaWriter *out = NULL;
    gboolean found = FALSE;
    uint64_t before = 0, after = 0;
    JobMetaReader *meta = job_meta_reader_open(path, job_id, err);
    gboolean ok = meta != NULL && names_moved(meta, is_from, n, &found, err);
    if (ok && found) {
        ok = (out = job_meta_writer_create(path, job_id, err)) != NULL &&
             write_moved(meta, out, is_from, n, live, moved, err);
        before = job_meta_reader_offset(meta);
        if (ok) {
            ok = job_meta_writer_finish(out, &after, err);
            out = NULL;
        }
        g_assert(!ok || after == before); /* records keep their sizes: the recipe index stays right */
        ok = ok && dir_fsync(dir, err) && store_publish_records(store, job_id, err);
        r->jobs_rewritten += ok;
    }
    if (out != NULL)
        job_meta_writer_abort(out);
    job_meta_reader_close(meta);
    g_free(path);
    g_free(dir);
    return ok;
}

gboolean compact_rewrite_jobs(Store *store, const gboolean *is_from, uint32_t n, const GArray *live,
                              const GArray *moved, CompactReport *r, GError **err)
{
    GArray *jobs = job_catalog_list_live(store->dir, err);
    gboolean ok = jobs != NULL;
    for (guint i = 0; ok && i < jobs->len; i++)
        ok = rewrite_job(store, g_array_index(jobs, uint32_t, i), is_from, n, live, moved, r, err);
    if (jobs != NULL)
        g_array_unref(jobs);
    return ok;
}
