/* SPDX-License-Identifier: GPL-3.0-or-later */
/* block_hasher.h: fingerprints the chunks of a large file's blocks, and
 * takes the file's digest (file_digest.h), on threads of their own. The worker that reads
 * a file must take its bytes in order (the cut points are serial), so a
 * large file left to one worker that also hashed it ran at one core's
 * hashing speed while the other cores waited for the store stage to take
 * its blocks. The worker now only reads and cuts; the chunk fingerprints of
 * a block are independent of every other block's, so any hasher may take
 * them, and the whole-file digest is passed along the file's blocks in
 * order: a block fingerprinted before the one before it is digested waits,
 * and the hasher that digests that one goes on with it (a hasher that
 * waited instead left its core idle a fifth of the time on large files).
 *
 * A worker cuts a block, submits it, and sends it on to the store stage at
 * once; the store stage waits for the block's fingerprints (usually in by
 * then) before it looks at them, and before it gives the block back: a
 * block counts as hashed once its bytes are in the file's digest too.
 * Blocks are taken in the order submitted, so a block waiting for its turn
 * waits for one that a hasher already holds. */
#ifndef DESTOR_BLOCK_HASHER_H
#define DESTOR_BLOCK_HASHER_H

#include "backup/backup_msg.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>

typedef struct BlockHasher BlockHasher;
typedef struct FileDigest FileDigest;

/* Chunks fingerprinted by `alg`, files digested by `digest`. `capacity`:
 * blocks that may be submitted and not yet hashed at most (every large
 * block of every worker), so submitting never blocks. */
BlockHasher *block_hasher_new(FingerprintAlgorithm alg, FileDigestAlgorithm digest, guint capacity);
/* A hasher thread's body (a GThreadFunc given the BlockHasher): hashes
 * submitted blocks until block_hasher_stop. */
gpointer block_hasher_run(gpointer hasher);
/* Thread CPU time the hashers spent on chunk fingerprints (not the files'
 * digests), in seconds, once every hasher thread has returned. */
double block_hasher_fingerprint_seconds(BlockHasher *h);

/* A file whose blocks will be submitted: its digest goes to `digest_out`
 * (FILE_DIGEST_SLOT bytes) once its last block is hashed. */
FileDigest *block_hasher_file(BlockHasher *h, uint8_t *digest_out);
/* Fingerprint b's chunks and add b->data[fresh..fresh + fresh_len) to the
 * digest of `file`, whose blocks are numbered from 0 (a worker submits
 * them in order, but any order will do: their bytes enter the digest in
 * the order of their numbers),
 * the last marked (b->last), even one whose chunks were dropped after a read
 * error. The hasher takes `file` back after its last block. */
void block_hasher_submit(BlockHasher *h, DataBlock *b, FileDigest *file);
/* Wait until b is hashed (at once for a block never submitted). */
void block_hasher_wait(BlockHasher *h, DataBlock *b);
/* Make `threads` hasher threads return once every submitted block is hashed. */
void block_hasher_stop(BlockHasher *h, guint threads);
void block_hasher_free(BlockHasher *h);

#endif
