/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store_index.c: the fingerprint index in the cluster and the working
 * directory's cache of it (store_index.h). */
#include "store/store_index.h"
#include "index/fp_index.h"
#include "storage/container.h"
#include "storage/rados_object.h"
#include "store/freed_list.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

#define STATE_MAGIC "DPLCIXS1"
#define STATE_SIZE 28 /* magic, has_job, job, freed length, freed CRC, CRC */
#define JOB_MAGIC "DPLCIXJ1"
#define JOB_HEAD 16 /* magic, fingerprint length, count; then the entries, then a CRC */
#define LOC_SIZE 12

/* What a DB or the shards hold: every committed job's entries up to `job`
 * (none: -1), against the freed list of `freed_len` bytes and CRC `freed_crc`. */
typedef struct {
    gboolean valid;
    int64_t job;
    uint32_t freed_len, freed_crc;
} IndexState;

typedef struct {
    Store *s;
    size_t fp_len;
    GArray *freed; /* ContainerId, ascending */
    IndexState freed_now; /* job unused */
    int64_t newest;       /* the newest committed job, or -1 */
    char *dir;            /* WORKDIR/index */
} Sync;

static void state_encode(const IndexState *st, uint8_t out[STATE_SIZE])
{
    memcpy(out, STATE_MAGIC, 8);
    le32_put(out + 8, st->job >= 0);
    le32_put(out + 12, st->job >= 0 ? (uint32_t)st->job : 0);
    le32_put(out + 16, st->freed_len);
    le32_put(out + 20, st->freed_crc);
    le32_put(out + 24, checksum_crc32(CHECKSUM_CRC32_START, out, 24));
}

/* A missing or damaged state is an invalid one (its holder is rebuilt). */
static IndexState state_decode(const uint8_t *b, size_t len)
{
    IndexState st = { FALSE, -1, 0, 0 };
    if (b == NULL || len != STATE_SIZE || memcmp(b, STATE_MAGIC, 8) != 0 ||
        le32_get(b + 24) != checksum_crc32(CHECKSUM_CRC32_START, b, 24))
        return st;
    st.valid = TRUE;
    st.job = le32_get(b + 8) ? (int64_t)le32_get(b + 12) : -1;
    st.freed_len = le32_get(b + 16);
    st.freed_crc = le32_get(b + 20);
    return st;
}

static gboolean same_freed(const IndexState *a, const IndexState *b)
{
    return a->freed_len == b->freed_len && a->freed_crc == b->freed_crc;
}

static char *local_state_path(const char *dir)
{
    return g_build_filename(dir, STORE_INDEX_LOCAL_FILE, NULL);
}

/* The DB's state: invalid while it is marked dirty. */
static IndexState local_state(const char *dir)
{
    char *path = local_state_path(dir);
    uint8_t *b = NULL;
    size_t len = 0;
    IndexState st = { FALSE, -1, 0, 0 };
    if (!fp_index_marked_dirty(dir) && g_file_test(path, G_FILE_TEST_EXISTS) && file_read_whole(path, &b, &len, NULL))
        st = state_decode(b, len);
    g_free(b);
    g_free(path);
    return st;
}

static gboolean put_local_state(const char *dir, const IndexState *st, GError **err)
{
    uint8_t b[STATE_SIZE];
    state_encode(st, b);
    char *path = local_state_path(dir);
    gboolean ok = file_publish_atomic(path, b, sizeof b, err);
    g_free(path);
    return ok;
}

static gboolean cluster_state(Store *s, IndexState *st, GError **err)
{
    uint8_t *b;
    size_t len;
    gboolean found;
    if (!rados_object_get(store_cluster_connection(s->cluster), STORE_INDEX_OBJECT, &b, &len, &found, err))
        return FALSE;
    *st = state_decode(b, len);
    g_free(b);
    return TRUE;
}

