/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_chunk_worker.c: a backup chunk worker (src/backup/chunk_worker.c)
 * against the definition: the chunks it sends for a file are those
 * chunker_next cuts from the whole file as one buffer, with the right
 * fingerprints, and the file's size and digest (XXH3-128 or SHA-256,
 * alternately) are those of its bytes.
 * Also for a file that grew after the walker saw it small, which starts in
 * a small block and goes on in large ones, for files at the edges of the
 * small blocks' size classes, and for the empty file (large
 * blocks are fingerprinted by two hasher threads, so out of order); and the
 * fingerprinter the worker reuses against the one-shot digest. */
#include "backup/backup_msg.h"
#include "backup/chunk_worker.h"
#include "digest_reference.h"
#include "unit.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <openssl/evp.h>
#include <string.h>
#include <unistd.h>

static uint8_t *random_bytes(size_t len, guint32 seed)
{
    uint8_t *buf = g_malloc(len ? len : 1);
    GRand *r = g_rand_new_with_seed(seed);
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)g_rand_int(r);
    g_rand_free(r);
    return buf;
}

/* Back `len` bytes up through one worker, the walker having seen the file
 * as `size_at_stat` bytes; check what comes out. The file digest alternates
 * from call to call. */
static void check_file(ChunkAlgorithm alg, size_t len, uint64_t size_at_stat)
{
    static guint calls;
    FileDigestAlgorithm digest = calls++ % 2 ? FILE_DIGEST_SHA256 : FILE_DIGEST_XXH3;
    ChunkSizes sizes = { 2048, 8192, 65536 };
    Chunker *chunker = chunker_new(alg, &sizes);
    uint8_t *data = random_bytes(len, (guint32)len);
    char *path = NULL;
    int fd = g_file_open_tmp("destor-worker-XXXXXX", &path, NULL);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(write(fd, data, len), (ssize_t)len);
    lseek(fd, 0, SEEK_SET);

    BoundedQueue *work = bounded_queue_new(4);
    ChunkWorker cw;
    BlockHasher *hasher = block_hasher_new(FP_SHA1, digest, 6);
    GThread *hashers[2] = { g_thread_new("hash", block_hasher_run, hasher),
                            g_thread_new("hash", block_hasher_run, hasher) };
    chunk_worker_init(&cw, work, 4, chunker, sizes.max_size, FP_SHA1, digest, hasher);
    BackupItem it = { .file = file_record_new(ENTRY_FILE, "f", 1), .fd = fd, .out = bounded_queue_new(6) };
    it.file->size = size_at_stat;
    BackupItem end = { .fd = -1 };
    bounded_queue_push(work, &it);
    bounded_queue_push(work, &end);
    GThread *t = g_thread_new("worker", chunk_worker_run, &cw);

    size_t pos = 0, mismatches = 0;
    for (gboolean last = FALSE; !last;) {
        DataBlock *b = bounded_queue_pop(it.out);
        block_hasher_wait(hasher, b);
        for (guint i = 0; i < b->chunks->len; i++) {
            const BlockChunk *c = &g_array_index(b->chunks, BlockChunk, i);
            size_t want = chunker_next(chunker, data + pos, len - pos);
            Fingerprint fp;
            fingerprint_compute(FP_SHA1, data + pos, want, &fp);
            if (c->length != want || memcmp(b->data + c->offset, data + pos, want) != 0 ||
                memcmp(&fp, &c->fp, sizeof fp) != 0)
                mismatches++;
            pos += c->length;
        }
        last = b->last;
        bounded_queue_push(b->home, b);
    }
    g_thread_join(t);
    block_hasher_stop(hasher, 2);
    for (int i = 0; i < 2; i++)
        g_thread_join(hashers[i]);
    block_hasher_free(hasher);
    CU_ASSERT_EQUAL(mismatches, 0);
    CU_ASSERT_EQUAL(pos, len);
    CU_ASSERT_EQUAL(it.read_errno, 0);
    CU_ASSERT_EQUAL(it.file->size, len);
    uint8_t want[FILE_DIGEST_SLOT];
    digest_reference(digest, data, len, want);
    CU_ASSERT_EQUAL(memcmp(want, it.file->digest, FILE_DIGEST_SLOT), 0);

    bounded_queue_free(it.out);
    file_record_free(it.file);
    chunk_worker_clear(&cw);
    bounded_queue_free(work);
    chunker_free(chunker);
    g_unlink(path);
    g_free(path);
    g_free(data);
}

