/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_readers.h: the chunk log's reader threads, so that the chunks
 * of one request are read from the SSD together: an SSD reaches its read
 * bandwidth only with several reads in flight, and one thread reading
 * 64 KiB at a time waits out each read's latency in turn. Each thread
 * reads a chunk (through its own aligned buffer under O_DIRECT, or when
 * the chunk is stored compressed), decompresses it with its own codec and
 * checks it against its fingerprint with its own hashing context; the log's
 * index is touched only by the caller. The threads start at the first
 * batch. */
#ifndef DESTOR_CACHE_CHUNK_LOG_READERS_H
#define DESTOR_CACHE_CHUNK_LOG_READERS_H

#include "cache/core/cache_codec.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    off_t off;             /* in chunks.log */
    uint32_t len;          /* the chunk's bytes */
    uint32_t stored;       /* its bytes in the log: len, or fewer when compressed */
    const Fingerprint *fp; /* what the decoded bytes must hash to */
    void *dst;             /* len bytes */
    gboolean ok;           /* out: read, decoded and matched */
    double cpu_decompress_s; /* out: the thread CPU time of its decompression */
} ChunkLogReadJob;

typedef struct ChunkLogReaders ChunkLogReaders;

/* Readers of `fd` (shown as `path`; with o_direct, reads are aligned
 * through each thread's buffer of max_len + 2 * 4096 bytes, which a
 * compressed chunk is also read into); compressed chunks were compressed
 * with `codec`. */
ChunkLogReaders *chunk_log_readers_new(int fd, const char *path, gboolean o_direct, uint32_t max_len,
                                       FingerprintAlgorithm alg, CacheCodecKind codec, unsigned threads);
/* Run the jobs on the threads and wait for all of them. */
void chunk_log_readers_run(ChunkLogReaders *r, ChunkLogReadJob *jobs, size_t n);
void chunk_log_readers_free(ChunkLogReaders *r);

#endif
