/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_silo.c: the near-exact logical index after SiLo (Xia et al., ATC'11:
 * similarity and locality), Destor's "near-exact logical silo". The stream
 * comes in segments (fp_index_segment: the backup's segment stage, cut by
 * fingerprint-index-segment-algorithm); each segment's features (its
 * samples by the configured method) are looked up in a table of the
 * features of earlier segments, and by fingerprint-index-segment-selection
 * the similar segments chosen (top K: the K sharing the most features;
 * base: none ahead, a looked-up chunk that is an earlier segment's feature
 * brings that segment in; mix: both) are read into the locality cache,
 * each with the segments after it (fingerprint-index-segment-prefetching):
 * the containers their chunks were found or stored in. Similarity brings
 * in the logical neighbours a physical sample table cannot name (the
 * chunks an earlier backup deduplicated against older containers). A
 * lookup then asks the job's unwritten chunks and the cache, nothing else:
 * a chunk neither holds is new to this index. The segment's own containers
 * and features are remembered when the next segment starts. Like every
 * design, only a container's own metadata makes a chunk found
 * (fp_design.h). */
#include "index/fp_design.h"
#include "index/fp_table.h"
#include "index/locality_cache.h"
#include "index/sampling.h"
#include "index/segments_file.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

/* A segment remembers at most this many containers (the first it met):
 * a segment of Destor's 1024 chunks of 8 KiB is 8 MiB, four 2 MiB
 * containers when new, and more when its chunks lie scattered over
 * history. */
#define SEGMENT_CONTAINERS 64

struct FpDesign {
    FpIndex *idx;
    FpIndexParams p;
    FpTable *features;   /* feature -> the newest segment with it (in loc.container) */
    GPtrArray *segments; /* GArray of ContainerId, by segment id */
    LocalityCache *cache;
    FpTable *unwritten;  /* the job's new chunks whose container is not yet in the pool */
    uint8_t *buf;
    char *path;
    /* the segment being looked up */
    GArray *feat;        /* Fingerprint: its features */
    GArray *met;         /* ContainerId: the containers its chunks are in */
    uint64_t prefetches;
    uint64_t looked_up; /* segments */
};

static void note_container(FpDesign *d, ContainerId c)
{
    for (guint i = 0; i < d->met->len; i++)
        if (g_array_index(d->met, ContainerId, i) == c)
            return;
    if (d->met->len < SEGMENT_CONTAINERS)
        g_array_append_val(d->met, c);
}

/* Remember the segment just looked up: its containers, and its features
 * naming it. */
static void finish_segment(FpDesign *d)
{
    if (d->met->len == 0) {
        g_array_set_size(d->feat, 0);
        return;
    }
    ChunkLocation seg = { .container = d->segments->len };
    g_ptr_array_add(d->segments, d->met);
    d->met = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (guint i = 0; i < d->feat->len; i++)
        fp_table_put(d->features, &g_array_index(d->feat, Fingerprint, i), &seg);
    g_array_set_size(d->feat, 0);
}

/* Features of n fingerprints, appended to d->feat. */
static void take_features(FpDesign *d, const Fingerprint *fps, guint n)
{
    gboolean *is = g_new(gboolean, n);
    sampling_select(d->p.sampling, d->p.sampling_ratio, fps, n, fp_index_fp_len(d->idx), is);
    for (guint i = 0; i < n; i++)
        if (is[i])
            g_array_append_val(d->feat, fps[i]);
    g_free(is);
}

/* A cold start (no table, or a stale one): each container in the pool a
 * segment of its own, its features its samples. */
static gboolean cold_start(FpDesign *d, GError **err)
{
    ContainerSource *pool = fp_index_pool(d->idx);
    for (uint32_t id = 0; id < fp_index_containers(d->idx); id++) {
        gboolean sound;
        if (!fp_index_read_sound(pool, id, d->buf, &sound, err))
            return FALSE;
        if (!sound) /* a torn or freed slot */
            continue;
        guint n = container_chunk_count(d->buf);
        if (n == 0)
            continue;
        Fingerprint *fps = g_new(Fingerprint, n);
        uint32_t off, len;
        for (guint i = 0; i < n; i++)
            container_chunk_entry(d->buf, pool->container_size, i, &fps[i], &off, &len);
        take_features(d, fps, n);
        note_container(d, id);
        finish_segment(d);
        g_free(fps);
    }
    return TRUE;
}

static SamplesStamp stamp_of(const FpDesign *d)
{
    return (SamplesStamp){ .method = d->p.sampling,
                           .ratio = d->p.sampling_ratio,
                           .fp_len = (uint32_t)fp_index_fp_len(d->idx),
                           .containers = fp_index_containers(d->idx) };
}

