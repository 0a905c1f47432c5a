/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_compress.c: ssd-cache-compression. The codec alone (round
 * trips, the bound, damaged and truncated blocks never decode past their
 * length), and the container cache with it against an in-memory store of
 * compressible and incompressible containers: every read gives the right
 * bytes, real and simulation mode count the same, a compressed copy saves
 * whole pages, a damaged compressed copy is a miss refetched and counted,
 * a restart keeps compressed copies and another compression starts empty;
 * a hit checks a compressed copy's stored bytes (slot header version 3),
 * so damage that still decodes to the right length is a miss too, and a
 * version 2 copy (no such check) is checked decoded. */
#include "cache/common/cache_codec.h"
#include "cache/container/cache_core.h"
#include "cache/container/ssd_store.h"
#include "test_cache_util.h"
#include "unit.h"
#include "unit_tmpdir.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/le.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#define CSIZE (64u << 10)
#define NCONT 24u

/* Container id's bytes: text-like (compresses about 3 to 6 times) unless
 * id % 5 == 4, which is pseudo-random (does not compress). */
static void fill(uint8_t *buf, ContainerId id)
{
    uint64_t st = 0x9e37 + id;
    if (id % 5 == 4) {
        for (size_t i = 0; i < CSIZE; i++)
            buf[i] = (uint8_t)(test_rand(&st) >> 24);
        return;
    }
    static const char *const words[] = { "chunk ", "container ", "recipe ", "fingerprint ", "segment ",
                                         "backup ", "restore ", "cache " };
    size_t at = 0;
    while (at < CSIZE) {
        char w[32];
        int n = g_snprintf(w, sizeof w, "%s%u ", words[test_rand(&st) % 8], (unsigned)(test_rand(&st) % 97));
        for (int i = 0; i < n && at < CSIZE; i++)
            buf[at++] = (uint8_t)w[i];
    }
    buf[0] = (uint8_t)id;
}

typedef struct {
    ContainerSource base; /* first */
    unsigned reads;
} MemSource;

static gboolean mem_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    if (id >= NCONT) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "container %u past the end", id);
        return FALSE;
    }
    fill(buf, id);
    ((MemSource *)self)->reads++;
    return TRUE;
}

static MemSource mem = { .base = { .read = mem_read, .container_size = CSIZE } };
static MemSource mem_sim = { .base = { .read = mem_read, .container_size = CSIZE } }; /* simulation's */

/* ---------- the codec ---------- */

static void test_codec_round_trip(void)
{
    uint8_t *in = g_malloc(CSIZE), *packed = g_malloc(CSIZE), *out = g_malloc(CSIZE);
    size_t cap = ssd_store_compress_cap(CSIZE);
    CU_ASSERT_EQUAL(cap, CSIZE - 4096);
    CU_ASSERT_EQUAL(ssd_store_compress_cap(4096), 0);
    CU_ASSERT_EQUAL(ssd_store_compress_cap(4097), 4096);
    for (int k = CACHE_CODEC_LZ4; k <= CACHE_CODEC_ZSTD; k++) {
        for (int level = 0; level <= 3; level += 3) {
            CacheCodec *c = cache_codec_new((CacheCodecKind)k, level);
            fill(in, 1);
            size_t n = cache_codec_compress(c, in, CSIZE, packed, cap);
            CU_ASSERT(n > 0 && n < CSIZE / 2);
            CU_ASSERT_TRUE(cache_codec_decompress(c, (CacheCodecKind)k, packed, n, out, CSIZE));
            CU_ASSERT_EQUAL(memcmp(in, out, CSIZE), 0);
            /* another expected length, a short block, the wrong codec: refused */
            CU_ASSERT_FALSE(cache_codec_decompress(c, (CacheCodecKind)k, packed, n, out, CSIZE - 1));
            CU_ASSERT_FALSE(cache_codec_decompress(c, (CacheCodecKind)k, packed, n - 1, out, CSIZE));
            /* a bound too small: 0, "store it as it is" */
            CU_ASSERT_EQUAL(cache_codec_compress(c, in, CSIZE, packed, n / 2), 0);
            fill(in, 4); /* random: does not save a page */
            CU_ASSERT_EQUAL(cache_codec_compress(c, in, CSIZE, packed, cap), 0);
            cache_codec_free(c);
        }
    }
    CacheCodec *none = cache_codec_new(CACHE_CODEC_NONE, 0);
    CU_ASSERT_EQUAL(cache_codec_compress(none, in, CSIZE, packed, cap), 0);
    cache_codec_free(none);
    CacheCodecKind k;
    CU_ASSERT_TRUE(cache_codec_parse("zstd", &k) && k == CACHE_CODEC_ZSTD);
    CU_ASSERT_FALSE(cache_codec_parse("gzip", &k));
    const char *why;
    CU_ASSERT_FALSE(cache_codec_level_ok(CACHE_CODEC_NONE, 1, &why));
    CU_ASSERT_FALSE(cache_codec_level_ok(CACHE_CODEC_ZSTD, 20, &why));
    CU_ASSERT_TRUE(cache_codec_level_ok(CACHE_CODEC_LZ4, 9, &why));
    g_free(in);
    g_free(packed);
    g_free(out);
}

