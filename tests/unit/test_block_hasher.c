/* test_block_hasher.c: the block hashers (src/backup/block_hasher.c)
 * against one-shot digests. Several files' blocks are submitted
 * interleaved to three hasher threads, as several workers would: each
 * block starts with a tail of the block before (not part of its fresh
 * bytes), the last block of one file has no chunks, and the blocks are
 * waited for in an order of their own. Every chunk fingerprint must be the
 * digest of its bytes, and every file's SHA-256 that of its bytes in order,
 * which fails if a hasher adds a block to a file's digest before the block
 * ahead of it. */
#include "backup/block_hasher.h"
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
    uint8_t sha256[32];
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

static void test_interleaved_files(void)
{
    TestFile *files = g_new0(TestFile, FILES);
    GRand *r = g_rand_new_with_seed(7);
    for (int f = 0; f < FILES; f++) {
        for (size_t i = 0; i < sizeof files[f].bytes; i++)
            files[f].bytes[i] = (uint8_t)g_rand_int(r);
        for (int k = 0; k < BLOCKS; k++)
            make_block(&files[f], f, k);
    }
    BlockHasher *h = block_hasher_new(FP_SHA1, FILES * BLOCKS + 3);
    GThread *threads[3];
    for (int t = 0; t < 3; t++)
        threads[t] = g_thread_new("hash", block_hasher_run, h);
    FileDigest *digests[FILES];
    for (int f = 0; f < FILES; f++)
        digests[f] = block_hasher_file(h, files[f].sha256);
    for (int k = 0; k < BLOCKS; k++) /* block k of every file, then block k + 1 */
        for (int f = 0; f < FILES; f++)
            block_hasher_submit(h, &files[f].blocks[k], digests[f]);

    size_t bad_fps = 0, chunks = 0;
    for (int k = BLOCKS - 1; k >= 0; k--) { /* waited for last block first */
        for (int f = 0; f < FILES; f++) {
            DataBlock *b = &files[f].blocks[k];
            block_hasher_wait(h, b);
            for (guint i = 0; i < b->chunks->len; i++) {
                const BlockChunk *c = &g_array_index(b->chunks, BlockChunk, i);
                Fingerprint want;
                fingerprint_compute(FP_SHA1, b->data + c->offset, c->length, &want);
                bad_fps += memcmp(&want, &c->fp, sizeof want) != 0;
                chunks++;
            }
        }
    }
    block_hasher_stop(h, 3);
    for (int t = 0; t < 3; t++)
        g_thread_join(threads[t]);
    CU_ASSERT_EQUAL(bad_fps, 0);
    CU_ASSERT_EQUAL(chunks, (FILES * BLOCKS - 1) * 7); /* 20,000 or 20,100 bytes: 7 chunks a block */
    CU_ASSERT(block_hasher_fingerprint_seconds(h) > 0);
    for (int f = 0; f < FILES; f++) {
        uint8_t want[32];
        EVP_Digest(files[f].bytes, sizeof files[f].bytes, want, NULL, EVP_sha256(), NULL);
        CU_ASSERT_EQUAL(memcmp(want, files[f].sha256, 32), 0);
        for (int k = 0; k < BLOCKS; k++) {
            g_free(files[f].blocks[k].data);
            g_array_unref(files[f].blocks[k].chunks);
        }
    }
    block_hasher_free(h);
    g_rand_free(r);
    g_free(files);
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
    BlockHasher *h = block_hasher_new(FP_SHA1, N + 1);
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
    BlockHasher *h = block_hasher_new(FP_SHA256, 1);
    DataBlock b = { 0 };
    block_hasher_wait(h, &b);
    CU_ASSERT_FALSE(b.fps_pending);
    block_hasher_free(h);
}

/* A block whose turn in its file's SHA-256 has not come does not hold its
 * hasher: that hasher goes on to the next block, and whoever digests the
 * block before takes it up. File A's first block is slow to fingerprint
 * (65,536 chunks), its second is one chunk; file B has one block of one
 * chunk. With two hashers, the one that takes A's second block must go on
 * to B's, which is then done while A's first block is still being
 * fingerprinted (a hasher that waited for it finished B after A). */
static void test_hasher_goes_on_while_block_waits(void)
{
    enum { SLOW = 16 << 20, SLOW_CHUNK = 256, SMALL = 1000 };
    uint8_t *a = g_malloc(SLOW + SMALL), *bytes_b = g_malloc(SMALL);
    for (size_t i = 0; i < SLOW + SMALL; i++)
        a[i] = (uint8_t)(i * 2654435761u >> 11);
    memset(bytes_b, 7, SMALL);
    DataBlock a0 = { .data = a, .cap = SLOW, .fresh_len = SLOW,
                     .chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk)) };
    for (uint32_t pos = 0; pos < SLOW; pos += SLOW_CHUNK) {
        BlockChunk c = { .offset = pos, .length = SLOW_CHUNK };
        g_array_append_val(a0.chunks, c);
    }
    BlockChunk one = { .offset = 0, .length = SMALL };
    DataBlock a1 = { .data = a + SLOW, .cap = SMALL, .fresh_len = SMALL, .seq = 1, .last = TRUE,
                     .chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk)) };
    DataBlock b0 = { .data = bytes_b, .cap = SMALL, .fresh_len = SMALL, .last = TRUE,
                     .chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk)) };
    g_array_append_val(a1.chunks, one);
    g_array_append_val(b0.chunks, one);

    BlockHasher *h = block_hasher_new(FP_SHA1, 4);
    GThread *threads[2] = { g_thread_new("hash", block_hasher_run, h), g_thread_new("hash", block_hasher_run, h) };
    uint8_t sha_a[32], sha_b[32], want[32];
    FileDigest *fa = block_hasher_file(h, sha_a), *fb = block_hasher_file(h, sha_b);
    block_hasher_submit(h, &a0, fa);
    block_hasher_submit(h, &a1, fa);
    block_hasher_submit(h, &b0, fb);
    block_hasher_wait(h, &b0);
    CU_ASSERT_TRUE(g_atomic_int_get(&a0.fps_pending)); /* B done, A's first block not yet */
    block_hasher_wait(h, &a1);
    CU_ASSERT_FALSE(g_atomic_int_get(&a0.fps_pending)); /* A's second counts only once digested */
    block_hasher_stop(h, 2);
    for (int t = 0; t < 2; t++)
        g_thread_join(threads[t]);
    EVP_Digest(a, SLOW + SMALL, want, NULL, EVP_sha256(), NULL);
    CU_ASSERT_EQUAL(memcmp(want, sha_a, 32), 0);
    EVP_Digest(bytes_b, SMALL, want, NULL, EVP_sha256(), NULL);
    CU_ASSERT_EQUAL(memcmp(want, sha_b, 32), 0);
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, a + SLOW, SMALL, &fp);
    CU_ASSERT_EQUAL(memcmp(&fp, &g_array_index(a1.chunks, BlockChunk, 0).fp, sizeof fp), 0);
    g_array_unref(a0.chunks);
    g_array_unref(a1.chunks);
    g_array_unref(b0.chunks);
    block_hasher_free(h);
    g_free(a);
    g_free(bytes_b);
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
