/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_cache.c: the chunk cache core (ssd-cache-granularity chunk)
 * by hand and over random operation sequences: dedup in the cache (a chunk
 * shared by two files is cached and written once), the capacity in bytes
 * is never exceeded whatever the policy, byte and request hit ratios, the
 * miss path's HDD reads (chunk range or whole container once per
 * request), container fetch's offers, chunk plc's three refusals, chunk sigpop's test, the configuration's granularity checks, and the chunk policy
 * registry. */
#include "cache/config/cache_config.h"
#include "cache/chunk/chunk_cache.h"
#include "cache/layouts/log/chunk_log_format.h"
#include "unit.h"
#include "util/error.h"

#include <string.h>

static ChunkRef ref_of(uint32_t chunk, uint32_t length, ContainerId container)
{
    ChunkRef r;
    memset(&r, 0, sizeof r);
    memcpy(r.fp.bytes, &chunk, sizeof chunk);
    r.fp.bytes[31] = 0x5a; /* a fingerprint that is not all zeros past the id */
    r.length = length;
    r.container = container;
    r.offset = 4096;
    return r;
}

/* Simulation; the policy austere with ssd-cache-layout buckets (NULL
 * when the capacity holds no bucket). */
static ChunkCache *open_cache_or_null(const char *policy, uint64_t capacity, ChunkFetch fetch)
{
    ChunkCacheOptions o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup(policy, &o.policy));
    o.capacity_bytes = capacity;
    o.avg_chunk_size = 8192;
    o.container_size = 1 << 20;
    o.fetch = fetch;
    o.mode = CACHE_MODE_SIMULATE;
    device_model_params_default(&o.device);
    o.ssd_tbw_bytes = 1;
    o.layout = strcmp(policy, CHUNK_POLICY_AUSTERE) == 0 ? CHUNK_LAYOUT_BUCKETS : CHUNK_LAYOUT_LOG;
    GError *err = NULL;
    ChunkCache *c = chunk_cache_open(&o, &err);
    if (c == NULL) {
        CU_ASSERT_TRUE(o.layout == CHUNK_LAYOUT_BUCKETS && g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
        g_clear_error(&err);
    }
    return c;
}

static ChunkCache *open_cache(const char *policy, uint64_t capacity, ChunkFetch fetch)
{
    ChunkCache *c = open_cache_or_null(policy, capacity, fetch);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static void touch(ChunkCache *c, uint32_t chunk, uint32_t length, ContainerId container, uint64_t address)
{
    ChunkRef r = ref_of(chunk, length, container);
    ChunkCachePosition p = { address, 0, length };
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_cache_touch(c, &r, &p, &err));
}

/* One chunk in two files: lru caches and writes it once; the second file's
 * access is a hit. */
static void test_dedup_in_cache(void)
{
    ChunkCache *c = open_cache("lru", 1 << 20, CHUNK_FETCH_CHUNK);
    chunk_cache_request_begin(c, 0);
    touch(c, 1, 8000, 0, chunk_address(1, 0));
    chunk_cache_request_end(c);
    chunk_cache_request_begin(c, 0);
    touch(c, 1, 8000, 0, chunk_address(2, 0));
    chunk_cache_request_end(c);
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.hits, 1);
    CU_ASSERT_EQUAL(r.c.misses, 1);
    CU_ASSERT_EQUAL(r.c.admitted_bytes, 8000);
    /* the log's model: the chunk waits in the open segment; only
     * chunklog.meta (2 segments of 4 MiB) reached the SSD */
    CU_ASSERT_EQUAL(r.c.ssd_bytes_written, chunk_log_meta_size(2, 0));
    CU_ASSERT_EQUAL(r.layout_report.counters.segments.segments_written, 0);
    CU_ASSERT_EQUAL(r.cached_chunks, 1);
    CU_ASSERT_EQUAL(r.c.requests_hit, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.request_hit_ratio, 0.5, 1e-12);
    CU_ASSERT(r.bytes_per_cached_chunk > sizeof(Fingerprint));
    chunk_cache_close(c, NULL);
}

/* d-lru: the second file's address is not in the metadata cache, so its
 * access misses (read from the HDD) but writes nothing; its next access
 * hits. */
