/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_worker.c: read, cut and fingerprint whole files (see chunk_worker.h).
 *
 * A block holds the undecided tail of the previous block (less than
 * max_chunk bytes, copied) followed by up to READ_BLOCK newly read bytes.
 * Chunks are cut in place while a whole window of max_chunk bytes is there
 * to decide on (or up to the end of the file), so boundaries are the same
 * as if the whole file were one buffer. */
#include "backup/chunk_worker.h"
#include "backup/backup_msg.h"
#include "util/huge_pages.h"
#include "util/thread_cpu.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A pool hands out the block given back last: it is warm in the cache, and
 * blocks the pipeline never needs at once are never touched, so a tree
 * with few large files does not pay its RSS for every large block (but
 * for the rest of a huge page it touched). The blocks lie in `region`,
 * one after another. */
static BoundedQueue *new_pool(guint n, size_t cap, uint8_t *region)
{
    BoundedQueue *pool = bounded_queue_new_lifo(n);
    for (guint i = 0; i < n; i++) {
        DataBlock *b = g_new0(DataBlock, 1);
        b->data = region + (size_t)i * cap;
        b->cap = cap;
        b->chunks = g_array_new(FALSE, FALSE, sizeof(BlockChunk));
        b->home = pool;
        bounded_queue_push(pool, b);
    }
    return pool;
}

void chunk_worker_init(ChunkWorker *cw, BoundedQueue *work, guint blocks, const Chunker *chunker,
                       size_t max_chunk, FingerprintAlgorithm alg, FileDigestAlgorithm digest,
                       BlockHasher *hasher)
{
    memset(cw, 0, sizeof *cw);
    cw->work = work;
    cw->blocks = blocks;
    cw->chunker = chunker;
    cw->max_chunk = max_chunk;
    cw->alg = alg;
    cw->digest = digest;
    cw->hasher = hasher;
    /* Every block in huge pages (huge_pages.h), the large ones first, then
     * each small tier's: a block is read into, cut and hashed whole. The
     * region is a whole number of huge pages, so all of it can be. */
    size_t large = (size_t)blocks * (READ_BLOCK + max_chunk);
    size_t size = large + SMALL_TIERS * (size_t)SMALL_TIER_BYTES;
    cw->region = huge_pages_alloc((size + HUGE_PAGE_SIZE - 1) / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE);
    cw->pool = new_pool(blocks, READ_BLOCK + max_chunk, cw->region);
    uint8_t *at = cw->region + large;
    for (guint t = 0; t < SMALL_TIERS; t++, at += SMALL_TIER_BYTES)
        cw->small[t] = new_pool(SMALL_TIER_BYTES / SMALL_TIER_SIZE(t), SMALL_TIER_SIZE(t), at);
}

static void free_pool(BoundedQueue *pool, guint n)
{
    for (guint i = 0; i < n; i++) {
        DataBlock *b = bounded_queue_pop(pool);
        g_array_unref(b->chunks);
        g_free(b);
    }
    bounded_queue_free(pool);
}

void chunk_worker_clear(ChunkWorker *cw)
{
    free_pool(cw->pool, cw->blocks);
    for (guint t = 0; t < SMALL_TIERS; t++)
        free_pool(cw->small[t], SMALL_TIER_BYTES / SMALL_TIER_SIZE(t));
    huge_pages_free(cw->region);
}

/* The pool of the smallest small blocks a file of `size` (< SMALL_BLOCK)
 * bytes fits in, with a byte to spare: the read that fills a block
 * exactly cannot tell the end of the file. */
static BoundedQueue *small_pool(ChunkWorker *cw, uint64_t size)
{
    guint t = 0;
    while (t < SMALL_TIERS - 1 && size >= SMALL_TIER_SIZE(t))
        t++;
    return cw->small[t];
}

static DataBlock *take_block(BoundedQueue *pool)
{
    DataBlock *b = bounded_queue_pop(pool);
    g_array_set_size(b->chunks, 0);
    b->last = FALSE;
    return b;
}

/* Cut the chunks of b->data[0..len) that can be decided, fingerprinting
 * them with `fpr` unless it is NULL (the hasher will); returns the bytes
 * consumed.
 *
 * The thread's CPU clock is a system call (no vDSO), two per block: on a
 * tree of small files, a tenth of the per-file cost. So a small block's cut
 * is timed one time in CUT_SAMPLE, in walk order, and counted CUT_SAMPLE
 * times; every large block is timed. */
#define CUT_SAMPLE 8
static size_t cut_block(ChunkWorker *cw, Fingerprinter *fpr, DataBlock *b, size_t len, gboolean at_end)
{
    gboolean small = b->home != cw->pool;
    gboolean timed = !small || cw->small_cuts++ % CUT_SAMPLE == 0;
    double start = timed ? thread_cpu_seconds() : 0;
    size_t pos = 0;
    while (pos < len && (at_end || len - pos >= cw->max_chunk)) {
        size_t n = chunker_next(cw->chunker, b->data + pos, len - pos);
        BlockChunk c = { .offset = (uint32_t)pos, .length = (uint32_t)n };
        if (fpr != NULL)
            fingerprinter_compute(fpr, b->data + pos, n, &c.fp);
        g_array_append_val(b->chunks, c);
        pos += n;
    }
    if (timed)
        cw->cut_seconds += (thread_cpu_seconds() - start) * (small ? CUT_SAMPLE : 1);
    return pos;
}

