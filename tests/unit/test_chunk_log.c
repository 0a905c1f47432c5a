/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_log.c: the chunk cache's segment log (cache/layouts/log/chunk_log.h):
 * its index against a GHashTable over random operations, its formats, and
 * the log itself: round trips, reopen after a clean close and after a
 * crash, eviction and cleaning with their counters, and damaged,
 * truncated and foreign files, which must give misses, never wrong bytes;
 * and all of it again with compressed chunks (ssd-cache-compression). */
#include "cache/common/cache_dir.h"
#include "cache/layouts/log/chunk_log.h"
#include "cache/layouts/log/chunk_log_format.h"
#include "cache/layouts/log/chunk_log_index.h"
#include "cache/container/ssd_store.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define SEG (64u * 1024u)
#define MAXLEN 20000u
#include "chunk_log_series.h"

static char *subdir(const char *name)
{
    char *d = g_build_filename(tmpdir, name, NULL);
    return d;
}

static uint32_t n_dropped;
static void on_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)ctx;
    (void)fp;
    CU_ASSERT(length > 0);
    n_dropped++;
}

static ChunkLogOptions options(const char *dir, uint32_t segments, ChunkLogReclaim reclaim)
{
    ChunkLogOptions o;
    memset(&o, 0, sizeof o);
    o.directory = dir;
    o.capacity_bytes = (uint64_t)segments * SEG;
    o.segment_size = SEG;
    o.fp_alg = FP_SHA1;
    memset(o.store_id, 0x5a, sizeof o.store_id);
    o.reclaim = reclaim;
    o.dropped = on_dropped;
    return o;
}

/* Every chunk of the series the log holds must come back right; returns
 * how many it holds (and counts the damaged ones in *damaged). */
static uint32_t check_range(ChunkLog *log, uint32_t seed, uint32_t from, uint32_t to, uint32_t *damaged)
{
    uint8_t *want = g_malloc(MAXLEN), *got = g_malloc(SEG);
    uint32_t held = 0;
    for (uint32_t i = from; i < to; i++) {
        Fingerprint fp;
        uint32_t len = make_chunk(seed, i, want, &fp), n = 0;
        ChunkLogGet r = chunk_log_get(log, &fp, got, &n);
        if (r == CHUNK_LOG_HIT) {
            CU_ASSERT_EQUAL(n, len);
            CU_ASSERT(memcmp(want, got, len) == 0);
            held++;
        } else if (r == CHUNK_LOG_DAMAGED && damaged) {
            (*damaged)++;
        }
    }
    g_free(want);
    g_free(got);
    return held;
}

/* The same through chunk_log_get_many, in one batch, with chunk `absent`
 * of the series asked for too and every chunk asked for twice. */
static uint32_t check_batch(ChunkLog *log, uint32_t seed, uint32_t from, uint32_t to, uint32_t *damaged)
{
    uint32_t n = 2 * (to - from);
    ChunkLogRead *reads = g_new0(ChunkLogRead, n);
    Fingerprint *fps = g_new(Fingerprint, to - from);
    uint8_t *want = g_malloc(MAXLEN);
    for (uint32_t i = from; i < to; i++) {
        make_chunk(seed, i, want, &fps[i - from]);
        for (uint32_t twice = 0; twice < 2; twice++) {
            ChunkLogRead *r = &reads[2 * (i - from) + twice];
            r->fp = &fps[i - from];
            r->buf = g_malloc(MAXLEN);
        }
    }
    chunk_log_get_many(log, reads, n);
    uint32_t held = 0;
    for (uint32_t k = 0; k < n; k++) {
        ChunkLogRead *r = &reads[k];
        uint32_t len = make_chunk(seed, from + k / 2, want, &fps[k / 2]);
        if (r->result == CHUNK_LOG_HIT) {
            CU_ASSERT_EQUAL(r->len, len);
            CU_ASSERT(memcmp(r->buf, want, len) == 0);
            held++;
        } else if (r->result == CHUNK_LOG_DAMAGED && damaged) {
            (*damaged)++;
        }
        g_free(r->buf);
    }
    g_free(want);
    g_free(fps);
    g_free(reads);
    return held;
}

static void test_index_random(void)
{
    ChunkLogIndex x;
    chunk_log_index_init(&x);
    GHashTable *ref = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, g_free, NULL);
    GRand *r = g_rand_new_with_seed(3);
    for (unsigned step = 0; step < unit_reps(200000); step++) {
        Fingerprint fp;
        memset(&fp, 0, sizeof fp);
        uint32_t k = (uint32_t)g_rand_int_range(r, 0, 5000);
        fingerprint_compute(FP_SHA1, &k, sizeof k, &fp);
        uint32_t e = chunk_log_index_find(&x, &fp);
        gpointer v;
        gboolean in = g_hash_table_lookup_extended(ref, &fp, NULL, &v);
        CU_ASSERT_EQUAL(e != CHUNK_LOG_NO_ENTRY, in);
        if (in) {
            CU_ASSERT_EQUAL(chunk_log_index_entry(&x, e)->length, GPOINTER_TO_UINT(v));
            if (g_rand_boolean(r)) {
                chunk_log_index_remove(&x, e);
                g_hash_table_remove(ref, &fp);
            }
        } else {
            chunk_log_index_add(&x, &fp, 1, 64, k + 1, k / 2 + 1, k * 7u);
            g_hash_table_insert(ref, g_memdup2(&fp, sizeof fp), GUINT_TO_POINTER(k + 1));
        }
        CU_ASSERT_EQUAL(chunk_log_index_used(&x), g_hash_table_size(ref));
        if (step % 1000 == 0)
            CU_ASSERT_TRUE(chunk_log_index_check(&x));
    }
    CU_ASSERT_TRUE(chunk_log_index_check(&x));
    CU_ASSERT(chunk_log_index_bytes_of(&x) >= (size_t)chunk_log_index_used(&x) * (sizeof(ChunkLogEntry) + 4));
    g_rand_free(r);
    g_hash_table_destroy(ref);
    chunk_log_index_clear(&x);
}

