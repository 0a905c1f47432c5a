/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_space.h: the chunk log's placement and reclamation apart from
 * its bytes: the index, the segments' live counts and states, the open
 * segment's fill, which segment becomes the open segment's home (a free
 * one, else the victim of ssd-cache-segment-reclaim evict, clean or
 * reinsert), what a reclamation drops or moves (reinsert: as the `keep`
 * callback says, within its bound), and every counter of bytes written to
 * the SSD. The log on the SSD (chunk_log.c) runs it with I/O hooks that move
 * the bytes; the chunk cache's simulation runs it without (io NULL), so
 * both make the same decisions and count the same SSD bytes on the same
 * sequence of puts and drops.
 *
 * Each chunk has two lengths: its bytes (length) and what it takes in a
 * segment (stored: fewer when the log keeps it compressed, see
 * chunk_log_compress). Live bytes, the open segment's fill, the cleaner's
 * choice and the bytes it moves count stored bytes; user_bytes_written
 * counts chunk bytes and user_stored_bytes_written their stored bytes. */
#ifndef DESTOR_CACHE_CHUNK_LOG_SPACE_H
#define DESTOR_CACHE_CHUNK_LOG_SPACE_H

#include "cache/layouts/log/chunk_log.h"
#include "cache/layouts/log/chunk_log_index.h"

#include <glib.h>
#include <stdint.h>

#define CHUNK_LOG_NO_SEGMENT UINT32_MAX

typedef enum { CHUNK_LOG_SEG_FREE = 0, CHUNK_LOG_SEG_WRITTEN, CHUNK_LOG_SEG_OPEN } ChunkLogSegState;

typedef struct {
    uint64_t seq; /* when written; 0 when free or open */
    uint64_t live_bytes;
    uint32_t live_chunks;
    uint32_t state; /* ChunkLogSegState */
} ChunkLogSegment;

/* What moves bytes; every hook is called only when the space is run with
 * an io (the log on the SSD). A hook that fails leaves the space as it
 * was before the step. */
typedef struct {
    /* Write the open segment whole, as sequence number seq. */
    gboolean (*write_open)(void *ctx, uint64_t seq, GError **err);
    /* The open segment is empty again (home: its segment, or
     * CHUNK_LOG_NO_SEGMENT): clear the buffer. */
    void (*reset_open)(void *ctx, uint32_t home);
    /* Read segment s, about to be cleaned. FALSE: unreadable (its live
     * chunks are then dropped as damaged and the segment evicted). */
    gboolean (*read_victim)(void *ctx, uint32_t s);
    /* Do the victim's `stored` bytes at offset `from` decode to a chunk of
     * `length` bytes whose CRC-32 is `check`? */
    gboolean (*chunk_ok)(void *ctx, uint32_t check, uint32_t from, uint32_t length, uint32_t stored);
    /* Put a chunk's `stored` bytes in the open segment at `offset`, table
     * entry `i` (recording both lengths and its check): the put's own
     * stored bytes (from == CHUNK_LOG_FROM_PUT), or the victim's at offset
     * `from` (the cleaner moves them as they are). */
    void (*place)(void *ctx, const Fingerprint *fp, uint32_t offset, uint32_t i, uint32_t length, uint32_t stored,
                  uint32_t check, uint32_t from);
} ChunkLogSpaceIO;

/* `from` of a place that is the put's own bytes. */
#define CHUNK_LOG_FROM_PUT UINT32_MAX

typedef struct {
    uint32_t seg_size;
    uint32_t n_segments;
    ChunkLogReclaim reclaim;
    ChunkLogSegment *seg;
    ChunkLogIndex index;
    uint64_t live_bytes;
    uint64_t next_seq;
    uint32_t open_home; /* CHUNK_LOG_NO_SEGMENT until the first chunk after a write */
    uint32_t open_end;  /* end of its chunk bytes */
    uint32_t open_n;    /* its table entries */
    uint64_t open_user, open_user_stored, open_cleaner, open_reinserted;
    ChunkLogDropped dropped; /* may be NULL */
    void *dropped_ctx;
    ChunkLogKeep keep; /* reinsert: NULL keeps nothing; set after init */
    ChunkLogReclaiming reclaiming; /* reinsert: may be NULL; set after init */
    void *keep_ctx;
    const ChunkLogSpaceIO *io; /* NULL: no bytes (simulation) */
    void *io_ctx;
    ChunkLogCounters c;
} ChunkLogSpace;

/* An empty log of n_segments (>= 2) segments of seg_size bytes. */
void chunk_log_space_init(ChunkLogSpace *sp, uint32_t seg_size, uint32_t n_segments, ChunkLogReclaim reclaim,
                          ChunkLogDropped dropped, void *dropped_ctx);
void chunk_log_space_clear(ChunkLogSpace *sp);
/* Forget every chunk and segment (before a rebuild); counters stay. */
void chunk_log_space_forget(ChunkLogSpace *sp);

/* The segments a log of capacity_bytes has (the log's own rule). */
uint32_t chunk_log_space_segments(uint64_t capacity_bytes, uint32_t seg_size);
/* The largest chunk a segment holds. */
uint32_t chunk_log_space_max_chunk(uint32_t seg_size);
/* Reinsert's bound: the bytes the kept chunks of one reclaimed segment
 * may take in the open segment, their table entries included
 * (CHUNK_LOG_REINSERT_SHARE of the room after the header). */
uint32_t chunk_log_space_reinsert_bound(uint32_t seg_size);

/* A chunk now held in segment s (a load or a rebuild: no write). */
void chunk_log_space_add(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t s, uint32_t offset, uint32_t length,
                         uint32_t stored, uint32_t check);
/* Take entry e out (the policy dropped it, or it was found damaged). */
void chunk_log_space_remove(ChunkLogSpace *sp, uint32_t e);
uint32_t chunk_log_space_find(const ChunkLogSpace *sp, const Fingerprint *fp);

/* Add a chunk not in the log (length in 1..max_chunk, stored in
 * 1..length, check the CRC-32 of its bytes): the open segment is written first when it has no room for
 * `stored` bytes (io->write_open), and a home is taken for a new one (a
 * free segment, else a reclaimed one: dropped chunks reach `dropped`).
 * Counts put_bytes, put_stored_bytes and chunks_compressed. FALSE with
 * err when the write failed. */
gboolean chunk_log_space_put(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t length, uint32_t stored,
                             uint32_t check, GError **err);
/* Write the open segment now when it holds a chunk. */
gboolean chunk_log_space_seal(ChunkLogSpace *sp, GError **err);

/* The whole space: the index's invariants, each segment's live counts
 * those of its entries, one open segment (the open home), free segments
 * empty. O(entries + segments); DESTOR_CHECK()ed after every reclamation
 * (util/check.h). */
gboolean chunk_log_space_check(const ChunkLogSpace *sp);
/* chunklog.meta was written with n_chunks chunks listed: its bytes
 * (chunk_log_meta_size) counted as written to the SSD, and returned. */
uint64_t chunk_log_space_meta_written(ChunkLogSpace *sp, uint32_t n_chunks);

#endif