/* Damaged blocks: every single-byte change and many truncations of a real
 * block either fail or decode to exactly the length asked (into a buffer of
 * exactly that size: the sanitizer build sees any overrun). Wrong bytes of
 * the right length are possible; the cache's check catches them. */
static void test_codec_damaged_blocks(void)
{
    uint8_t *in = g_malloc(CSIZE), *packed = g_malloc(CSIZE);
    fill(in, 2);
    for (int k = CACHE_CODEC_LZ4; k <= CACHE_CODEC_ZSTD; k++) {
        CacheCodec *c = cache_codec_new((CacheCodecKind)k, 0);
        size_t n = cache_codec_compress(c, in, CSIZE, packed, ssd_store_compress_cap(CSIZE));
        CU_ASSERT_FATAL(n > 0);
        unsigned failed = 0, tries = 0;
        uint64_t st = 77;
        for (size_t at = 0; at < n; at += (1 + n / 700) * unit_thin(), tries++) {
            uint8_t *bad = g_memdup2(packed, n), *out = g_malloc(CSIZE);
            bad[at] ^= (uint8_t)(1 + test_rand(&st) % 255);
            if (!cache_codec_decompress(c, (CacheCodecKind)k, bad, n, out, CSIZE))
                failed++;
            size_t cut = test_rand(&st) % n;
            CU_ASSERT_FALSE(cache_codec_decompress(c, (CacheCodecKind)k, bad, cut, out, CSIZE) &&
                            memcmp(out, in, CSIZE) == 0 && cut < n / 2);
            g_free(bad);
            g_free(out);
        }
        CU_ASSERT(tries > 100 / unit_thin());
        CU_ASSERT(failed > 0); /* some damage is always seen by the codec itself */
        cache_codec_free(c);
    }
    g_free(in);
    g_free(packed);
}

/* ---------- the cache with compression ---------- */

static char *cachedir(void)
{
    return g_build_filename(tmpdir, "ssd", NULL);
}

static CacheCoreOptions options(CacheCodecKind kind, CacheMode mode, uint32_t capacity)
{
    CacheCoreOptions o = test_options(test_policy("lru"), NULL, capacity, NCONT, NULL);
    o.container_size = CSIZE;
    o.mode = mode;
    o.backing = &mem.base;
    o.compression = kind;
    return o;
}