static void test_dlru_metadata_miss(void)
{
    ChunkCache *c = open_cache("d-lru", 1 << 20, CHUNK_FETCH_CHUNK);
    touch(c, 1, 8000, 0, chunk_address(1, 0));
    touch(c, 1, 8000, 0, chunk_address(2, 0));
    touch(c, 1, 8000, 0, chunk_address(2, 0));
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.misses, 2);
    CU_ASSERT_EQUAL(r.c.misses_cached, 1);
    CU_ASSERT_EQUAL(r.c.hits, 1);
    CU_ASSERT_EQUAL(r.c.admissions, 1);
    CU_ASSERT_EQUAL(r.c.hdd_reads, 2);
    CU_ASSERT_EQUAL(r.c.admitted_bytes, 8000);
    chunk_cache_close(c, NULL);
}

/* Miss path: chunk fetch reads each missed chunk's range; container fetch
 * reads a container once per request however many of its chunks miss. */
static void test_miss_path(void)
{
    for (int f = 0; f < 2; f++) {
        ChunkCache *c = open_cache("lru", 1 << 20, f ? CHUNK_FETCH_CONTAINER : CHUNK_FETCH_CHUNK);
        chunk_cache_request_begin(c, 0);
        touch(c, 1, 5000, 7, chunk_address(1, 0));
        touch(c, 2, 6000, 7, chunk_address(1, 1));
        touch(c, 3, 7000, 8, chunk_address(1, 2));
        chunk_cache_request_end(c);
        ChunkCacheReport r;
        chunk_cache_report(c, &r);
        CU_ASSERT_EQUAL(r.c.hdd_reads, f ? 2 : 3);
        CU_ASSERT_EQUAL(r.c.hdd_bytes_read, f ? 2u << 20 : 18000);
        CU_ASSERT(r.c.model_request_s > 0);
        chunk_cache_close(c, NULL);
    }
}

/* A byte range of a chunk counts only its bytes in the byte hit ratio. */
static void test_byte_hit_ratio(void)
{
    ChunkCache *c = open_cache("lru", 1 << 20, CHUNK_FETCH_CHUNK);
    ChunkRef r = ref_of(9, 10000, 0);
    ChunkCachePosition whole = { 1, 0, 10000 }, part = { 1, 2000, 2500 };
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_cache_touch(c, &r, &whole, &err));
    CU_ASSERT_TRUE(chunk_cache_touch(c, &r, &part, &err));
    ChunkCacheReport rep;
    chunk_cache_report(c, &rep);
    CU_ASSERT_EQUAL(rep.c.bytes_requested, 12500);
    CU_ASSERT_EQUAL(rep.c.bytes_hit, 2500);
    chunk_cache_close(c, NULL);
}

/* Random sequences under every chunk policy: the bytes cached never exceed
 * the capacity, every admission's chunk is then cached, a chunk longer
 * than the cache is refused, and the counts add up. */
static uint64_t used_after_admit;
static gboolean over_capacity;
static uint64_t capacity_now;
static ChunkCache *observed;

static void watch(const ChunkEvent *ev, void *user)
{
    (void)user;
    if (ev->kind == CHUNK_EVENT_ADMIT) {
        used_after_admit = chunk_cache_used_bytes(observed);
        over_capacity |= used_after_admit > capacity_now;
    }
}

