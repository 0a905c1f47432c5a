/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_container.c: container build/seal/verify round trip, checksum and
 * layout failures, both container stores (pool, files) behind ContainerStore,
 * mapped reads, and the checksums every format uses (libdeflate's) against zlib's, the
 * formats' reference. */
#include "storage/container.h"
#include "storage/container_store.h"
#include "util/checksum.h"
#include "util/error.h"
#include "unit.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>

#define CSIZE (128u * 1024)

static void fill(uint8_t *buf, size_t len, uint32_t seed)
{
    GRand *r = g_rand_new_with_seed(seed);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)g_rand_int(r);
    g_rand_free(r);
}

/* Build into buf, whatever it holds. */
static uint8_t *build_in(uint8_t *buf, ContainerId id, int chunks, size_t chunk_len)
{
    uint8_t data[8192];
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, id);
    for (int i = 0; i < chunks; i++) {
        fill(data, chunk_len, (uint32_t)(id * 1000 + i));
        Fingerprint fp;
        fingerprint_compute(FP_SHA1, data, chunk_len, &fp);
        CU_ASSERT_TRUE_FATAL(container_builder_fits(&b, chunk_len));
        container_builder_add(&b, &fp, data, chunk_len);
    }
    container_builder_seal(&b, FP_SHA1);
    return buf;
}

static uint8_t *build(ContainerId id, int chunks, size_t chunk_len)
{
    return build_in(g_malloc(CSIZE), id, chunks, chunk_len);
}

static void test_round_trip(void)
{
    uint8_t *buf = build(7, 10, 5000);
    GError *err = NULL;
    CU_ASSERT_TRUE(container_verify(buf, CSIZE, 7, &err));
    CU_ASSERT_EQUAL(container_chunk_count(buf), 10);
    CU_ASSERT_EQUAL(container_id_of(buf), 7);
    for (uint32_t i = 0; i < 10; i++) {
        Fingerprint fp, want;
        uint32_t off, len;
        container_chunk_entry(buf, CSIZE, i, &fp, &off, &len);
        CU_ASSERT_EQUAL(len, 5000);
        fingerprint_compute(FP_SHA1, buf + off, len, &want);
        CU_ASSERT_EQUAL(memcmp(fp.bytes, want.bytes, FP_SLOT), 0);
    }
    g_free(buf);
}

/* Every chunk is found by its offset with its fingerprint and length; an
 * offset between chunks, another fingerprint or length is a mismatch. */
static void test_check_chunk(void)
{
    for (int chunks = 1; chunks <= 9; chunks++) {
        uint8_t *buf = build(3, chunks, 1000 + 100 * chunks);
        for (uint32_t i = 0; i < (uint32_t)chunks; i++) {
            Fingerprint fp, other;
            uint32_t off, len, found_len;
            container_chunk_entry(buf, CSIZE, i, &fp, &off, &len);
            CU_ASSERT_TRUE(container_find_chunk(buf, CSIZE, off, &other, &found_len));
            CU_ASSERT_EQUAL(found_len, len);
            CU_ASSERT_TRUE(container_check_chunk(buf, CSIZE, 3, &fp, off, len, NULL));
            CU_ASSERT_FALSE(container_find_chunk(buf, CSIZE, off + 1, &other, &found_len));
            GError *err = NULL;
            CU_ASSERT_FALSE(container_check_chunk(buf, CSIZE, 3, &fp, off, len + 1, &err));
            CU_ASSERT_EQUAL(err != NULL ? err->code : -1, DESTOR_ERROR_INTEGRITY);
            g_clear_error(&err);
            other = fp;
            other.bytes[FP_SLOT - 1] ^= 1; /* the zero padding counts too */
            CU_ASSERT_FALSE(container_check_chunk(buf, CSIZE, 3, &other, off, len, NULL));
        }
        g_free(buf);
    }
}