static CacheCore *open_real(CacheCodecKind kind, uint32_t capacity, char *dir)
{
    CacheCoreOptions o = options(kind, CACHE_MODE_REAL, capacity);
    o.directory = dir;
    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    if (err)
        fprintf(stderr, "\nopen: %s\n", err->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

static gboolean read_right(CacheCore *c, ContainerId id)
{
    uint8_t *got = g_malloc(CSIZE), *want = g_malloc(CSIZE);
    GError *err = NULL;
    gboolean ok = cache_access(c, id, got, &err);
    g_clear_error(&err);
    fill(want, id);
    ok = ok && memcmp(got, want, CSIZE) == 0;
    g_free(got);
    g_free(want);
    return ok;
}

static void rm_cache(char *dir)
{
    const char *names[] = { SSD_STORE_SLOT_FILE, CACHE_DIR_LOCK_FILE, "cache.meta" };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        char *p = g_build_filename(dir, names[i], NULL);
        g_unlink(p);
        g_free(p);
    }
    g_rmdir(dir);
}

static void test_real_equals_simulation(void)
{
    for (int k = CACHE_CODEC_NONE; k <= CACHE_CODEC_ZSTD; k++) {
        char *dir = cachedir();
        CacheCore *real = open_real((CacheCodecKind)k, 6, dir);
        CacheCoreOptions so = options((CacheCodecKind)k, CACHE_MODE_SIMULATE, 6);
        so.backing = &mem_sim.base;
        mem.reads = mem_sim.reads = 0;
        CacheCore *sim = cache_core_open(&so, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
        uint32_t *trace = test_trace(23 + k, NCONT, 400);
        unsigned wrong = 0;
        for (size_t i = 0; i < 400; i++) {
            if (!read_right(real, trace[i]))
                wrong++;
            CU_ASSERT_TRUE(cache_access(sim, trace[i], NULL, NULL));
        }
        CU_ASSERT_EQUAL(wrong, 0);
        CacheReport rr, rs;
        cache_core_report(real, &rr);
        cache_core_report(sim, &rs);
        CU_ASSERT_EQUAL(rr.c.hits, rs.c.hits);
        CU_ASSERT_EQUAL(rr.c.ssd_bytes_written, rs.c.ssd_bytes_written);
        CU_ASSERT_EQUAL(rr.c.ssd_logical_bytes_written, rs.c.ssd_logical_bytes_written);
        CU_ASSERT_EQUAL(rr.c.ssd_compressed_written, rs.c.ssd_compressed_written);
        CU_ASSERT_EQUAL(rr.c.ssd_bytes_read, rs.c.ssd_bytes_read);
        CU_ASSERT_DOUBLE_EQUAL(rr.c.model_access_s, rs.c.model_access_s, 1e-9);
        CU_ASSERT_EQUAL(rr.cached_stored_bytes, rs.cached_stored_bytes);
        CU_ASSERT(rr.c.hits > 50);
        CU_ASSERT_EQUAL(rr.c.ssd_corrupt_dropped, 0);
        CU_ASSERT_EQUAL(rr.c.ssd_logical_bytes_written, rr.c.ssd_containers_written * CSIZE);
        if (k == CACHE_CODEC_NONE) {
            CU_ASSERT_EQUAL(rr.c.ssd_bytes_written, rr.c.ssd_logical_bytes_written);
            CU_ASSERT_EQUAL(rr.c.ssd_compressed_written, 0);
        } else {
            /* 4 in 5 containers compress; each saves whole pages */
            CU_ASSERT(rr.c.ssd_compressed_written > 0 && rr.c.ssd_compressed_written < rr.c.ssd_containers_written);
            CU_ASSERT(rr.c.ssd_bytes_written % 4096 == 0);
            CU_ASSERT(rr.c.ssd_bytes_written + 4096 * rr.c.ssd_compressed_written <= rr.c.ssd_logical_bytes_written);
            CU_ASSERT(rr.compression_ratio > 1.5);
            CU_ASSERT(rr.c.cpu_compress_s > 0 || rr.c.ssd_compressed_written < 5);
            CU_ASSERT_EQUAL(rr.capacity_logical_bytes, rr.capacity_bytes); /* one slot per container */
            CU_ASSERT(rr.cached_stored_bytes < rr.cached_bytes);
            /* decompression is charged per compressed hit in the model */
            CU_ASSERT(rr.c.model_access_s > 0);
        }
        CU_ASSERT_EQUAL(mem.reads, rr.c.misses); /* real mode reads the store on misses only */
        /* simulation reads a container once, at its first admission, to measure it */
        CU_ASSERT(k == CACHE_CODEC_NONE ? mem_sim.reads == 0 : mem_sim.reads > 0 && mem_sim.reads <= NCONT);
        CU_ASSERT_TRUE(cache_core_close(real, NULL));
        cache_core_close(sim, NULL);
        g_free(trace);
        rm_cache(dir);
        g_free(dir);
    }
}

/* Offset of byte `off` of slot `slot`'s copy in the slot file. */
static off_t copy_byte(uint32_t slot, off_t off)
{
    return (off_t)slot * (SSD_SLOT_HEADER_SIZE + CSIZE) + SSD_SLOT_HEADER_SIZE + off;
}

static void flip(const char *dir, off_t off, uint8_t mask)
{
    char *p = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    int fd = open(p, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t b = 0;
    CU_ASSERT(pread(fd, &b, 1, off) == 1);
    b ^= mask;
    CU_ASSERT(pwrite(fd, &b, 1, off) == 1);
    close(fd);
    g_free(p);
}

/* A damaged compressed copy, anywhere in it: the hit becomes a miss served
 * from the store (right bytes), counted, and LRU writes a good copy. */
static void test_damaged_compressed_copy(void)
{
    for (int k = CACHE_CODEC_LZ4; k <= CACHE_CODEC_ZSTD; k++) {
        char *dir = cachedir();
        CacheCore *c = open_real((CacheCodecKind)k, 2, dir);
        CU_ASSERT_TRUE(read_right(c, 1)); /* slot 0, compressed */
        CacheReport r;
        cache_core_report(c, &r);
        CU_ASSERT_EQUAL(r.c.ssd_compressed_written, 1);
        uint32_t stored = (uint32_t)r.cached_stored_bytes; /* padded */
        uint64_t st = 5 + k;
        unsigned rounds = 0;
        for (uint32_t at = 0; at < stored; at += (1 + stored / 60) * unit_thin(), rounds++) {
            flip(dir, copy_byte(0, at), (uint8_t)(1 + test_rand(&st) % 255));
            uint64_t before = cache_core_counters(c)->ssd_corrupt_dropped;
            uint64_t hits = cache_core_counters(c)->hits;
            CU_ASSERT_TRUE(read_right(c, 1));
            const CacheCounters *kc = cache_core_counters(c);
            /* damage in the padding changes nothing the copy says */
            CU_ASSERT(kc->ssd_corrupt_dropped == before + 1 || kc->hits == hits + 1);
            CU_ASSERT_TRUE(cache_core_contains(c, 1)); /* written again (or kept) */
            CU_ASSERT_TRUE(read_right(c, 1));
        }
        CU_ASSERT(rounds > 50 / unit_thin());
        const CacheCounters *kc = cache_core_counters(c);
        CU_ASSERT(kc->ssd_corrupt_dropped > rounds / 2);
        CU_ASSERT(kc->ssd_decode_failed > 0);
        CU_ASSERT(kc->ssd_decode_failed <= kc->ssd_corrupt_dropped);
        CU_ASSERT_EQUAL(kc->ssd_read_errors, 0);
        CU_ASSERT_TRUE(cache_core_close(c, NULL));
        rm_cache(dir);
        g_free(dir);
    }
}

static void slot_io(const char *dir, off_t off, void *buf, size_t len, gboolean write)
{
    char *p = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    int fd = open(p, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    ssize_t n = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
    CU_ASSERT_EQUAL(n, (ssize_t)len);
    close(fd);
    g_free(p);
}

/* Does slot 0's compressed copy (stored bytes at copy_byte(0, 0)) decode
 * to a whole container now, whatever its bytes? */
static gboolean copy_decodes(const char *dir, CacheCodec *codec, uint32_t stored)
{
    uint8_t *in = g_malloc(CSIZE), *out = g_malloc(CSIZE);
    slot_io(dir, copy_byte(0, 0), in, stored, FALSE);
    gboolean ok = cache_codec_decompress(codec, cache_codec_kind(codec), in, stored, out, CSIZE);
    g_free(in);
    g_free(out);
    return ok;
}

/* Rewrite slot 0's header (a copy just written: version 3) as version 2
 * (no check of the stored bytes). */
static void make_version_2(const char *dir)
{
    uint8_t h[SSD_SLOT_HEADER_SIZE];
    slot_io(dir, 0, h, sizeof h, FALSE);
    CU_ASSERT_EQUAL(le32_get(h + 8), 3);
    le32_put(h + 8, 2);
    memset(h + 48, 0, 8);
    le32_put(h + SSD_SLOT_HEADER_SIZE - 4, checksum_crc32(CHECKSUM_CRC32_START, h, SSD_SLOT_HEADER_SIZE - 4));
    slot_io(dir, 0, h, sizeof h, TRUE);
}

/* Byte flips in a compressed copy that leave it decoding to a whole
 * container (a changed literal) give other bytes: each must be a miss,
 * counted as damaged (not as undecodable), never served, with the version
 * 3 check of the stored bytes and with version 2's check of the decoded
 * container. The copy is rewritten by LRU after each miss. */
static void test_damage_that_decodes(void)
{
    for (int k = CACHE_CODEC_LZ4; k <= CACHE_CODEC_ZSTD; k++) {
        for (int version = 3; version >= 2; version--) {
            char *dir = cachedir();
            CacheCore *c = open_real((CacheCodecKind)k, 2, dir);
            CacheCodec *codec = cache_codec_new((CacheCodecKind)k, 0);
            CU_ASSERT_TRUE(read_right(c, 1)); /* slot 0, compressed */
            uint8_t le[4];
            slot_io(dir, 44, le, 4, FALSE);
            uint32_t stored = le32_get(le);
            CU_ASSERT_FATAL(stored > 0 && stored < CSIZE);
            uint64_t st = 77 + k;
            unsigned decodable = 0;
            for (uint32_t at = 0; at < stored; at += (1 + stored / 97) * unit_thin()) {
                if (version == 2)
                    make_version_2(dir);
                uint64_t hits = cache_core_counters(c)->hits;
                CU_ASSERT_TRUE(read_right(c, 1)); /* sound: a hit, in either version */
                CU_ASSERT_EQUAL(cache_core_counters(c)->hits, hits + 1);
                flip(dir, copy_byte(0, at), (uint8_t)(1 + test_rand(&st) % 255));
                if (!copy_decodes(dir, codec, stored)) {
                    flip(dir, copy_byte(0, at), 0); /* left damaged: rewritten below */
                    CU_ASSERT_TRUE(read_right(c, 1));
                    continue;
                }
                decodable++;
                uint64_t dropped = cache_core_counters(c)->ssd_corrupt_dropped;
                uint64_t undecodable = cache_core_counters(c)->ssd_decode_failed;
                CU_ASSERT_TRUE(read_right(c, 1));
                CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_corrupt_dropped, dropped + 1);
                CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_decode_failed, undecodable);
                CU_ASSERT_TRUE(cache_core_contains(c, 1)); /* written again */
            }
            CU_ASSERT(decodable > 5 / unit_thin());
            cache_codec_free(codec);
            CU_ASSERT_TRUE(cache_core_close(c, NULL));
            rm_cache(dir);
            g_free(dir);
        }
    }
}

/* A clean restart keeps compressed copies (and their stored lengths); an
 * unclean one checks each by decompressing it; another compression starts
 * empty, saying so. */
static void test_restart_and_identity(void)
{
    char *dir = cachedir();
    CacheCore *c = open_real(CACHE_CODEC_LZ4, 4, dir);
    for (ContainerId id = 0; id < 4; id++)
        CU_ASSERT_TRUE(read_right(c, id));
    CacheReport before;
    cache_core_report(c, &before);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = open_real(CACHE_CODEC_LZ4, 4, dir);
    CacheReport after;
    cache_core_report(c, &after);
    CU_ASSERT_EQUAL(after.cached, 4);
    CU_ASSERT_EQUAL(after.cached_stored_bytes, before.cached_stored_bytes);
    for (ContainerId id = 0; id < 4; id++)
        CU_ASSERT_TRUE(read_right(c, id));
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 4);
    cache_core_abandon(c); /* as if killed: the next open checks every copy */

    c = open_real(CACHE_CODEC_LZ4, 4, dir);
    CU_ASSERT_EQUAL(cache_core_cached(c), 4);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = open_real(CACHE_CODEC_ZSTD, 4, dir); /* warns: written with lz4 */
    CU_ASSERT_EQUAL(cache_core_cached(c), 0);
    for (ContainerId id = 0; id < 4; id++)
        CU_ASSERT_TRUE(read_right(c, id));
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 0);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = open_real(CACHE_CODEC_NONE, 4, dir); /* warns: written with zstd */
    CU_ASSERT_EQUAL(cache_core_cached(c), 0);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    rm_cache(dir);
    g_free(dir);
}

