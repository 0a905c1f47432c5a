/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_log_reinsert.c: the chunk log's reclaim mode reinsert
 * (ssd-cache-segment-reclaim reinsert; chunk_log.h, chunk_log_space.c):
 * the chunks the `keep` callback keeps are rewritten and read back byte
 * for byte, the others dropped; the bound on reinserted bytes per
 * reclaimed segment holds even when every chunk would be kept (so the log
 * always advances, and a chunk as large as a segment still goes in); the
 * counters add up; without a `keep` callback it reclaims as evict does;
 * the log holds its chunks across a clean restart and a crash, and a
 * victim it cannot read loses its kept chunks as damaged, never serving
 * wrong bytes. */
#include "cache/layouts/log/chunk_log.h"
#include "cache/layouts/log/chunk_log_format.h"
#include "cache/layouts/log/chunk_log_space.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>
#include <unistd.h>

#define SEG (64u * 1024u)
#define SEGMENTS 6u
#define MAXLEN 6000u
#include "chunk_log_series.h"

/* The tests' policy: a chunk is hot when its fingerprint's first byte is a
 * multiple of 4 (a quarter of them); keep_all keeps every chunk. */
static gboolean hot(const Fingerprint *fp)
{
    return fp->bytes[0] % 4 == 0;
}

typedef struct {
    gboolean keep_all;
    uint64_t asked, kept, kept_bytes, dropped;
} Policy;

static gboolean on_keep(void *ctx, const Fingerprint *fp, uint32_t length)
{
    Policy *p = ctx;
    gboolean keep = p->keep_all || hot(fp);
    p->asked++;
    if (keep) {
        p->kept++;
        p->kept_bytes += length;
    }
    return keep;
}

static void on_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    Policy *p = ctx;
    (void)fp;
    CU_ASSERT(length > 0);
    p->dropped++;
}

static ChunkLogOptions options(const char *dir, Policy *p)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.capacity_bytes = (uint64_t)SEGMENTS * SEG;
    o.segment_size = SEG;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x3c, sizeof o.store_id);
    o.reclaim = CHUNK_LOG_REINSERT;
    o.dropped = on_dropped;
    o.dropped_ctx = p;
    o.keep = on_keep;
    o.keep_ctx = p;
    return o;
}

/* Chunks [from, to) of the series the log holds, hot ones or cold ones
 * (`want_hot`), each checked byte for byte; damaged ones counted apart. */
static uint32_t held(ChunkLog *log, uint32_t seed, uint32_t from, uint32_t to, gboolean want_hot, uint32_t *damaged)
{
    uint8_t *want = g_malloc(MAXLEN), *got = g_malloc(MAXLEN);
    uint32_t n_held = 0;
    for (uint32_t i = from; i < to; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(seed, i, want, &fp), n = 0;
        if (hot(&fp) != want_hot)
            continue;
        ChunkLogGet r = chunk_log_get(log, &fp, got, &n);
        if (r == CHUNK_LOG_HIT) {
            CU_ASSERT_EQUAL(n, len);
            CU_ASSERT(memcmp(want, got, len) == 0);
            n_held++;
        } else if (r == CHUNK_LOG_DAMAGED) {
            (*damaged)++;
        }
    }
    g_free(want);
    g_free(got);
    return n_held;
}

static uint32_t held_all(ChunkLog *log, uint32_t seed, uint32_t to)
{
    uint32_t damaged = 0, n = held(log, seed, 0, to, TRUE, &damaged) + held(log, seed, 0, to, FALSE, &damaged);
    CU_ASSERT_EQUAL(damaged, 0);
    return n;
}

/* The kept (hot) chunks outlive the log's FIFO; the cold ones go in its
 * order; everything held reads back right; the counters add up. */
static void test_keep(void)
{
    char *dir = g_build_filename(tmpdir, "keep", NULL);
    Policy p = { 0 };
    ChunkLogOptions o = options(dir, &p);
    ChunkLog *log = open_ok(&o);
    put_range(log, 1, 0, 600);
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err)); /* every kept chunk written: its bytes counted */
    const ChunkLogCounters *c = chunk_log_counters(log);
    CU_ASSERT(c->segments_reinserted > 0);
    CU_ASSERT_EQUAL(c->segments_evicted + c->segments_cleaned + c->cleaner_bytes_written, 0);
    CU_ASSERT(p.kept > 0 && p.asked > p.kept);
    CU_ASSERT_EQUAL(c->chunks_reinserted, p.kept);
    CU_ASSERT_EQUAL(c->reinserted_bytes_written, p.kept_bytes); /* stored as they are */
    CU_ASSERT_EQUAL(c->chunks_dropped_by_log, p.dropped);
    CU_ASSERT_EQUAL(chunk_log_chunks(log) + p.dropped, 600);
    CU_ASSERT_EQUAL(c->device_bytes_written, c->segments_written * SEG + CHUNK_LOG_META_HEADER + SEGMENTS * 8 + 4);
    CU_ASSERT(c->user_stored_bytes_written + c->reinserted_bytes_written <= c->device_bytes_written);
    CU_ASSERT(c->reinserted_bytes_written <= c->segments_reinserted * chunk_log_space_reinsert_bound(SEG));
    /* chunks 300 puts old: every cold one gone (the log holds far fewer), hot ones still there */
    uint32_t damaged = 0;
    CU_ASSERT_EQUAL(held(log, 1, 0, 300, FALSE, &damaged), 0);
    CU_ASSERT(held(log, 1, 0, 300, TRUE, &damaged) > 0);
    CU_ASSERT_EQUAL(held_all(log, 1, 600), chunk_log_chunks(log));
    close_ok(log);
    g_free(dir);
}