static void test_fill_to_capacity(void)
{
    uint8_t *buf = g_malloc(CSIZE), data[4096] = { 0 };
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, 0);
    Fingerprint fp = { { 1 } };
    int n = 0;
    while (container_builder_fits(&b, sizeof data)) {
        container_builder_add(&b, &fp, data, sizeof data);
        n++;
    }
    /* header + n * (4096 + 40) <= 128 KiB < header + (n + 1) * (4096 + 40) */
    CU_ASSERT_EQUAL(n, (int)((CSIZE - CONTAINER_HEADER_SIZE) / (4096 + CONTAINER_META_ENTRY_SIZE)));
    container_builder_seal(&b, FP_SHA1);
    CU_ASSERT_TRUE(container_verify(buf, CSIZE, 0, NULL));
    CU_ASSERT_EQUAL(container_max_chunk(CSIZE), CSIZE - CONTAINER_HEADER_SIZE - CONTAINER_META_ENTRY_SIZE);
    g_free(buf);
}

static void expect_damaged(uint8_t *buf, ContainerId id, const char *fragment)
{
    GError *err = NULL;
    CU_ASSERT_FALSE(container_verify(buf, CSIZE, id, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->code, DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, fragment));
    g_error_free(err);
}

static void test_every_flipped_byte_region_detected(void)
{
    uint8_t *buf = build(3, 12, 3000);
    /* a byte in the header, in chunk data, in the zero gap, in the metadata */
    size_t offsets[] = { 5, 12, 20, 100, 20000, CSIZE / 2, CSIZE - 10, CSIZE - 1 };
    for (size_t i = 0; i < G_N_ELEMENTS(offsets); i++) {
        buf[offsets[i]] ^= 0x40;
        GError *err = NULL;
        CU_ASSERT_FALSE(container_verify(buf, CSIZE, 3, &err));
        CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
        g_clear_error(&err);
        buf[offsets[i]] ^= 0x40;
    }
    CU_ASSERT_TRUE(container_verify(buf, CSIZE, 3, NULL));
    expect_damaged(buf, 4, "another container's id");
    memset(buf, 0, CSIZE);
    expect_damaged(buf, 3, "bad magic");
    g_free(buf);
}

/* Three containers written, synced, counted and read back through the
 * store of `kind` in a new directory (returned); an id past the end is an
 * INTEGRITY error. */
