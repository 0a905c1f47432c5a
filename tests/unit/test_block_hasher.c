/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_block_hasher.c: the block hashers (src/backup/block_hasher.c)
 * against one-shot digests. Several files' blocks are submitted
 * interleaved to three hasher threads, as several workers would: each
 * block starts with a tail of the block before (not part of its fresh
 * bytes), the last block of one file has no chunks, and the blocks are
 * waited for in an order of their own. Every chunk fingerprint must be the
 * digest of its bytes, and every file's digest (XXH3-128 and SHA-256) that
 * of its bytes in order, which fails if a hasher adds a block to a file's
 * digest before the block ahead of it. */
#include "backup/block_hasher.h"
#include "digest_reference.h"
#include "unit.h"
#include "util/thread_cpu.h"

#include <openssl/evp.h>
#include <string.h>

#define FILES 3
#define BLOCKS 6 /* per file */
#define TAIL 100 /* bytes of the last block repeated at the start of the next */
#define FRESH 20000
#define CHUNK 3000

typedef struct {
    uint8_t bytes[BLOCKS * FRESH];
    uint8_t digest[FILE_DIGEST_SLOT];
    DataBlock blocks[BLOCKS];
} TestFile;

/* Block k of f: the last TAIL bytes of block k-1, then FRESH new bytes, cut
 * into chunks of CHUNK (the last file's last block keeps none). */
static void make_block(TestFile *f, int file, int k)
{
    DataBlock *b = &f->blocks[k];
    size_t tail = k > 0 ? TAIL : 0;
    b->cap = tail + FRESH;
    b->data = g_malloc(b->cap);
    memcpy(b->data, f->bytes + (size_t)k * FRESH - tail, b->cap);
    b->chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk));
    b->seq = (guint)k;
    b->fresh = tail;
    b->fresh_len = FRESH;
    b->last = k == BLOCKS - 1;
    for (size_t pos = 0; pos < b->cap && !(b->last && file == FILES - 1); pos += CHUNK) {
        BlockChunk c = { .offset = (uint32_t)pos, .length = (uint32_t)MIN(CHUNK, b->cap - pos) };
        g_array_append_val(b->chunks, c);
    }
}

/* Chunks of b whose fingerprint is not the SHA-1 of their bytes. */
static size_t wrong_fingerprints(const DataBlock *b)
{
    size_t wrong = 0;
    for (guint i = 0; i < b->chunks->len; i++) {
        const BlockChunk *c = &g_array_index(b->chunks, BlockChunk, i);
        Fingerprint want;
        fingerprint_compute(FP_SHA1, b->data + c->offset, c->length, &want);
        wrong += memcmp(&want, &c->fp, sizeof want) != 0;
    }
    return wrong;
}

/* One round: FILES files of new bytes (seeded), their blocks submitted
 * interleaved to h's running threads and waited for last block first. */
static void interleaved_round(BlockHasher *h, FileDigestAlgorithm alg, guint32 seed)
{
    TestFile *files = g_new0(TestFile, FILES);
    GRand *r = g_rand_new_with_seed(seed);
    for (int f = 0; f < FILES; f++) {
        for (size_t i = 0; i < sizeof files[f].bytes; i++)
            files[f].bytes[i] = (uint8_t)g_rand_int(r);
        for (int k = 0; k < BLOCKS; k++)
            make_block(&files[f], f, k);
    }
    FileDigest *digests[FILES];
    for (int f = 0; f < FILES; f++)
        digests[f] = block_hasher_file(h, files[f].digest);
    for (int k = 0; k < BLOCKS; k++) /* block k of every file, then block k + 1 */
        for (int f = 0; f < FILES; f++)
            block_hasher_submit(h, &files[f].blocks[k], digests[f]);

    size_t bad_fps = 0, chunks = 0;
    for (int k = BLOCKS - 1; k >= 0; k--) { /* waited for last block first */
        for (int f = 0; f < FILES; f++) {
            DataBlock *b = &files[f].blocks[k];
            block_hasher_wait(h, b);
            bad_fps += wrong_fingerprints(b);
            chunks += b->chunks->len;
        }
    }
    CU_ASSERT_EQUAL(bad_fps, 0);
    CU_ASSERT_EQUAL(chunks, (FILES * BLOCKS - 1) * 7); /* 20,000 or 20,100 bytes: 7 chunks a block */
    for (int f = 0; f < FILES; f++) {
        uint8_t want[FILE_DIGEST_SLOT];
        digest_reference(alg, files[f].bytes, sizeof files[f].bytes, want);
        CU_ASSERT_EQUAL(memcmp(want, files[f].digest, FILE_DIGEST_SLOT), 0);
        for (int k = 0; k < BLOCKS; k++) {
            g_free(files[f].blocks[k].data);
            g_array_unref(files[f].blocks[k].chunks);
        }
    }
    g_rand_free(r);
    g_free(files);
}

