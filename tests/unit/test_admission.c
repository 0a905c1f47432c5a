/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_admission.c: the admission axis (src/cache/admission/): the
 * registry, each rule on its own, the promises of the rules that rank by
 * value (compete, learned: never past the budget over random sequences;
 * the budget spent when more is asked than it gives; the more valuable
 * candidates first), and both cores replaying a skewed sequence under
 * them; the write credit's arithmetic, per request and in DWPD of a timed
 * trace, and the two giving the same decisions when their rates are
 * made equal. */
#include "cache/admission/admission.h"
#include "cache/admission/write_credit.h"
#include "cache/chunk/chunk_cache.h"
#include "test_cache_util.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static const AdmissionOps *rule(const char *name)
{
    const AdmissionOps *ops = NULL;
    CU_ASSERT_FATAL(admission_lookup(name, &ops));
    return ops;
}

/* Every rule: a name found by lookup, the ops it needs; the defaults. */
static void test_registry(void)
{
    CU_ASSERT_TRUE(admission_count() >= 4);
    for (size_t i = 0; i < admission_count(); i++) {
        const AdmissionOps *a = admission_at(i), *found = NULL;
        CU_ASSERT_TRUE(admission_lookup(a->name, &found) && found == a);
        CU_ASSERT_PTR_NOT_NULL(a->description);
        CU_ASSERT_PTR_NOT_NULL(a->create);
        CU_ASSERT_PTR_NOT_NULL(a->destroy);
        CU_ASSERT_TRUE(a->admit != NULL || strcmp(a->name, "all") == 0); /* NULL: admit all */
        /* a rule that spends the budget must hear of requests and writes */
        CU_ASSERT_TRUE(!a->spends_budget || (a->request && a->written));
        for (size_t j = 0; j < i; j++)
            CU_ASSERT_STRING_NOT_EQUAL(admission_at(j)->name, a->name);
    }
    const AdmissionOps *none = NULL;
    CU_ASSERT_FALSE(admission_lookup("nosuch", &none));
    CU_ASSERT_PTR_EQUAL(admission_default(FALSE), rule("all"));
    CU_ASSERT_PTR_EQUAL(admission_default(TRUE), rule("compete"));
}

/* doorkeeper: the first access in the window is refused, the second
 * admitted; all admits everything. */
static void test_filters(void)
{
    AdmissionEnv env = { 0, 0, 0, 100, 0 };
    Admission d, all;
    admission_open(&d, rule("doorkeeper"), &env);
    admission_open(&all, rule("all"), &env);
    const uint64_t spread = 0x9E3779B97F4A7C15ull; /* 64-bit keys, as chunk identities */
    for (uint64_t key = 1; key <= 50; key++) {
        admission_access(&d, key * spread);
        CU_ASSERT_FALSE(admission_admit(&d, key * spread, 4096));
        CU_ASSERT_TRUE(admission_admit(&all, key, 4096));
    }
    for (uint64_t key = 1; key <= 50; key++) {
        admission_access(&d, key * spread);
        CU_ASSERT_TRUE(admission_admit(&d, key * spread, 4096));
    }
    CU_ASSERT(admission_memory(&d) > 0);
    admission_close(&d);
    admission_close(&all);
}

/* The controller driven alone: each request a random number of candidates
 * (keys skewed: a few hot, many cold), each accessed then offered; an
 * admitted one writes a random share of its bytes. Returns the bytes
 * written; *hot and *cold count the admissions of each kind. */
typedef struct {
    uint64_t written, budget_bytes;
    uint64_t hot_asked, hot_admitted, cold_asked, cold_admitted;
} Drive;