static void test_random_sequences(void)
{
    for (size_t p = 0; p < chunk_policy_count(); p++) {
        for (uint64_t cap = 3000; cap < (4u << 20); cap *= 7) {
            ChunkCache *c = open_cache_or_null(chunk_policy_at(p)->name, cap, CHUNK_FETCH_CHUNK);
            if (c == NULL) /* austere: smaller than one bucket */
                continue;
            observed = c;
            capacity_now = cap;
            over_capacity = FALSE;
            chunk_cache_set_observer(c, watch, NULL);
            GRand *rng = g_rand_new_with_seed((guint32)(p * 131 + cap));
            for (int i = 0; i < 20000; i++) {
                if (i % 7 == 0)
                    chunk_cache_request_begin(c, 0);
                uint32_t chunk = (uint32_t)g_rand_int_range(rng, 0, 400);
                uint32_t length = 500 + (chunk * 7919u) % 20000; /* a chunk's length is fixed */
                uint64_t file = (uint64_t)g_rand_int_range(rng, 0, 60);
                ChunkRef r = ref_of(chunk, length, chunk / 10);
                uint32_t off = (uint32_t)g_rand_int_range(rng, 0, (gint32)length);
                ChunkCachePosition pos = { chunk_address(file, chunk % 13), off,
                                           (uint32_t)g_rand_int_range(rng, 0, (gint32)(length - off)) + 1 };
                GError *err = NULL;
                CU_ASSERT_TRUE(chunk_cache_touch(c, &r, &pos, &err));
                CU_ASSERT(chunk_cache_used_bytes(c) <= cap);
                if (length > cap)
                    CU_ASSERT_FALSE(chunk_cache_contains(c, &r.fp));
                if (i % 7 == 6)
                    chunk_cache_request_end(c);
            }
            CU_ASSERT_FALSE(over_capacity);
            ChunkCacheReport rep;
            chunk_cache_report(c, &rep);
            CU_ASSERT_EQUAL(rep.c.hits + rep.c.misses, 20000);
            CU_ASSERT_EQUAL(rep.c.admissions + rep.c.refused + rep.c.misses_cached, rep.c.misses);
            if (strcmp(rep.layout, "log") == 0) { /* what the log's model wrote: whole segments and the meta */
                CU_ASSERT_EQUAL(rep.c.ssd_bytes_written, rep.layout_report.counters.device_bytes_written);
                CU_ASSERT_EQUAL(rep.c.ssd_bytes_written,
                                chunk_log_meta_size((uint32_t)(rep.layout_report.capacity_bytes / CHUNK_LOG_DEFAULT_SEGMENT), 0) +
                                    rep.layout_report.counters.segments.segments_written * CHUNK_LOG_DEFAULT_SEGMENT);
                CU_ASSERT(rep.layout_report.counters.segments.user_bytes_written <= rep.c.admitted_bytes);
                CU_ASSERT_EQUAL(rep.c.log_dropped, rep.layout_report.counters.chunks_dropped_by_layout);
            } else {
                CU_ASSERT_EQUAL(rep.c.ssd_bytes_written, rep.c.admitted_bytes);
            }
            CU_ASSERT(rep.c.hdd_reads == rep.c.misses);
            CU_ASSERT(rep.cached_bytes <= cap);
            g_rand_free(rng);
            chunk_cache_close(c, NULL);
        }
    }
}

/* A policy of the wrong granularity is a configuration error naming both. */
/* Offers (fetch container's other chunks): a chunk cached already changes
 * nothing, a new one is an admission that costs SSD bytes and is then a
 * hit; tinylfu refuses one it never saw accessed once the cache is full;
 * offers of 0 bytes are usage errors. */
static void test_offers(void)
{
    ChunkCache *c = open_cache("lru", 20000, CHUNK_FETCH_CONTAINER);
    GError *err = NULL;
    ChunkRef a = ref_of(1, 8000, 0), b = ref_of(2, 8000, 0), z = ref_of(3, 0, 0);
    touch(c, 1, 8000, 0, chunk_address(1, 0));
    CU_ASSERT_TRUE(chunk_cache_offer(c, &a, &err));
    CU_ASSERT_TRUE(chunk_cache_offer(c, &b, &err));
    CU_ASSERT_FALSE(chunk_cache_offer(c, &z, &err));
    g_clear_error(&err);
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.offered, 2);
    CU_ASSERT_EQUAL(r.c.offers_cached, 1);
    CU_ASSERT_EQUAL(r.c.offers_admitted, 1);
    CU_ASSERT_EQUAL(r.c.admissions, 2);
    CU_ASSERT_EQUAL(r.c.admitted_bytes, 16000);
    CU_ASSERT_EQUAL(r.c.accesses, 1); /* an offer is no access */
    touch(c, 2, 8000, 0, chunk_address(2, 0));
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.hits, 1);
    chunk_cache_close(c, NULL);

    c = open_cache("tinylfu", 16000, CHUNK_FETCH_CONTAINER);
    for (int i = 0; i < 3; i++)
        touch(c, 1, 8000, 0, chunk_address(1, 0));
    touch(c, 2, 8000, 0, chunk_address(2, 0));
    ChunkRef n = ref_of(9, 8000, 0);
    CU_ASSERT_TRUE(chunk_cache_offer(c, &n, &err));
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.offers_refused, 1);
    CU_ASSERT_FALSE(chunk_cache_contains(c, &n.fp));
    chunk_cache_close(c, NULL);
}