/* Both file digests; two rounds each, the second taking the digests the
 * first gave back (a digest must start afresh for its next file). */
static void test_interleaved_files(void)
{
    const FileDigestAlgorithm algs[] = { FILE_DIGEST_XXH3, FILE_DIGEST_SHA256 };
    for (size_t a = 0; a < G_N_ELEMENTS(algs); a++) {
        BlockHasher *h = block_hasher_new(FP_SHA1, algs[a], FILES * BLOCKS + 3);
        GThread *threads[3];
        for (int t = 0; t < 3; t++)
            threads[t] = g_thread_new("hash", block_hasher_run, h);
        interleaved_round(h, algs[a], 7);
        interleaved_round(h, algs[a], 8);
        block_hasher_stop(h, 3);
        for (int t = 0; t < 3; t++)
            g_thread_join(threads[t]);
        CU_ASSERT(block_hasher_fingerprint_seconds(h) > 0);
        block_hasher_free(h);
    }
}

/* Regression: the hashers' time on chunk fingerprints must not hold the
 * files' SHA-256 (backup once counted the hashers' whole CPU time, SHA-256
 * included, as chunk-and-hash, which bench-store then took out a second
 * time). Blocks with bytes but no chunks: all the hashers do is SHA-256,
 * which takes this thread `sha_seconds` to do itself; the fingerprint time
 * must be a small part of that. */
static void test_fingerprint_time_excludes_sha256(void)
{
    enum { N = 4, SIZE = 1 << 20 };
    uint8_t *bytes = g_malloc(N * SIZE);
    for (size_t i = 0; i < (size_t)N * SIZE; i++)
        bytes[i] = (uint8_t)(i * 2654435761u >> 13);
    BlockHasher *h = block_hasher_new(FP_SHA1, FILE_DIGEST_SHA256, N + 1);
    GThread *thread = g_thread_new("hash", block_hasher_run, h);
    uint8_t got[32], want[32];
    FileDigest *file = block_hasher_file(h, got);
    DataBlock blocks[N];
    memset(blocks, 0, sizeof blocks);
    for (int k = 0; k < N; k++) {
        blocks[k] = (DataBlock){ .data = bytes + (size_t)k * SIZE, .cap = SIZE, .seq = (guint)k,
                                 .fresh_len = SIZE, .last = k == N - 1,
                                 .chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk)) };
        block_hasher_submit(h, &blocks[k], file);
    }
    for (int k = 0; k < N; k++)
        block_hasher_wait(h, &blocks[k]);
    block_hasher_stop(h, 1);
    g_thread_join(thread);
    double start = thread_cpu_seconds();
    EVP_Digest(bytes, (size_t)N * SIZE, want, NULL, EVP_sha256(), NULL);
    double sha_seconds = thread_cpu_seconds() - start;
    CU_ASSERT_EQUAL(memcmp(got, want, 32), 0);
    CU_ASSERT(block_hasher_fingerprint_seconds(h) < sha_seconds / 4);
    for (int k = 0; k < N; k++)
        g_array_unref(blocks[k].chunks);
    block_hasher_free(h);
    g_free(bytes);
}