static Drive drive_timed(const char *name, double budget, double dwpd, double depth, uint32_t requests,
                         uint32_t max_per_request, uint32_t seed, uint64_t max_gap_ns)
{
    AdmissionEnv env = { budget, dwpd, depth, 256, 0 };
    Admission a;
    admission_open(&a, rule(name), &env);
    GRand *g = g_rand_new_with_seed(seed);
    Drive d = { 0 };
    uint64_t now = 0;
    for (uint32_t r = 0; r < requests; r++) {
        if (r > 0 && dwpd > 0) /* gaps of 0 (requests at one time) to max_gap_ns */
            now += (uint64_t)g_rand_double_range(g, 0, (double)max_gap_ns) * (g_rand_int_range(g, 0, 4) > 0);
        admission_request(&a, now);
        double allowed = dwpd > 0 ? write_credit_for_time(dwpd * depth, now) : budget * (r + 1);
        d.budget_bytes = (uint64_t)allowed;
        uint32_t n = (uint32_t)g_rand_int_range(g, 0, (gint32)max_per_request + 1);
        for (uint32_t i = 0; i < n; i++) {
            gboolean hot = g_rand_int_range(g, 0, 2) == 0;
            uint64_t key = hot ? (uint64_t)g_rand_int_range(g, 0, 32) : 1000 + (uint64_t)g_rand_int(g);
            uint64_t bytes = (uint64_t)g_rand_int_range(g, 2048, 16385);
            admission_access(&a, key);
            gboolean yes = admission_admit(&a, key, bytes);
            if (yes) {
                uint64_t w = bytes - (uint64_t)g_rand_int_range(g, 0, 1024);
                admission_written(&a, w);
                d.written += w;
            }
            uint64_t *asked = hot ? &d.hot_asked : &d.cold_asked, *admitted = hot ? &d.hot_admitted : &d.cold_admitted;
            (*asked)++;
            *admitted += (uint64_t)yes;
            /* never past the budget: one cache's worth plus the rate */
            CU_ASSERT_FATAL((double)d.written <= depth + allowed);
        }
    }
    g_rand_free(g);
    admission_close(&a);
    return d;
}

static Drive drive(const char *name, double budget, double depth, uint32_t requests, uint32_t max_per_request,
                   uint32_t seed)
{
    return drive_timed(name, budget, 0, depth, requests, max_per_request, seed, 0);
}

/* compete and learned over random sequences: never past depth + budget x
 * requests; with more asked than the budget gives (here about 8x), at
 * least 95% of it spent; with less asked, everything admitted. The
 * first-come bucket holds the same bound. */
static void test_controller_bounds(void)
{
    const double depth = 64.0 * 4096, budget = 4096;
    const char *ranked[] = { "compete", "learned" };
    for (uint32_t seed = 1; seed <= 8; seed++) {
        for (size_t k = 0; k < G_N_ELEMENTS(ranked); k++) {
            Drive d = drive(ranked[k], budget, depth, 20000, 8, seed);
            CU_ASSERT(d.written >= 0.95 * (double)d.budget_bytes);
            /* demand far below the budget: nothing refused */
            Drive low = drive(ranked[k], 64.0 * budget, depth, 2000, 2, seed);
            CU_ASSERT_EQUAL(low.hot_admitted + low.cold_admitted, low.hot_asked + low.cold_asked);
        }
        Drive b = drive("bucket", budget, depth, 20000, 8, seed);
        CU_ASSERT(b.written >= 0.95 * (double)b.budget_bytes);
    }
}

/* The same in DWPD over random gaps (a quarter of them 0: requests at
 * one time): never past depth + DWPD x depth x days, and spent to 95%
 * when more is asked; 90 DWPD of the 256 KiB depth and gaps of up to 40 s
 * (15 s on average) give about 4 KiB a request, against about 36 KiB
 * asked. */
static void test_controller_bounds_dwpd(void)
{
    const double depth = 64.0 * 4096;
    const char *spenders[] = { "bucket", "compete", "learned" };
    for (uint32_t seed = 1; seed <= 4; seed++)
        for (size_t k = 0; k < G_N_ELEMENTS(spenders); k++) {
            Drive d = drive_timed(spenders[k], 0, 90, depth, 20000, 8, seed, 40000000000ull);
            CU_ASSERT(d.budget_bytes > 3000 * 20000ull);
            CU_ASSERT(d.written >= 0.95 * (double)d.budget_bytes);
        }
}

/* The credit's arithmetic by hand. Per request: full at open, + the
 * budget a request, capped at the depth. DWPD: the first request brings
 * nothing, each later one DWPD x depth x its gap / 86400 s; the rate is
 * the mean a request after the first brought (0 before the second). */