static void silo_close(FpDesign *d)
{
    if (d == NULL)
        return;
    fp_table_free(d->features);
    g_ptr_array_unref(d->segments);
    locality_cache_free(d->cache);
    fp_table_free(d->unwritten);
    g_array_unref(d->feat);
    g_array_unref(d->met);
    g_free(d->buf);
    g_free(d->path);
    g_free(d);
}

static FpDesign *silo_open(FpIndex *idx, const FpIndexParams *p, GError **err)
{
    FpDesign *d = g_new0(FpDesign, 1);
    d->idx = idx;
    d->p = *p;
    d->p.sampling = fp_index_sampling(p);
    d->features = fp_table_new();
    d->segments = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    d->cache = locality_cache_new(p->cache_containers);
    d->unwritten = fp_table_new();
    d->buf = g_malloc(fp_index_pool(idx)->container_size);
    d->path = g_build_filename(fp_index_dir(idx), FP_SEGMENTS_FILE, NULL);
    d->feat = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    d->met = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    gboolean loaded = FALSE;
    char *why = NULL;
    SamplesStamp st = stamp_of(d);
    if (!fp_index_was_rebuilt(idx))
        segments_file_load(d->path, &st, d->segments, d->features, &loaded, &why);
    if (why != NULL)
        destor_note("silo index: %s; starting its segments again from the containers", why);
    g_free(why);
    if (!loaded) {
        fp_table_free(d->features);
        d->features = fp_table_new();
        g_ptr_array_set_size(d->segments, 0);
        if (!cold_start(d, err)) {
            silo_close(d);
            return NULL;
        }
    }
    return d;
}

/* The containers of segments from..to-1 (at most the segment count),
 * appended to ids once each, while ids holds less than a cache's worth
 * (more would evict what this segment needs). */
static void collect_segments(FpDesign *d, guint from, guint to, GArray *ids)
{
    for (guint s = from; s < MIN(to, d->segments->len) && ids->len < d->p.cache_containers; s++) {
        const GArray *c = g_ptr_array_index(d->segments, s);
        for (guint k = 0; k < c->len && ids->len < d->p.cache_containers; k++) {
            ContainerId id = g_array_index(c, ContainerId, k);
            gboolean listed = FALSE;
            for (guint i = 0; i < ids->len && !listed; i++)
                listed = g_array_index(ids, ContainerId, i) == id;
            if (!listed)
                g_array_append_val(ids, id);
        }
    }
}

/* The chosen segments' containers, then (prefetching) those of the
 * prefetching - 1 segments after each (the next of the same earlier
 * backup, Destor's prefetch_segments): the chosen ones come first when a
 * cache's worth is not enough for all. */
static void collect_chosen(FpDesign *d, const guint *chosen, guint n, GArray *ids)
{
    for (guint i = 0; i < n; i++) {
        g_assert(chosen[i] < d->segments->len);
        collect_segments(d, chosen[i], chosen[i] + 1, ids);
    }
    for (guint i = 0; i < n; i++)
        collect_segments(d, chosen[i] + 1, chosen[i] + d->p.segment.prefetching, ids);
}

/* Bring the collected containers into the cache, the last first, so that
 * the first (the chosen segment's own) end up the most recently used
 * (Destor inserts prefetched segments from tail to head likewise). */
static gboolean bring_in(FpDesign *d, const GArray *ids, GError **err)
{
    for (guint i = ids->len; i-- > 0;) {
        ContainerId id = g_array_index(ids, ContainerId, i);
        if (locality_cache_holds(d->cache, id)) {
            locality_cache_touch(d->cache, id);
            continue;
        }
        d->prefetches++;
        if (!locality_cache_prefetch(d->cache, fp_index_pool(d->idx), id, d->buf, err))
            return FALSE;
    }
    return TRUE;
}

typedef struct {
    guint seg, shared;
} Candidate;

/* The most shared features first; of equals, the newer segment. */
static int by_shared(const void *a, const void *b)
{
    const Candidate *x = a, *y = b;
    if (x->shared != y->shared)
        return x->shared > y->shared ? -1 : 1;
    return x->seg > y->seg ? -1 : x->seg < y->seg;
}

/* Top K: the K earlier segments that share the most of this segment's
 * features. A feature names one segment (the newest with it: Destor's
 * value length 1), so the candidates' shared features are disjoint and
 * Destor's trimming of a chosen segment's features from the others
 * changes no count. */
static gboolean select_top(FpDesign *d, GError **err)
{
    GHashTable *shared = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < d->feat->len; i++) {
        const ChunkLocation *seg = fp_table_get(d->features, &g_array_index(d->feat, Fingerprint, i));
        if (seg == NULL)
            continue;
        gpointer key = GUINT_TO_POINTER(seg->container + 1);
        g_hash_table_insert(shared, key, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(shared, key)) + 1));
    }
    guint n = g_hash_table_size(shared), i = 0;
    Candidate *c = g_new(Candidate, MAX(n, 1));
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, shared);
    while (g_hash_table_iter_next(&it, &key, &value))
        c[i++] = (Candidate){ GPOINTER_TO_UINT(key) - 1, GPOINTER_TO_UINT(value) };
    g_hash_table_unref(shared);
    qsort(c, n, sizeof *c, by_shared);
    guint k = MIN(n, d->p.segment.top_k);
    guint *chosen = g_new(guint, MAX(k, 1));
    for (i = 0; i < k; i++)
        chosen[i] = c[i].seg;
    g_free(c);
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    collect_chosen(d, chosen, k, ids);
    g_free(chosen);
    gboolean ok = bring_in(d, ids, err);
    g_array_unref(ids);
    return ok;
}