static gboolean put_cluster_state(Store *s, const IndexState *st, GError **err)
{
    uint8_t b[STATE_SIZE];
    state_encode(st, b);
    return rados_object_put(store_cluster_connection(s->cluster), STORE_INDEX_OBJECT, b, sizeof b, err);
}

/* The freed list as the working directory holds it (the pull made it the
 * cluster's): its ids, and its bytes' length and CRC. */
static gboolean freed_now(const char *workdir, GArray **ids, IndexState *st, GError **err)
{
    char *path = g_build_filename(workdir, FREED_LIST_FILE, NULL);
    uint8_t *b = NULL;
    size_t len = 0;
    gboolean ok = !g_file_test(path, G_FILE_TEST_EXISTS) || file_read_whole(path, &b, &len, err);
    g_free(path);
    *st = (IndexState){ TRUE, -1, (uint32_t)len, len > 0 ? checksum_crc32(CHECKSUM_CRC32_START, b, len) : 0 };
    g_free(b);
    *ids = ok ? freed_list_load(workdir, NULL, err) : NULL;
    return *ids != NULL;
}

/* ---- a job's entries ---- */

gboolean store_index_put_job(Store *s, uint32_t job_id, const GArray *entries, GError **err)
{
    size_t fp_len = fingerprint_length(s->fingerprint), each = fp_len + LOC_SIZE;
    size_t len = JOB_HEAD + entries->len * each + 4;
    uint8_t *b = g_malloc(len), *p = b + JOB_HEAD;
    memcpy(b, JOB_MAGIC, 8);
    le32_put(b + 8, (uint32_t)fp_len);
    le32_put(b + 12, entries->len);
    for (guint i = 0; i < entries->len; i++, p += each) {
        const FpIndexEntry *e = &g_array_index(entries, FpIndexEntry, i);
        memcpy(p, e->fp.bytes, fp_len);
        le32_put(p + fp_len, e->loc.container);
        le32_put(p + fp_len + 4, e->loc.offset);
        le32_put(p + fp_len + 8, e->loc.length);
    }
    le32_put(p, checksum_crc32(CHECKSUM_CRC32_START, b, len - 4));
    gboolean ok = store_cluster_put_job_object(s->cluster, job_id, STORE_INDEX_JOB_OBJECT, b, len, err);
    g_free(b);
    return ok;
}

/* Committed job `job_id`'s entries appended to `out`, those naming a freed
 * container left out; *found FALSE when the job has none (a job moved in
 * by rados-migrate). A damaged object is an INTEGRITY error. */
static gboolean job_entries(Sync *y, uint32_t job_id, GArray *out, gboolean *found, GError **err)
{
    uint8_t *b;
    size_t len;
    if (!store_cluster_get_job_object(y->s->cluster, job_id, STORE_INDEX_JOB_OBJECT, &b, &len, found, err))
        return FALSE;
    if (!*found)
        return TRUE;
    size_t each = y->fp_len + LOC_SIZE;
    gboolean ok = len >= JOB_HEAD + 4 && memcmp(b, JOB_MAGIC, 8) == 0 && le32_get(b + 8) == y->fp_len &&
                  len == JOB_HEAD + (size_t)le32_get(b + 12) * each + 4 &&
                  le32_get(b + len - 4) == checksum_crc32(CHECKSUM_CRC32_START, b, len - 4);
    if (!ok)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "job %u's fingerprint index entries in %s are damaged (run 'destor repair')", job_id,
                    store_cluster_shown(y->s->cluster));
    for (const uint8_t *p = b + JOB_HEAD; ok && p < b + len - 4; p += each) {
        FpIndexEntry e = { 0 };
        memcpy(e.fp.bytes, p, y->fp_len);
        e.loc = (ChunkLocation){ le32_get(p + y->fp_len), le32_get(p + y->fp_len + 4), le32_get(p + y->fp_len + 8) };
        if (!freed_list_has(y->freed, e.loc.container))
            g_array_append_val(out, e);
    }
    g_free(b);
    return ok;
}

/* The entries of every committed job after `after`; *complete FALSE when
 * one of them has none (then only a rebuild from the containers knows). */