static void test_credit_arithmetic(void)
{
    AdmissionEnv per = { 300, 0, 1000, 1, 0 }, dwpd = { 0, 2, 1000, 1, 0 };
    WriteCredit w;
    write_credit_init(&w, &per);
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 1000, 0);
    write_credit_request(&w, 99); /* the time is ignored */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 1000, 0);
    write_credit_pay(&w, 800);
    write_credit_request(&w, 0);
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 500, 0);
    CU_ASSERT_DOUBLE_EQUAL(write_credit_fill_next(&w), 0.8, 1e-12);
    CU_ASSERT_TRUE(write_credit_covers(&w, 500));
    CU_ASSERT_FALSE(write_credit_covers(&w, 501));

    const uint64_t hour = 3600000000000ull;
    write_credit_init(&w, &dwpd);
    CU_ASSERT_DOUBLE_EQUAL(w.rate, 0, 0);
    write_credit_request(&w, 5 * hour); /* the first: no gap, nothing */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 1000, 0);
    CU_ASSERT_DOUBLE_EQUAL(write_credit_fill_next(&w), 1, 0);
    write_credit_pay(&w, 900);
    CU_ASSERT_DOUBLE_EQUAL(write_credit_fill_next(&w), 0.1, 1e-12); /* no rate known yet */
    write_credit_request(&w, 11 * hour); /* 6 h: 2 x 1000 x 1/4 */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(w.rate, 500, 1e-9);
    write_credit_request(&w, 11 * hour); /* no gap: nothing; the mean halves */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 600, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(w.rate, 250, 1e-9);
    write_credit_request(&w, 35 * hour); /* a day: 2000, capped at the depth */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, 1000, 0);
    CU_ASSERT_DOUBLE_EQUAL(w.rate, 2500.0 / 3, 1e-9);
    write_credit_charge(&w, 1500); /* a rewrite's debt */
    write_credit_request(&w, 35 * hour + hour / 2); /* 2 x 1000 / 48 */
    CU_ASSERT_DOUBLE_EQUAL(w.credit, -500 + 2000.0 / 48, 1e-9);
    /* exact where the test below needs it: 84.375 DWPD of 64 MiB a second
     * is 64 KiB, to the bit */
    CU_ASSERT(write_credit_for_time(84.375 * 67108864.0, 1000000000u) == 65536.0);
    CU_ASSERT(write_credit_for_time(1350.0 * 262144.0, 1000000000u) == 4096.0);

    /* the Admission's own tally, the report's write_budget_bytes */
    Admission a;
    admission_open(&a, rule("bucket"), &dwpd);
    admission_request(&a, 2 * hour);
    admission_request(&a, 14 * hour);
    CU_ASSERT_DOUBLE_EQUAL(admission_budget_bytes(&a), 1000, 1e-9);
    admission_close(&a);
    admission_open(&a, rule("bucket"), &per);
    admission_request(&a, 0);
    admission_request(&a, 0);
    CU_ASSERT_DOUBLE_EQUAL(admission_budget_bytes(&a), 600, 0);
    admission_close(&a);
}

/* A per-request budget of 4096 bytes and 1350 DWPD of a 256 KiB depth
 * over requests a second apart give each request the same credit, and
 * every rule that spends a budget the same decisions, candidate by
 * candidate. The first request has one candidate: before the second, the
 * DWPD rate is not known (taken as 0) where the per-request bucket's next
 * credit is, so a second candidate of the first request could be ranked
 * against another fill. */
static void test_dwpd_equals_per_request(void)
{
    const double depth = 64.0 * 4096;
    const char *spenders[] = { "bucket", "compete", "learned" };
    for (size_t k = 0; k < G_N_ELEMENTS(spenders); k++) {
        AdmissionEnv per = { 4096, 0, depth, 256, 0 }, dwpd = { 0, 1350, depth, 256, 0 };
        Admission a, b;
        admission_open(&a, rule(spenders[k]), &per);
        admission_open(&b, rule(spenders[k]), &dwpd);
        GRand *g = g_rand_new_with_seed(5);
        uint64_t admitted = 0, refused = 0, differ = 0;
        for (uint32_t r = 0; r < 20000; r++) {
            admission_request(&a, 0);
            admission_request(&b, (uint64_t)r * 1000000000u);
            uint32_t n = r == 0 ? 1 : (uint32_t)g_rand_int_range(g, 0, 9);
            for (uint32_t i = 0; i < n; i++) {
                uint64_t key = g_rand_int_range(g, 0, 2) ? (uint64_t)g_rand_int_range(g, 0, 32)
                                                          : 1000 + (uint64_t)g_rand_int(g);
                uint64_t bytes = (uint64_t)g_rand_int_range(g, 2048, 16385);
                admission_access(&a, key);
                admission_access(&b, key);
                gboolean x = admission_admit(&a, key, bytes), y = admission_admit(&b, key, bytes);
                differ += x != y;
                if (x) {
                    admission_written(&a, bytes);
                    admitted++;
                } else
                    refused++;
                if (y)
                    admission_written(&b, bytes);
            }
        }
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT(admitted > 1000 && refused > 1000); /* the budget decided some of them */
        CU_ASSERT_DOUBLE_EQUAL(admission_budget_bytes(&a), 4096.0 * 20000, 0);
        CU_ASSERT_DOUBLE_EQUAL(admission_budget_bytes(&b), 4096.0 * 19999, 0);
        g_rand_free(g);
        admission_close(&a);
        admission_close(&b);
    }
}