/* tinylfu on the log under reinsert (64 KiB segments, 4 of them): the
 * log reclaims while the bytes it holds are still below the policy's
 * capacity, so the cache is full from its first reclamation on and a miss
 * seen once is refused (it does not beat the least recently used chunk);
 * before, tinylfu counted its own bytes only and admitted every miss. */
/* Simulation on a reinsert log of four 64 KiB segments (a chunk of 6000
 * bytes: ten a segment, five within reinsert's bound). */
static ChunkCache *open_reinsert(const char *policy, ChunkCacheOptions *o)
{
    memset(o, 0, sizeof *o);
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup(policy, &o->policy));
    o->capacity_bytes = 4 * 65536;
    o->avg_chunk_size = 512; /* a sketch wide enough that these chunks do not collide */
    o->container_size = 1 << 20;
    o->fetch = CHUNK_FETCH_CHUNK;
    o->mode = CACHE_MODE_SIMULATE;
    device_model_params_default(&o->device);
    o->ssd_tbw_bytes = 1;
    o->layout = CHUNK_LAYOUT_LOG;
    o->segment_size = 65536;
    o->reclaim = CHUNK_LOG_REINSERT;
    GError *err = NULL;
    ChunkCache *c = chunk_cache_open(o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static void test_tinylfu_reinsert_full(void)
{
    ChunkCacheOptions o;
    ChunkCache *c = open_reinsert("tinylfu", &o);
    ChunkCacheReport r;
    for (uint32_t i = 1; i <= 41; i++) /* 10 a segment: the 41st reclaims the first segment */
        touch(c, i, 6000, 0, chunk_address(i, 0));
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.admissions, 41);
    CU_ASSERT_EQUAL(r.c.refused, 0);
    CU_ASSERT_TRUE(r.layout_report.counters.segments.segments_reinserted == 1);
    CU_ASSERT_TRUE(chunk_cache_used_bytes(c) + 6000 <= o.capacity_bytes); /* the policy's own bytes have room */
    touch(c, 100, 6000, 0, chunk_address(100, 0));
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.refused, 1);
    ChunkRef n = ref_of(100, 6000, 0);
    CU_ASSERT_FALSE(chunk_cache_contains(c, &n.fp));
    chunk_cache_close(c, NULL);
}

/* arc under reinsert: chunks 1-10 fill the first segment and are hit, so
 * all ten are in T2 and, with T1 above its target p (0), ARC's REPLACE
 * would take from T1: all ten are to be kept; the bound keeps 1-5 and
 * leaves 6-10 out. Those are ARC replacements, so ghosts (B2): chunk 6,
 * read again once the open segment moved on, comes back into T2, and the
 * next reclamation of its segment keeps it. Before, the bound's chunks
 * were forgotten: 6 came back into T1 and was dropped. */
static void test_arc_reinsert_cut_ghost(void)
{
    ChunkCacheOptions o;
    ChunkCache *c = open_reinsert("arc", &o);
    ChunkCacheReport r;
    for (uint32_t i = 1; i <= 40; i++)
        touch(c, i, 6000, 0, chunk_address(i, 0));
    for (uint32_t i = 1; i <= 10; i++)
        touch(c, i, 6000, 0, chunk_address(i, 0)); /* hits */
    touch(c, 41, 6000, 0, chunk_address(41, 0));  /* reclaims the first segment */
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL_FATAL(r.layout_report.counters.segments.chunks_reinserted, 5);
    CU_ASSERT_EQUAL_FATAL(r.layout_report.counters.segments.chunks_reinsert_cut, 5);
    ChunkRef six = ref_of(6, 6000, 0);
    CU_ASSERT_FALSE_FATAL(chunk_cache_contains(c, &six.fp));
    uint32_t i = 100;
    for (; r.layout_report.counters.segments.segments_reinserted < 2; i++) { /* to the second segment */
        touch(c, i, 6000, 0, chunk_address(i, 0));
        chunk_cache_report(c, &r);
    }
    touch(c, 6, 6000, 0, chunk_address(6, 0)); /* a miss: admitted again, in the second segment */
    CU_ASSERT_TRUE_FATAL(chunk_cache_contains(c, &six.fp));
    for (; i < 300 && r.layout_report.counters.segments.segments_reinserted < 6; i++) {
        touch(c, i, 6000, 0, chunk_address(i, 0));
        chunk_cache_report(c, &r);
    }
    CU_ASSERT_EQUAL(r.layout_report.counters.segments.segments_reinserted, 6); /* chunk 6's segment came round */
    CU_ASSERT_TRUE(chunk_cache_contains(c, &six.fp));
    chunk_cache_close(c, NULL);
}