static GArray *jobs_since(Sync *y, int64_t after, gboolean *complete, GError **err)
{
    const GArray *ids = store_cluster_jobs(y->s->cluster);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(FpIndexEntry));
    *complete = TRUE;
    for (guint i = 0; i < ids->len && *complete; i++) {
        uint32_t id = g_array_index(ids, uint32_t, i);
        if ((int64_t)id > after && !job_entries(y, id, out, complete, err)) {
            g_array_unref(out);
            return NULL;
        }
    }
    return out;
}

/* ---- the shards ---- */

static unsigned shard_of(const Fingerprint *fp)
{
    return fp->bytes[0];
}

typedef struct {
    GPtrArray *keys, *vals;
    GArray *key_lens, *val_lens;
} Shard;

/* One write per shard holding an entry (with `all`, every shard, emptied
 * first): the shards written at once. */
static gboolean put_shards(Sync *y, const GArray *entries, gboolean all, GError **err)
{
    Shard sh[STORE_INDEX_SHARDS];
    for (unsigned i = 0; i < STORE_INDEX_SHARDS; i++)
        sh[i] = (Shard){ g_ptr_array_new_with_free_func(g_free), g_ptr_array_new_with_free_func(g_free),
                         g_array_new(FALSE, FALSE, sizeof(size_t)), g_array_new(FALSE, FALSE, sizeof(size_t)) };
    size_t key_len = 2 * y->fp_len, val_len = LOC_SIZE;
    for (guint i = 0; i < entries->len; i++) {
        const FpIndexEntry *e = &g_array_index(entries, FpIndexEntry, i);
        Shard *h = &sh[shard_of(&e->fp)];
        char *key = g_malloc(65);
        fingerprint_hex(&e->fp, y->fp_len, key);
        uint8_t *val = g_malloc(LOC_SIZE);
        le32_put(val, e->loc.container);
        le32_put(val + 4, e->loc.offset);
        le32_put(val + 8, e->loc.length);
        g_ptr_array_add(h->keys, key);
        g_ptr_array_add(h->vals, val);
        g_array_append_val(h->key_lens, key_len);
        g_array_append_val(h->val_lens, val_len);
    }
    RadosOmapWrite w[STORE_INDEX_SHARDS];
    char oids[STORE_INDEX_SHARDS][32];
    size_t n = 0;
    for (unsigned i = 0; i < STORE_INDEX_SHARDS; i++) {
        if (!all && sh[i].keys->len == 0)
            continue;
        snprintf(oids[n], sizeof oids[n], STORE_INDEX_SHARD_PREFIX "%02x", i);
        w[n] = (RadosOmapWrite){ oids[n], all, (const char *const *)sh[i].keys->pdata,
                                 (const size_t *)(void *)sh[i].key_lens->data,
                                 (const char *const *)sh[i].vals->pdata,
                                 (const size_t *)(void *)sh[i].val_lens->data, sh[i].keys->len };
        n++;
    }
    gboolean ok = rados_omap_puts_many(store_cluster_connection(y->s->cluster), w, n, err);
    for (unsigned i = 0; i < STORE_INDEX_SHARDS; i++) {
        g_ptr_array_unref(sh[i].keys);
        g_ptr_array_unref(sh[i].vals);
        g_array_unref(sh[i].key_lens);
        g_array_unref(sh[i].val_lens);
    }
    return ok;
}

typedef struct {
    Sync *y;
    FpIndex *idx;
    const char *oid;
} ShardLoad;