/* The model alone (no I/O), every chunk kept when asked: after each
 * reclaim the chunks kept take at most the bound, the put that reclaimed
 * has its place, and the log goes on (a chunk as long as a segment holds
 * goes in too: nothing is kept for it). */
static void test_bound(void)
{
    Policy p = { .keep_all = TRUE };
    ChunkLogSpace sp;
    chunk_log_space_init(&sp, SEG, SEGMENTS, CHUNK_LOG_REINSERT, on_dropped, &p);
    sp.keep = on_keep;
    sp.keep_ctx = &p;
    const uint32_t bound = chunk_log_space_reinsert_bound(SEG), max = chunk_log_space_max_chunk(SEG);
    CU_ASSERT_EQUAL(bound, (SEG - CHUNK_LOG_SEGMENT_HEADER) / 2);
    GRand *r = g_rand_new_with_seed(5);
    uint64_t reclaims = 0, big = 0;
    for (uint32_t i = 0; i < 3000; i++) {
        Fingerprint fp;
        memset(&fp, 0, sizeof fp);
        memcpy(fp.bytes, &i, sizeof i);
        fp.bytes[4] = 0x77;
        uint32_t len = i % 97 == 96 ? max : (uint32_t)g_rand_int_range(r, 1, MAXLEN + 1);
        uint64_t kept_before = sp.c.chunks_reinserted;
        CU_ASSERT_TRUE(chunk_log_space_put(&sp, &fp, len, len, 0, NULL));
        CU_ASSERT(chunk_log_space_find(&sp, &fp) != CHUNK_LOG_NO_ENTRY);
        big += len == max;
        if (sp.c.segments_reinserted > reclaims) { /* this put reclaimed: the open segment is the kept chunks and it */
            reclaims = sp.c.segments_reinserted;
            uint64_t kept = sp.c.chunks_reinserted - kept_before;
            CU_ASSERT_EQUAL(sp.open_n, kept + 1);
            CU_ASSERT(sp.open_reinserted + kept * CHUNK_LOG_TABLE_ENTRY <= bound);
            CU_ASSERT_EQUAL(sp.open_end, CHUNK_LOG_SEGMENT_HEADER + sp.open_reinserted + len);
            if (len == max)
                CU_ASSERT_EQUAL(kept, 0);
        }
    }
    g_rand_free(r);
    CU_ASSERT(reclaims > 100 && big > 20 && p.dropped > 0);
    chunk_log_space_clear(&sp);
}

/* Without a keep callback reinsert is evict: the same drops in the same
 * order, the same bytes written. */
static GString *drop_order;
static void record_drop(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)ctx;
    g_string_append_printf(drop_order, "%02x%02x:%u ", fp->bytes[0], fp->bytes[1], length);
}

static void test_no_keep_is_evict(void)
{
    GString *orders[2];
    uint64_t device[2], segments[2];
    for (int mode = 0; mode < 2; mode++) {
        drop_order = orders[mode] = g_string_new(NULL);
        ChunkLogSpace sp;
        chunk_log_space_init(&sp, SEG, SEGMENTS, mode ? CHUNK_LOG_REINSERT : CHUNK_LOG_EVICT, record_drop, NULL);
        uint8_t *buf = g_malloc(MAXLEN);
        for (uint32_t i = 0; i < 700; i++) {
            Fingerprint fp;
            uint32_t len = make_chunk(9, i, buf, &fp);
            CU_ASSERT_TRUE(chunk_log_space_put(&sp, &fp, len, len, 0, NULL));
            if (i % 5 == 0) /* the policy drops some */
                chunk_log_space_remove(&sp, chunk_log_space_find(&sp, &fp));
        }
        g_free(buf);
        device[mode] = sp.c.device_bytes_written;
        segments[mode] = mode ? sp.c.segments_reinserted : sp.c.segments_evicted;
        CU_ASSERT_EQUAL(sp.c.chunks_reinserted, 0);
        chunk_log_space_clear(&sp);
    }
    CU_ASSERT(orders[0]->len > 0);
    CU_ASSERT_STRING_EQUAL(orders[0]->str, orders[1]->str);
    CU_ASSERT_EQUAL(device[0], device[1]);
    CU_ASSERT_EQUAL(segments[0], segments[1]);
    g_string_free(orders[0], TRUE);
    g_string_free(orders[1], TRUE);
}