/* Random operation sequences over one cache directory: accesses, a byte
 * flipped anywhere in the slot file, a clean close, an abandon (as if
 * killed), a reopen with another compression or policy. After every step:
 * every read gives the container's bytes, hits + misses = accesses, no more
 * cached than the capacity, and (clean or not) a reopened cache holds only
 * copies that read back right. */
static void test_property_random_operations(void)
{
    static const char *const policies[] = { "lru", "fifo", "clock", "s3fifo" };
    char *dir = cachedir();
    char *slots = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    uint64_t st = 2323;
    for (unsigned round = 0; round < unit_reps(6); round++) {
        CacheCodecKind kind = (CacheCodecKind)(test_rand(&st) % CACHE_CODEC_KINDS);
        uint32_t cap = 2 + (uint32_t)(test_rand(&st) % 6);
        CacheCoreOptions o = options(kind, CACHE_MODE_REAL, cap);
        o.policy = test_policy(policies[test_rand(&st) % G_N_ELEMENTS(policies)]);
        o.directory = dir;
        o.o_direct = FALSE;
        CacheCore *c = cache_core_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        unsigned wrong = 0;
        for (int step = 0; step < 150; step++) {
            uint64_t r = test_rand(&st) % 100;
            if (r < 8 && g_file_test(slots, G_FILE_TEST_EXISTS)) {
                GStatBuf sb;
                if (g_stat(slots, &sb) == 0 && sb.st_size > 0)
                    flip(dir, (off_t)(test_rand(&st) % (uint64_t)sb.st_size), (uint8_t)(1 + test_rand(&st) % 255));
            } else {
                ContainerId id = test_skewed_id(&st, NCONT);
                if (!read_right(c, id))
                    wrong++;
            }
            const CacheCounters *k = cache_core_counters(c);
            CU_ASSERT_EQUAL(k->hits + k->misses, k->accesses);
            CU_ASSERT(cache_core_cached(c) <= cache_core_capacity(c));
        }
        CU_ASSERT_EQUAL(wrong, 0);
        if (test_rand(&st) % 2) {
            CU_ASSERT_TRUE(cache_core_close(c, NULL));
        } else {
            cache_core_abandon(c);
        }
        /* whatever the next open keeps must read back right */
        c = cache_core_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        for (ContainerId id = 0; id < NCONT; id++) {
            if (cache_core_contains(c, id)) {
                CU_ASSERT_TRUE(read_right(c, id));
            }
        }
        CU_ASSERT_TRUE(cache_core_close(c, NULL));
    }
    rm_cache(dir);
    g_free(slots);
    g_free(dir);
}