static void test_small_file(void)
{
    check_file(CHUNK_RABIN, 30000, 30000);
    check_file(CHUNK_FASTCDC, 1, 1);
}

static void test_empty_file(void)
{
    check_file(CHUNK_FASTCDC, 0, 0);
}

static void test_large_file_spans_blocks(void)
{
    check_file(CHUNK_FASTCDC, 3 * READ_BLOCK + 12345, 3 * READ_BLOCK + 12345);
    check_file(CHUNK_RABIN, 2 * READ_BLOCK + 7, 2 * READ_BLOCK + 7);
}

/* Files at the edges of the small blocks' size classes (8, 16, 32 and
 * 64 KiB): one a byte short of a class, one exactly at it (the next class),
 * and one the walker saw a byte short that fills its block exactly, so the
 * end shows only on the next read, in a large block. */
static void test_size_class_edges(void)
{
    for (size_t size = 8u << 10; size <= SMALL_BLOCK; size *= 2) {
        check_file(CHUNK_FASTCDC, size - 1, size - 1);
        check_file(CHUNK_RABIN, size, size);
        check_file(CHUNK_FASTCDC, size, size - 1);
    }
}

static void test_file_grew_after_stat(void)
{
    check_file(CHUNK_FASTCDC, 2 * READ_BLOCK + 999, 100);      /* small block, then large ones */
    check_file(CHUNK_RABIN, SMALL_BLOCK + 1, SMALL_BLOCK - 1); /* just past the small block */
    check_file(CHUNK_FASTCDC, 5000, 0);
}

/* The worker's reused fingerprinter gives the one-shot digest (EVP_Digest)
 * for every length, one call after another, for both algorithms; and the
 * published SHA-1 and SHA-256 of "abc". */
static void test_fingerprinter_equals_one_shot(void)
{
    uint8_t *data = random_bytes(70000, 5);
    const FingerprintAlgorithm algs[] = { FP_SHA1, FP_SHA256 };
    size_t mismatches = 0;
    for (size_t a = 0; a < G_N_ELEMENTS(algs); a++) {
        Fingerprinter *f = fingerprinter_new(algs[a]);
        for (size_t len = 0; len < 70000; len += 1 + len / 3) {
            Fingerprint want, got;
            memset(&got, 0xff, sizeof got);
            fingerprint_compute(algs[a], data + len / 7, len - len / 7, &want);
            fingerprinter_compute(f, data + len / 7, len - len / 7, &got);
            mismatches += memcmp(&want, &got, sizeof want) != 0;
        }
        Fingerprint abc;
        char hex[65];
        fingerprinter_compute(f, "abc", 3, &abc);
        fingerprint_hex(&abc, FP_SLOT, hex);
        CU_ASSERT_STRING_EQUAL(hex, algs[a] == FP_SHA1
            ? "a9993e364706816aba3e25717850c26c9cd0d89d000000000000000000000000"
            : "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        fingerprinter_free(f);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    g_free(data);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("chunk_worker", NULL, NULL);
    CU_add_test(s, "a small file", test_small_file);
    CU_add_test(s, "the empty file", test_empty_file);
    CU_add_test(s, "a file over several read blocks", test_large_file_spans_blocks);
    CU_add_test(s, "a file that grew after the walker saw it", test_file_grew_after_stat);
    CU_add_test(s, "files at the small blocks' size-class edges", test_size_class_edges);
    CU_add_test(s, "the reused fingerprinter equals the one-shot digest", test_fingerprinter_equals_one_shot);
}

UNIT_MAIN(add_suites)