static void copy_file(const char *from_dir, const char *to_dir, const char *name)
{
    char *a = g_build_filename(from_dir, name, NULL), *b = g_build_filename(to_dir, name, NULL);
    gchar *data;
    gsize len;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(a, &data, &len, NULL));
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(b, data, (gssize)len, NULL));
    g_free(data);
    g_free(a);
    g_free(b);
}

/* After reinsertion: a clean restart holds the same chunks; a crash
 * (the files as synced, the index rebuilt from the segments) holds at
 * least those (drops not yet overwritten come back: content-addressed,
 * right); both read right and go on reinserting. */
static void test_restart(void)
{
    char *dir = g_build_filename(tmpdir, "restart", NULL), *copy = g_build_filename(tmpdir, "restart-crash", NULL);
    Policy p = { 0 };
    ChunkLogOptions o = options(dir, &p);
    ChunkLog *log = open_ok(&o);
    put_range(log, 2, 0, 500);
    CU_ASSERT_FATAL(chunk_log_counters(log)->chunks_reinserted > 0);
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err));
    uint64_t at_sync = chunk_log_chunks(log);
    g_mkdir_with_parents(copy, 0755);
    copy_file(dir, copy, CHUNK_LOG_FILE);
    copy_file(dir, copy, CHUNK_LOG_META_FILE); /* marked in use: the crash copy rebuilds */
    put_range(log, 2, 500, 520);
    uint64_t n = chunk_log_chunks(log);
    close_ok(log);

    log = open_ok(&o);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), n);
    CU_ASSERT_EQUAL(held_all(log, 2, 520), n);
    put_range(log, 2, 520, 900); /* reclaims again */
    CU_ASSERT(chunk_log_counters(log)->chunks_reinserted > 0);
    CU_ASSERT_EQUAL(held_all(log, 2, 900), chunk_log_chunks(log));
    close_ok(log);

    ChunkLogOptions oc = options(copy, &p);
    log = open_ok(&oc);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 0);
    CU_ASSERT(chunk_log_chunks(log) >= at_sync);
    CU_ASSERT_EQUAL(held_all(log, 2, 520), chunk_log_chunks(log));
    put_range(log, 2, 520, 900);
    CU_ASSERT(chunk_log_counters(log)->chunks_reinserted > 0);
    CU_ASSERT_EQUAL(held_all(log, 2, 900), chunk_log_chunks(log));
    close_ok(log);
    g_free(copy);
    g_free(dir);
}

/* The log file cut to nothing under the open log: a victim with chunks to
 * keep cannot be read, so they are dropped as damaged; the log goes on,
 * and every chunk it serves is right. */
static void test_unreadable_victim(void)
{
    char *dir = g_build_filename(tmpdir, "unreadable", NULL);
    Policy p = { 0 };
    ChunkLogOptions o = options(dir, &p);
    ChunkLog *log = open_ok(&o);
    put_range(log, 3, 0, 150);
    CU_ASSERT_FATAL(chunk_log_counters(log)->segments_written > 2);
    char *path = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    CU_ASSERT_EQUAL_FATAL(truncate(path, 0), 0);
    g_free(path);
    put_range(log, 3, 150, 600);
    const ChunkLogCounters *c = chunk_log_counters(log);
    CU_ASSERT(c->damaged_reads > 0);
    CU_ASSERT(c->chunks_reinserted > 0); /* once segments written after the cut come round */
    uint32_t damaged = 0;
    uint32_t n = held(log, 3, 0, 600, TRUE, &damaged) + held(log, 3, 0, 600, FALSE, &damaged);
    CU_ASSERT(n > 0);
    CU_ASSERT_EQUAL(n, chunk_log_chunks(log));
    close_ok(log);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_log_reinsert", make_tmp, remove_tmp);
    CU_add_test(s, "kept chunks outlive the FIFO and read back right", test_keep);
    CU_add_test(s, "the bound on reinserted bytes", test_bound);
    CU_add_test(s, "no keep callback: as evict", test_no_keep_is_evict);
    CU_add_test(s, "restart and crash after reinsertion", test_restart);
    CU_add_test(s, "an unreadable victim", test_unreadable_victim);
}

UNIT_MAIN(add_suites)