static gboolean silo_segment(FpDesign *d, const Fingerprint *fps, guint n, GError **err)
{
    finish_segment(d);
    take_features(d, fps, n);
    d->looked_up++;
    return d->p.segment.selection == SEGMENT_SELECT_BASE || select_top(d, err);
}

static gboolean ask(FpDesign *d, const Fingerprint *fp, ChunkLocation *loc)
{
    const ChunkLocation *mine = fp_table_get(d->unwritten, fp);
    if (mine != NULL)
        *loc = *mine;
    return mine != NULL || locality_cache_lookup(d->cache, fp, loc);
}

static gboolean silo_lookup(FpDesign *d, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    *found = ask(d, fp, loc);
    if (!*found && d->p.segment.selection != SEGMENT_SELECT_TOP) {
        /* base, mix: a chunk that is an earlier segment's feature brings
         * that segment (and the ones after it) in, then is asked again */
        const ChunkLocation *seg = fp_table_get(d->features, fp);
        if (seg != NULL) {
            guint chosen = seg->container;
            GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
            collect_chosen(d, &chosen, 1, ids);
            gboolean ok = bring_in(d, ids, err);
            g_array_unref(ids);
            if (!ok)
                return FALSE;
            *found = ask(d, fp, loc);
        }
    }
    if (*found)
        note_container(d, loc->container);
    return TRUE;
}

static void silo_add(FpDesign *d, const Fingerprint *fp, const ChunkLocation *loc)
{
    fp_table_put(d->unwritten, fp, loc);
    note_container(d, loc->container);
}

static void silo_persisted(FpDesign *d, const uint8_t *container, size_t size)
{
    ContainerId id = container_id_of(container);
    guint n = container_chunk_count(container);
    for (guint i = 0; i < n; i++) {
        Fingerprint fp;
        uint32_t off, len;
        container_chunk_entry(container, size, i, &fp, &off, &len);
        fp_table_remove_in(d->unwritten, &fp, id);
    }
    locality_cache_insert(d->cache, container, size);
}

static void mark_named(const Fingerprint *fp, const ChunkLocation *seg, void *named)
{
    (void)fp;
    ((guint *)named)[seg->container] = 1;
}

static void renumber(ChunkLocation *seg, void *to)
{
    seg->container = ((const guint *)to)[seg->container];
}

/* Forget the segments no feature names any more (newer segments took all
 * their features): the table grows with the distinct features, not with
 * every segment ever backed up. */
static void drop_unnamed_segments(FpDesign *d)
{
    guint n = d->segments->len, kept = 0;
    if (n == 0)
        return;
    guint *to = g_new0(guint, n);
    fp_table_foreach(d->features, mark_named, to);
    GPtrArray *named = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < n; i++) {
        if (to[i]) {
            to[i] = kept++;
            g_ptr_array_add(named, g_array_ref(g_ptr_array_index(d->segments, i)));
        }
    }
    g_ptr_array_unref(d->segments);
    d->segments = named;
    fp_table_update(d->features, renumber, to);
    g_free(to);
}

static gboolean silo_commit(FpDesign *d, GError **err)
{
    g_assert(fp_table_size(d->unwritten) == 0); /* every container of the job is written */
    finish_segment(d);
    drop_unnamed_segments(d);
    SamplesStamp st = stamp_of(d);
    return segments_file_save(d->path, &st, d->segments, d->features, err);
}

static void silo_stats(FpDesign *d, FpIndexStats *st)
{
    size_t segs = d->segments->len * (sizeof(gpointer) + sizeof(GArray));
    for (guint i = 0; i < d->segments->len; i++)
        segs += ((GArray *)g_ptr_array_index(d->segments, i))->len * sizeof(ContainerId);
    st->table_bytes = fp_table_bytes(d->features) + fp_table_bytes(d->unwritten) + segs;
    st->cache_bytes = locality_cache_bytes(d->cache);
    st->prefetches = d->prefetches;
    st->segments = d->looked_up;
}

const FpDesignOps fp_design_silo = {
    .open = silo_open,
    .segment = silo_segment,
    .lookup = silo_lookup,
    .add = silo_add,
    .persisted = silo_persisted,
    .commit = silo_commit,
    .stats = silo_stats,
    .close = silo_close,
};