/* lru on a reinsert log: chunks 1-40 fill four segments, 1-3 are hit,
 * and 41 makes the log reclaim the first segment, keeping 1-3 (hit since
 * written); r is the report then. */
static ChunkCache *lru_keeps_three(ChunkCacheReport *r)
{
    ChunkCacheOptions o;
    ChunkCache *c = open_reinsert("lru", &o);
    for (uint32_t i = 1; i <= 40; i++)
        touch(c, i, 6000, 0, chunk_address(i, 0));
    for (uint32_t i = 1; i <= 3; i++)
        touch(c, i, 6000, 0, chunk_address(i, 0));
    touch(c, 41, 6000, 0, chunk_address(41, 0)); /* reclaims the first segment */
    chunk_cache_report(c, r);
    CU_ASSERT_EQUAL_FATAL(r->layout_report.counters.segments.chunks_reinserted, 3);
    return c;
}

/* kept_hit counts the chunks reinsert kept that are hit before the log
 * reclaims them again: lru keeps 1-3 (hit since written), then 1 is hit
 * twice and 2 once (two kept chunks hit), 3 not. */
static void test_kept_hit(void)
{
    ChunkCacheReport r;
    ChunkCache *c = lru_keeps_three(&r);
    CU_ASSERT_EQUAL(r.c.kept_hit, 0);
    touch(c, 1, 6000, 0, chunk_address(1, 0));
    touch(c, 1, 6000, 0, chunk_address(1, 0));
    touch(c, 2, 6000, 0, chunk_address(2, 0));
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.c.hits, 6);
    CU_ASSERT_EQUAL(r.c.kept_hit, 2);
    chunk_cache_close(c, NULL);
}

/* lru keeps a chunk hit since it was last written, and the rewrite is a
 * write: chunks 1-3, hit before the first reclamation, are kept; after
 * that only 2 is hit, so when the log comes round to their new segment
 * only 2 is kept again (a rule counting hits before the rewrite would keep
 * 1 and 3 too: CacheLib's hits-based reinsertion counts hits since the
 * item was last written). */
static void test_lru_rekeep_needs_new_hit(void)
{
    ChunkCacheReport r;
    ChunkCache *c = lru_keeps_three(&r);
    touch(c, 2, 6000, 0, chunk_address(2, 0));
    for (uint32_t i = 100; i < 300 && r.layout_report.counters.segments.segments_reinserted < 5; i++) {
        touch(c, i, 6000, 0, chunk_address(i, 0));
        chunk_cache_report(c, &r);
    }
    CU_ASSERT_EQUAL_FATAL(r.layout_report.counters.segments.segments_reinserted, 5); /* the first segment again */
    CU_ASSERT_EQUAL(r.layout_report.counters.segments.chunks_reinserted, 4);
    for (uint32_t i = 1; i <= 3; i++) {
        ChunkRef k = ref_of(i, 6000, 0);
        CU_ASSERT_EQUAL(chunk_cache_contains(c, &k.fp), i == 2);
    }
    chunk_cache_close(c, NULL);
}

/* A chunk of 1000 bytes in slot `slot`: admitted and inserted. */
static void admit_into(const ChunkPolicyOps *ops, void *st, ChunkSlot slot, uint64_t chunk)
{
    ChunkAccess x = { .chunk = chunk, .length = 1000, .touch_length = 1000 };
    CU_ASSERT_TRUE(ops->admit(st, &x));
    ops->inserted(st, slot, &x);
}

static void hit(const ChunkPolicyOps *ops, void *st, ChunkSlot slot, uint64_t chunk)
{
    ChunkAccess x = { .chunk = chunk, .length = 1000, .touch_length = 1000 };
    CU_ASSERT_TRUE(ops->lookup(st, slot, &x));
}