static void test_meta_format(void)
{
    ChunkLogMeta m, back;
    memset(&m, 0, sizeof m);
    m.clean = TRUE;
    memset(m.store_id, 7, sizeof m.store_id);
    m.segment_size = SEG;
    m.n_segments = 3;
    m.fp_alg = FP_SHA256;
    m.next_seq = 42;
    uint64_t seq[3] = {5, 0, 41};
    m.seq = seq;
    ChunkLogEntry e[2];
    memset(e, 0, sizeof e);
    e[0].fp.bytes[0] = 1;
    e[0].segment = 2;
    e[0].offset = 64;
    e[0].length = 100;
    e[0].stored = 40;
    e[0].check = 0xdeadbeef;
    e[1].fp.bytes[5] = 9;
    e[1].segment = 0;
    e[1].offset = 164;
    e[1].length = 7;
    e[1].stored = 7;
    e[1].check = 1;
    m.codec = CACHE_CODEC_ZSTD;
    m.chunks = e;
    m.n_chunks = 2;
    GByteArray *b = chunk_log_meta_encode(&m);
    CU_ASSERT_EQUAL(b->len, CHUNK_LOG_META_HEADER + 3 * 8 + 2 * CHUNK_LOG_META_ENTRY + 4);
    CU_ASSERT_TRUE_FATAL(chunk_log_meta_decode(b->data, b->len, &back));
    CU_ASSERT(back.clean && back.segment_size == SEG && back.n_segments == 3 && back.fp_alg == FP_SHA256);
    CU_ASSERT(back.next_seq == 42 && back.seq[0] == 5 && back.seq[2] == 41 && back.n_chunks == 2);
    CU_ASSERT(back.codec == CACHE_CODEC_ZSTD);
    CU_ASSERT(memcmp(&back.chunks[0], &e[0], sizeof e[0]) == 0);
    CU_ASSERT(memcmp(&back.chunks[1], &e[1], sizeof e[1]) == 0);
    CU_ASSERT_EQUAL(chunk_log_format_version(b->data, CHUNK_LOG_META_MAGIC), CHUNK_LOG_FORMAT_VERSION);
    chunk_log_meta_clear(&back);
    for (guint i = 0; i < b->len; i += 7) { /* any flipped byte is caught */
        b->data[i] ^= 0x10;
        CU_ASSERT_FALSE(chunk_log_meta_decode(b->data, b->len, &back));
        chunk_log_meta_clear(&back);
        b->data[i] ^= 0x10;
    }
    CU_ASSERT_FALSE(chunk_log_meta_decode(b->data, b->len - 1, &back));
    chunk_log_meta_clear(&back);
    g_byte_array_free(b, TRUE);
}

static void test_segment_format(void)
{
    uint8_t *seg = g_malloc0(SEG);
    Fingerprint fp;
    memset(&fp, 3, sizeof fp);
    memset(seg + 64, 0xab, 10);
    chunk_log_segment_put_entry(seg, SEG, 0, &fp, 64, 30, 10, 0xc0ffee);
    ChunkLogSegmentHeader h = {.seq = 9, .segment_size = SEG, .n_entries = 1, .data_end = 74, .fp_alg = FP_SHA1,
                               .codec = CACHE_CODEC_LZ4};
    chunk_log_segment_seal(seg, &h);
    CU_ASSERT(memcmp(seg, "DPLCCLG1", 8) == 0);
    ChunkLogSegmentHeader d;
    CU_ASSERT_TRUE(chunk_log_segment_header_decode(seg, SEG, &d));
    CU_ASSERT(d.seq == 9 && d.n_entries == 1 && d.data_end == 74 && d.codec == CACHE_CODEC_LZ4);
    CU_ASSERT_EQUAL(chunk_log_format_version(seg, CHUNK_LOG_SEGMENT_MAGIC), CHUNK_LOG_FORMAT_VERSION);
    CU_ASSERT_EQUAL(chunk_log_format_version(seg, CHUNK_LOG_META_MAGIC), 0);
    const uint8_t *table = seg + SEG - CHUNK_LOG_TABLE_ENTRY;
    CU_ASSERT_TRUE(chunk_log_segment_table_ok(seg, table, 1));
    Fingerprint got;
    uint32_t off, len, stored, check;
    CU_ASSERT_TRUE(chunk_log_segment_entry(table, 1, 0, d.data_end, &got, &off, &len, &stored, &check));
    CU_ASSERT(off == 64 && len == 30 && stored == 10 && check == 0xc0ffee && memcmp(&got, &fp, sizeof fp) == 0);
    CU_ASSERT_FALSE(chunk_log_segment_entry(table, 1, 0, 70, &got, &off, &len, &stored, &check)); /* past data_end */
    CU_ASSERT_FALSE(chunk_log_segment_header_decode(seg, 2 * SEG, &d)); /* another segment size */
    seg[SEG - 3] ^= 1;                                                   /* the table's check field */
    CU_ASSERT_FALSE(chunk_log_segment_table_ok(seg, table, 1));
    seg[SEG - 3] ^= 1;
    seg[33] ^= 1; /* the sequence number */
    CU_ASSERT_FALSE(chunk_log_segment_table_ok(seg, table, 1));
    g_free(seg);
}

static void test_round_trip_and_reopen(void)
{
    char *dir = subdir("round");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 1, 0, 40);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 40);
    CU_ASSERT_EQUAL(check_range(log, 1, 0, 40, NULL), 40); /* some from the open segment, some from the SSD */
    CU_ASSERT_EQUAL(check_batch(log, 1, 0, 45, NULL), 80);  /* 0..39 twice each; 40..44 absent */
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, 0);
    uint64_t written = chunk_log_counters(log)->device_bytes_written;
    put_range(log, 1, 0, 40); /* all there: nothing written */
    CU_ASSERT_EQUAL(chunk_log_counters(log)->device_bytes_written, written);
    Fingerprint fp;
    uint8_t *buf = g_malloc(SEG);
    make_chunk(1, 7, buf, &fp);
    CU_ASSERT_TRUE(chunk_log_drop(log, &fp));
    CU_ASSERT_FALSE(chunk_log_drop(log, &fp));
    uint32_t n;
    CU_ASSERT_EQUAL(chunk_log_get(log, &fp, buf, &n), CHUNK_LOG_ABSENT);
    CU_ASSERT(chunk_log_index_bytes(log) > 0);
    /* a second open of the directory is refused while this one holds it */
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(chunk_log_open(&o, &err));
    CU_ASSERT(err != NULL && err->code == DESTOR_ERROR_LOCKED);
    g_clear_error(&err);
    close_ok(log);

    log = open_ok(&o); /* clean close: the index from chunklog.meta */
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 39);
    CU_ASSERT_EQUAL(check_range(log, 1, 0, 40, NULL), 39);
    CU_ASSERT_FALSE(chunk_log_contains(log, &fp, NULL));
    close_ok(log);
    g_free(buf);
    g_free(dir);
}

