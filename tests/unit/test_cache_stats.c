/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_stats.c: the measurements of the SSD cache: quadrant
 * classification and breakdown, the device model (service times, SSD reads
 * queued behind writes), request latency, the SSD lifetime arithmetic of the
 * paper's Table 1, and the text/JSON reports. */
#include "cache/common/cache_stats.h"
#include "cache/common/device_model.h"
#include "test_cache_util.h"
#include "unit.h"

#include <math.h>

static void test_lifetime_table1(void)
{
    /* 60 GB Intel 520, TBW 36,500 GB; measured write rates of Table 1 */
    uint64_t tbw = (uint64_t)36500 << 30;
    double mib = 1024.0 * 1024.0;
    CU_ASSERT_DOUBLE_EQUAL(cache_lifetime_days(tbw, 56.7 * mib), 7.6, 0.05); /* FIFO */
    CU_ASSERT_DOUBLE_EQUAL(cache_lifetime_days(tbw, 50.7 * mib), 8.5, 0.05); /* LRU */
    CU_ASSERT_DOUBLE_EQUAL(cache_lifetime_days(tbw, 53.1 * mib), 8.1, 0.05); /* LFU */
    CU_ASSERT_TRUE(isinf(cache_lifetime_days(tbw, 0)));
}

static void test_quadrant_of(void)
{
    CU_ASSERT_EQUAL(cache_quadrant_of(5, 1, 5, 5), CACHE_QA); /* thresholds are inclusive */
    CU_ASSERT_EQUAL(cache_quadrant_of(5, 4, 5, 5), CACHE_QA);
    CU_ASSERT_EQUAL(cache_quadrant_of(5, 5, 5, 5), CACHE_QB);
    CU_ASSERT_EQUAL(cache_quadrant_of(4, 4, 5, 5), CACHE_QC);
    CU_ASSERT_EQUAL(cache_quadrant_of(4, 5, 5, 5), CACHE_QD);
}

static void test_quadrant_breakdown(void)
{
    /* LRU with one slot; popular: >= 3 accesses, rewritten: >= 2 writes.
     * accesses/writes: 1: 4/2 (QB), 2: 1/1, 3: 1/1, 6: 1/1 (QC),
     * 4: 3/1 (QA), 5: 2/2 (QD). 8 writes in all. */
    CacheCoreOptions o = test_options(test_policy("lru"), NULL, 1, 10, NULL);
    o.quadrant_access_threshold = 3;
    o.quadrant_repeat_threshold = 2;
    CacheCore *c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    const uint32_t seq[] = { 1, 1, 1, 2, 1, 3, 4, 4, 4, 5, 6, 5 };
    test_run(c, seq, G_N_ELEMENTS(seq));
    CacheReport r;
    cache_core_report(c, &r);
    CU_ASSERT_EQUAL(r.c.ssd_containers_written, 8);
    uint64_t s = TEST_CONTAINER_SIZE;
    CU_ASSERT_EQUAL(r.quadrant_bytes[CACHE_QA], 1 * s);
    CU_ASSERT_EQUAL(r.quadrant_bytes[CACHE_QB], 2 * s);
    CU_ASSERT_EQUAL(r.quadrant_bytes[CACHE_QC], 3 * s);
    CU_ASSERT_EQUAL(r.quadrant_bytes[CACHE_QD], 2 * s);
    CU_ASSERT_EQUAL(r.quadrant_containers[CACHE_QC], 3);
    CU_ASSERT_DOUBLE_EQUAL(r.quadrant_share[CACHE_QA], 0.125, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.quadrant_share[CACHE_QC], 0.375, 1e-12);
    CU_ASSERT_TRUE(r.quadrants);
    /* count, quadrants, and a 64-bit word of cached bits: no store-wide
     * reference count, which only a policy that reads them (PLC) holds */
    CU_ASSERT_DOUBLE_EQUAL(r.bytes_per_container, 12 + 8.0 / 10, 1e-12);
    cache_core_close(c, NULL);

    o.track_quadrants = FALSE;
    c = cache_core_open(&o, NULL);
    test_run(c, seq, G_N_ELEMENTS(seq));
    cache_core_report(c, &r);
    CU_ASSERT_FALSE(r.quadrants);
    CU_ASSERT_DOUBLE_EQUAL(r.bytes_per_container, 4 + 8.0 / 10, 1e-12); /* the count, the bits */
    CU_ASSERT_STRING_EQUAL(r.counters, "exact");
    CU_ASSERT_EQUAL(r.counts_bytes, 40);
    cache_core_close(c, NULL);
}

