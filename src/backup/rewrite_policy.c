/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_policy.c: the rewrite rules of capping, CFL, CBR and HAR over one
 * segment (see rewrite_policy.h). */
#include "backup/rewrite_policy.h"

#include <math.h>

void rewrite_policy_init(RewritePolicy *p, const RewriteConfig *cfg, size_t container_size, GHashTable *har_sparse,
                         unsigned restore_cache_containers)
{
    *p = (RewritePolicy){ .cfg = cfg, .container_size = container_size, .har_sparse = har_sparse,
                          .referenced = g_hash_table_new(g_direct_hash, g_direct_equal) };
    if (cfg->cache_aware)
        p->restore_cache = fragmentation_meter_new(restore_cache_containers);
}

void rewrite_policy_clear(RewritePolicy *p)
{
    if (p->har_sparse)
        g_hash_table_unref(p->har_sparse);
    if (p->referenced)
        g_hash_table_unref(p->referenced);
    fragmentation_meter_free(p->restore_cache);
    p->har_sparse = p->referenced = NULL;
    p->restore_cache = NULL;
}

double rewrite_policy_cfl(const RewritePolicy *p)
{
    double cs = (double)p->container_size;
    double optimal = ceil((double)p->bytes / cs);
    double actual = (double)g_hash_table_size(p->referenced) + ceil((double)p->stored_bytes / cs);
    return actual <= 0 ? 1.0 : MIN(1.0, optimal / actual);
}

/* One old container the segment references, and its bytes there. */
typedef struct {
    ContainerId id;
    uint64_t bytes;
} Usage;

static gint by_bytes_desc(gconstpointer a, gconstpointer b)
{
    const Usage *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id; /* ties: the older container kept */
}

/* The segment's bytes per old container, for the items not yet rewritten. */
static GArray *segment_usage(const RewriteItem *items, guint n)
{
    GHashTable *pos = g_hash_table_new(g_direct_hash, g_direct_equal);
    GArray *u = g_array_new(FALSE, FALSE, sizeof(Usage));
    for (guint i = 0; i < n; i++) {
        if (items[i].container == REWRITE_NOT_STORED || items[i].rewrite)
            continue;
        gpointer at;
        if (g_hash_table_lookup_extended(pos, GUINT_TO_POINTER(items[i].container), NULL, &at)) {
            g_array_index(u, Usage, GPOINTER_TO_UINT(at)).bytes += items[i].length;
        } else {
            g_hash_table_insert(pos, GUINT_TO_POINTER(items[i].container), GUINT_TO_POINTER(u->len));
            Usage one = { items[i].container, items[i].length };
            g_array_append_val(u, one);
        }
    }
    g_hash_table_unref(pos);
    return u;
}

/* Rewrite every item not rewritten yet whose container is in `set`. */
static void rewrite_in(RewriteItem *items, guint n, GHashTable *set)
{
    for (guint i = 0; i < n; i++)
        if (items[i].container != REWRITE_NOT_STORED &&
            g_hash_table_contains(set, GUINT_TO_POINTER(items[i].container)))
            items[i].rewrite = TRUE;
}

/* Capping: keep the capping level's containers the segment uses most. */
static void capping(RewritePolicy *p, RewriteItem *items, guint n, GArray *u)
{
    g_array_sort(u, by_bytes_desc);
    GHashTable *capped = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = p->cfg->capping_level; i < u->len; i++)
        g_hash_table_add(capped, GUINT_TO_POINTER(g_array_index(u, Usage, i).id));
    rewrite_in(items, n, capped);
    g_hash_table_unref(capped);
}

/* CFL-based selective deduplication: while the job is fragmented, rewrite
 * the chunks of the containers the segment hardly uses. */