static void copy_file(const char *from_dir, const char *to_dir, const char *name)
{
    char *a = g_build_filename(from_dir, name, NULL), *b = g_build_filename(to_dir, name, NULL);
    gchar *data;
    gsize len;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(a, &data, &len, NULL));
    CU_ASSERT_TRUE(g_file_set_contents(b, data, (gssize)len, NULL));
    g_free(data);
    g_free(a);
    g_free(b);
}

/* The files as a crash would leave them: copied while the log is open
 * (chunklog.meta marked in use), so the copy's index is rebuilt from the
 * segments. */
static char *crash_copy(ChunkLog *log, const char *dir, const char *name)
{
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err));
    g_clear_error(&err);
    char *copy = subdir(name);
    g_mkdir_with_parents(copy, 0755);
    copy_file(dir, copy, CHUNK_LOG_FILE);
    copy_file(dir, copy, CHUNK_LOG_META_FILE);
    return copy;
}

static void test_o_direct(void)
{
    char *dir = subdir("direct");
    ChunkLogOptions o = options(dir, 8, CHUNK_LOG_CLEAN);
    o.o_direct = TRUE;
    GError *err = NULL;
    ChunkLog *log = chunk_log_open(&o, &err);
    if (log == NULL) { /* a file system without O_DIRECT: nothing to test here */
        CU_ASSERT(err != NULL && strstr(err->message, "O_DIRECT") != NULL);
        g_clear_error(&err);
        g_free(dir);
        return;
    }
    put_range(log, 8, 0, 120);
    uint32_t held = check_range(log, 8, 0, 120, NULL);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    CU_ASSERT_EQUAL(check_batch(log, 8, 0, 120, NULL), 2 * held);
    char *copy = crash_copy(log, dir, "direct-copy");
    close_ok(log);
    ChunkLogOptions oc = o;
    oc.directory = copy;
    log = open_ok(&oc); /* rebuilt from the segments, read with O_DIRECT */
    CU_ASSERT_EQUAL(check_batch(log, 8, 0, 120, NULL), 2 * held);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, 0);
    close_ok(log);
    g_free(copy);
    g_free(dir);
}

static void test_crash_rebuild(void)
{
    char *dir = subdir("crash");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 2, 0, 60);
    char *copy = crash_copy(log, dir, "crash-copy");
    put_range(log, 2, 60, 70); /* in the open segment only: lost by the "crash" */
    close_ok(log);
    ChunkLogOptions oc = options(copy, 16, CHUNK_LOG_EVICT);
    log = open_ok(&oc);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 0);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 60);
    CU_ASSERT_EQUAL(check_range(log, 2, 0, 70, NULL), 60);
    put_range(log, 2, 60, 70); /* and it goes on from there */
    CU_ASSERT_EQUAL(check_range(log, 2, 0, 70, NULL), 70);
    close_ok(log);
    g_free(copy);
    g_free(dir);
}

static void test_evict(void)
{
    char *dir = subdir("evict");
    ChunkLogOptions o = options(dir, 4, CHUNK_LOG_EVICT);
    n_dropped = 0;
    ChunkLog *log = open_ok(&o);
    put_range(log, 3, 0, 200);
    const ChunkLogCounters *c = chunk_log_counters(log);
    CU_ASSERT(c->segments_evicted > 0);
    CU_ASSERT_EQUAL(c->segments_cleaned, 0);
    CU_ASSERT_EQUAL(c->cleaner_bytes_written, 0);
    CU_ASSERT_EQUAL(n_dropped, c->chunks_dropped_by_log);
    CU_ASSERT_EQUAL(chunk_log_chunks(log) + n_dropped, 200);
    CU_ASSERT(chunk_log_live_bytes(log) <= 4ull * SEG);
    /* Nitro's order: the oldest go first, so the newest are all there */
    CU_ASSERT_EQUAL(check_range(log, 3, 0, 200, NULL), chunk_log_chunks(log));
    CU_ASSERT_EQUAL(check_range(log, 3, 195, 200, NULL), 5);
    CU_ASSERT_EQUAL(c->device_bytes_written, c->segments_written * SEG + CHUNK_LOG_META_HEADER + 4 * 8 + 4);
    close_ok(log);
    g_free(dir);
}

static void test_clean(void)
{
    char *dir = subdir("clean");
    ChunkLogOptions o = options(dir, 6, CHUNK_LOG_CLEAN);
    n_dropped = 0;
    ChunkLog *log = open_ok(&o);
    uint8_t *buf = g_malloc(MAXLEN);
    uint64_t user = 0;
    for (uint32_t i = 0; i < 400; i++) { /* the policy keeps one chunk in three */
        Fingerprint fp;
        uint32_t len = make_chunk(4, i, buf, &fp);
        GError *err = NULL;
        CU_ASSERT_TRUE(chunk_log_put(log, &fp, buf, len, &err));
        user += len;
        if (i % 3 != 0)
            chunk_log_drop(log, &fp);
    }
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err));
    const ChunkLogCounters *c = chunk_log_counters(log);
    CU_ASSERT(c->segments_cleaned > 0);
    CU_ASSERT(c->cleaner_bytes_written > 0);
    CU_ASSERT_EQUAL(c->user_bytes_written, user);
    /* every segment written whole, and chunklog.meta once at open (marked in use, no chunks) */
    CU_ASSERT_EQUAL(c->device_bytes_written, c->segments_written * SEG + CHUNK_LOG_META_HEADER + 6 * 8 + 4);
    /* the cleaner only rewrites segments at most half live */
    CU_ASSERT(c->cleaner_bytes_written <= c->segments_cleaned * (SEG - CHUNK_LOG_SEGMENT_HEADER) / 2);
    uint32_t held = 0;
    for (uint32_t i = 0; i < 400; i += 3)
        held += check_range(log, 4, i, i + 1, NULL);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    CU_ASSERT_EQUAL(held + n_dropped, (400 + 2) / 3);
    close_ok(log);
    log = open_ok(&o);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), held);
    held = 0;
    for (uint32_t i = 0; i < 400; i += 3)
        held += check_range(log, 4, i, i + 1, NULL);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    close_ok(log);
    g_free(buf);
    g_free(dir);
}

/* Segments the cleaner cannot read (the log file cut to nothing under the
 * open log: a victim past the file's new end is a short read, one before
 * it zeros) are evicted whole or lose their chunks as damaged, and the
 * open segment still gets a home: later puts land, the cleaner goes on,
 * and every chunk served is right. (Before chunk_log_space, a victim that
 * could not be read left the open segment without a home.) */