/* arc's keep under reinsert is ARC's REPLACE by position (Megiddo &
 * Modha, FAST 2003): a T2 chunk is dropped when REPLACE, repeated until
 * the reclaimed room is freed, would reach it, and a T1 chunk (never hit)
 * is never kept. With |T1| = p (a B1 ghost hit raised p to one chunk)
 * REPLACE takes from T2: freeing 2000 bytes reaches T2's two oldest (B,
 * G), not D, hit last; A, in T1, is not reached but not kept either (the
 * rule before kept it, and N below). Once a miss N puts a second chunk in
 * T1 (|T1| > p) REPLACE takes A, then (T1 back at p) B. Round 3's rule
 * (every chunk its list's LRU candidate) dropped D in the first round. */
static void test_arc_keep_by_position(void)
{
    const ChunkPolicyOps *ops;
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup("arc", &ops));
    ChunkPolicyEnv env = { .capacity_bytes = 100000, .avg_chunk_size = 1000 };
    void *st = ops->create(&env);
    admit_into(ops, st, 0, 1); /* A in T1 */
    admit_into(ops, st, 1, 2);
    hit(ops, st, 1, 2);        /* B to T2 */
    admit_into(ops, st, 2, 3);
    ops->dropped(st, 2);       /* G a B1 ghost */
    admit_into(ops, st, 2, 3); /* p = 1000 = |T1|; G into T2 */
    admit_into(ops, st, 3, 4);
    hit(ops, st, 3, 4);        /* D to T2, most recent */
    ops->reclaiming(st, 2000);
    CU_ASSERT_FALSE(ops->keep(st, 0));
    CU_ASSERT_FALSE(ops->keep(st, 1));
    CU_ASSERT_FALSE(ops->keep(st, 2));
    CU_ASSERT_TRUE(ops->keep(st, 3));
    admit_into(ops, st, 4, 5); /* N: |T1| = 2000 > p */
    ops->reclaiming(st, 2000);
    CU_ASSERT_FALSE(ops->keep(st, 0));
    CU_ASSERT_FALSE(ops->keep(st, 1));
    CU_ASSERT_TRUE(ops->keep(st, 2));
    CU_ASSERT_TRUE(ops->keep(st, 3));
    CU_ASSERT_FALSE(ops->keep(st, 4));
    ops->destroy(st);
}

/* The first step of that REPLACE is the current miss's: after a B2 ghost
 * hit it takes from T1 at |T1| = p (ARC's tie rule), the later steps, and
 * a miss that was no ghost, only at |T1| > p. Two B1 ghost hits raise p
 * to 2000, H's B2 ghost hit lowers it to 1000 = |T1| (A alone). A, in
 * T1, is never kept; which of T2's chunks is shows where REPLACE went. */
static void test_arc_keep_b2_tie(void)
{
    const ChunkPolicyOps *ops;
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup("arc", &ops));
    ChunkPolicyEnv env = { .capacity_bytes = 100000, .avg_chunk_size = 1000 };
    void *st = ops->create(&env);
    admit_into(ops, st, 0, 1); /* A in T1 */
    for (ChunkSlot g = 1; g <= 2; g++) {
        admit_into(ops, st, g, 10 + g);
        ops->dropped(st, g);           /* a B1 ghost */
        admit_into(ops, st, g, 10 + g); /* p += 1000; into T2 */
    }
    admit_into(ops, st, 3, 20);
    hit(ops, st, 3, 20);
    ops->dropped(st, 3);       /* H a B2 ghost */
    ChunkAccess h = { .chunk = 20, .length = 1000, .touch_length = 1000 };
    CU_ASSERT_TRUE(ops->admit(st, &h)); /* p = 1000 = |T1| */
    ops->reclaiming(st, 1000);
    CU_ASSERT_FALSE(ops->keep(st, 0));
    CU_ASSERT_TRUE(ops->keep(st, 1)); /* REPLACE took A */
    ops->inserted(st, 3, &h);
    ChunkAccess m = { .chunk = 30, .length = 1000, .touch_length = 1000 };
    CU_ASSERT_TRUE(ops->admit(st, &m)); /* no ghost */
    ops->reclaiming(st, 1000);
    CU_ASSERT_FALSE(ops->keep(st, 0));
    CU_ASSERT_FALSE(ops->keep(st, 1)); /* REPLACE took T2's oldest */
    CU_ASSERT_TRUE(ops->keep(st, 2));
    ops->destroy(st);
}