static void cfl(RewritePolicy *p, RewriteItem *items, guint n, GArray *u)
{
    if (rewrite_policy_cfl(p) >= p->cfg->cfl_require)
        return;
    GHashTable *sparse = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < u->len; i++) {
        const Usage *c = &g_array_index(u, Usage, i);
        if ((double)c->bytes < p->cfg->cfl_usage_threshold * (double)p->container_size)
            g_hash_table_add(sparse, GUINT_TO_POINTER(c->id));
    }
    rewrite_in(items, n, sparse);
    g_hash_table_unref(sparse);
}

/* CBR: the chunks of the containers with the highest rewrite utility (the
 * least used by the segment) first, those at or above the minimal utility,
 * while the job's rewritten bytes stay within the limit of its bytes. */
static void cbr(RewritePolicy *p, RewriteItem *items, guint n, GArray *u, uint64_t segment_bytes)
{
    g_array_sort(u, by_bytes_desc);
    double budget = p->cfg->cbr_limit * (double)(p->bytes + segment_bytes) - (double)p->rewritten_bytes;
    for (guint k = u->len; k-- > 0 && budget > 0;) {
        const Usage *c = &g_array_index(u, Usage, k);
        double utility = 1.0 - (double)c->bytes / (double)p->container_size;
        if (utility < p->cfg->cbr_minimal_utility)
            break; /* the rest are used more */
        for (guint i = 0; i < n && budget > 0; i++) {
            if (items[i].container == c->id && !items[i].rewrite && items[i].length <= budget) {
                items[i].rewrite = TRUE;
                budget -= items[i].length;
            }
        }
    }
}

/* The cache-aware filter (Fu et al., ATC'14): restore reads the segment in
 * stream order through an LRU restore cache; a duplicate marked for
 * rewriting whose container that cache holds at that point costs restore
 * no read, so it is kept. Chunks the job writes itself are modelled as one
 * container, the job's, that a sequential restore always has at hand. */
static void cache_aware_filter(FragmentationMeter *cache, RewriteItem *items, guint n)
{
    const ContainerId own = REWRITE_NOT_STORED;
    for (guint i = 0; i < n; i++) {
        if (items[i].rewrite && fragmentation_meter_holds(cache, items[i].container))
            items[i].rewrite = FALSE;
        gboolean placed_here = items[i].container == REWRITE_NOT_STORED || items[i].rewrite;
        fragmentation_meter_touch(cache, placed_here ? own : items[i].container, items[i].length);
    }
}

void rewrite_policy_decide(RewritePolicy *p, RewriteItem *items, guint n)
{
    uint64_t segment_bytes = 0;
    for (guint i = 0; i < n; i++) {
        items[i].rewrite = FALSE;
        segment_bytes += items[i].length;
    }
    if (p->har_sparse != NULL)
        rewrite_in(items, n, p->har_sparse);
    gboolean on = !p->cfg->cfl_switch || rewrite_policy_cfl(p) < p->cfg->cfl_require;
    if (on && p->cfg->algorithm != REWRITE_NO) {
        GArray *u = segment_usage(items, n);
        switch (p->cfg->algorithm) {
        case REWRITE_CAPPING:
            capping(p, items, n, u);
            break;
        case REWRITE_CFL:
            cfl(p, items, n, u);
            break;
        case REWRITE_CBR:
            cbr(p, items, n, u, segment_bytes);
            break;
        case REWRITE_NO:
            break;
        }
        g_array_unref(u);
    }
    if (p->restore_cache != NULL)
        cache_aware_filter(p->restore_cache, items, n);
    for (guint i = 0; i < n; i++) {
        g_assert(!items[i].rewrite || items[i].container != REWRITE_NOT_STORED);
        g_assert(!items[i].repeat || items[i].container == REWRITE_NOT_STORED);
        p->bytes += items[i].length;
        if (items[i].repeat)
            continue;
        if (items[i].container == REWRITE_NOT_STORED || items[i].rewrite)
            p->stored_bytes += items[i].length;
        else
            g_hash_table_add(p->referenced, GUINT_TO_POINTER(items[i].container));
        if (items[i].rewrite)
            p->rewritten_bytes += items[i].length;
    }
}