static void test_clean_unreadable_victim(void)
{
    char *dir = subdir("clean-unreadable");
    ChunkLogOptions o = options(dir, 6, CHUNK_LOG_CLEAN);
    n_dropped = 0;
    ChunkLog *log = open_ok(&o);
    uint8_t *buf = g_malloc(MAXLEN);
    GError *err = NULL;
    const ChunkLogCounters *c = chunk_log_counters(log);
    for (uint32_t i = 0; i < 600; i++) { /* the policy keeps one chunk in three */
        Fingerprint fp;
        uint32_t len = make_chunk(12, i, buf, &fp);
        CU_ASSERT_TRUE(chunk_log_put(log, &fp, buf, len, &err));
        if (i % 3 != 0)
            chunk_log_drop(log, &fp);
        if (i == 40) { /* several segments written */
            CU_ASSERT_FATAL(c->segments_written > 2);
            char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
            CU_ASSERT_EQUAL_FATAL(truncate(p, 0), 0);
            g_free(p);
        }
    }
    CU_ASSERT_TRUE(chunk_log_sync(log, &err));
    CU_ASSERT(c->damaged_reads > 0); /* 0 when the file is left alone */
    CU_ASSERT(c->segments_cleaned > 0);
    uint32_t held = 0;
    for (uint32_t i = 0; i < 600; i += 3)
        held += check_range(log, 12, i, i + 1, NULL);
    CU_ASSERT(held > 0);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    g_free(buf);
    close_ok(log);
    g_free(dir);
}

/* Flip the byte of chunks.log at offset `at`. */
static void flip(const char *dir, off_t at)
{
    char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    int fd = open(p, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t b;
    CU_ASSERT_EQUAL(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    CU_ASSERT_EQUAL(pwrite(fd, &b, 1, at), 1);
    close(fd);
    g_free(p);
}

/* Where chunk i of the series starts in chunks.log (-1: not there). */
static off_t find_chunk(const char *dir, uint32_t seed, uint32_t i)
{
    char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    gchar *data;
    gsize len;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(p, &data, &len, NULL));
    uint8_t *want = g_malloc(MAXLEN);
    Fingerprint fp;
    uint32_t n = make_chunk(seed, i, want, &fp);
    const void *at = memmem(data, len, want, n);
    off_t off = at ? (const gchar *)at - data : -1;
    g_free(want);
    g_free(data);
    g_free(p);
    return off;
}

static void test_damage(void)
{
    char *dir = subdir("damage");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 5, 0, 40);
    close_ok(log);
    off_t at = find_chunk(dir, 5, 3);
    CU_ASSERT_FATAL(at >= 0);
    flip(dir, at + 1);
    log = open_ok(&o);
    uint32_t damaged = 0;
    CU_ASSERT_EQUAL(check_range(log, 5, 0, 40, &damaged), 39);
    CU_ASSERT_EQUAL(damaged, 1);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, 1);
    CU_ASSERT_EQUAL(check_range(log, 5, 3, 4, &damaged), 0); /* dropped: now simply absent */
    CU_ASSERT_EQUAL(damaged, 1);
    put_range(log, 5, 3, 4); /* fetched again and put back */
    CU_ASSERT_EQUAL(check_range(log, 5, 0, 40, NULL), 40);
    close_ok(log);
    /* the same through the reader threads: a miss, asked for twice in the batch */
    flip(dir, find_chunk(dir, 5, 9) + 2);
    log = open_ok(&o);
    damaged = 0;
    CU_ASSERT_EQUAL(check_batch(log, 5, 0, 40, &damaged), 78);
    CU_ASSERT_EQUAL(damaged, 2);
    CU_ASSERT_FALSE(chunk_log_contains(log, &(Fingerprint){ { 0 } }, NULL));
    CU_ASSERT_EQUAL(check_range(log, 5, 9, 10, NULL), 0);
    close_ok(log);

    /* a damaged segment header after a crash: its chunks are gone, counted */
    log = open_ok(&o);
    char *copy = crash_copy(log, dir, "damage-copy");
    close_ok(log);
    flip(copy, 20);
    ChunkLogOptions oc = options(copy, 16, CHUNK_LOG_EVICT);
    log = open_ok(&oc);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 1);
    uint32_t held = check_range(log, 5, 0, 40, NULL);
    CU_ASSERT(held < 40);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    close_ok(log);
    g_free(copy);
    g_free(dir);
}

/* Admission checks the fingerprint: a put whose bytes do not hash to it
 * is refused (an integrity error, nothing written), so every CRC-32 in the
 * log, which a hit is checked against, stands for bytes that matched. */