static gboolean shard_entry(const char *key, size_t key_len, const uint8_t *val, size_t val_len, void *ctx,
                            GError **err)
{
    ShardLoad *l = ctx;
    FpIndexEntry e = { 0 };
    gboolean ok = key_len == 2 * l->y->fp_len && val_len == LOC_SIZE;
    for (size_t i = 0; ok && i < l->y->fp_len; i++) {
        int hi = g_ascii_xdigit_value(key[2 * i]), lo = g_ascii_xdigit_value(key[2 * i + 1]);
        ok = hi >= 0 && lo >= 0;
        e.fp.bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    if (!ok) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "object %s in %s holds a malformed entry", l->oid,
                    store_cluster_shown(l->y->s->cluster));
        return FALSE;
    }
    e.loc = (ChunkLocation){ le32_get(val), le32_get(val + 4), le32_get(val + 8) };
    return freed_list_has(l->y->freed, e.loc.container) || fp_index_put(l->idx, &e.fp, &e.loc, err);
}

/* ---- the working directory's DB ---- */

static gboolean put_entries(FpIndex *idx, const GArray *entries, GError **err)
{
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < entries->len; i++) {
        const FpIndexEntry *e = &g_array_index(entries, FpIndexEntry, i);
        ok = fp_index_put(idx, &e->fp, &e->loc, err);
    }
    return ok;
}

/* The DB, brought up to the catalog from the cluster: the jobs after
 * `from` (fresh: emptied first and the shards loaded). *done FALSE when a
 * job's entries are missing. */
static gboolean load_local(Sync *y, gboolean fresh, int64_t from, gboolean *done, GError **err)
{
    GArray *entries = jobs_since(y, from, done, err);
    if (entries == NULL || !*done) {
        if (entries != NULL)
            g_array_unref(entries);
        return entries != NULL;
    }
    FpIndex *idx = fp_index_open_cache(y->dir, y->fp_len, fresh, err);
    gboolean ok = idx != NULL;
    for (unsigned i = 0; ok && fresh && i < STORE_INDEX_SHARDS; i++) {
        char oid[32];
        snprintf(oid, sizeof oid, STORE_INDEX_SHARD_PREFIX "%02x", i);
        ShardLoad l = { y, idx, oid };
        gboolean found;
        ok = rados_omap_each(store_cluster_connection(y->s->cluster), oid, shard_entry, &l, &found, err);
    }
    ok = ok && put_entries(idx, entries, err) && fp_index_cache_commit(idx, err);
    fp_index_close(idx);
    g_array_unref(entries);
    return ok;
}

static gboolean skip_freed(ContainerId id, void *ctx)
{
    return freed_list_has(ctx, id);
}

/* The DB from the containers (the shards lag a gc, or a job's entries are missing). */
static gboolean rebuild_local(Sync *y, GError **err)
{
    uint32_t count;
    if (!container_store_count(y->s->containers, &count, err))
        return FALSE;
    FpIndex *idx = fp_index_rebuild(y->dir, y->fp_len, container_store_source(y->s->containers), count, skip_freed,
                                    y->freed, err);
    fp_index_close(idx);
    return idx != NULL;
}

static gboolean sync_local(Sync *y, GError **err)
{
    IndexState l = local_state(y->dir), m;
    gboolean local_ok = l.valid && same_freed(&l, &y->freed_now);
    if (local_ok && l.job == y->newest)
        return TRUE;
    if (!cluster_state(y->s, &m, err))
        return FALSE;
    gboolean done = FALSE;
    if (local_ok && !load_local(y, FALSE, l.job, &done, err))
        return FALSE;
    if (!done && m.valid && same_freed(&m, &y->freed_now) && !load_local(y, TRUE, m.job, &done, err))
        return FALSE;
    if (!done && !rebuild_local(y, err))
        return FALSE;
    IndexState now = y->freed_now;
    now.job = y->newest;
    return put_local_state(y->dir, &now, err);
}

/* The shards, brought up to the DB (current: sync_local ran); with `all`,
 * rewritten from it whatever their state. */
