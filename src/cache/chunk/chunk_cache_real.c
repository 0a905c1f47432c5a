/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_real.c: the chunk cache's real mode: the layout on the SSD
 * through the seam (chunk_layout.h: the chunk log, its capacity by the
 * reclaim rule of chunk_cache.h, or the buckets), opened with the cache's
 * identity, the warm start from what it holds, hits read from it and
 * checked (a request's cached chunks read ahead together through the
 * layout's get_many), misses read from the store by the configured miss
 * path. */
#include "cache/chunk/chunk_cache_internal.h"
#include "storage/chunk_read.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/size_parse.h"

#include <string.h>
#include <sys/statvfs.h>

typedef struct {
    GArray *fps;      /* Fingerprint */
    GArray *lengths;  /* uint32_t */
} LogChunks;

static void collect(void *ctx, const Fingerprint *fp, uint32_t length)
{
    LogChunks *l = ctx;
    g_array_append_val(l->fps, *fp);
    g_array_append_val(l->lengths, length);
}

/* Hand the chunks the layout holds to the policy, in the layout's order,
 * while they fit (a layout that evicts: all, it keeps its own capacity); drop
 * the rest from the layout. Each enters at an address of its own (its
 * recipe position is not known here). */
static void warm_start(ChunkCache *c)
{
    LogChunks l = { g_array_new(FALSE, FALSE, sizeof(Fingerprint)), g_array_new(FALSE, FALSE, sizeof(uint32_t)) };
    c->lops->foreach(c->layout, collect, &l);
    for (guint i = 0; i < l.fps->len; i++) {
        const Fingerprint *fp = &g_array_index(l.fps, Fingerprint, i);
        uint32_t len = g_array_index(l.lengths, uint32_t, i);
        if (len == 0 || (!c->lops->evicts && c->used_bytes + len > c->opt.capacity_bytes)) {
            c->lops->drop(c->layout, fp);
            continue;
        }
        ChunkAccess a = { .chunk = chunk_table_key(fp), .length = len, .touch_offset = 0, .touch_length = len };
        a.address = chunk_address(a.chunk, 0);
        ChunkSlot s = chunk_cache_bind(c, fp, len);
        c->ops->inserted(c->pst, s, &a);
    }
    g_array_unref(l.fps);
    g_array_unref(l.lengths);
}

static guint fp_hash(gconstpointer k)
{
    guint h;
    memcpy(&h, ((const Fingerprint *)k)->bytes, sizeof h);
    return h;
}

static gboolean fp_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(((const Fingerprint *)a)->bytes, ((const Fingerprint *)b)->bytes, FP_SLOT) == 0;
}

static void ahead_free(gpointer p)
{
    ChunkCacheAhead *a = p;
    g_free(a->buf);
    g_free(a);
}

/* Forget entry a (it is in the table and the order). */
static void ahead_remove(ChunkCache *c, ChunkCacheAhead *a)
{
    c->ahead_bytes -= a->len;
    g_hash_table_remove(c->ahead_by_fp, &a->fp);
    g_queue_remove(c->ahead_order, a);
    ahead_free(a);
}

/* Wait for the oldest batch being read and take its results. */
static void ahead_settle_oldest(ChunkCache *c)
{
    ChunkCacheAheadBatch *b = g_queue_pop_head(&c->ahead_batches);
    c->lops->get_many_wait(c->layout, b->ticket);
    for (guint i = 0; i < b->entries->len; i++) {
        ChunkCacheAhead *a = g_ptr_array_index(b->entries, i);
        g_assert(b->reads[i].result != CHUNK_LAYOUT_HIT || b->reads[i].len == a->len);
        a->result = b->reads[i].result;
        a->started = FALSE;
        a->batch = NULL;
    }
    g_ptr_array_free(b->entries, TRUE);
    g_free(b->reads);
    g_free(b);
}

/* Wait for every batch being read. */
static void ahead_settle(ChunkCache *c)
{
    while (!g_queue_is_empty(&c->ahead_batches))
        ahead_settle_oldest(c);
}

/* Wait for the batches up to the one reading a. */
static void ahead_settle_for(ChunkCache *c, const ChunkCacheAhead *a)
{
    while (a->started)
        ahead_settle_oldest(c);
}

/* The layout's tables and metadata file are sized by its capacity when it
 * opens (a segment's or bucket's state each), not by what it holds: a
 * capacity beyond the file system the directory is on could never be
 * filled, and at hundreds of terabytes those fixed structures alone take
 * gigabytes of memory and of metadata file. Such a size is a CONFIG error,
 * found before anything in the directory is touched. */