static void test_put_checked(void)
{
    char *dir = subdir("put-checked");
    ChunkLogOptions o = options(dir, 4, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    uint8_t *buf = g_malloc(MAXLEN);
    Fingerprint fp;
    uint32_t len = make_chunk(11, 0, buf, &fp);
    buf[len / 2] ^= 1;
    GError *err = NULL;
    CU_ASSERT_FALSE(chunk_log_put(log, &fp, buf, len, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    CU_ASSERT_FALSE(chunk_log_contains(log, &fp, NULL));
    CU_ASSERT_EQUAL(chunk_log_counters(log)->put_bytes, 0);
    buf[len / 2] ^= 1;
    CU_ASSERT_TRUE(chunk_log_put(log, &fp, buf, len, &err));
    CU_ASSERT_EQUAL(check_range(log, 11, 0, 1, NULL), 1);
    close_ok(log);
    g_free(buf);
    g_free(dir);
}

/* A torn segment write after a crash: part of segment 0 holds another
 * segment's bytes (the new write landed only partly): the chunks whose
 * bytes changed are misses, the others are served, none wrong; with the
 * table's end overwritten the segment is not taken at all. */
static void test_torn(void)
{
    char *dir = subdir("torn");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 10, 0, 60);
    char *copy = crash_copy(log, dir, "torn-copy");
    close_ok(log);
    char *p = g_build_filename(copy, CHUNK_LOG_FILE, NULL);
    int fd = open(p, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t *other = g_malloc(SEG);
    CU_ASSERT_EQUAL(pread(fd, other, SEG, 2 * SEG), SEG);
    CU_ASSERT_EQUAL(pwrite(fd, other + SEG / 4, SEG / 4, SEG / 4), SEG / 4); /* the middle of segment 0 */
    CU_ASSERT_EQUAL(pwrite(fd, other + SEG - 4096, 4096, 2 * SEG - 4096), 4096); /* the tail of segment 1 */
    close(fd);
    ChunkLogOptions oc = options(copy, 16, CHUNK_LOG_EVICT);
    log = open_ok(&oc);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 1); /* segment 1: its table is another's */
    uint32_t damaged = 0;
    uint32_t held = check_range(log, 10, 0, 60, &damaged); /* every hit's bytes compared */
    CU_ASSERT(damaged > 0);
    CU_ASSERT(held > 0);
    CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
    close_ok(log);
    g_free(other);
    g_free(p);
    g_free(copy);
    g_free(dir);
}

static void test_truncated(void)
{
    char *dir = subdir("trunc");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 6, 0, 60);
    close_ok(log);
    char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    CU_ASSERT_EQUAL(truncate(p, SEG + SEG / 2), 0); /* mid-segment, after a clean close */
    log = open_ok(&o);
    uint32_t damaged = 0;
    uint32_t held = check_range(log, 6, 0, 60, &damaged);
    CU_ASSERT(damaged > 0);
    CU_ASSERT(held + damaged <= 60);
    close_ok(log);
    /* and after a crash: the torn segment is not taken at all */
    log = open_ok(&o);
    char *copy = crash_copy(log, dir, "trunc-copy");
    close_ok(log);
    char *cp = g_build_filename(copy, CHUNK_LOG_FILE, NULL);
    CU_ASSERT_EQUAL(truncate(cp, SEG / 2), 0);
    ChunkLogOptions oc = options(copy, 16, CHUNK_LOG_EVICT);
    log = open_ok(&oc);
    damaged = 0;
    CU_ASSERT_EQUAL(check_range(log, 6, 0, 60, &damaged), chunk_log_chunks(log));
    close_ok(log);
    g_free(cp);
    g_free(copy);
    g_free(p);
    g_free(dir);
}

static void test_foreign(void)
{
    char *dir = subdir("foreign");
    ChunkLogOptions o = options(dir, 8, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 7, 0, 20);
    close_ok(log);
    ChunkLogOptions other = o;
    other.store_id[0] ^= 1; /* another store: started empty */
    log = open_ok(&other);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
    put_range(log, 7, 0, 20);
    close_ok(log);
    /* without chunklog.meta, the scan tells the other store's segments by their headers */
    char *meta_file = g_build_filename(dir, CHUNK_LOG_META_FILE, NULL);
    CU_ASSERT_EQUAL(g_unlink(meta_file), 0);
    log = open_ok(&o);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 0);
    CU_ASSERT_EQUAL(check_range(log, 7, 0, 20, NULL), 0);
    close_ok(log);
    CU_ASSERT_EQUAL(g_unlink(meta_file), 0);
    log = open_ok(&other); /* and its own come back */
    CU_ASSERT_EQUAL(check_range(log, 7, 0, 20, NULL), 20);
    close_ok(log);
    g_free(meta_file);
    ChunkLogOptions bigger = other;
    bigger.segment_size = 2 * SEG; /* another segment size: started empty */
    bigger.capacity_bytes = 8ull * SEG;
    log = open_ok(&bigger);
    CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
    close_ok(log);
    /* a container cache's files: removed, the log starts */
    char *slots = g_build_filename(dir, "slots.dat", NULL), *meta = g_build_filename(dir, "cache.meta", NULL);
    CU_ASSERT_TRUE(g_file_set_contents(slots, "x", 1, NULL));
    CU_ASSERT_TRUE(g_file_set_contents(meta, "y", 1, NULL));
    log = open_ok(&o);
    CU_ASSERT_FALSE(g_file_test(slots, G_FILE_TEST_EXISTS));
    CU_ASSERT_FALSE(g_file_test(meta, G_FILE_TEST_EXISTS));
    close_ok(log);
    GError *err = NULL;
    /* and the other way: the container cache opening a chunk cache's directory removes the log */
    char *log_file = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    CU_ASSERT_TRUE(g_file_test(log_file, G_FILE_TEST_EXISTS));
    SsdStore *ss = ssd_store_open(dir, 128 * 1024, 4, FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL(ss);
    ssd_store_close(ss);
    CU_ASSERT_FALSE(g_file_test(log_file, G_FILE_TEST_EXISTS));
    g_free(log_file);
    log = open_ok(&o);
    close_ok(log);
    CU_ASSERT_TRUE(cache_dir_remove(dir, &chunk_log_dir_format, &err));
    CU_ASSERT_FALSE(cache_dir_remove(dir, &chunk_log_dir_format, &err));
    /* options it cannot work with */
    ChunkLogOptions bad = o;
    bad.segment_size = SEG + 1;
    CU_ASSERT_PTR_NULL(chunk_log_open(&bad, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    bad = o;
    bad.capacity_bytes = SEG;
    CU_ASSERT_PTR_NULL(chunk_log_open(&bad, &err));
    CU_ASSERT(err && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    g_free(slots);
    g_free(meta);
    g_free(dir);
}

/* The model of the property test: which chunks of the series the log must
 * hold (put, not dropped by us, not reported dropped by the log). */
static gboolean *model_in;

static void model_dropped(void *ctx, const Fingerprint *fp, uint32_t length)
{
    (void)length;
    uint32_t *index_of = g_hash_table_lookup(ctx, fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(index_of);
    CU_ASSERT_TRUE(model_in[*index_of]); /* only what it held */
    model_in[*index_of] = FALSE;
}

/* Random puts, drops, gets, batches, syncs and clean reopens against the
 * model, in both reclaim modes: after every step the log holds exactly the
 * model's chunks, its live bytes are theirs, and every get gives the
 * chunk's bytes. */
/* Flip every 499th byte in the first half of each segment's bytes (the
 * chunks' stored bytes; headers and tables stay intact). */
static void flip_data(const char *dir)
{
    char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
    gchar *data;
    gsize len;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(p, &data, &len, NULL));
    for (gsize i = 0; i < len; i += 499)
        if (i % SEG >= CHUNK_LOG_SEGMENT_HEADER && i % SEG < SEG / 2)
            data[i] ^= 0x21;
    CU_ASSERT_TRUE(g_file_set_contents(p, data, (gssize)len, NULL));
    g_free(data);
    g_free(p);
}

/* Compressed chunks: stored shorter than they are and counted so, served
 * right from the open segment, from written segments one by one and
 * through the reader threads, after a clean reopen and a crash rebuild,
 * moved by the cleaner as they are (each still right); damaged compressed
 * bytes are misses, never wrong bytes; a log opened with another
 * compression, or of format version 1, starts empty. */
static void test_compression(void)
{
    compressible = TRUE;
    for (CacheCodecKind k = CACHE_CODEC_LZ4; k <= CACHE_CODEC_ZSTD; k++) {
        char *dir = g_strdup_printf("%s/comp-%s", tmpdir, cache_codec_name(k));
        ChunkLogOptions o = options(dir, 6, CHUNK_LOG_CLEAN);
        o.compression = k;
        n_dropped = 0;
        ChunkLog *log = open_ok(&o);
        uint8_t *buf = g_malloc(MAXLEN), *out = g_malloc(MAXLEN);
        CacheCodec *codec = cache_codec_new(k, 0);
        uint64_t raw = 0, stored = 0, compressed = 0;
        for (uint32_t i = 0; i < 300; i++) {
            Fingerprint fp;
            uint32_t len = make_chunk(7, i, buf, &fp);
            double cpu = 0;
            uint32_t n = chunk_log_compress(codec, buf, len, out, &cpu);
            CU_ASSERT(n == len || n <= len - (len + 7) / 8); /* saves an eighth, or stored as it is */
            GError *err = NULL;
            CU_ASSERT_TRUE(chunk_log_put(log, &fp, buf, len, &err));
            raw += len;
            stored += n;
            compressed += n < len;
            if (i % 3 != 0)
                chunk_log_drop(log, &fp);
            if (i == 2) { /* from the open segment */
                CU_ASSERT_EQUAL(check_range(log, 7, 0, 1, NULL), 1);
            }
        }
        const ChunkLogCounters *c = chunk_log_counters(log);
        CU_ASSERT_EQUAL(c->put_bytes, raw);
        CU_ASSERT_EQUAL(c->put_stored_bytes, stored); /* the same rule as chunk_log_compress alone */
        CU_ASSERT_EQUAL(c->chunks_compressed, compressed);
        CU_ASSERT(compressed > 200 && stored < raw / 2);
        CU_ASSERT(c->segments_cleaned > 0 && c->cleaner_bytes_written > 0);
        uint32_t held = 0, damaged = 0;
        for (uint32_t i = 0; i < 300; i += 3)
            held += check_range(log, 7, i, i + 1, &damaged);
        CU_ASSERT_EQUAL(damaged, 0);
        CU_ASSERT_EQUAL(held, chunk_log_chunks(log));
        CU_ASSERT_EQUAL(held + n_dropped, 100);
        CU_ASSERT(c->cpu_decompress_s >= 0.0 && c->cpu_compress_s > 0.0);
        char *copy_name = g_strdup_printf("comp-crash-%s", cache_codec_name(k));
        char *copy = crash_copy(log, dir, copy_name);
        g_free(copy_name);
        close_ok(log);

        log = open_ok(&o); /* clean close */
        CU_ASSERT_EQUAL(chunk_log_chunks(log), held);
        CU_ASSERT_EQUAL(check_batch(log, 7, 0, 300, &damaged), 2 * held);
        CU_ASSERT_EQUAL(damaged, 0);
        close_ok(log);
        ChunkLogOptions oc = o;
        oc.directory = copy;
        log = open_ok(&oc); /* after a crash: from the segments' tables (drops not yet reclaimed come back) */
        CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_segments, 0);
        CU_ASSERT(chunk_log_chunks(log) >= held);
        CU_ASSERT_EQUAL(check_range(log, 7, 0, 300, &damaged), chunk_log_chunks(log));
        CU_ASSERT_EQUAL(damaged, 0);
        close_ok(log);

        /* damaged stored bytes: misses, one by one and in a batch */
        flip_data(dir);
        log = open_ok(&o);
        uint32_t before = (uint32_t)chunk_log_chunks(log);
        damaged = 0;
        uint32_t served = check_batch(log, 7, 0, 300, &damaged);
        CU_ASSERT(damaged > 0);
        CU_ASSERT_EQUAL(served / 2 + damaged / 2, before);
        CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, damaged); /* both asks of each */
        CU_ASSERT_EQUAL(check_range(log, 7, 0, 300, NULL), served / 2);
        close_ok(log);

        /* another compression: started empty */
        ChunkLogOptions on = o;
        on.compression = k == CACHE_CODEC_LZ4 ? CACHE_CODEC_ZSTD : CACHE_CODEC_NONE;
        log = open_ok(&on);
        CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
        close_ok(log);
        /* and a crash copy opened with another compression: its segments are not taken */
        on.directory = copy;
        log = open_ok(&on);
        CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
        close_ok(log);

        /* a chunklog.meta of format version 1 (before compression) or 2
         * (before each chunk's CRC-32): started empty */
        for (uint8_t v = 1; v <= 2; v++) {
            log = open_ok(&o);
            put_range(log, 8, 0, 20);
            close_ok(log);
            char *meta = g_build_filename(dir, CHUNK_LOG_META_FILE, NULL);
            gchar *data;
            gsize len;
            CU_ASSERT_TRUE_FATAL(g_file_get_contents(meta, &data, &len, NULL));
            data[8] = v;
            CU_ASSERT_TRUE(g_file_set_contents(meta, data, (gssize)len, NULL));
            log = open_ok(&o);
            CU_ASSERT_EQUAL(chunk_log_chunks(log), 0);
            CU_ASSERT_EQUAL(check_range(log, 8, 0, 20, NULL), 0);
            close_ok(log);
            g_free(data);
            g_free(meta);
        }
        cache_codec_free(codec);
        g_free(buf);
        g_free(out);
        g_free(copy);
        g_free(dir);
    }
    compressible = FALSE;
}

/* Fuzz the decompression path: rounds of random damage (1..4 bytes set to
 * random values, or the stored bytes' tail zeroed) inside one compressed
 * chunk's stored bytes, found through chunklog.meta; the chunk must then be
 * a miss or, should the damage not change what it decodes to, its right
 * bytes; every other chunk is served right. Run under the sanitizers with
 * the unit tests. */
static void test_compressed_fuzz(void)
{
    compressible = TRUE;
    GRand *r = g_rand_new_with_seed(23);
    uint32_t rounds_damaged = 0;
    for (uint32_t round = 0; round < unit_reps(40); round++) {
        CacheCodecKind k = round % 2 ? CACHE_CODEC_ZSTD : CACHE_CODEC_LZ4;
        char *dir = g_strdup_printf("%s/fuzz-%u", tmpdir, round);
        ChunkLogOptions o = options(dir, 16, CHUNK_LOG_EVICT);
        o.compression = k;
        ChunkLog *log = open_ok(&o);
        put_range(log, 100 + round, 0, 30);
        close_ok(log);
        char *meta = g_build_filename(dir, CHUNK_LOG_META_FILE, NULL);
        gchar *data;
        gsize len;
        CU_ASSERT_TRUE_FATAL(g_file_get_contents(meta, &data, &len, NULL));
        ChunkLogMeta m;
        CU_ASSERT_TRUE_FATAL(chunk_log_meta_decode((const uint8_t *)data, len, &m));
        g_free(data);
        const ChunkLogEntry *victim = NULL;
        for (uint32_t i = 0, start = (uint32_t)g_rand_int_range(r, 0, (gint32)m.n_chunks); i < m.n_chunks; i++) {
            const ChunkLogEntry *e = &m.chunks[(start + i) % m.n_chunks];
            if (e->stored < e->length) {
                victim = e;
                break;
            }
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(victim);
        char *p = g_build_filename(dir, CHUNK_LOG_FILE, NULL);
        int fd = open(p, O_RDWR);
        CU_ASSERT_FATAL(fd >= 0);
        off_t base = (off_t)victim->segment * SEG + victim->offset;
        if (g_rand_int_range(r, 0, 4) == 0) { /* the tail zeroed: a truncated frame */
            uint32_t cut = (uint32_t)g_rand_int_range(r, 1, (gint32)victim->stored + 1);
            uint8_t *zeros = g_malloc0(cut);
            CU_ASSERT_EQUAL(pwrite(fd, zeros, cut, base + victim->stored - cut), (ssize_t)cut);
            g_free(zeros);
        } else {
            for (int n = g_rand_int_range(r, 1, 5); n > 0; n--) {
                uint8_t b = (uint8_t)g_rand_int(r);
                off_t at = base + g_rand_int_range(r, 0, (gint32)victim->stored);
                CU_ASSERT_EQUAL(pwrite(fd, &b, 1, at), 1);
            }
        }
        close(fd);
        g_free(p);
        Fingerprint vfp = victim->fp;
        chunk_log_meta_clear(&m);
        g_free(meta);
        log = open_ok(&o);
        uint32_t damaged = 0;
        uint32_t held = round % 3 ? check_range(log, 100 + round, 0, 30, &damaged)
                                  : check_batch(log, 100 + round, 0, 30, &damaged) / 2;
        CU_ASSERT(damaged <= (round % 3 ? 1u : 2u));
        CU_ASSERT(held + (damaged ? 1 : 0) == 30);
        if (damaged)
            CU_ASSERT_FALSE(chunk_log_contains(log, &vfp, NULL)); /* dropped */
        rounds_damaged += damaged > 0;
        close_ok(log);
        g_free(dir);
    }
    CU_ASSERT(rounds_damaged >= unit_reps(40) * 3 / 4); /* the damage reached the decoder nearly every time */
    g_rand_free(r);
    compressible = FALSE;
}

static void test_random_operations(void)
{
    const uint32_t n = 300, seed = 9;
    uint8_t *buf = g_malloc(MAXLEN), *got = g_malloc(SEG);
    Fingerprint *fps = g_new(Fingerprint, n);
    uint32_t *lens = g_new(uint32_t, n);
    GHashTable *index_of = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, NULL, g_free);
    for (uint32_t i = 0; i < n; i++) {
        lens[i] = make_chunk(seed, i, buf, &fps[i]);
        uint32_t *v = g_new(uint32_t, 1);
        *v = i;
        g_hash_table_insert(index_of, &fps[i], v);
    }
    for (int mode = 0; mode < 2; mode++) {
        char *dir = subdir(mode ? "random-clean" : "random-evict");
        ChunkLogOptions o = options(dir, 5, mode ? CHUNK_LOG_CLEAN : CHUNK_LOG_EVICT);
        o.dropped = model_dropped;
        o.dropped_ctx = index_of;
        model_in = g_new0(gboolean, n);
        ChunkLog *log = open_ok(&o);
        GRand *r = g_rand_new_with_seed(100 + mode);
        GError *err = NULL;
        uint64_t reclaimed = 0, cleaned = 0; /* segments evicted and cleaned, over the reopens */
        for (unsigned step = 0; step < unit_reps(4000); step++) {
            uint32_t i = (uint32_t)g_rand_int_range(r, 0, n);
            int op = g_rand_int_range(r, 0, 100);
            if (op < 45) {
                make_chunk(seed, i, buf, &fps[i]);
                model_in[i] = TRUE; /* before: a reclaim during the put may drop others, never this one */
                CU_ASSERT_TRUE(chunk_log_put(log, &fps[i], buf, lens[i], &err));
            } else if (op < 70) {
                CU_ASSERT_EQUAL(chunk_log_drop(log, &fps[i]), model_in[i]);
                model_in[i] = FALSE;
            } else if (op < 90) {
                uint32_t len = 0;
                ChunkLogGet g = chunk_log_get(log, &fps[i], got, &len);
                CU_ASSERT_EQUAL(g, model_in[i] ? CHUNK_LOG_HIT : CHUNK_LOG_ABSENT);
                if (g == CHUNK_LOG_HIT) {
                    make_chunk(seed, i, buf, &fps[i]);
                    CU_ASSERT(len == lens[i] && memcmp(got, buf, len) == 0);
                }
            } else if (op < 95) {
                ChunkLogRead reads[3];
                uint8_t *bufs = g_malloc(3 * (size_t)MAXLEN);
                uint32_t which[3];
                for (int k = 0; k < 3; k++) {
                    which[k] = (uint32_t)g_rand_int_range(r, 0, n);
                    reads[k] = (ChunkLogRead){ .fp = &fps[which[k]], .buf = bufs + (size_t)k * MAXLEN };
                }
                chunk_log_get_many(log, reads, 3);
                for (int k = 0; k < 3; k++)
                    CU_ASSERT_EQUAL(reads[k].result, model_in[which[k]] ? CHUNK_LOG_HIT : CHUNK_LOG_ABSENT);
                g_free(bufs);
            } else if (op < 98) {
                CU_ASSERT_TRUE(chunk_log_sync(log, &err));
            } else {
                reclaimed += chunk_log_counters(log)->segments_evicted;
                cleaned += chunk_log_counters(log)->segments_cleaned;
                close_ok(log);
                log = open_ok(&o);
            }
            uint64_t count = 0, bytes = 0;
            for (uint32_t k = 0; k < n; k++)
                if (model_in[k]) {
                    count++;
                    bytes += lens[k];
                }
            CU_ASSERT_EQUAL(chunk_log_chunks(log), count);
            CU_ASSERT_EQUAL(chunk_log_live_bytes(log), bytes);
            CU_ASSERT(chunk_log_live_bytes(log) <= 5ull * SEG);
        }
        for (uint32_t k = 0; k < n; k++)
            CU_ASSERT_EQUAL(chunk_log_contains(log, &fps[k], NULL), model_in[k]);
        const ChunkLogCounters *c = chunk_log_counters(log);
        reclaimed += c->segments_evicted;
        cleaned += c->segments_cleaned;
        CU_ASSERT(reclaimed > 0);
        CU_ASSERT(mode ? cleaned > 0 : cleaned == 0);
        CU_ASSERT_EQUAL(c->damaged_reads, 0);
        close_ok(log);
        g_rand_free(r);
        g_free(model_in);
        g_free(dir);
    }
    g_hash_table_destroy(index_of);
    g_free(fps);
    g_free(lens);
    g_free(buf);
    g_free(got);
}

/* A batch started with chunk_log_get_many_start while the caller goes on:
 * a drop of one of its chunks and gets between start and wait are
 * allowed; a put that writes segments (evicting the batch's own) waits for
 * it first, so every chunk it reports is a hit with the chunk's bytes,
 * never a read of reused space. */
static void test_started_batch(void)
{
    char *dir = subdir("started");
    ChunkLogOptions o = options(dir, 4, CHUNK_LOG_EVICT);
    ChunkLog *log = open_ok(&o);
    put_range(log, 21, 0, 20);
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err)); /* on the SSD: the readers read them */
    enum { N = 20 };
    ChunkLogRead reads[N];
    Fingerprint fps[N];
    uint8_t *want = g_malloc(MAXLEN);
    for (uint32_t i = 0; i < N; i++) {
        make_chunk(21, i, want, &fps[i]);
        reads[i] = (ChunkLogRead){ .fp = &fps[i], .buf = g_malloc(MAXLEN) };
    }
    chunk_log_get_many_start(log, reads, N);
    CU_ASSERT_TRUE(chunk_log_drop(log, &fps[3]));
    CU_ASSERT_EQUAL(check_range(log, 21, 5, 7, NULL), 2); /* gets between */
    put_range(log, 22, 0, 40); /* several segments: the oldest, this batch's, evicted */
    chunk_log_get_many_wait(log);
    uint32_t hits = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t len = make_chunk(21, i, want, &fps[i]);
        CU_ASSERT_NOT_EQUAL(reads[i].result, CHUNK_LOG_DAMAGED);
        if (reads[i].result == CHUNK_LOG_HIT) {
            CU_ASSERT(reads[i].len == len && memcmp(reads[i].buf, want, len) == 0);
            hits++;
        }
        g_free(reads[i].buf);
    }
    CU_ASSERT_EQUAL(hits, N); /* all read before the put reclaimed their segment */
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, 0);
    CU_ASSERT(chunk_log_counters(log)->segments_evicted > 0);
    chunk_log_get_many_wait(log); /* nothing started: nothing to do */
    g_free(want);
    close_ok(log);
    g_free(dir);
}