/* What a worker thread reuses from file to file: the whole-file digest
 * (set up once, not per file) and the chunk fingerprinter. */
typedef struct {
    FileHasher *file;
    Fingerprinter *fpr;
} WorkerHashes;

/* Read into b->data from `have` until the block is full, the file ends
 * (*eof) or a read fails (it->read_errno); returns the bytes now held. */
static size_t fill_block(BackupItem *it, DataBlock *b, size_t have, uint64_t *total, uint64_t size_at_stat,
                         gboolean *eof)
{
    *eof = FALSE;
    while (have < b->cap) {
        size_t want = b->cap - have;
        ssize_t n = read(it->fd, b->data + have, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            it->read_errno = errno;
            break;
        }
        if (n == 0) {
            *eof = TRUE;
            break;
        }
        have += (size_t)n;
        *total += (uint64_t)n;
        /* A short read that reaches the size the walker saw is the end of
         * a regular file: save the read that would return 0 (a file that
         * grew is still read to its end). */
        if ((size_t)n < want && *total >= size_at_stat) {
            *eof = TRUE;
            break;
        }
    }
    return have;
}

/* As tar does: a file whose size or mtime is not what the walker saw, or
 * whose size is not what was read, changed while it was read. */
static gboolean changed_while_read(const BackupItem *it, uint64_t size_at_stat, uint64_t total)
{
    struct stat st;
    if (fstat(it->fd, &st) != 0)
        return FALSE;
    return (uint64_t)st.st_size != size_at_stat || (uint64_t)st.st_size != total ||
           st.st_mtim.tv_sec != it->file->mtime_sec || (uint32_t)st.st_mtim.tv_nsec != it->file->mtime_nsec;
}

/* Send b on to the store stage; a large file's block by way of the
 * hashers, which fingerprint its chunks and add it to the file's digest. */
static void send_block(ChunkWorker *cw, BackupItem *it, DataBlock *b, FileDigest *digest)
{
    if (digest != NULL)
        block_hasher_submit(cw->hasher, b, digest);
    bounded_queue_push(it->out, b);
}

/* A file the walker saw at least SMALL_BLOCK long is only read and cut
 * here; its blocks go to the hasher for their fingerprints and the file's
 * digest (block_hasher.h). A smaller one is hashed here, whole: handing it
 * over would cost more than hashing it. */
static void process_file(ChunkWorker *cw, BackupItem *it, WorkerHashes *h)
{
    const uint64_t size_at_stat = it->file->size;
    const gboolean small = size_at_stat < SMALL_BLOCK;
    FileDigest *digest = small ? NULL : block_hasher_file(cw->hasher, it->file->digest);
    if (small)
        file_hasher_begin(h->file);
    /* A file that grows past its small block goes on in large ones: the
     * small block's undecided tail moves to a large block like any tail. */
    DataBlock *b = take_block(small ? small_pool(cw, size_at_stat) : cw->pool);
    size_t have = 0; /* bytes in b->data */
    uint64_t total = 0;
    for (guint seq = 0;; seq++) {
        gboolean eof;
        b->fresh = have;
        have = fill_block(it, b, have, &total, size_at_stat, &eof);
        b->fresh_len = have - b->fresh;
        b->seq = seq;
        if (it->read_errno == 0 && small)
            file_hasher_add(h->file, b->data + b->fresh, b->fresh_len);
        size_t used = it->read_errno == 0 ? cut_block(cw, small ? h->fpr : NULL, b, have, eof) : 0;
        b->last = eof || it->read_errno != 0;
        if (b->last)
            break;
        DataBlock *next = take_block(cw->pool);
        have -= used;
        memcpy(next->data, b->data + used, have);
        send_block(cw, it, b, digest);
        b = next;
    }
    if (it->read_errno == 0) {
        if (small)
            file_hasher_end(h->file, it->file->digest);
        it->changed = changed_while_read(it, size_at_stat, total);
        it->file->size = total; /* what was read, should the file change meanwhile */
    } else {
        g_array_set_size(b->chunks, 0); /* the file is skipped */
    }
    close(it->fd);
    it->fd = -1;
    send_block(cw, it, b, digest);
}

gpointer chunk_worker_run(gpointer worker)
{
    ChunkWorker *cw = worker;
    WorkerHashes h = { file_hasher_new(cw->digest), fingerprinter_new(cw->alg) };
    BackupItem *it;
    while ((it = bounded_queue_pop(cw->work))->file != NULL)
        process_file(cw, it, &h);
    fingerprinter_free(h.fpr);
    file_hasher_free(h.file);
    return NULL;
}