/* A block never submitted is waited for at once. */
static void test_unsubmitted_block(void)
{
    BlockHasher *h = block_hasher_new(FP_SHA256, FILE_DIGEST_XXH3, 1);
    DataBlock b = { 0 };
    block_hasher_wait(h, &b);
    CU_ASSERT_FALSE(b.fps_pending);
    block_hasher_free(h);
}

/* Wait up to ten seconds for b to be hashed; FALSE if it was not. */
static gboolean hashed_within_deadline(DataBlock *b)
{
    gint64 deadline = g_get_monotonic_time() + 10 * G_TIME_SPAN_SECOND;
    while (g_atomic_int_get(&b->fps_pending) && g_get_monotonic_time() < deadline)
        g_usleep(1000);
    return !g_atomic_int_get(&b->fps_pending);
}

/* A block whose turn in its file's SHA-256 has not come does not hold its
 * hasher: the hasher goes on to the next block, and whoever digests the
 * block before takes it up. One hasher; file A's second block is submitted
 * before its first, then file B's only block: B must be hashed while A's
 * second block waits (a hasher that waited for A's first block would never
 * get to B; the test then fails after ten seconds instead of hanging). */
static void test_hasher_goes_on_while_block_waits(void)
{
    enum { PART = 5000, PIECE = 1000 };
    uint8_t a[2 * PART], bytes_b[PART];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (uint8_t)(i * 2654435761u >> 11);
    memset(bytes_b, 7, sizeof bytes_b);
    DataBlock a0 = { .data = a, .cap = PART, .fresh_len = PART };
    DataBlock a1 = { .data = a + PART, .cap = PART, .fresh_len = PART, .seq = 1, .last = TRUE };
    DataBlock b0 = { .data = bytes_b, .cap = PART, .fresh_len = PART, .last = TRUE };
    DataBlock *all[] = { &a0, &a1, &b0 };
    for (int k = 0; k < 3; k++) {
        all[k]->chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk));
        for (uint32_t pos = 0; pos < PART; pos += PIECE) {
            BlockChunk c = { .offset = pos, .length = PIECE };
            g_array_append_val(all[k]->chunks, c);
        }
    }
    BlockHasher *h = block_hasher_new(FP_SHA1, FILE_DIGEST_SHA256, 4);
    GThread *thread = g_thread_new("hash", block_hasher_run, h);
    uint8_t sha_a[32], sha_b[32], want[32];
    FileDigest *fa = block_hasher_file(h, sha_a), *fb = block_hasher_file(h, sha_b);
    block_hasher_submit(h, &a1, fa);
    block_hasher_submit(h, &b0, fb);
    CU_ASSERT_TRUE_FATAL(hashed_within_deadline(&b0));
    CU_ASSERT_TRUE(g_atomic_int_get(&a1.fps_pending)); /* its bytes cannot be in A's digest yet */
    block_hasher_submit(h, &a0, fa);
    block_hasher_wait(h, &a1);
    CU_ASSERT_FALSE(g_atomic_int_get(&a0.fps_pending));
    block_hasher_stop(h, 1);
    g_thread_join(thread);
    EVP_Digest(a, sizeof a, want, NULL, EVP_sha256(), NULL);
    CU_ASSERT_EQUAL(memcmp(want, sha_a, 32), 0);
    EVP_Digest(bytes_b, sizeof bytes_b, want, NULL, EVP_sha256(), NULL);
    CU_ASSERT_EQUAL(memcmp(want, sha_b, 32), 0);
    size_t bad = 0;
    for (int k = 0; k < 3; k++) {
        bad += wrong_fingerprints(all[k]);
        g_array_unref(all[k]->chunks);
    }
    CU_ASSERT_EQUAL(bad, 0);
    block_hasher_free(h);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("block_hasher", NULL, NULL);
    CU_add_test(s, "files' blocks interleaved over three hashers", test_interleaved_files);
    CU_add_test(s, "fingerprint time without the files' SHA-256", test_fingerprint_time_excludes_sha256);
    CU_add_test(s, "a block never submitted", test_unsubmitted_block);
    CU_add_test(s, "a hasher goes on while its block waits its turn", test_hasher_goes_on_while_block_waits);
}

UNIT_MAIN(add_suites)