/* Batches in flight together (CHUNK_LOG_BATCHES_IN_FLIGHT): three
 * started one after another, the third finishing the first; waiting for
 * the third's number takes the second's results too, in order; each batch
 * gets its own chunks' bytes. Repeated, so the reader threads interleave
 * batches in many ways. */
static void test_batches_in_flight(void)
{
    char *dir = subdir("in-flight");
    ChunkLogOptions o = options(dir, 16, CHUNK_LOG_CLEAN);
    ChunkLog *log = open_ok(&o);
    enum { B = 3, N = 12 };
    put_range(log, 23, 0, B * N);
    GError *err = NULL;
    CU_ASSERT_TRUE(chunk_log_sync(log, &err));
    G_STATIC_ASSERT(B == CHUNK_LOG_BATCHES_IN_FLIGHT + 1);
    ChunkLogRead reads[B][N];
    Fingerprint fps[B][N];
    uint8_t *want = g_malloc(MAXLEN);
    for (unsigned round = 0; round < unit_reps(20); round++) {
        uint64_t seq[B];
        for (uint32_t b = 0; b < B; b++) {
            for (uint32_t i = 0; i < N; i++) {
                make_chunk(23, b * N + i, want, &fps[b][i]);
                reads[b][i] = (ChunkLogRead){ .fp = &fps[b][i], .buf = g_malloc(MAXLEN),
                                              .result = CHUNK_LOG_ABSENT };
            }
            seq[b] = chunk_log_get_many_start(log, reads[b], N);
            CU_ASSERT(b == 0 || seq[b] == seq[b - 1] + 1);
        }
        /* the third start finished the first: its results are in */
        for (uint32_t i = 0; i < N; i++)
            CU_ASSERT_EQUAL(reads[0][i].result, CHUNK_LOG_HIT);
        chunk_log_get_many_wait_for(log, seq[B - 1]);
        for (uint32_t b = 0; b < B; b++)
            for (uint32_t i = 0; i < N; i++) {
                uint32_t len = make_chunk(23, b * N + i, want, &fps[b][i]);
                CU_ASSERT(reads[b][i].result == CHUNK_LOG_HIT && reads[b][i].len == len &&
                          memcmp(reads[b][i].buf, want, len) == 0);
                g_free(reads[b][i].buf);
            }
        chunk_log_get_many_wait_for(log, seq[0]); /* finished already: nothing to do */
    }
    CU_ASSERT_EQUAL(chunk_log_counters(log)->damaged_reads, 0);
    g_free(want);
    close_ok(log);
    g_free(dir);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_log", make_tmp, remove_tmp);
    CU_add_test(s, "index against a hash table", test_index_random);
    CU_add_test(s, "chunklog.meta format", test_meta_format);
    CU_add_test(s, "segment format", test_segment_format);
    CU_add_test(s, "round trip and reopen", test_round_trip_and_reopen);
    CU_add_test(s, "batches in flight together", test_batches_in_flight);
    CU_add_test(s, "rebuild after a crash", test_crash_rebuild);
    CU_add_test(s, "O_DIRECT", test_o_direct);
    CU_add_test(s, "evict the oldest segment", test_evict);
    CU_add_test(s, "clean the emptiest segment", test_clean);
    CU_add_test(s, "clean an unreadable segment", test_clean_unreadable_victim);
    CU_add_test(s, "damaged chunk and segment", test_damage);
    CU_add_test(s, "a put checked against its fingerprint", test_put_checked);
    CU_add_test(s, "torn segment write", test_torn);
    CU_add_test(s, "truncated log", test_truncated);
    CU_add_test(s, "foreign directory and bad options", test_foreign);
    CU_add_test(s, "random operations against a model", test_random_operations);
    CU_add_test(s, "a started batch across drops, gets and puts", test_started_batch);
    CU_add_test(s, "compressed chunks", test_compression);
    CU_add_test(s, "damaged compressed chunks (fuzz)", test_compressed_fuzz);
}

UNIT_MAIN(add_suites)
