/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_readers.h: the chunk log's reader threads, so that the chunks
 * of one request are read from the SSD together: an SSD reaches its read
 * bandwidth only with several reads in flight, and one thread reading
 * 64 KiB at a time waits out each read's latency in turn. Each thread
 * reads a chunk's stored bytes through its own (aligned) buffer,
 * decompresses them with its own codec when the chunk is stored
 * compressed, and checks the chunk against the CRC-32 its entry holds;
 * the log's index is touched only by the caller. The threads start at the first
 * batch.
 *
 * Chunks whose stored bytes lie back to back in the log (a file's chunks
 * admitted in order are written so) are read as one extent of up to
 * CHUNK_LOG_EXTENT_MAX stored bytes, one read for several chunks, each
 * chunk still decompressed and checked on its own: the chunks of a 64 KiB range are
 * then one or two reads near the SSD's sequential bandwidth, not several
 * small ones. */
#ifndef DESTOR_CACHE_CHUNK_LOG_READERS_H
#define DESTOR_CACHE_CHUNK_LOG_READERS_H

#include "cache/common/cache_codec.h"

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

/* The largest extent read at once: 1 MiB, a transfer at which SATA and
 * NVMe SSDs reach their sequential read bandwidth (as for the segment
 * size, chunk_log.h), and small enough that a request of several MiB
 * still keeps several reads in flight. Fixed from that before any
 * measurement. */
#define CHUNK_LOG_EXTENT_MAX (1024u * 1024u)

typedef struct {
    off_t off;               /* in chunks.log */
    uint32_t len;            /* the chunk's bytes */
    uint32_t stored;         /* its bytes in the log: len, or fewer when compressed */
    uint32_t check;          /* the CRC-32 the decoded bytes must have */
    void *dst;               /* len bytes */
    gboolean ok;             /* out: read, decoded and matched */
    double cpu_decompress_s; /* out: the thread CPU time of its decompression */
} ChunkLogReadJob;

typedef struct ChunkLogReaders ChunkLogReaders;

/* Readers of `fd` (shown as `path`): each thread reads through its own
 * buffer of MAX(max_len, CHUNK_LOG_EXTENT_MAX) + 2 * 4096 bytes (aligned,
 * for o_direct), allocated when it starts; compressed chunks were
 * compressed with `codec`. */
ChunkLogReaders *chunk_log_readers_new(int fd, const char *path, gboolean o_direct, uint32_t max_len,
                                       CacheCodecKind codec, unsigned threads);
/* Bytes of the threads' buffers once started (0 before the first batch). */
size_t chunk_log_readers_bytes(const ChunkLogReaders *r);
typedef struct ChunkLogReadBatch ChunkLogReadBatch;

/* Start the jobs on the threads (adjacent ones as one extent); the jobs
 * and their buffers must stay until chunk_log_readers_wait. */
ChunkLogReadBatch *chunk_log_readers_start(ChunkLogReaders *r, ChunkLogReadJob *jobs, size_t n);
/* Wait for all of a batch's jobs (their `ok` then set) and free it (its
 * memory goes with the last hold's release). */
void chunk_log_readers_wait(ChunkLogReadBatch *b);
/* A hold on a batch, for another thread to wait for its reads
 * (chunk_log_readers_wait_read) while its starter may wait for and free
 * it; each hold is released once. Any thread, no lock needed: the
 * starter's jobs are not touched. */
void chunk_log_readers_hold(ChunkLogReadBatch *b);
void chunk_log_readers_wait_read(ChunkLogReadBatch *b);
void chunk_log_readers_release(ChunkLogReadBatch *b);
void chunk_log_readers_free(ChunkLogReaders *r);

#endif