/* compete and learned give the credit to the candidates the optimum would
 * write: under a budget of about an eighth of the demand, the hot keys (32
 * of them, half the candidates, each re-read soon) are admitted several
 * times as often as the cold ones (each seen about once, never re-read);
 * the first-come bucket treats them alike. */
static void test_controller_prefers_value(void)
{
    const char *ranked[] = { "compete", "learned" };
    double hot, cold;
    for (size_t k = 0; k < G_N_ELEMENTS(ranked); k++) {
        Drive d = drive(ranked[k], 4096, 64.0 * 4096, 20000, 8, 7);
        hot = (double)d.hot_admitted / (double)d.hot_asked;
        cold = (double)d.cold_admitted / (double)d.cold_asked;
        CU_ASSERT(hot > 4 * cold);
    }
    Drive b = drive("bucket", 4096, 64.0 * 4096, 20000, 8, 7);
    hot = (double)b.hot_admitted / (double)b.hot_asked;
    cold = (double)b.cold_admitted / (double)b.cold_asked;
    CU_ASSERT(hot < 1.5 * cold && cold < 1.5 * hot);
}

/* A skewed container sequence replayed through the container core under a
 * budget of a tenth of a container a request: within the bound, spent to
 * at least 90%, and compete and learned each more hits than the
 * first-come bucket on the same sequence (lru: the bucket admits whatever
 * comes when credit is there). */