static gboolean check_room(const ChunkLayoutOptions *lo, GError **err)
{
    struct statvfs fs;
    if (statvfs(lo->directory, &fs) != 0)
        return TRUE; /* the layout's open reports the directory */
    uint64_t room = (uint64_t)fs.f_blocks * fs.f_frsize;
    if (lo->capacity_bytes <= room)
        return TRUE;
    char want[32], have[32];
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                "SSD chunk cache: ssd-cache-size needs %s on the SSD, more than the file system of %s holds (%s): "
                "give a smaller ssd-cache-size",
                size_format(lo->capacity_bytes, want, sizeof want), lo->directory,
                size_format(room, have, sizeof have));
    return FALSE;
}

gboolean chunk_cache_real_open(ChunkCache *c, GError **err)
{
    const ChunkCacheOptions *o = &c->opt;
    ChunkLayoutOptions lo = c->lopt;
    lo.directory = o->directory;
    if (!check_room(&lo, err))
        return FALSE;
    c->layout = c->lops->open(&lo, err);
    if (c->layout == NULL)
        return FALSE;
    chunk_cache_real_reader_init(c, &c->own);
    c->ahead_by_fp = g_hash_table_new(fp_hash, fp_equal);
    c->ahead_order = g_queue_new();
    warm_start(c);
    return TRUE;
}

gboolean chunk_cache_real_close(ChunkCache *c, GError **err)
{
    if (c->layout != NULL)
        ahead_settle(c);
    gboolean ok = c->layout == NULL || c->lops->close(c->layout, err);
    c->layout = NULL;
    chunk_cache_real_reader_free(&c->own);
    if (c->ahead_order != NULL) {
        g_queue_free_full(c->ahead_order, ahead_free);
        g_hash_table_destroy(c->ahead_by_fp);
    }
    c->ahead_order = NULL;
    c->ahead_by_fp = NULL;
    c->ahead_bytes = 0;
    return ok;
}

/* With c->lock held: wait for the SSD reads of batch b without the lock,
 * so that other readers' accesses are decided meanwhile (the lock is held
 * again on return, and anything may have changed). Nothing when the
 * layout reads at get_many or b's reads are taken already. */
static void wait_unlocked(ChunkCache *c, const ChunkCacheAheadBatch *b)
{
    void *hold = c->lops->get_many_hold != NULL ? c->lops->get_many_hold(c->layout, b->ticket) : NULL;
    if (hold == NULL)
        return;
    g_mutex_unlock(&c->lock);
    c->lops->hold_wait(hold);
    c->lops->hold_release(hold);
    g_mutex_lock(&c->lock);
}

void chunk_cache_real_wait_ahead(ChunkCache *c, const Fingerprint *fp)
{
    ChunkCacheAhead *a = g_hash_table_lookup(c->ahead_by_fp, fp);
    if (a != NULL && a->started)
        wait_unlocked(c, a->batch);
}

/* Read ahead? Only what the data cache holds, at the recipe's length (a
 * buffer of that length takes it whole), and not read ahead already. */
static gboolean wanted(ChunkCache *c, const ChunkRef *ref, uint32_t *len)
{
    return ref->length != 0 && !g_hash_table_contains(c->ahead_by_fp, &ref->fp) &&
           chunk_cache_slot(c, &ref->fp) != CHUNK_NO_SLOT && c->lops->contains(c->layout, &ref->fp, len) &&
           *len == ref->length;
}

void chunk_cache_real_read_ahead(ChunkCache *c, const ChunkRef *refs, size_t n)
{
    uint32_t len = 0;
    size_t first = 0;
    while (first < n && !wanted(c, &refs[first], &len))
        first++;
    if (first == n) /* all held already: the batches being read go on */
        return;
    /* room for the batch first (a third waits for the oldest's reads,
     * without the lock), before any entry of it is made */
    while (g_queue_get_length(&c->ahead_batches) >= CHUNK_CACHE_AHEAD_BATCHES) {
        wait_unlocked(c, g_queue_peek_head(&c->ahead_batches));
        if (g_queue_get_length(&c->ahead_batches) >= CHUNK_CACHE_AHEAD_BATCHES)
            ahead_settle_oldest(c);
    }
    GPtrArray *fresh = g_ptr_array_new();
    for (size_t i = first; i < n; i++) {
        if (!wanted(c, &refs[i], &len)) /* again: others may have gone on while this waited */
            continue;
        ChunkCacheAhead *a = g_new0(ChunkCacheAhead, 1);
        a->fp = refs[i].fp;
        a->len = len;
        a->buf = g_malloc(len);
        a->result = CHUNK_LAYOUT_ABSENT;
        a->started = TRUE;
        g_hash_table_insert(c->ahead_by_fp, &a->fp, a);
        g_queue_push_tail(c->ahead_order, a);
        c->ahead_bytes += len;
        g_ptr_array_add(fresh, a);
    }
    if (fresh->len == 0) {
        g_ptr_array_free(fresh, TRUE);
        return;
    }
    ChunkCacheAheadBatch *b = g_new(ChunkCacheAheadBatch, 1);
    b->entries = fresh;
    b->reads = g_new(ChunkLayoutRead, fresh->len);
    for (guint i = 0; i < fresh->len; i++) {
        ChunkCacheAhead *a = g_ptr_array_index(fresh, i);
        b->reads[i] = (ChunkLayoutRead){ .fp = &a->fp, .buf = a->buf };
        a->batch = b;
    }
    b->ticket = c->lops->get_many(c->layout, b->reads, fresh->len);
    g_queue_push_tail(&c->ahead_batches, b);
    /* the oldest go first when more than the bound is held; never one
     * still being read */
    while (c->ahead_bytes > CHUNK_CACHE_AHEAD_MAX) {
        ChunkCacheAhead *old = g_queue_peek_head(c->ahead_order);
        if (old->started)
            break;
        ahead_remove(c, old);
    }
}