/* The keys: names, the level checked against the codec at validation. */
/* ssd_store_read: the header and the copy in one read when the record's
 * stored length is the header's, read again as the header says when it is
 * not (a record from before the copy's lengths were kept), through the
 * bounce buffer for a buffer O_DIRECT cannot take, and a slot file that
 * ends inside a copy an error either way; the bytes always the copy's. */
static void test_slot_read_paths(void)
{
    for (int direct = 0; direct <= 1; direct++) {
        char *dir = g_strdup_printf("%s/slot-read-%d", tmpdir, direct);
        GError *err = NULL;
        SsdStore *st = ssd_store_open(dir, CSIZE, 4, direct, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(st);
        uint8_t *raw = g_aligned_alloc(1, CSIZE, 4096), *packed = g_aligned_alloc(1, CSIZE, 4096);
        uint8_t *in = g_aligned_alloc(1, CSIZE, 4096), *odd = g_malloc(CSIZE + 1);
        for (uint32_t i = 0; i < CSIZE; i++)
            in[i] = (uint8_t)(i * 7 + i / 251);
        SsdSlotHeader h0 = { .valid = TRUE, .id = 3, .check = 11, .stored_len = CSIZE };
        SsdSlotHeader h1 = { .valid = TRUE, .id = 4, .check = 12, .codec = CACHE_CODEC_LZ4, .stored_len = 5000,
                             .stored_check = 13 };
        CU_ASSERT_TRUE(ssd_store_write(st, 0, &h0, in, &err));
        CU_ASSERT_TRUE(ssd_store_write(st, 1, &h1, in + 100, &err));
        uint32_t expects[] = { CSIZE, 5000, 0 };
        for (guint k = 0; k < G_N_ELEMENTS(expects); k++) {
            SsdSlotHeader h;
            memset(raw, 0, CSIZE);
            CU_ASSERT_TRUE(ssd_store_read(st, 0, expects[k], &h, raw, packed, &err));
            CU_ASSERT(h.valid && h.id == 3 && h.codec == 0 && h.stored_len == CSIZE);
            CU_ASSERT(memcmp(raw, in, CSIZE) == 0);
            memset(packed, 0, CSIZE);
            CU_ASSERT_TRUE(ssd_store_read(st, 1, expects[k], &h, raw, packed, &err));
            CU_ASSERT(h.valid && h.id == 4 && h.codec == CACHE_CODEC_LZ4 && h.stored_len == 5000);
            CU_ASSERT(memcmp(packed, in + 100, 5000) == 0);
            CU_ASSERT_TRUE(ssd_store_read(st, 0, expects[k], &h, odd + 1, packed, &err)); /* unaligned */
            CU_ASSERT(h.valid && memcmp(odd + 1, in, CSIZE) == 0);
        }
        char *slots = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
        CU_ASSERT_EQUAL(truncate(slots, SSD_SLOT_HEADER_SIZE + CSIZE / 2), 0); /* slot 0's copy cut short */
        SsdSlotHeader h;
        CU_ASSERT_FALSE(ssd_store_read(st, 0, CSIZE, &h, raw, packed, &err));
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
        g_clear_error(&err);
        ssd_store_close(st);
        g_free(slots);
        g_aligned_free(raw);
        g_aligned_free(packed);
        g_aligned_free(in);
        g_free(odd);
        g_free(dir);
    }
}

static void test_config_keys(void)
{
    static const struct {
        const char *codec, *level;
        gboolean set_ok, valid;
    } cases[] = {
        { "lz4", "0", TRUE, TRUE },   { "lz4", "9", TRUE, TRUE },    { "zstd", "19", TRUE, TRUE },
        { "zstd", "20", TRUE, FALSE }, { "none", "0", TRUE, TRUE },   { "none", "1", TRUE, FALSE },
        { "gzip", "0", FALSE, FALSE }, { "LZ4", "0", TRUE, TRUE },  { "lz4", "-1", FALSE, FALSE },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CacheConfig cfg;
        cache_config_init(&cfg);
        CU_ASSERT_EQUAL(cfg.compression, CACHE_CODEC_NONE);
        GError *err = NULL;
        gboolean set = cache_config_set(&cfg, "ssd-cache-compression", cases[i].codec, &err) == CACHE_CONFIG_OK &&
                       cache_config_set(&cfg, "ssd_cache_compression_level", cases[i].level, &err) == CACHE_CONFIG_OK;
        CU_ASSERT_EQUAL(set, cases[i].set_ok);
        if (set)
            CU_ASSERT_EQUAL(cache_config_validate(&cfg, &err), cases[i].valid);
        if (!cases[i].valid)
            CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
        g_clear_error(&err);
        cache_config_clear(&cfg);
    }
}

static void test_simulation_needs_store(void)
{
    CacheCoreOptions o = options(CACHE_CODEC_LZ4, CACHE_MODE_SIMULATE, 4);
    o.backing = NULL;
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cache_core_open(&o, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cache compression", make_tmp, remove_tmp);
    CU_add_test(s, "codec round trip and bound", test_codec_round_trip);
    CU_add_test(s, "codec: damaged blocks", test_codec_damaged_blocks);
    CU_add_test(s, "real mode = simulation mode", test_real_equals_simulation);
    CU_add_test(s, "damaged compressed copy", test_damaged_compressed_copy);
    CU_add_test(s, "damage that decodes; version 2 copies", test_damage_that_decodes);
    CU_add_test(s, "restart and identity", test_restart_and_identity);
    CU_add_test(s, "simulation needs the store", test_simulation_needs_store);
    CU_add_test(s, "slot reads: one read, the header's word, bounce, truncation", test_slot_read_paths);
    CU_add_test(s, "config keys", test_config_keys);
    CU_add_test(s, "property: random operations", test_property_random_operations);
}

UNIT_MAIN(add_suites)
