/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fp_sampled.c: the bounded fingerprint indexes' parts (the exact-size
 * fingerprint table against a GHashTable model, Destor's sampling methods)
 * and the near-exact sampled index against a real pool, with adversarial
 * fingerprints: ones sharing the table's probe bytes, the sampling bytes or
 * all but one byte with stored ones, and a forged sample table naming
 * containers that do not hold them, and the silo design with a forged
 * segment table. A positive answer must always be a
 * chunk the named container's metadata holds (a false duplicate is data
 * loss); a stored chunk not found is a missed duplicate, counted. */
#include "index/fp_index.h"
#include "index/fp_table.h"
#include "index/samples_file.h"
#include "index/segments_file.h"
#include "index/sampling.h"
#include "storage/container.h"
#include "storage/container_store.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>

#define CSIZE (128u * 1024)
#define PER_CONTAINER 40
#define CONTAINERS 6
#define CHUNK 1000

static Fingerprint fp_of(uint32_t i)
{
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, &i, sizeof i, &fp);
    return fp;
}

/* fp with byte `at` changed (within the 20 bytes of SHA-1). */
static Fingerprint flipped(Fingerprint fp, guint at)
{
    fp.bytes[at] ^= 0x5a;
    return fp;
}

static void test_table_matches_model(void)
{
    FpTable *t = fp_table_new();
    GHashTable *model = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, g_free, g_free);
    GRand *r = g_rand_new_with_seed(26);
    for (guint step = 0; step < 40000; step++) {
        /* few distinct keys, many sharing their probe bytes (4..11) */
        Fingerprint fp = fp_of(g_rand_int_range(r, 0, 600));
        if (g_rand_boolean(r))
            memset(fp.bytes + 4, 0, 8);
        ChunkLocation loc = { g_rand_int_range(r, 0, 4), step, 1 };
        switch (g_rand_int_range(r, 0, 4)) {
        case 0:
        case 1:
            fp_table_put(t, &fp, &loc);
            g_hash_table_replace(model, g_memdup2(&fp, sizeof fp), g_memdup2(&loc, sizeof loc));
            break;
        case 2: {
            const ChunkLocation *m = g_hash_table_lookup(model, &fp);
            fp_table_remove_in(t, &fp, loc.container);
            if (m != NULL && m->container == loc.container)
                g_hash_table_remove(model, &fp);
            break;
        }
        default: {
            const ChunkLocation *got = fp_table_get(t, &fp), *m = g_hash_table_lookup(model, &fp);
            CU_ASSERT_EQUAL(got == NULL, m == NULL);
            if (got && m)
                CU_ASSERT_EQUAL(memcmp(got, m, sizeof *m), 0);
        }
        }
        CU_ASSERT_EQUAL(fp_table_size(t), g_hash_table_size(model));
    }
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, model);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        const ChunkLocation *got = fp_table_get(t, k);
        CU_ASSERT_TRUE(got != NULL && memcmp(got, v, sizeof(ChunkLocation)) == 0);
    }
    CU_ASSERT_TRUE(fp_table_bytes(t) >= fp_table_size(t) * (sizeof(Fingerprint) + sizeof(ChunkLocation)));
    g_rand_free(r);
    g_hash_table_destroy(model);
    fp_table_free(t);
}

static guint count_true(const gboolean *v, guint n)
{
    guint c = 0;
    for (guint i = 0; i < n; i++)
        c += v[i] != FALSE;
    return c;
}

static void test_sampling_methods(void)
{
    enum { N = 100 };
    Fingerprint fps[N];
    gboolean s[N];
    for (guint i = 0; i < N; i++)
        fps[i] = fp_of(i);
    sampling_select(SAMPLING_UNIFORM, 32, fps, N, 20, s);
    CU_ASSERT_TRUE(s[0] && s[32] && s[64] && s[96] && count_true(s, N) == 4);
    sampling_select(SAMPLING_MIN, 32, fps, N, 20, s);
    CU_ASSERT_EQUAL(count_true(s, N), 4); /* ceil(100 / 32) smallest */
    for (guint i = 0; i < N; i++)
        for (guint j = 0; j < N; j++)
            if (s[i] && !s[j])
                CU_ASSERT_TRUE(memcmp(fps[i].bytes, fps[j].bytes, 20) < 0);
    sampling_select(SAMPLING_OPTMIN, 32, fps, N, 20, s);
    CU_ASSERT_EQUAL(count_true(s, N), 4); /* one per run of 32 */
    sampling_select(SAMPLING_RANDOM, 1, fps, N, 20, s);
    CU_ASSERT_EQUAL(count_true(s, N), N);
    sampling_select(SAMPLING_RANDOM, 1u << 30, fps, 3, 20, s);
    CU_ASSERT_EQUAL(count_true(s, 3), 1); /* none by value: the smallest stands in */
}