void chunk_cache_real_forget_ahead(ChunkCache *c, const Fingerprint *fp)
{
    ChunkCacheAhead *a = g_hash_table_lookup(c->ahead_by_fp, fp);
    if (a != NULL) {
        ahead_settle_for(c, a); /* its buffer may be being read into */
        ahead_remove(c, a);
    }
}

gboolean chunk_cache_real_get(ChunkCache *c, const ChunkRef *ref, uint8_t *buf, uint8_t **swap)
{
    uint32_t len = 0;
    ChunkLayoutGet got;
    ChunkCacheAhead *a = g_hash_table_lookup(c->ahead_by_fp, &ref->fp);
    if (a != NULL) {
        ahead_settle_for(c, a); /* used once: a later read of the chunk reads it again */
        got = a->result; /* damaged when read ahead: the layout dropped it then */
        len = a->len;
        if (got == CHUNK_LAYOUT_HIT && swap != NULL) { /* handed over: the caller's goes with the entry */
            uint8_t *mine = a->buf;
            a->buf = *swap;
            *swap = mine;
        } else if (got == CHUNK_LAYOUT_HIT) {
            memcpy(buf, a->buf, a->len); /* checked by the layout when read */
        }
        ahead_remove(c, a);
    } else {
        got = c->lops->get(c->layout, &ref->fp, buf, &len);
    }
    if (got == CHUNK_LAYOUT_HIT && len == ref->length)
        return TRUE;
    c->counters.damaged++;
    if (got == CHUNK_LAYOUT_HIT) /* another length than the recipe's: not this chunk */
        c->lops->drop(c->layout, &ref->fp);
    if (!c->damaged_warned)
        destor_warning("SSD chunk cache: a cached chunk of container %u could not be served (%s); it and any "
                       "other such chunk are read from the store (counted in damaged)",
                       ref->container, got == CHUNK_LAYOUT_ABSENT ? "lost" : "damaged");
    c->damaged_warned = TRUE;
    return FALSE;
}

void chunk_cache_real_reader_init(const ChunkCache *c, ChunkCacheReader *r)
{
    r->container_in_buf = CACHE_NO_CONTAINER;
    if (c->opt.mode == CACHE_MODE_REAL && c->opt.fetch == CHUNK_FETCH_CONTAINER)
        r->container_buf = g_malloc(c->opt.container_size);
}

void chunk_cache_real_reader_free(ChunkCacheReader *r)
{
    g_free(r->container_buf);
    r->container_buf = NULL;
}

gboolean chunk_cache_real_fetch(const ChunkCache *c, ChunkCacheReader *r, const ChunkRef *ref, uint8_t *buf,
                                GError **err)
{
    if (c->opt.fetch == CHUNK_FETCH_CHUNK)
        return chunk_read(c->opt.backing, ref->container, ref->offset, ref->length, c->opt.fp_alg, &ref->fp, buf,
                          NULL, err);
    size_t size = c->opt.container_size;
    if (r->container_in_buf != ref->container) {
        r->container_in_buf = CACHE_NO_CONTAINER;
        if (!container_source_read(c->opt.backing, ref->container, r->container_buf, err))
            return FALSE;
        r->container_in_buf = ref->container;
    }
    if (!container_check_chunk(r->container_buf, size, ref->container, &ref->fp, ref->offset, ref->length, err))
        return FALSE;
    memcpy(buf, r->container_buf + ref->offset, ref->length);
    return TRUE;
}

const uint8_t *chunk_cache_real_container(const ChunkCacheReader *r, ContainerId id)
{
    return r->container_buf != NULL && r->container_in_buf == id ? r->container_buf : NULL;
}