/* Chunk plc (threshold 4, delay 2 by default): a chunk is admitted on its
 * fifth access only (Popularity Filter); when full, the clock's victim
 * must be picked twice (Delayed Eviction) and the newcomer must be at
 * least as popular as it (In-Out Comparison). */
static void test_chunk_plc(void)
{
    /* room for two chunks of 80000 bytes; the sketch (sized for 19 chunks)
     * ages only after 190 accesses, far beyond this test */
    ChunkCache *c = open_cache("plc", 160000, CHUNK_FETCH_CHUNK);
    ChunkRef one = ref_of(1, 80000, 0), two = ref_of(2, 80000, 0), three = ref_of(3, 80000, 0);
    for (int k = 0; k < 4; k++) {
        touch(c, 1, 80000, 0, chunk_address(1, 0));
        CU_ASSERT_FALSE(chunk_cache_contains(c, &one.fp));
    }
    touch(c, 1, 80000, 0, chunk_address(1, 0));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &one.fp));
    for (int k = 0; k < 5; k++)
        touch(c, 2, 80000, 0, chunk_address(2, 0));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &two.fp)); /* full now */
    for (int k = 0; k < 5; k++)
        touch(c, 3, 80000, 0, chunk_address(3, 0)); /* the 5th: delay 2 -> 1, refused */
    CU_ASSERT_FALSE(chunk_cache_contains(c, &three.fp));
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.policy_counters.values[0], 4 + 4 + 4); /* filter: accesses 1-4 of each chunk */
    CU_ASSERT_EQUAL(r.policy_counters.values[1], 1);          /* delayed eviction */
    touch(c, 3, 80000, 0, chunk_address(3, 0));        /* delay 0; estimate 6 >= clamp(5, 4, 8): replaces */
    CU_ASSERT_TRUE(chunk_cache_contains(c, &three.fp));
    CU_ASSERT(chunk_cache_used_bytes(c) <= 160000);
    chunk_cache_close(c, NULL);
}

/* Chunk sigpop (z 2, min-count 2): a chunk's first access is cold; when
 * full, a newcomer replaces the least counted chunk only when a - b > 2
 * sqrt(a + b), and the earliest admitted of equally counted chunks leaves. */
static void test_chunk_sigpop(void)
{
    ChunkCache *c = open_cache("sigpop", 160000, CHUNK_FETCH_CHUNK);
    ChunkRef one = ref_of(1, 80000, 0), two = ref_of(2, 80000, 0), three = ref_of(3, 80000, 0);
    touch(c, 1, 80000, 0, chunk_address(1, 0));
    CU_ASSERT_FALSE(chunk_cache_contains(c, &one.fp)); /* cold */
    touch(c, 1, 80000, 0, chunk_address(1, 0));
    touch(c, 2, 80000, 0, chunk_address(2, 0));
    touch(c, 2, 80000, 0, chunk_address(2, 0));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &one.fp));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &two.fp)); /* full, both f = 2 */
    for (int k = 0; k < 7; k++) /* a = 1 cold; a = 2..7 vs b = 2: at most 5 > 2 sqrt(9) = 6 fails */
        touch(c, 3, 80000, 0, chunk_address(3, 0));
    CU_ASSERT_FALSE(chunk_cache_contains(c, &three.fp));
    touch(c, 3, 80000, 0, chunk_address(3, 0)); /* a = 8: 6 > 2 sqrt(10) = 6.32 fails */
    CU_ASSERT_FALSE(chunk_cache_contains(c, &three.fp));
    touch(c, 3, 80000, 0, chunk_address(3, 0)); /* a = 9: 7 > 2 sqrt(11) = 6.63: replaces chunk 1 */
    CU_ASSERT_TRUE(chunk_cache_contains(c, &three.fp));
    CU_ASSERT_FALSE(chunk_cache_contains(c, &one.fp));
    CU_ASSERT_TRUE(chunk_cache_contains(c, &two.fp));
    ChunkCacheReport r;
    chunk_cache_report(c, &r);
    CU_ASSERT_EQUAL(r.policy_counters.values[0], 3); /* cold: the first access of each chunk */
    CU_ASSERT_EQUAL(r.policy_counters.values[1], 7);                 /* not significant: a = 2..8 */
    chunk_cache_close(c, NULL);
}