static void test_container_replay(void)
{
    const uint32_t n = 2000, cap = 100, requests = 20000;
    uint64_t hits[3] = { 0 };
    const char *names[3] = { "bucket", "compete", "learned" };
    for (int k = 0; k < 3; k++) {
        CacheCoreOptions o = test_options(test_policy("lru"), NULL, cap, n, NULL);
        o.write_budget = 0.1 * TEST_CONTAINER_SIZE;
        o.admission = rule(names[k]);
        GError *err = NULL;
        CacheCore *c = cache_core_open(&o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        uint64_t rng = 42;
        for (uint32_t i = 0; i < requests; i++) {
            ContainerId id = test_skewed_id(&rng, n);
            double model, wall;
            CU_ASSERT_TRUE(cache_core_request_ids(c, &id, 1, 0, &model, &wall, NULL));
        }
        CacheReport r;
        cache_core_report(c, &r);
        double depth = (double)cap * TEST_CONTAINER_SIZE;
        CU_ASSERT((double)r.c.ssd_bytes_written <= r.write_budget_bytes + depth);
        CU_ASSERT((double)r.c.ssd_bytes_written >= 0.9 * r.write_budget_bytes);
        CU_ASSERT_EQUAL(r.c.refused_admission, r.c.refused_write_budget);
        hits[k] = r.c.hits;
        cache_core_close(c, NULL);
    }
    CU_ASSERT(hits[1] > hits[0]);
    CU_ASSERT(hits[2] > hits[0]);
}

/* learned's memory, from the report (its real allocations), after ten
 * windows and more of a skewed workload: at most 8 bytes a stored container
 * (issue 38), the figure the report prints, on stores of 128 to 2048
 * containers (2048: the 4 GiB of 2 MiB containers, caches of 205
 * and 410 slots, just above a power of two: the sketch's and the table's
 * widest rounding; 517: the 1 GiB development store). The miniature sized
 * from the store (learned.c) makes the small stores hold: before it, 256
 * containers at 10% took 10.4 B and 517 at 20% 9.7 B. Not checked, as the
 * design cannot hold them (docs/ADMISSION.md): 64 containers, whose struct,
 * minimal sketch and table alone take 7 B each, and 128 or 256 at 20%. */
static void test_learned_memory_bound(void)
{
    static const struct {
        uint32_t n, cap;
    } stores[] = { { 128, 13 }, { 256, 26 }, { 517, 52 }, { 517, 104 }, { 2048, 205 }, { 2048, 410 } };
    const uint32_t requests = 50000;
    for (size_t k = 0; k < G_N_ELEMENTS(stores); k++) {
        uint32_t n = stores[k].n;
        CacheCoreOptions o = test_options(test_policy("lru"), NULL, stores[k].cap, n, NULL);
        o.write_budget = 0.1 * TEST_CONTAINER_SIZE;
        o.admission = rule("learned");
        GError *err = NULL;
        CacheCore *c = cache_core_open(&o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        uint64_t rng = 38;
        size_t most = 0;
        for (uint32_t i = 0; i < requests; i++) {
            ContainerId id = test_skewed_id(&rng, n);
            double model, wall;
            CU_ASSERT_TRUE(cache_core_request_ids(c, &id, 1, 0, &model, &wall, NULL));
            if (i % 1000 == 999) {
                CacheReport r;
                cache_core_report(c, &r);
                CU_ASSERT_DOUBLE_EQUAL(r.admission_bytes_per_container, (double)r.admission_memory_bytes / n, 1e-9);
                most = r.admission_memory_bytes > most ? r.admission_memory_bytes : most;
            }
        }
        CU_ASSERT(most > 0);
        if ((double)most / n > 8.0)
            fprintf(stderr, "learned: %u containers, %u slots: %.2f B a stored container\n", n, stores[k].cap,
                    (double)most / n);
        CU_ASSERT((double)most / n <= 8.0);
        cache_core_close(c, NULL);
    }
}

/* The chunk cache's options for the replays: lru, 8 MiB, 2048 bytes of
 * budget a request, the rule given (NULL: the default). */
static ChunkCacheOptions chunk_options(const char *admission)
{
    ChunkCacheOptions o;
    memset(&o, 0, sizeof o);
    CU_ASSERT_TRUE_FATAL(chunk_policy_lookup("lru", &o.policy));
    o.capacity_bytes = 8 << 20;
    o.avg_chunk_size = 8192;
    o.container_size = 1 << 20;
    o.mode = CACHE_MODE_SIMULATE;
    device_model_params_default(&o.device);
    o.ssd_tbw_bytes = 1;
    o.layout = CHUNK_LAYOUT_LOG;
    o.write_budget = 2048;
    o.admission = admission ? rule(admission) : NULL;
    return o;
}

/* One request of one access to chunk number `chunk` (its fingerprint the
 * number, its last byte `tag`), `length` bytes. */
static void touch_chunk(ChunkCache *c, uint64_t chunk, uint8_t tag, uint32_t length)
{
    ChunkRef ref;
    memset(&ref, 0, sizeof ref);
    memcpy(ref.fp.bytes, &chunk, sizeof chunk);
    ref.fp.bytes[31] = tag;
    ref.length = length;
    ChunkCachePosition p = { chunk_address(chunk, 0), 0, ref.length };
    chunk_cache_request_begin(c, 0);
    CU_ASSERT_TRUE(chunk_cache_touch(c, &ref, &p, NULL));
    chunk_cache_request_end(c);
}

/* The chunk cache under a budget (the default, compete, and learned): the
 * admissions' stored bytes within the bound and spent to 90%; admission
 * rules whose budget setting does not fit are refused. */
static void test_chunk_replay(void)
{
    const char *ranked[] = { NULL, "learned" };
    for (size_t k = 0; k < G_N_ELEMENTS(ranked); k++) {
        ChunkCacheOptions o = chunk_options(ranked[k]);
        GError *err = NULL;
        ChunkCache *c = chunk_cache_open(&o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        uint64_t rng = 9;
        const uint32_t requests = 20000;
        for (uint32_t i = 0; i < requests; i++) {
            uint64_t chunk = test_skewed_id(&rng, 20000);
            touch_chunk(c, chunk, 0x5a, 4096 + (uint32_t)(chunk % 8) * 1024);
        }
        ChunkCacheReport r;
        chunk_cache_report(c, &r);
        CU_ASSERT((double)r.c.admitted_bytes <= 2048.0 * requests + (double)o.capacity_bytes);
        CU_ASSERT((double)r.c.admitted_bytes >= 0.9 * 2048.0 * requests);
        CU_ASSERT(r.c.refused_admission > 0);
        /* the rule's sketch (and model) reported, and counted in the total */
        CU_ASSERT(r.admission_memory_bytes > 0);
        CU_ASSERT(r.memory_bytes >= r.policy_memory_bytes + r.admission_memory_bytes);
        chunk_cache_close(c, NULL);
    }

    GError *err = NULL;
    ChunkCacheOptions o = chunk_options("all");
    CU_ASSERT_PTR_NULL(chunk_cache_open(&o, &err));
    g_clear_error(&err);
    o = chunk_options("bucket");
    o.write_budget = 0;
    CU_ASSERT_PTR_NULL(chunk_cache_open(&o, &err));
    g_clear_error(&err);
}

/* The chunk log's rewrites are charged to the budget: with
 * ssd-cache-segment-reclaim clean (the cleaner's moves) or reinsert (the
 * chunks lru keeps) and small segments, the stored bytes the admissions
 * and the rewrites wrote together stay within the budget over the requests
 * plus one cache and the last segment's charge, for every rule that spends
 * the budget (before they were charged, the rewrites came on top: the
 * first-come bucket, which spends its credit to the last chunk, went past
 * the bound by them; reinsert's were charged only from issue 39's third
 * round). */
static void test_chunk_rewrites_charged(void)
{
    const char *spenders[] = { "bucket", "compete", "learned" };
    const ChunkLogReclaim reclaims[] = { CHUNK_LOG_CLEAN, CHUNK_LOG_REINSERT };
    for (size_t m = 0; m < G_N_ELEMENTS(reclaims); m++)
        for (size_t k = 0; k < G_N_ELEMENTS(spenders); k++) {
            ChunkCacheOptions o = chunk_options(spenders[k]);
            o.write_budget = 512;
            o.reclaim = reclaims[m];
            o.segment_size = 64 << 10;
            GError *err = NULL;
            ChunkCache *c = chunk_cache_open(&o, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            uint64_t rng = 11;
            const uint32_t requests = 40000;
            for (uint32_t i = 0; i < requests; i++) {
                uint64_t chunk = test_rand(&rng) % 4000; /* uniform: the live chunks spread over the segments */
                touch_chunk(c, chunk, 0x5b, 4096);
            }
            ChunkCacheReport r;
            chunk_cache_report(c, &r);
            uint64_t rewritten = r.layout_report.counters.segments.cleaner_bytes_written +
                                 r.layout_report.counters.segments.reinserted_bytes_written;
            double spent = (double)(r.layout_report.counters.stored_bytes_written + rewritten);
            CU_ASSERT(rewritten > 0);
            CU_ASSERT(spent <= 512.0 * requests + (double)o.capacity_bytes + (double)o.segment_size);
            CU_ASSERT(spent >= 0.9 * 512.0 * requests);
            chunk_cache_close(c, NULL);
        }
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("admission", NULL, NULL);
    CU_add_test(s, "registry", test_registry);
    CU_add_test(s, "filters", test_filters);
    CU_add_test(s, "controller: never past the budget, spends it", test_controller_bounds);
    CU_add_test(s, "controller: DWPD, never past it, spends it", test_controller_bounds_dwpd);
    CU_add_test(s, "write credit arithmetic, per request and DWPD", test_credit_arithmetic);
    CU_add_test(s, "DWPD and per-request at equal rates: same decisions", test_dwpd_equals_per_request);
    CU_add_test(s, "controller: the more valuable first", test_controller_prefers_value);
    CU_add_test(s, "container core replay", test_container_replay);
    CU_add_test(s, "learned: at most 8 bytes a stored container", test_learned_memory_bound);
    CU_add_test(s, "chunk core replay", test_chunk_replay);
    CU_add_test(s, "chunk log rewrites charged", test_chunk_rewrites_charged);
}

UNIT_MAIN(add_suites)
