/* SPDX-License-Identifier: GPL-3.0-or-later */
/* block_hasher.c: a queue of blocks to hash and the threads that take them
 * (see block_hasher.h). */
#include "backup/block_hasher.h"

#include "util/bounded_queue.h"
#include "util/thread_cpu.h"

struct BlockHasher {
    FingerprintAlgorithm alg;
    FileDigestAlgorithm digest;
    BoundedQueue *todo; /* DataBlocks; `stop_marker` ends a thread */
    GMutex lock;        /* guards the clearing of fps_pending, every FileDigest's next
                           and waiting, `spare`, and fp_seconds */
    FileDigest *spare;  /* files' digests done with, for the next files (spare_next) */
    GCond hashed;       /* a block was hashed */
    double fp_seconds;  /* the threads' time on chunk fingerprints, added as each returns */
};

struct FileDigest {
    FileHasher *hasher;
    guint next;         /* the block whose bytes come next */
    DataBlock *waiting; /* fingerprinted blocks after `next`, by seq (waiting_next) */
    uint8_t *out;
    FileDigest *spare_next;
};

static DataBlock stop_marker;

BlockHasher *block_hasher_new(FingerprintAlgorithm alg, FileDigestAlgorithm digest, guint capacity)
{
    BlockHasher *h = g_new0(BlockHasher, 1);
    h->alg = alg;
    h->digest = digest;
    h->todo = bounded_queue_new(capacity);
    g_mutex_init(&h->lock);
    g_cond_init(&h->hashed);
    return h;
}

/* A file's digest is taken from the spares: a hasher is set up once
 * (SHA-256 fetched from OpenSSL, an XXH3 state allocated), not per file. */
FileDigest *block_hasher_file(BlockHasher *h, uint8_t *digest_out)
{
    g_mutex_lock(&h->lock);
    FileDigest *f = h->spare;
    if (f != NULL)
        h->spare = f->spare_next;
    g_mutex_unlock(&h->lock);
    if (f == NULL) {
        f = g_new0(FileDigest, 1);
        f->hasher = file_hasher_new(h->digest);
    }
    g_assert(f->waiting == NULL);
    f->next = 0;
    f->out = digest_out;
    file_hasher_begin(f->hasher);
    return f;
}

/* b, fingerprinted, is done: the store stage may take it. */
static void block_done(BlockHasher *h, DataBlock *b)
{
    b->digest = NULL;
    g_atomic_int_set(&b->fps_pending, FALSE);
    g_cond_broadcast(&h->hashed);
}

/* b is fingerprinted: add its fresh bytes to its file's digest if the
 * blocks before it are in, and then those of the file's blocks that were
 * waiting for b; else leave b waiting for its turn, to the hasher that
 * digests the block before it. A hasher never waits here for another: it
 * goes on to the next block. After the file's last block, the digest is
 * written out and kept for another file. Called with h->lock held. */
static void digest_in_order(BlockHasher *h, DataBlock *b)
{
    FileDigest *f = b->digest;
    if (f->next != b->seq) {
        DataBlock **at = &f->waiting;
        while (*at != NULL && (*at)->seq < b->seq)
            at = &(*at)->waiting_next;
        b->waiting_next = *at;
        *at = b;
        return;
    }
    while (b != NULL) {
        g_mutex_unlock(&h->lock);
        file_hasher_add(f->hasher, b->data + b->fresh, b->fresh_len);
        gboolean last = b->last;
        if (last)
            file_hasher_end(f->hasher, f->out);
        g_mutex_lock(&h->lock);
        block_done(h, b);
        if (last) {
            f->spare_next = h->spare;
            h->spare = f;
            return;
        }
        f->next++;
        b = f->waiting;
        if (b != NULL && b->seq == f->next)
            f->waiting = b->waiting_next;
        else
            b = NULL;
    }
}

gpointer block_hasher_run(gpointer hasher)
{
    BlockHasher *h = hasher;
    Fingerprinter *fpr = fingerprinter_new(h->alg);
    double fp_seconds = 0; /* two clock reads per large block: a negligible cost */
    DataBlock *b;
    while ((b = bounded_queue_pop(h->todo)) != &stop_marker) {
        double start = thread_cpu_seconds();
        for (guint i = 0; i < b->chunks->len; i++) {
            BlockChunk *c = &g_array_index(b->chunks, BlockChunk, i);
            fingerprinter_compute(fpr, b->data + c->offset, c->length, &c->fp);
        }
        fp_seconds += thread_cpu_seconds() - start;
        g_mutex_lock(&h->lock);
        digest_in_order(h, b);
        g_mutex_unlock(&h->lock);
    }
    fingerprinter_free(fpr);
    g_mutex_lock(&h->lock);
    h->fp_seconds += fp_seconds;
    g_mutex_unlock(&h->lock);
    return NULL;
}

double block_hasher_fingerprint_seconds(BlockHasher *h)
{
    return h->fp_seconds; /* the threads have returned (joined): no lock */
}

void block_hasher_submit(BlockHasher *h, DataBlock *b, FileDigest *file)
{
    /* no hasher sees b before the push */
    g_atomic_int_set(&b->fps_pending, TRUE);
    b->digest = file;
    bounded_queue_push(h->todo, b);
}

void block_hasher_wait(BlockHasher *h, DataBlock *b)
{
    /* Most blocks (every small file's) were never submitted or are hashed
     * already: no need to take the lock the hashers share. */
    if (!g_atomic_int_get(&b->fps_pending))
        return;
    g_mutex_lock(&h->lock);
    while (g_atomic_int_get(&b->fps_pending))
        g_cond_wait(&h->hashed, &h->lock);
    g_mutex_unlock(&h->lock);
}

void block_hasher_stop(BlockHasher *h, guint threads)
{
    for (guint i = 0; i < threads; i++)
        bounded_queue_push(h->todo, &stop_marker);
}

void block_hasher_free(BlockHasher *h)
{
    if (h == NULL)
        return;
    bounded_queue_free(h->todo);
    while (h->spare != NULL) {
        FileDigest *f = h->spare;
        h->spare = f->spare_next;
        file_hasher_free(f->hasher);
        g_free(f);
    }
    g_mutex_clear(&h->lock);
    g_cond_clear(&h->hashed);
    g_free(h);
}