static gboolean sync_shards(Sync *y, gboolean all, GError **err)
{
    IndexState m;
    if (!cluster_state(y->s, &m, err))
        return FALSE;
    gboolean shards_ok = !all && m.valid && same_freed(&m, &y->freed_now);
    if (shards_ok && m.job == y->newest)
        return TRUE;
    gboolean complete = FALSE, ok = TRUE;
    if (shards_ok) {
        GArray *entries = jobs_since(y, m.job, &complete, err);
        ok = entries != NULL && (!complete || put_shards(y, entries, FALSE, err));
        if (entries != NULL)
            g_array_unref(entries);
    }
    /* without a committed job no shard was ever written: only the state is */
    if (ok && !complete && y->newest >= 0) {
        gboolean exists;
        GArray *all = fp_index_read_all(y->dir, y->fp_len, &exists, err);
        ok = all != NULL && put_shards(y, all, TRUE, err);
        if (all != NULL)
            g_array_unref(all);
    }
    IndexState now = y->freed_now;
    now.job = y->newest;
    return ok && put_cluster_state(y->s, &now, err);
}

static gboolean sync_open(Sync *y, Store *s, GError **err)
{
    const GArray *ids = store_cluster_jobs(s->cluster);
    *y = (Sync){ .s = s, .fp_len = fingerprint_length(s->fingerprint),
                 .newest = ids->len > 0 ? (int64_t)g_array_index(ids, uint32_t, ids->len - 1) : -1,
                 .dir = g_build_filename(s->dir, "index", NULL) };
    return freed_now(s->dir, &y->freed, &y->freed_now, err);
}

static void sync_close(Sync *y)
{
    if (y->freed != NULL)
        g_array_unref(y->freed);
    g_free(y->dir);
}

gboolean store_index_sync(Store *s, GError **err)
{
    g_assert(s->lock_fd >= 0);
    if (s->cluster == NULL)
        return TRUE;
    Sync y;
    gboolean ok = sync_open(&y, s, err) && sync_local(&y, err) && sync_shards(&y, FALSE, err);
    sync_close(&y);
    return ok;
}

gboolean store_index_lags(Store *s)
{
    if (s->cluster == NULL)
        return FALSE;
    Sync y;
    gboolean lags = TRUE;
    if (sync_open(&y, s, NULL)) {
        IndexState l = local_state(y.dir);
        lags = !l.valid || !same_freed(&l, &y.freed_now) || l.job != y.newest;
    }
    sync_close(&y);
    return lags;
}

gboolean store_index_from_local(Store *s, gboolean all, GError **err)
{
    g_assert(s->lock_fd >= 0);
    if (s->cluster == NULL)
        return TRUE;
    Sync y;
    IndexState now = { 0 };
    gboolean ok = sync_open(&y, s, err);
    if (ok) {
        now = y.freed_now;
        now.job = y.newest;
    }
    ok = ok && put_local_state(y.dir, &now, err) && sync_shards(&y, all, err);
    sync_close(&y);
    return ok;
}

void store_index_job_committed(Store *s, uint32_t job_id, const GArray *entries)
{
    g_assert(s->lock_fd >= 0 && s->cluster != NULL);
    const GArray *ids = store_cluster_jobs(s->cluster);
    g_assert(ids->len > 0 && g_array_index(ids, uint32_t, ids->len - 1) == job_id);
    int64_t before = ids->len > 1 ? (int64_t)g_array_index(ids, uint32_t, ids->len - 2) : -1;
    Sync y;
    IndexState m, l;
    GError *err = NULL;
    gboolean ok = sync_open(&y, s, &err) && cluster_state(s, &m, &err);
    if (ok) {
        IndexState now = y.freed_now;
        now.job = job_id;
        l = local_state(y.dir);
        /* each state moves only from the job before: else it lags, and the next sync catches it up */
        ok = (!m.valid || !same_freed(&m, &now) || m.job != before ||
              (put_shards(&y, entries, FALSE, &err) && put_cluster_state(s, &now, &err))) &&
             (!l.valid || !same_freed(&l, &now) || l.job != before || put_local_state(y.dir, &now, &err));
    }
    if (!ok) {
        destor_warning("job %u is committed; its fingerprint index entries wait for the next writer to merge them "
                       "(%s)",
                       job_id, err->message);
        g_error_free(err);
    }
    sync_close(&y);
}