static char *write_three(ContainerStoreKind kind, ContainerStore **out)
{
    char *dir = g_dir_make_tmp("destor-test-XXXXXX", NULL);
    GError *err = NULL;
    ContainerStore *cs = container_store_open(kind, dir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    CU_ASSERT_EQUAL(cs->kind, kind);
    for (ContainerId id = 0; id < 3; id++) {
        uint8_t *buf = build(id, 5, 1000);
        CU_ASSERT_TRUE(container_store_write(cs, id, buf, &err));
        g_free(buf);
    }
    CU_ASSERT_TRUE(container_store_sync(cs, &err));
    uint32_t count = 0;
    CU_ASSERT_TRUE(container_store_count(cs, &count, &err));
    CU_ASSERT_EQUAL(count, 3);
    ContainerSource *src = container_store_source(cs);
    uint8_t *buf = g_malloc(CSIZE);
    CU_ASSERT_TRUE(container_source_read(src, 1, buf, &err));
    CU_ASSERT_EQUAL(container_id_of(buf), 1);
    uint32_t stamp = 0;
    CU_ASSERT_TRUE(src->stamp(src, 1, &stamp, &err));
    CU_ASSERT_EQUAL(stamp, container_stamp(buf, CSIZE));
    CU_ASSERT_FALSE(container_source_read(src, 3, buf, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    g_free(buf);
    *out = cs;
    return dir;
}

static void remove_tree(char *dir)
{
    char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    g_free(cmd);
    g_free(dir);
}

static void expect_count(ContainerStoreKind kind, const char *dir, uint32_t want)
{
    GError *err = NULL;
    ContainerStore *cs = container_store_open(kind, dir, CSIZE, FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
    uint32_t count = 0;
    CU_ASSERT_TRUE(container_store_count(cs, &count, &err));
    CU_ASSERT_EQUAL(count, want);
    container_store_close(cs);
}

static void test_pool_source(void)
{
    ContainerStore *pool;
    char *dir = write_three(CONTAINER_STORE_POOL, &pool);
    container_store_close(pool);
    /* A torn tail still counts as a slot, so the next id never overwrites it. */
    char *path = g_build_filename(dir, "containers.pool", NULL);
    uint8_t head[100] = { 0 };
    FILE *f = fopen(path, "ab");
    fwrite(head, 1, sizeof head, f);
    fclose(f);
    expect_count(CONTAINER_STORE_POOL, dir, 4);
    g_free(path);
    remove_tree(dir);
}

/* Where container `id`'s byte `off` is in a store of `kind` in dir: the
 * file (g_free it) and *at, its offset there. */
static char *byte_of(ContainerStoreKind kind, const char *dir, ContainerId id, off_t off, off_t *at)
{
    char name[32];
    snprintf(name, sizeof name, "%06x/%08x", id >> 8, id);
    *at = kind == CONTAINER_STORE_POOL ? (off_t)id * CSIZE + off : off;
    return kind == CONTAINER_STORE_POOL ? g_build_filename(dir, "containers.pool", NULL)
                                        : g_build_filename(dir, "containers", name, NULL);
}

static void write_byte(ContainerStoreKind kind, const char *dir, ContainerId id, off_t off, char c)
{
    off_t at;
    char *path = byte_of(kind, dir, id, off, &at);
    int fd = open(path, O_WRONLY);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(pwrite(fd, &c, 1, at), 1);
    close(fd);
    g_free(path);
}

/* A store maps its containers in place: the bytes a read gives, verified;
 * a freed container, one damaged in its file and a torn one fail as their
 * reads do (INTEGRITY, the torn one with the read's own message); with
 * reads uncached it does not map (a mapping is served from the page
 * cache). */
static void check_maps(ContainerStoreKind kind)
{
    ContainerStore *cs;
    char *dir = write_three(kind, &cs);
    ContainerSource *src = container_store_source(cs);
    GError *err = NULL, *read_err = NULL;
    uint8_t *buf = g_malloc(CSIZE);
    const uint8_t *m = NULL;
    CU_ASSERT_TRUE_FATAL(container_source_maps(src));
    for (ContainerId id = 0; id < 3; id++) {
        CU_ASSERT_TRUE(container_source_read(src, id, buf, &err));
        CU_ASSERT_TRUE(container_source_map(src, id, &m, &err) && memcmp(m, buf, CSIZE) == 0);
        container_source_unmap(src, m);
    }
    CU_ASSERT_TRUE(container_store_free(cs, 1, &err) && container_store_sync(cs, &err));
    CU_ASSERT_FALSE(container_source_map(src, 1, &m, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    write_byte(kind, dir, 2, CSIZE / 2, '\xff');
    CU_ASSERT_FALSE(container_source_map(src, 2, &m, &err));
    CU_ASSERT_TRUE(err != NULL && strstr(err->message, "checksum") != NULL);
    g_clear_error(&err);
    /* torn: a fourth container begun in the pool, container 0's file cut */
    ContainerId torn = kind == CONTAINER_STORE_POOL ? 3 : 0;
    off_t at;
    char *path = byte_of(kind, dir, torn, 99, &at);
    if (kind == CONTAINER_STORE_POOL)
        write_byte(kind, dir, torn, 99, 'x');
    else
        CU_ASSERT_EQUAL(truncate(path, 100), 0);
    CU_ASSERT_FALSE(container_source_read(src, torn, buf, &read_err));
    CU_ASSERT_FALSE(container_source_map(src, torn, &m, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY && read_err != NULL &&
                   strcmp(err->message, read_err->message) == 0);
    g_clear_error(&err);
    g_clear_error(&read_err);
    container_store_set_uncached(cs, TRUE);
    CU_ASSERT_FALSE(container_source_maps(src));
    container_store_set_uncached(cs, FALSE);
    CU_ASSERT_TRUE(container_source_maps(src));
    container_store_close(cs);
    g_free(path);
    g_free(buf);
    remove_tree(dir);
}

static void test_maps(void)
{
    check_maps(CONTAINER_STORE_POOL);
    check_maps(CONTAINER_STORE_FILES);
}

/* One file per container at containers/SSSSSS/NNNNNNNN; a missing last file
 * is not counted (its id was never durable), a leftover temporary file is
 * not a container, and ids spread over subdirectories count from the
 * highest. */
static void test_files_source(void)
{
    ContainerStore *cs;
    char *dir = write_three(CONTAINER_STORE_FILES, &cs);
    GError *err = NULL;
    char *two = g_build_filename(dir, "containers", "000000", "00000002", NULL);
    CU_ASSERT_TRUE(g_file_test(two, G_FILE_TEST_IS_REGULAR));
    uint8_t *buf = build(300, 5, 1000);
    CU_ASSERT_TRUE(container_store_write(cs, 300, buf, &err)); /* a new subdirectory */
    CU_ASSERT_TRUE(container_store_sync(cs, &err));
    container_store_close(cs);
    char *far = g_build_filename(dir, "containers", "000001", "0000012c", NULL);
    CU_ASSERT_TRUE(g_file_test(far, G_FILE_TEST_IS_REGULAR));
    expect_count(CONTAINER_STORE_FILES, dir, 301);
    CU_ASSERT_EQUAL(g_unlink(far), 0);
    char *tmp = g_build_filename(dir, "containers", "000000", ".destor-leftover.tmp", NULL);
    CU_ASSERT_TRUE(g_file_set_contents(tmp, "x", 1, NULL));
    expect_count(CONTAINER_STORE_FILES, dir, 3);
    CU_ASSERT_EQUAL(g_unlink(two), 0);
    expect_count(CONTAINER_STORE_FILES, dir, 2);
    /* A torn file reads as damage, never as a container. */
    char *one = g_build_filename(dir, "containers", "000000", "00000001", NULL);
    CU_ASSERT_EQUAL(truncate(one, 100), 0);
    cs = container_store_open(CONTAINER_STORE_FILES, dir, CSIZE, FALSE, &err);
    CU_ASSERT_FALSE(container_source_read(container_store_source(cs), 1, buf, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    container_store_close(cs);
    g_free(buf);
    g_free(one);
    g_free(tmp);
    g_free(far);
    g_free(two);
    remove_tree(dir);
}

/* free: the container is no longer live nor readable, its neighbours are
 * untouched, and the count stays (ids are never reused), freeing the newest
 * container too. */
static void check_free(ContainerStoreKind kind)
{
    ContainerStore *cs;
    char *dir = write_three(kind, &cs);
    GError *err = NULL;
    gboolean live = FALSE;
    for (ContainerId id = 0; id < 3; id++) {
        CU_ASSERT_TRUE(container_store_live(cs, id, &live, &err));
        CU_ASSERT_TRUE(live);
    }
    CU_ASSERT_TRUE(container_store_live(cs, 3, &live, &err));
    CU_ASSERT_FALSE(live);
    CU_ASSERT_TRUE(container_store_free(cs, 1, &err));
    CU_ASSERT_TRUE(container_store_free(cs, 2, &err));
    CU_ASSERT_TRUE(container_store_sync(cs, &err));
    CU_ASSERT_PTR_NULL(err);
    g_clear_error(&err);
    uint8_t *buf = g_malloc(CSIZE);
    for (ContainerId id = 1; id < 3; id++) {
        CU_ASSERT_TRUE(container_store_live(cs, id, &live, &err));
        CU_ASSERT_FALSE(live);
        CU_ASSERT_FALSE(container_source_read(container_store_source(cs), id, buf, &err));
        CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
        g_clear_error(&err);
    }
    CU_ASSERT_TRUE(container_source_read(container_store_source(cs), 0, buf, &err));
    CU_ASSERT_EQUAL(container_id_of(buf), 0);
    container_store_close(cs);
    expect_count(kind, dir, 3);
    g_free(buf);
    remove_tree(dir);
}

static void test_free_pool(void)
{
    check_free(CONTAINER_STORE_POOL);
}

static void test_free_files(void)
{
    check_free(CONTAINER_STORE_FILES);
}

static void test_kind_names(void)
{
    ContainerStoreKind kind;
    CU_ASSERT_TRUE(container_store_kind_parse("pool", &kind) && kind == CONTAINER_STORE_POOL);
    CU_ASSERT_TRUE(container_store_kind_parse("files", &kind) && kind == CONTAINER_STORE_FILES);
    CU_ASSERT_FALSE(container_store_kind_parse("Files", &kind));
    CU_ASSERT_FALSE(container_store_kind_parse("", &kind));
    CU_ASSERT_STRING_EQUAL(container_store_kind_name(CONTAINER_STORE_FILES), "files");
    CU_ASSERT_PTR_NULL(container_store_kind_name((ContainerStoreKind)CONTAINER_STORE_KINDS));
}

/* Pages of path[off, off + len) in the page cache, by mincore(). */
static size_t resident_pages(const char *path, off_t off, size_t len)
{
    int fd = open(path, O_RDONLY);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
    CU_ASSERT_TRUE_FATAL(map != MAP_FAILED);
    size_t pages = (len + 4095) / 4096, n = 0;
    unsigned char *vec = g_malloc(pages);
    CU_ASSERT_EQUAL(mincore(map, len, vec), 0);
    for (size_t i = 0; i < pages; i++)
        n += vec[i] & 1;
    g_free(vec);
    munmap(map, len);
    close(fd);
    return n;
}

static void drop_from_page_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
}

/* store-read-uncached: a container read leaves none of its pages (nor the
 * next container's) in the page cache, while a plain read does. The uncached
 * read comes first, on a file just dropped from the cache, so no readahead
 * of an earlier plain read can refill it. Skipped on file systems whose
 * pages are their storage (tmpfs, ramfs). */
static void test_pool_uncached_reads(void)
{
    char *dir = g_dir_make_tmp("destor-test-XXXXXX", NULL);
    struct statfs fs;
    CU_ASSERT_EQUAL_FATAL(statfs(dir, &fs), 0);
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) {
        printf("\n    skipped: %s is in memory (tmpfs or ramfs)", dir);
        g_rmdir(dir);
        g_free(dir);
        return;
    }
    char *path = g_build_filename(dir, "containers.pool", NULL);
    GError *err = NULL;
    ContainerStore *pool = container_store_open(CONTAINER_STORE_POOL, dir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    for (ContainerId id = 0; id < 3; id++) {
        uint8_t *buf = build(id, 5, 1000);
        CU_ASSERT_TRUE(container_store_write(pool, id, buf, &err));
        g_free(buf);
    }
    CU_ASSERT_TRUE(container_store_sync(pool, &err));
    container_store_close(pool);

    drop_from_page_cache(path);
    pool = container_store_open(CONTAINER_STORE_POOL, dir, CSIZE, FALSE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    uint8_t *buf = g_malloc(CSIZE);
    container_store_set_uncached(pool, TRUE);
    CU_ASSERT_TRUE(container_source_read(container_store_source(pool), 1, buf, &err));
    CU_ASSERT_EQUAL(container_id_of(buf), 1);
    /* Container 1 and the one after it, where readahead would go. Not
     * container 0: valgrind reads the start of every file it sees mapped. */
    CU_ASSERT_EQUAL(resident_pages(path, CSIZE, 2 * CSIZE), 0);
    /* The check can see pages: a plain read leaves container 1 resident. */
    container_store_set_uncached(pool, FALSE);
    CU_ASSERT_TRUE(container_source_read(container_store_source(pool), 1, buf, &err));
    CU_ASSERT_TRUE(resident_pages(path, CSIZE, CSIZE) > 0);
    container_store_close(pool);
    g_free(buf);
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* CRC-32 and Adler-32 equal zlib's for every length from 0 to 300 and for
 * large ones, at an unaligned start, whole and continued across a split (a
 * format written with one library reads with the other). */
static void check_against_zlib(const uint8_t *p, size_t n, size_t *bad)
{
    uint32_t crc = (uint32_t)crc32_z(0, p, n), ad = (uint32_t)adler32_z(1, p, n);
    size_t split = n / 3;
    *bad += checksum_crc32(CHECKSUM_CRC32_START, p, n) != crc;
    *bad += checksum_adler32(CHECKSUM_ADLER32_START, p, n) != ad;
    *bad += checksum_crc32(checksum_crc32(CHECKSUM_CRC32_START, p, split), p + split, n - split) != crc;
    *bad += checksum_adler32(checksum_adler32(CHECKSUM_ADLER32_START, p, split), p + split, n - split) != ad;
}

/* The builder writes every byte of the container: one built over the last
 * container's bytes (as backup reuses its buffer) or over garbage is the
 * same as one built in zeroed memory, its gap between data and metadata
 * zero. */
static void test_reused_buffer_same_bytes(void)
{
    uint8_t *zeroed = build_in(g_malloc0(CSIZE), 3, 9, 5000);
    uint8_t *dirty = g_malloc(CSIZE);
    memset(dirty, 0xa5, CSIZE);
    build_in(dirty, 3, 9, 5000);
    CU_ASSERT_EQUAL(memcmp(zeroed, dirty, CSIZE), 0);
    build_in(dirty, 4, 20, 6000); /* a fuller one first, then the same again */
    build_in(dirty, 3, 9, 5000);
    CU_ASSERT_EQUAL(memcmp(zeroed, dirty, CSIZE), 0);
    size_t gap_start = CONTAINER_HEADER_SIZE + 9 * 5000, gap_end = CSIZE - 9 * CONTAINER_META_ENTRY_SIZE;
    size_t nonzero = 0;
    for (size_t i = gap_start; i < gap_end; i++)
        nonzero += dirty[i] != 0;
    CU_ASSERT_EQUAL(nonzero, 0);
    GError *err = NULL;
    CU_ASSERT_TRUE(container_verify(dirty, CSIZE, 3, &err));
    g_clear_error(&err);
    g_free(zeroed);
    g_free(dirty);
}

static void test_checksums_match_zlib(void)
{
    const size_t big = (2u << 20) + 13;
    uint8_t *buf = g_malloc(big + 1);
    fill(buf, big + 1, 77);
    size_t bad = 0;
    for (size_t n = 0; n <= 300; n++)
        check_against_zlib(buf + 1, n, &bad);
    const size_t large[] = { 4096, 65537, 1u << 20, big };
    for (size_t i = 0; i < G_N_ELEMENTS(large); i++)
        check_against_zlib(buf + 1, large[i], &bad);
    CU_ASSERT_EQUAL(bad, 0);
    g_free(buf);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("container", NULL, NULL);
    CU_add_test(s, "round trip", test_round_trip);
    CU_add_test(s, "fill to capacity", test_fill_to_capacity);
    CU_add_test(s, "a reused buffer gives the same bytes", test_reused_buffer_same_bytes);
    CU_add_test(s, "chunk check against the metadata", test_check_chunk);
    CU_add_test(s, "damage detected", test_every_flipped_byte_region_detected);
    CU_add_test(s, "pool source", test_pool_source);
    CU_add_test(s, "files source", test_files_source);
    CU_add_test(s, "mapped reads", test_maps);
    CU_add_test(s, "free in a pool", test_free_pool);
    CU_add_test(s, "free in files", test_free_files);
    CU_add_test(s, "kind names", test_kind_names);
    CU_add_test(s, "pool uncached reads", test_pool_uncached_reads);
    CU_add_test(s, "checksums equal zlib's", test_checksums_match_zlib);
}

UNIT_MAIN(add_suites)