static void test_granularity_config(void)
{
    CacheConfig cfg;
    GError *err = NULL;
    cache_config_init(&cfg);
    cfg.simulate = TRUE;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-policy", "d-lru", &err), CACHE_CONFIG_OK);
    CU_ASSERT_FALSE(cache_config_validate(&cfg, &err));
    CU_ASSERT(err != NULL && strstr(err->message, "d-lru") && strstr(err->message, "granularity"));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-granularity", "chunk", &err), CACHE_CONFIG_OK);
    CU_ASSERT_TRUE(cache_config_validate(&cfg, &err));
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-policy", "s3fifo", &err), CACHE_CONFIG_OK);
    CU_ASSERT_FALSE(cache_config_validate(&cfg, &err));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-granularity", "block", &err), CACHE_CONFIG_INVALID);
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-chunk-fetch", "container", &err), CACHE_CONFIG_OK);
    CU_ASSERT_EQUAL(cfg.chunk_fetch, CHUNK_FETCH_CONTAINER);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-chunk-fetch", "all", &err), CACHE_CONFIG_INVALID);
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "cdac-arc-alpha", "0.7", &err), CACHE_CONFIG_OK);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "cdac-arc-alpha", "1.7", &err), CACHE_CONFIG_INVALID);
    g_clear_error(&err);
    cache_config_clear(&cfg);
}

/* Every chunk policy is complete and its keys are its own. */
static void test_chunk_registry(void)
{
    CU_ASSERT(chunk_policy_count() >= 6);
    for (size_t i = 0; i < chunk_policy_count(); i++) {
        const ChunkPolicyOps *ops = chunk_policy_at(i);
        CU_ASSERT(ops->name && ops->description && ops->citation);
        CU_ASSERT(ops->create && ops->destroy && ops->lookup && ops->admit && ops->victim && ops->inserted &&
                  ops->removed && ops->memory);
        CU_ASSERT(ops->n_counters <= CACHE_REPORT_MAX_POLICY_COUNTERS);
        for (size_t k = 0; k < ops->n_keys; k++) {
            CachePolicyValue v;
            const CachePolicyOps *owner = (const CachePolicyOps *)1;
            CU_ASSERT(g_str_has_prefix(ops->keys[k].name, ops->name));
            CU_ASSERT_TRUE(cache_policy_key_parse(&ops->keys[k], ops->keys[k].default_value, &v, NULL));
            CU_ASSERT_PTR_EQUAL(cache_policy_find_key(ops->keys[k].name, &owner), &ops->keys[k]);
            CU_ASSERT_PTR_NULL(owner);
        }
    }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_cache", NULL, NULL);
    CU_add_test(s, "dedup in the cache", test_dedup_in_cache);
    CU_add_test(s, "d-lru metadata miss", test_dlru_metadata_miss);
    CU_add_test(s, "miss path", test_miss_path);
    CU_add_test(s, "byte hit ratio", test_byte_hit_ratio);
    CU_add_test(s, "random sequences", test_random_sequences);
    CU_add_test(s, "offers", test_offers);
    CU_add_test(s, "tinylfu under reinsert: full from the first reclamation", test_tinylfu_reinsert_full);
    CU_add_test(s, "lru under reinsert keeps again only a chunk hit since its rewrite", test_lru_rekeep_needs_new_hit);
    CU_add_test(s, "arc under reinsert: chunks past the bound leave ghosts", test_arc_reinsert_cut_ghost);
    CU_add_test(s, "arc under reinsert keeps the T2 chunks ARC's REPLACE would not reach", test_arc_keep_by_position);
    CU_add_test(s, "arc under reinsert: a B2 ghost miss's REPLACE takes T1 at |T1| = p", test_arc_keep_b2_tie);
    CU_add_test(s, "reinsert: kept chunks hit again", test_kept_hit);
    CU_add_test(s, "chunk plc", test_chunk_plc);
    CU_add_test(s, "chunk sigpop", test_chunk_sigpop);
    CU_add_test(s, "granularity config", test_granularity_config);
    CU_add_test(s, "chunk registry", test_chunk_registry);
}

UNIT_MAIN(add_suites)