/* Write CONTAINERS containers of PER_CONTAINER chunks (fp_of(c * PER_CONTAINER + i))
 * through an exact-index job. */
static ContainerStore *make_store(const char *idx_dir)
{
    GError *err = NULL;
    char *dir = g_path_get_dirname(idx_dir);
    CU_ASSERT_EQUAL_FATAL(g_mkdir_with_parents(dir, 0755), 0);
    ContainerStore *pool = container_store_open(CONTAINER_STORE_POOL, dir, CSIZE, TRUE, &err);
    g_free(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    FpIndex *idx = fp_index_open(idx_dir, 20, container_store_source(pool), 0, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_TRUE(fp_index_begin_job(idx, &err));
    uint8_t *buf = g_malloc(CSIZE), data[CHUNK];
    for (uint32_t c = 0; c < CONTAINERS; c++) {
        ContainerBuilder b;
        container_builder_init(&b, buf, CSIZE, c);
        for (uint32_t i = 0; i < PER_CONTAINER; i++) {
            Fingerprint fp = fp_of(c * PER_CONTAINER + i);
            memset(data, (int)i, sizeof data);
            ChunkLocation loc = { c, container_builder_add(&b, &fp, data, sizeof data), sizeof data };
            fp_index_add(idx, &fp, &loc);
        }
        container_builder_seal(&b, FP_SHA1);
        CU_ASSERT_TRUE(container_store_write(pool, c, buf, &err));
        CU_ASSERT_TRUE(container_store_sync(pool, &err) && fp_index_persist_container(idx, buf, CSIZE, &err));
    }
    CU_ASSERT_TRUE(fp_index_commit_job(idx, &err));
    fp_index_close(idx);
    g_free(buf);
    return pool;
}

/* A found answer must name a chunk its container holds, by the container's
 * own metadata (as read back from the pool). */
static void check_answer(ContainerStore *pool, const Fingerprint *fp, const ChunkLocation *loc)
{
    uint8_t *buf = g_malloc(CSIZE);
    GError *err = NULL;
    CU_ASSERT_TRUE(container_source_read(container_store_source(pool), loc->container, buf, &err));
    CU_ASSERT_TRUE(container_check_chunk(buf, CSIZE, loc->container, fp, loc->offset, loc->length, NULL));
    g_clear_error(&err);
    g_free(buf);
}

static FpIndex *open_design(ContainerStore *pool, const char *idx_dir, unsigned cache, FpIndexKind kind)
{
    FpIndexParams p;
    fp_index_params_default(&p);
    p.kind = kind;
    p.sampling_set = TRUE; /* uniform 8 for silo too, as the forged tables' stamp says */
    p.sampling_ratio = 8;
    p.cache_containers = cache;
    GError *err = NULL;
    FpIndex *idx = fp_index_open(idx_dir, 20, container_store_source(pool), CONTAINERS, &p, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_TRUE(fp_index_begin_job(idx, &err));
    return idx;
}

static FpIndex *open_sampled(ContainerStore *pool, const char *idx_dir, unsigned cache)
{
    return open_design(pool, idx_dir, cache, FP_INDEX_SAMPLED);
}

static void test_adversarial_lookups(void)
{
    char *idx_dir = g_build_filename(tmpdir, "adv", "index", NULL);
    ContainerStore *pool = make_store(idx_dir);
    /* Forge the sample table: every adversarial fingerprint is a "sample"
     * of a container that does not hold it, or of one that does not exist. */
    FpTable *forged = fp_table_new();
    GArray *adversaries = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    for (uint32_t k = 0; k < CONTAINERS * PER_CONTAINER; k++) {
        Fingerprint stored = fp_of(k);
        Fingerprint a[] = {
            flipped(stored, 19),              /* all but the last byte */
            flipped(stored, 0),               /* a different first byte */
            flipped(stored, 4),               /* a different probe byte of the tables */
            flipped(stored, 2),               /* the same probe (4..11) and sampling (12..19) bytes */
        };
        for (guint i = 0; i < G_N_ELEMENTS(a); i++) {
            g_array_append_val(adversaries, a[i]);
            ChunkLocation lie = { .container = (k / PER_CONTAINER + i) % (CONTAINERS + 2) };
            fp_table_put(forged, &a[i], &lie);
        }
    }
    char *path = g_build_filename(idx_dir, "samples", NULL);
    SamplesStamp st = { SAMPLING_UNIFORM, 8, 20, CONTAINERS };
    GError *err = NULL;
    CU_ASSERT_TRUE(samples_file_save(path, &st, forged, &err));
    FpIndex *idx = open_sampled(pool, idx_dir, 2);
    ChunkLocation loc;
    gboolean found;
    for (guint i = 0; i < adversaries->len; i++) {
        const Fingerprint *a = &g_array_index(adversaries, Fingerprint, i);
        CU_ASSERT_TRUE(fp_index_lookup(idx, a, &loc, &found, &err));
        CU_ASSERT_FALSE(found);
        /* the stored chunk it imitates: found or missed, never wrong */
        Fingerprint real = fp_of(i / 4);
        CU_ASSERT_TRUE(fp_index_lookup(idx, &real, &loc, &found, &err));
        if (found)
            check_answer(pool, &real, &loc);
    }
    FpIndexStats s;
    fp_index_stats(idx, &s);
    CU_ASSERT_TRUE(s.prefetches > 0); /* the forged samples were followed, and refuted */
    CU_ASSERT_EQUAL(s.db_reads, 0);
    fp_index_close(idx);
    fp_table_free(forged);
    g_array_unref(adversaries);
    g_free(path);
    container_store_close(pool);
    g_free(idx_dir);
}

/* An honest sample table (rebuilt from the containers): every stored chunk
 * of a container whose sample is met first is found, with its location. */
static void test_samples_find_containers(void)
{
    char *idx_dir = g_build_filename(tmpdir, "honest", "index", NULL);
    ContainerStore *pool = make_store(idx_dir);
    FpIndex *idx = open_sampled(pool, idx_dir, 2);
    GError *err = NULL;
    ChunkLocation loc;
    gboolean found;
    guint hits = 0;
    for (uint32_t k = 0; k < CONTAINERS * PER_CONTAINER; k++) {
        Fingerprint fp = fp_of(k);
        CU_ASSERT_TRUE(fp_index_lookup(idx, &fp, &loc, &found, &err));
        if (found) {
            check_answer(pool, &fp, &loc);
            CU_ASSERT_EQUAL(loc.container, k / PER_CONTAINER);
            hits++;
        }
    }
    /* uniform 8 samples a container's first chunk: in container order each
     * container is prefetched at its first chunk and all its chunks hit */
    CU_ASSERT_EQUAL(hits, CONTAINERS * PER_CONTAINER);
    FpIndexStats s;
    fp_index_stats(idx, &s);
    CU_ASSERT_EQUAL(s.prefetches, CONTAINERS);
    CU_ASSERT_TRUE(s.ram_bytes >= s.table_bytes + s.cache_bytes && s.cache_bytes > 0);
    fp_index_close(idx);
    container_store_close(pool);
    g_free(idx_dir);
}

/* A stored chunk the sampled index cannot find is stored again: counted as
 * missed, and the DB keeps the newest copy. */
static void test_missed_duplicate_counted(void)
{
    char *idx_dir = g_build_filename(tmpdir, "missed", "index", NULL);
    ContainerStore *pool = make_store(idx_dir);
    FpIndex *idx = open_sampled(pool, idx_dir, 2);
    GError *err = NULL;
    Fingerprint fp = fp_of(3); /* not a sample (uniform 8 takes 0, 8, ...) */
    ChunkLocation loc;
    gboolean found;
    CU_ASSERT_TRUE(fp_index_lookup(idx, &fp, &loc, &found, &err));
    CU_ASSERT_FALSE(found);
    uint8_t *buf = g_malloc(CSIZE), data[CHUNK];
    memset(data, 3, sizeof data);
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, CONTAINERS);
    loc = (ChunkLocation){ CONTAINERS, container_builder_add(&b, &fp, data, sizeof data), sizeof data };
    fp_index_add(idx, &fp, &loc);
    container_builder_seal(&b, FP_SHA1);
    CU_ASSERT_TRUE(container_store_write(pool, CONTAINERS, buf, &err) && container_store_sync(pool, &err));
    CU_ASSERT_TRUE(fp_index_persist_container(idx, buf, CSIZE, &err));
    CU_ASSERT_TRUE(fp_index_commit_job(idx, &err));
    FpIndexStats s;
    fp_index_stats(idx, &s);
    CU_ASSERT_EQUAL(s.missed_duplicates, 1);
    fp_index_close(idx);
    gboolean exists;
    GArray *all = fp_index_read_all(idx_dir, 20, &exists, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    guint copies = 0;
    for (guint i = 0; i < all->len; i++) {
        const FpIndexEntry *e = &g_array_index(all, FpIndexEntry, i);
        if (memcmp(e->fp.bytes, fp.bytes, 20) == 0) {
            copies++;
            CU_ASSERT_EQUAL(e->loc.container, CONTAINERS); /* the newest copy */
        }
    }
    CU_ASSERT_EQUAL(copies, 1);
    g_array_unref(all);
    g_free(buf);
    container_store_close(pool);
    g_free(idx_dir);
}

/* The silo design with a forged segment table: every feature of a segment
 * (fingerprints one byte off stored ones, announced as the coming segment)
 * names a segment whose containers do not hold them. Never found; the
 * stored chunks they imitate are found with their true location or missed. */
static void test_silo_forged_segments(void)
{
    char *idx_dir = g_build_filename(tmpdir, "silo", "index", NULL);
    ContainerStore *pool = make_store(idx_dir);
    GPtrArray *segments = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    FpTable *features = fp_table_new();
    GArray *adversaries = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    for (ContainerId c = 0; c < CONTAINERS; c++) {
        GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
        ContainerId wrong[] = { (c + 1) % CONTAINERS, CONTAINERS + 5 }; /* another, and one that does not exist */
        g_array_append_vals(ids, wrong, 2);
        g_ptr_array_add(segments, ids);
    }
    for (uint32_t k = 0; k < CONTAINERS * PER_CONTAINER; k++) {
        Fingerprint a[] = { flipped(fp_of(k), 19), flipped(fp_of(k), 0), flipped(fp_of(k), 2) };
        for (guint i = 0; i < G_N_ELEMENTS(a); i++) {
            ChunkLocation seg = { .container = k / PER_CONTAINER };
            fp_table_put(features, &a[i], &seg);
            g_array_append_val(adversaries, a[i]);
        }
    }
    char *path = g_build_filename(idx_dir, "segments", NULL);
    SamplesStamp st = { SAMPLING_UNIFORM, 8, 20, CONTAINERS };
    GError *err = NULL;
    CU_ASSERT_TRUE(segments_file_save(path, &st, segments, features, &err));
    FpIndex *idx = open_design(pool, idx_dir, 2, FP_INDEX_SILO);
    CU_ASSERT_TRUE(fp_index_takes_segments(idx));
    ChunkLocation loc;
    gboolean found;
    for (guint i = 0; i < adversaries->len; i += 3 * PER_CONTAINER) {
        guint n = MIN(3 * PER_CONTAINER, adversaries->len - i);
        const Fingerprint *seg = &g_array_index(adversaries, Fingerprint, i);
        CU_ASSERT_TRUE(fp_index_segment(idx, seg, n, &err));
        for (guint k = 0; k < n; k++) {
            CU_ASSERT_TRUE(fp_index_lookup(idx, &seg[k], &loc, &found, &err));
            CU_ASSERT_FALSE(found);
            Fingerprint real = fp_of((i + k) / 3);
            CU_ASSERT_TRUE(fp_index_lookup(idx, &real, &loc, &found, &err));
            if (found)
                check_answer(pool, &real, &loc);
        }
    }
    FpIndexStats s;
    fp_index_stats(idx, &s);
    CU_ASSERT_TRUE(s.prefetches > 0); /* the forged segments were followed, and refuted */
    fp_index_close(idx);
    g_ptr_array_unref(segments);
    fp_table_free(features);
    g_array_unref(adversaries);
    g_free(path);
    container_store_close(pool);
    g_free(idx_dir);
}

/* Without a segment table the silo design starts from the containers, one
 * segment each: a segment announced with a container's chunks finds them. */
static void test_silo_cold_start(void)
{
    char *idx_dir = g_build_filename(tmpdir, "cold", "index", NULL);
    ContainerStore *pool = make_store(idx_dir);
    FpIndex *idx = open_design(pool, idx_dir, 2, FP_INDEX_SILO);
    GError *err = NULL;
    Fingerprint fps[PER_CONTAINER];
    for (ContainerId c = 0; c < CONTAINERS; c++) {
        for (guint i = 0; i < PER_CONTAINER; i++)
            fps[i] = fp_of(c * PER_CONTAINER + i);
        CU_ASSERT_TRUE(fp_index_segment(idx, fps, PER_CONTAINER, &err));
        for (guint i = 0; i < PER_CONTAINER; i++) {
            ChunkLocation loc;
            gboolean found;
            CU_ASSERT_TRUE(fp_index_lookup(idx, &fps[i], &loc, &found, &err) && found);
            if (found) {
                CU_ASSERT_EQUAL(loc.container, c);
                check_answer(pool, &fps[i], &loc);
            }
        }
    }
    fp_index_close(idx);
    container_store_close(pool);
    g_free(idx_dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("fp_sampled", make_tmp, remove_tmp);
    CU_add_test(s, "the fingerprint table against a model", test_table_matches_model);
    CU_add_test(s, "Destor's sampling methods", test_sampling_methods);
    CU_add_test(s, "adversarial fingerprints and a forged sample table", test_adversarial_lookups);
    CU_add_test(s, "honest samples find their containers", test_samples_find_containers);
    CU_add_test(s, "a missed duplicate is counted, the DB keeps the newest", test_missed_duplicate_counted);
    CU_add_test(s, "silo: a forged segment table", test_silo_forged_segments);
    CU_add_test(s, "silo: a cold start from the containers", test_silo_cold_start);
}

UNIT_MAIN(add_suites)