/* The memory report follows cache-counters: a sketch of 5,000 containers
 * is 2 rows of 4,096 16-bit counters, 3.28 bytes a container (and 79 words
 * of cached bits, 0.13); the slot map is counted per slot (16 slots: 32
 * entries of 8 bytes, 16 bytes a slot). */
static void test_memory_by_counters(void)
{
    CacheCoreOptions o = test_options(test_policy("lru"), NULL, 16, 5000, NULL);
    o.track_quadrants = FALSE;
    o.counters = ACCESS_COUNTS_SKETCH;
    CacheCore *c = cache_core_open(&o, NULL);
    CacheReport sk, ex;
    cache_core_report(c, &sk);
    cache_core_close(c, NULL);
    o.counters = ACCESS_COUNTS_EXACT;
    c = cache_core_open(&o, NULL);
    cache_core_report(c, &ex);
    cache_core_close(c, NULL);
    CU_ASSERT_STRING_EQUAL(sk.counters, "sketch");
    CU_ASSERT_EQUAL(sk.counts_bytes, 2 * 4096 * 2);
    CU_ASSERT_DOUBLE_EQUAL(sk.bytes_per_container, (16384.0 + 79 * 8) / 5000, 1e-9);
    CU_ASSERT_EQUAL(ex.counts_bytes, 4 * 5000);
    CU_ASSERT_EQUAL(ex.bytes_per_slot, sk.bytes_per_slot);
    CU_ASSERT_EQUAL(ex.memory_bytes - sk.memory_bytes, 20000 - 16384);
    /* id, free stack, stored length, map, policy */
    CU_ASSERT_EQUAL(ex.bytes_per_slot, 4 + 4 + 4 + 16 + (ex.policy_memory_bytes + 15) / 16);

    /* PLC reads the store's reference counts: 4 bytes a container more */
    CU_ASSERT_TRUE(test_policy("plc")->needs_reference_count);
    CU_ASSERT_FALSE(test_policy("lru")->needs_reference_count);
    uint32_t *refs = g_new0(uint32_t, 5000);
    CacheCoreOptions op = test_options(test_policy("plc"), NULL, 16, 5000, refs);
    op.track_quadrants = FALSE;
    op.counters = ACCESS_COUNTS_SKETCH;
    CacheReport plc;
    c = cache_core_open(&op, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    cache_core_report(c, &plc);
    cache_core_close(c, NULL);
    g_free(refs);
    CU_ASSERT_DOUBLE_EQUAL(plc.bytes_per_container, sk.bytes_per_container + 4, 1e-9);
}

static void test_device_service_times(void)
{
    DeviceModelParams p;
    device_model_params_default(&p);
    size_t two_mib = 2u << 20;
    /* 10 ms seek + 5.556 ms (half a turn at 5400 rpm) + 2 MiB at 100 MB/s */
    CU_ASSERT_DOUBLE_EQUAL(device_model_hdd_service(&p, two_mib), 0.010 + 30.0 / 5400 + 0.02097152, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(device_model_ssd_read_service(&p, two_mib), 80e-6 + 2097152 / 500e6, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(device_model_ssd_write_service(&p, two_mib), 85e-6 + 2097152 / 200e6, 1e-12);
}

static void test_reads_queue_behind_writes(void)
{
    DeviceModelParams p;
    device_model_params_default(&p);
    DeviceModel m;
    device_model_init(&m, &p);
    size_t sz = 2u << 20;
    double w = device_model_ssd_write_service(&p, sz), rd = device_model_ssd_read_service(&p, sz);
    double hdd = device_model_hdd_read(&m, sz);
    device_model_ssd_write(&m, sz); /* background: no time passes for the request */
    CU_ASSERT_DOUBLE_EQUAL(m.now, hdd, 1e-12);
    double lat = device_model_ssd_read(&m, sz); /* waits for the whole write */
    CU_ASSERT_DOUBLE_EQUAL(lat, w + rd, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.ssd_wait, w, 1e-12);
    /* a write followed by a long HDD read has drained: no wait */
    device_model_ssd_write(&m, sz);
    device_model_hdd_read(&m, sz);
    CU_ASSERT_DOUBLE_EQUAL(device_model_ssd_read(&m, sz), rd, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(m.ssd_write_busy, 2 * w, 1e-12);
}

static void test_request_latency(void)
{
    CacheCore *c = test_sim_open(test_policy("lru"), NULL, 4, 10, NULL);
    DeviceModelParams p;
    device_model_params_default(&p);
    cache_core_request_begin(c, 0);
    CU_ASSERT_TRUE(cache_access(c, 1, NULL, NULL)); /* miss */
    CU_ASSERT_TRUE(cache_access(c, 2, NULL, NULL)); /* miss */
    cache_core_request_end(c);
    cache_core_request_begin(c, 0);
    CU_ASSERT_TRUE(cache_access(c, 1, NULL, NULL)); /* hit, behind the write of 2 */
    cache_core_request_end(c);
    const CacheCounters *k = cache_core_counters(c);
    double hdd = device_model_hdd_service(&p, TEST_CONTAINER_SIZE);
    double w = device_model_ssd_write_service(&p, TEST_CONTAINER_SIZE);
    double rd = device_model_ssd_read_service(&p, TEST_CONTAINER_SIZE);
    /* write 1 is done long before write 2 is queued; write 2 delays the hit
     * only by what the write still has left: w (hdd > w) */
    CU_ASSERT_EQUAL(k->requests, 2);
    CU_ASSERT_DOUBLE_EQUAL(k->model_request_max_s, 2 * hdd, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(k->model_request_s, 2 * hdd + w + rd, 1e-12);
    CU_ASSERT(k->wall_request_s >= 0);
    cache_core_close(c, NULL);
}

static void test_report_text_and_json(void)
{
    CacheCore *c = test_sim_open(test_policy("plc"), NULL, 3, 50, NULL);
    uint32_t *trace = test_trace(3, 50, 2000);
    test_run(c, trace, 2000);
    CacheReport r;
    cache_core_report(c, &r);
    GString *t = g_string_new(NULL);
    cache_report_text(&r, t);
    CU_ASSERT_PTR_NOT_NULL(strstr(t->str, "hit ratio"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t->str, "refused: popularity filter"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t->str, "QA popular, written rarely"));
    JsonObject *o = test_report_json(&r);
    CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "policy"), "plc");
    CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "mode"), "simulate");
    CU_ASSERT_EQUAL(json_object_get_int_member(o, "accesses"), 2000);
    CU_ASSERT_EQUAL(json_object_get_int_member(o, "ssd_bytes_written"), (gint64)r.c.ssd_bytes_written);
    const char *keys[] = { "refused_popularity_filter", "refused_delayed_eviction", "refused_inout_comparison",
                           "qa_share", "ssd_lifetime_model_days", "request_latency_model_ms_mean", "hit_ratio",
                           "model_elapsed_ms", "wall_elapsed_ms" };
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        CU_ASSERT_TRUE(json_object_has_member(o, keys[i]));
    json_object_unref(o);
    g_string_free(t, TRUE);
    g_free(trace);
    cache_core_close(c, NULL);

    /* nothing written: lifetime is null in JSON, never inf */
    c = test_sim_open(test_policy("plc"), NULL, 3, 50, NULL);
    cache_core_report(c, &r);
    o = test_report_json(&r);
    CU_ASSERT_TRUE(json_object_get_null_member(o, "ssd_lifetime_model_days"));
    json_object_unref(o);
    cache_core_close(c, NULL);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cache stats", NULL, NULL);
    CU_add_test(s, "lifetime, Table 1", test_lifetime_table1);
    CU_add_test(s, "quadrant of", test_quadrant_of);
    CU_add_test(s, "quadrant breakdown", test_quadrant_breakdown);
    CU_add_test(s, "memory by cache-counters", test_memory_by_counters);
    CU_add_test(s, "device service times", test_device_service_times);
    CU_add_test(s, "reads queue behind writes", test_reads_queue_behind_writes);
    CU_add_test(s, "request latency", test_request_latency);
    CU_add_test(s, "report text and JSON", test_report_text_and_json);
}

UNIT_MAIN(add_suites)
