/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backup_msg.h: what flows through the backup pipeline's queues.
 *
 * The walker sends one BackupItem per entry, in walk order, on the order
 * queue to the store stage, and each regular file also on the work queue,
 * where the first idle chunk worker takes it. That worker reads the file
 * into blocks of its own, cuts and fingerprints the chunks in place, and
 * sends the blocks on the item's own queue; the store stage takes items in
 * walk order, each item's blocks in file order, and gives every block back
 * to its worker. So the recipe order is the walk order however many workers
 * run, and a worker ahead of the store stops when its blocks run out. */
#ifndef DESTOR_BACKUP_MSG_H
#define DESTOR_BACKUP_MSG_H

#include "recipe/file_record.h"
#include "recipe/file_status.h"
#include "util/bounded_queue.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* One chunk of a block: where it lies in the block and its fingerprint. */
typedef struct {
    uint32_t offset, length;
    Fingerprint fp;
} BlockChunk;

/* A worker's read buffer with the chunks cut from it. Recycled through the
 * worker's pool: neither the bytes nor the chunk list are allocated per
 * chunk or per file. */
typedef struct DataBlock {
    uint8_t *data;
    size_t cap;         /* bytes data holds */
    GArray *chunks;     /* BlockChunk */
    gboolean last;      /* the file's last block (its chunks may be none) */
    BoundedQueue *home; /* the pool to give the block back to */
    /* A block left to a BlockHasher (block_hasher.h): */
    gint fps_pending;           /* its fingerprints, and its bytes in the file's digest, are not in
                                   yet (atomic; set before submit, cleared under the hasher's lock) */
    struct FileDigest *digest;  /* the file's digest, taken over the blocks in order */
    guint seq;                  /* the block's place in its file, from 0 */
    size_t fresh, fresh_len;    /* data[fresh..fresh + fresh_len) was read into this block
                                   (what comes before it is the last block's tail) */
    struct DataBlock *waiting_next; /* fingerprinted, waiting for its turn in the file's
                                       digest: the next such block, by seq */
} DataBlock;

typedef struct {
    FileRecord *file;  /* NULL: end of the stream */
    int fd;            /* regular file opened for reading; -1 otherwise */
    BoundedQueue *out; /* regular files: DataBlocks, the last one marked */
    int read_errno;    /* nonzero: reading failed, the file is skipped
                          (set before the last block is sent) */
    gboolean changed;  /* its size or mtime moved while it was read: what is
                          stored may mix old and new bytes (set likewise) */
    FileStatus status; /* regular files: what the next job's files cache compares */
    gboolean unread;   /* file is the files cache's: the parent's record of this
                          unchanged file, whose chunks are stored instead of
                          reading it (fd -1, out NULL) */
} BackupItem;

#endif
