/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log.h: the on-SSD byte store of the chunk-granularity cache: a log
 * of fixed-size segments (Nitro's write-evict units) holding unique chunks
 * keyed by fingerprint. It keeps no replacement policy: the cache core
 * above it decides which chunks to admit (chunk_log_put) and evict
 * (chunk_log_drop); the log only reclaims whole segments when it has no
 * free one left, and tells the core which chunks that dropped.
 *
 * Files in the cache directory (docs/FORMAT.md, "Chunk log"):
 *   chunks.log     segment i at byte i * segment_size, each written whole in
 *                  one write (O_DIRECT when configured): a header, the
 *                  chunks' stored bytes packed after it, and the entry
 *                  table (fingerprint, offset, length, stored length and
 *                  the CRC-32 of its bytes per chunk) at its tail; a CRC-32
 *                  covers header and table
 *   chunklog.meta  the index at a clean close (replaced atomically), marked
 *                  "in use" while the log is open; after a crash the index
 *                  is rebuilt from the segments' headers and tables
 *   LOCK           the directory lock (cache_dir.h, shared by every format)
 *
 * Compression (ssd-cache-compression): a chunk put is compressed
 * (cache_codec.h) and kept compressed only when that saves at least an
 * eighth of its bytes (chunk_log_compress); its entry records both
 * lengths. Live bytes, segment fill and the cleaner count stored bytes;
 * the cleaner moves them as they are. A hit decompresses, then checks.
 *
 * Correctness: a put hashes the chunk's bytes and matches them against its
 * fingerprint (admission, from the store), and records the CRC-32 of the
 * same bytes in its entry (the index, the segment's table and
 * chunklog.meta); every chunk chunk_log_get returns has matched that
 * CRC-32 (decoded, when stored compressed), so it is the bytes whose
 * fingerprint was matched, as a container's CRC-32 stands for the
 * container's bytes in the store. A damaged, truncated or torn chunk or
 * segment is a miss (counted in damaged_reads, the chunk is dropped),
 * never wrong bytes. Chunks are content-addressed, so a chunk cannot go
 * stale, and the CRC-32 sits in the entry, not beside the bytes: an entry
 * pointing at other bytes fails it.
 *
 * Space: chunks are buffered in the open segment (in memory, served from
 * there) and a full segment is written as one I/O to a free segment. When
 * none is free one is reclaimed (CHUNK_LOG_EVICT: the oldest segment, as
 * Nitro does, dropped whole; CHUNK_LOG_CLEAN: the segment with the fewest
 * live bytes, its live chunks rewritten into the open segment when that
 * frees at least half a segment, else dropped whole; CHUNK_LOG_REINSERT:
 * the oldest segment, each live chunk the `keep` callback keeps rewritten
 * into the open segment, at most CHUNK_LOG_REINSERT_SHARE of it, the
 * others dropped). Every byte written to the SSD is counted, the
 * cleaner's and reinsertion's separately. These decisions and
 * counts are made apart from the bytes (chunk_log_space.h), which the
 * chunk cache's simulation runs without them.
 *
 * One thread at a time. */
#ifndef DESTOR_CACHE_CHUNK_LOG_H
#define DESTOR_CACHE_CHUNK_LOG_H

#include "cache/common/cache_codec.h"
#include "cache/layouts/chunk_layout.h" /* ChunkLogReclaim, an option the seam carries */
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK_LOG_FILE "chunks.log"
#define CHUNK_LOG_META_FILE "chunklog.meta"
#define CHUNK_LOG_STORE_ID_LEN 16
/* Smallest segment: header, one table entry and some data in 4 KiB units. */
#define CHUNK_LOG_MIN_SEGMENT (64u * 1024u)
/* Largest segment (offsets are 32-bit). */
#define CHUNK_LOG_MAX_SEGMENT (1024u * 1024u * 1024u)
/* Reads chunk_log_get_many keeps in flight: an SSD needs a queue depth of
 * a few to reach its read bandwidth with 64 KiB reads (NVMe and SATA NCQ
 * both take 32 and more; 4 is where most reach it), fixed from that before
 * any measurement. */
#define CHUNK_LOG_DEFAULT_READERS 4u
/* get_many batches read at once: two, so that the readers go on with the
 * next batch while the caller waits for the last reads of one and takes
 * its results (one batch at a time left them idle from the end of each
 * batch until the caller started the next). */
#define CHUNK_LOG_BATCHES_IN_FLIGHT 2u
/* The default ssd-cache-segment-size, 4 MiB (see docs/CACHE.md): a whole
 * number of SSD erase blocks (commonly 256 KiB to 4 MiB), and large enough
 * that one sequential write reaches a SATA/NVMe SSD's sequential write
 * bandwidth (transfers of 1 MiB and more do). Fixed from that definition
 * before any measurement. */
#define CHUNK_LOG_DEFAULT_SEGMENT (4u * 1024u * 1024u)

/* Called for each live chunk the log drops by itself: reclamation of a
 * segment (evict, clean that chose to drop, or a chunk reinsert did not
 * keep). Not called for
 * chunk_log_drop, nor for a damaged chunk chunk_log_get reports as a miss
 * (the caller learns those from the call). Called from inside
 * chunk_log_put: it must not call into the log. */
typedef void (*ChunkLogDropped)(void *ctx, const Fingerprint *fp, uint32_t length);
/* CHUNK_LOG_REINSERT: keep a live chunk of the segment being reclaimed?
 * (chunk_layout.h, ChunkLayoutKeep; called from inside chunk_log_put: it
 * must not call into the log.) */
typedef gboolean (*ChunkLogKeep)(void *ctx, const Fingerprint *fp, uint32_t length);
/* CHUNK_LOG_REINSERT: a segment of `room` bytes after its header is being
 * reclaimed; the keeps that follow are about its chunks
 * (ChunkLayoutReclaiming). */
typedef void (*ChunkLogReclaiming)(void *ctx, uint32_t room);

/* CHUNK_LOG_REINSERT's bound: the kept chunks (stored bytes and table
 * entries) take at most 1/CHUNK_LOG_REINSERT_SHARE of a segment's room
 * (its bytes after the header). Fixed from the design before any
 * measurement, by the cleaner's rule (chunk_log_space.c): every reclaim
 * then leaves at least half a segment for new chunks, so the log always
 * advances and reinsertion writes at most one byte per byte of new
 * chunks. */
#define CHUNK_LOG_REINSERT_SHARE 2u

typedef struct {
    const char *directory;          /* the SSD cache directory (created if missing) */
    uint64_t capacity_bytes;        /* the cache's size: capacity_bytes / segment_size segments (>= 2) */
    uint32_t segment_size;          /* multiple of 4096 in [CHUNK_LOG_MIN_SEGMENT, CHUNK_LOG_MAX_SEGMENT] */
    gboolean o_direct;              /* open chunks.log with O_DIRECT */
    FingerprintAlgorithm fp_alg;    /* the store's fingerprint function */
    uint8_t store_id[CHUNK_LOG_STORE_ID_LEN]; /* the store's identity (store.meta) */
    ChunkLogReclaim reclaim;        /* chunk_layout.h */
    ChunkLogDropped dropped;        /* may be NULL */
    void *dropped_ctx;
    ChunkLogKeep keep;              /* CHUNK_LOG_REINSERT; NULL keeps nothing */
    ChunkLogReclaiming reclaiming;  /* CHUNK_LOG_REINSERT; may be NULL; called with keep_ctx */
    void *keep_ctx;
    unsigned readers;               /* reader threads of chunk_log_get_many (0: CHUNK_LOG_DEFAULT_READERS) */
    CacheCodecKind compression;     /* ssd-cache-compression (recorded: a log of another is started empty) */
    int compression_level;
} ChunkLogOptions;

/* Counters since open (the cache's own write amplification is
 * device_bytes_written / user_bytes_written; the figure the issue names,
 * (user + cleaner) / user, counts only chunk bytes). */
typedef struct {
    uint64_t user_bytes_written;    /* chunk bytes put and written in a segment */
    uint64_t user_stored_bytes_written; /* their stored bytes (compressed or as they are) */
    uint64_t cleaner_bytes_written; /* stored bytes the cleaner rewrote */
    uint64_t reinserted_bytes_written; /* stored bytes reinsert rewrote (counted when their segment is written) */
    uint64_t chunks_reinserted;     /* live chunks reinsert kept (rewritten into the open segment) */
    uint64_t chunks_reinsert_cut;   /* live chunks reinsert dropped unasked: past its bound */
    uint64_t put_bytes;             /* chunk bytes of the puts that added a chunk (when put) */
    uint64_t put_stored_bytes;      /* their stored bytes */
    uint64_t chunks_compressed;     /* of those puts, chunks kept compressed */
    double cpu_compress_s, cpu_decompress_s; /* thread CPU time in the codec (the reader threads' too) */
    uint64_t device_bytes_written;  /* every byte written to the SSD: segments whole, and chunklog.meta */
    uint64_t segments_written;
    uint64_t segments_evicted;      /* reclaimed by dropping their live chunks */
    uint64_t segments_cleaned;      /* reclaimed by rewriting their live chunks */
    uint64_t segments_reinserted;   /* reclaimed by reinsert (some live chunks kept, the others dropped) */
    uint64_t chunks_dropped_by_log; /* live chunks dropped by reclamation (the `dropped` callback) */
    uint64_t damaged_reads;         /* gets whose bytes did not match their CRC-32, or could not be read
                                       or decompressed */
    uint64_t damaged_segments;      /* segments found unusable when the index was rebuilt at open */
    uint64_t gets;                  /* chunk_log_get calls that found the fingerprint */
    uint64_t bytes_served;          /* bytes returned by those that succeeded */
} ChunkLogCounters;

typedef struct ChunkLog ChunkLog;

/* Create or reopen the log in opt->directory, claimed for the log
 * (cache_dir_claim: locked, another format's files removed). A log it
 * cannot use as it is, is rebuilt empty with one line on stderr saying
 * why: another store's or fingerprint function's log, or another
 * segment size. After a clean close the index is read from chunklog.meta;
 * otherwise it is rebuilt from the segments (a segment whose header or
 * table fails its CRC holds nothing). NULL with err on an I/O error, a
 * held lock (DESTOR_ERROR_LOCKED) or bad options (DESTOR_ERROR_CONFIG). */
ChunkLog *chunk_log_open(const ChunkLogOptions *opt, GError **err);
/* The segment size and capacity chunk_log_open accepts (a CONFIG error
 * otherwise); the other options are not looked at. */
gboolean chunk_log_check_options(const ChunkLogOptions *o, GError **err);

/* Write the open segment (when it holds a chunk), sync, save chunklog.meta
 * marked clean, release the lock and free. FALSE when something could not
 * be written (the log is freed all the same; the next open rebuilds). */
gboolean chunk_log_close(ChunkLog *log, GError **err);

/* Is the chunk in the log (written or in the open segment)? Its length in
 * *length when not NULL. */
gboolean chunk_log_contains(const ChunkLog *log, const Fingerprint *fp, uint32_t *length);

/* Add a chunk (len in 1 .. chunk_log_max_chunk()). TRUE and nothing written
 * when it is already there. A full open segment is written first, which
 * may reclaim a segment (the `dropped` callback). FALSE on an I/O error,
 * and (DESTOR_ERROR_INTEGRITY, nothing written) when the bytes do not hash
 * to fp. */
gboolean chunk_log_put(ChunkLog *log, const Fingerprint *fp, const void *buf, uint32_t len, GError **err);

/* The largest chunk a segment can hold. */
uint32_t chunk_log_max_chunk(const ChunkLog *log);

/* The log's compression rule, for the log and for simulation (which
 * compresses each admitted chunk once to count what real mode stores):
 * compress buf[0..len) with `codec` into out (room for len bytes) and
 * return the compressed length when it saves at least ceil(len / 8) bytes
 * (ZFS's rule: a block is kept compressed only when it saves 12.5%; the
 * log packs bytes, so any saving shrinks the SSD write, but each hit of a
 * compressed chunk pays its decompression); else len (store it as it is;
 * out is then undefined). *cpu_s gets the codec's thread CPU time added. */
uint32_t chunk_log_compress(CacheCodec *codec, const uint8_t *buf, uint32_t len, uint8_t *out, double *cpu_s);

typedef enum {
    CHUNK_LOG_HIT = 0,     /* the bytes are in buf, matched against their entry's CRC-32 */
    CHUNK_LOG_ABSENT = 1,  /* not in the log */
    CHUNK_LOG_DAMAGED = 2, /* was there, but its bytes did not match or could not be read:
                            * dropped, damaged_reads counted; the caller fetches it again */
} ChunkLogGet;

/* Read the chunk into buf (room for chunk_log_max_chunk() bytes, or its
 * length from chunk_log_contains); *len gets its length on a hit. An
 * unreadable chunk is a damaged one (the SSD failing is a miss). */
ChunkLogGet chunk_log_get(ChunkLog *log, const Fingerprint *fp, void *buf, uint32_t *len);

/* One chunk of chunk_log_get_many. */
typedef struct {
    const Fingerprint *fp; /* in */
    void *buf;             /* in: room for the chunk (chunk_log_max_chunk() bytes, or its length) */
    uint32_t len;          /* out: its length on a hit */
    ChunkLogGet result;    /* out */
} ChunkLogRead;

/* chunk_log_get for each of n chunks (a request's chunks), their SSD reads
 * made together by the log's reader threads, each chunk checked as
 * chunk_log_get checks it, with the same counters. The threads only read
 * and hash: the index changes (a damaged chunk dropped) on the caller's
 * thread. */
void chunk_log_get_many(ChunkLog *log, ChunkLogRead *reads, size_t n);
/* The same in two halves, so the caller can work while the SSD reads:
 * start (chunks of the open segment and absent ones are answered at
 * once; reads and their buffers must stay until the wait) returns the
 * batch's number; wait_for takes the results (counters, drops of damaged
 * chunks) of every batch started up to that number, in order. Up to
 * CHUNK_LOG_BATCHES_IN_FLIGHT batches are read at once: a start beyond
 * that finishes the oldest first. A put, sync and close finish every
 * started batch first (chunk_log_get_many_wait); get, contains and drop
 * may come between. */
uint64_t chunk_log_get_many_start(ChunkLog *log, ChunkLogRead *reads, size_t n);
void chunk_log_get_many_wait_for(ChunkLog *log, uint64_t seq);
void chunk_log_get_many_wait(ChunkLog *log);
/* A hold on the SSD reads of started batch `seq` (NULL when none are left
 * to wait for), so that a thread can wait for them without the caller's
 * lock (chunk_log_hold_wait: any thread, the log untouched) while the
 * log goes on; the batch's results are still taken by
 * chunk_log_get_many_wait_for. Each hold is released once
 * (chunk_log_hold_release, any thread). */
void *chunk_log_get_many_hold(ChunkLog *log, uint64_t seq);
void chunk_log_hold_wait(void *hold);
void chunk_log_hold_release(void *hold);

/* The policy evicted the chunk: its bytes become dead space. FALSE when it
 * was not there. */
gboolean chunk_log_drop(ChunkLog *log, const Fingerprint *fp);

/* Call fn for each chunk in the log (after open: to rebuild the policy's
 * view). The log must not change during the walk. */
void chunk_log_foreach(const ChunkLog *log, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length),
                       void *ctx);

/* Write the open segment now (even when not full) and fsync chunks.log
 * (chunklog.meta stays marked in use until the close: after a crash the
 * index is rebuilt from the segments). FALSE on an I/O error. */
gboolean chunk_log_sync(ChunkLog *log, GError **err);

uint64_t chunk_log_chunks(const ChunkLog *log);     /* chunks in the log */
uint64_t chunk_log_live_bytes(const ChunkLog *log); /* their stored bytes (what they take in the segments) */
uint32_t chunk_log_segments(const ChunkLog *log);   /* capacity in segments */
const ChunkLogCounters *chunk_log_counters(const ChunkLog *log);
/* Bytes of memory the in-memory index takes (entry array and hash table),
 * and the rest: the per-segment array, the open segment's and the read
 * buffers, the reader threads' buffers once started. */
size_t chunk_log_index_bytes(const ChunkLog *log);
size_t chunk_log_fixed_bytes(const ChunkLog *log);

#endif
