/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_worker.h: the backup's chunk workers, one thread each. A worker
 * takes whole files from the work queue and for each reads it (computing
 * its digest, file_digest.h), cuts its chunks and fingerprints them, all in its own read
 * blocks, and sends the blocks on the file's queue to the store stage.
 * Several workers run at once on different files; which worker takes a
 * file changes nothing stored, because chunk boundaries depend only on the
 * file's bytes and the store stage takes files in walk order. */
#ifndef DESTOR_CHUNK_WORKER_H
#define DESTOR_CHUNK_WORKER_H

#include "backup/block_hasher.h"
#include "chunking/chunker.h"
#include "util/bounded_queue.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>

#define READ_BLOCK (1u << 20) /* bytes read per read() at most */
/* A file the walker saw smaller than SMALL_BLOCK is read into a small
 * block, of the smallest size class it fits, so a worker can run many small
 * files ahead of the store stage in little memory (a 1 MiB block per 8 KiB
 * file would stop it after a few, a 64 KiB one after a few dozen). Size
 * classes double from 8 KiB to SMALL_BLOCK, each with the same 384 KiB of
 * blocks (as a size-class allocator would split it): 1.5 MiB per worker. */
#define SMALL_BLOCK (64u << 10)
#define SMALL_TIERS 4
#define SMALL_TIER_BYTES (384u << 10) /* per worker and size class */
#define SMALL_TIER_SIZE(t) ((8u << 10) << (t))
typedef struct {
    BoundedQueue *work;     /* BackupItems; an item with file NULL ends */
    BoundedQueue *pool;     /* this worker's DataBlocks of READ_BLOCK + max_chunk */
    uint8_t *region;        /* the bytes of every block of the worker's */
    guint blocks;           /* how many the pool holds */
    BoundedQueue *small[SMALL_TIERS]; /* and its small blocks, one pool per tier */
    const Chunker *chunker;
    size_t max_chunk;       /* bytes a cut decision may look at */
    FingerprintAlgorithm alg;
    FileDigestAlgorithm digest; /* of the whole file (small files are digested here) */
    BlockHasher *hasher;    /* fingerprints the chunks of large blocks; small ones are done here */
    double cut_seconds;     /* thread CPU time spent cutting and fingerprinting chunks
                               (small blocks sampled: chunk_worker.c) */
    guint64 small_cuts;     /* small blocks cut so far */
} ChunkWorker;

/* Allocate the worker's pools: `blocks` blocks of READ_BLOCK + max_chunk
 * and the small tiers' blocks. A file uses at most one small block. */
void chunk_worker_init(ChunkWorker *cw, BoundedQueue *work, guint blocks, const Chunker *chunker,
                       size_t max_chunk, FingerprintAlgorithm alg, FileDigestAlgorithm digest,
                       BlockHasher *hasher);
gpointer chunk_worker_run(gpointer worker);
/* Free the pool; every block must be back in it. */
void chunk_worker_clear(ChunkWorker *cw);

#endif
