/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets.h: the bucketized on-SSD layout of the chunk cache
 * (ssd-cache-layout buckets), after AustereCache: the other layout beside
 * the segment log (chunk_log.h), with the same shape of API.
 *
 * Each chunk belongs to one fixed-size bucket, chosen by bits of its
 * fingerprint; a bucket has CHUNK_BUCKETS_DEFAULT_SLOTS sub-slots of a
 * fixed size, and a chunk takes as many consecutive sub-slots as its
 * stored bytes need: compressed through cache_codec when that saves at
 * least one sub-slot, else as it is. Memory holds, per sub-slot, only a
 * 16-bit fingerprint prefix and two flag bits (used, first of a chunk):
 * no length, no address, no full fingerprint. The full fingerprint, the
 * lengths and the codec live in the bucket's metadata area on the SSD and
 * are read and compared on every lookup: a prefix that matches a chunk of
 * another fingerprint is a miss (counted in prefix_collisions), and the
 * bytes of every hit are decompressed and hashed again (a mismatch is a
 * miss, counted in damaged_reads): never wrong bytes.
 *
 * Files in the cache directory (docs/FORMAT.md, "Chunk buckets"):
 *   chunks.buckets  bucket i at byte i * bucket size (sparse where never
 *                   written); a put writes the metadata area without the
 *                   chunks it evicts (when it evicts, or drops are
 *                   pending), then the new chunk's sub-slots, then the
 *                   metadata area with it; drops alone are written at
 *                   sync/close (metadata area only). Never a whole bucket.
 *   LOCK            the directory lock (cache_dir.h, shared by every format)
 * There is no index file: open reads every bucket's metadata area.
 *
 * Replacement inside a bucket (docs/CACHE.md): when a chunk finds no run
 * of free sub-slots long enough, the layout evicts the chunks of the run
 * whose chunks have the lowest total count in a Count-Min sketch of puts
 * and hits (chunk_buckets_sketch.h), telling the core through `dropped`.
 *
 * One thread at a time. */
#ifndef DESTOR_CACHE_CHUNK_BUCKETS_H
#define DESTOR_CACHE_CHUNK_BUCKETS_H

#include "cache/common/cache_codec.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK_BUCKETS_FILE "chunks.buckets"
#define CHUNK_BUCKETS_STORE_ID_LEN 16
/* Sub-slots per bucket: AustereCache's 128 (its §3.1: few enough for a
 * quick scan and per-bucket replacement, a 16-bit prefix collides in a
 * bucket with probability 1-(1-2^-16)^128, about 0.2%). */
#define CHUNK_BUCKETS_DEFAULT_SLOTS 128u
/* Sub-slot size: the paper's sub-chunk is a quarter of its chunk size
 * (8 KiB sub-chunks for 32 KiB chunks, its default and Exp#5); our chunk
 * size is chunk-avg-size's default, 8 KiB, so 2 KiB. Fixed from that
 * definition before any measurement. */
#define CHUNK_BUCKETS_DEFAULT_SUBSLOT 2048u
#define CHUNK_BUCKETS_MIN_SUBSLOT 512u
/* A chunk takes at most 255 sub-slots (one byte on the SSD). */
#define CHUNK_BUCKETS_MAX_SLOTS 255u

/* Called for each chunk the layout evicts by itself to make room in a
 * bucket (and for the chunks of a bucket it could not write). Called from
 * inside chunk_buckets_put: it must not call into the layout. */
typedef void (*ChunkBucketsDropped)(void *ctx, const Fingerprint *fp, uint32_t length);

typedef struct {
    const char *directory;        /* the SSD cache directory (created if missing) */
    uint64_t capacity_bytes;      /* capacity_bytes / bucket size buckets (>= 1) */
    uint32_t subslot_size;        /* multiple of 512, >= CHUNK_BUCKETS_MIN_SUBSLOT (0: the default) */
    uint32_t slots;               /* sub-slots per bucket, 1..65535 (0: the default) */
    FingerprintAlgorithm fp_alg;  /* the store's fingerprint function */
    uint8_t store_id[CHUNK_BUCKETS_STORE_ID_LEN];
    gboolean o_direct;            /* open chunks.buckets with O_DIRECT (the bucket size must then be
                                   * a multiple of 4 KiB, as the defaults' is) */
    CacheCodecKind compression;   /* ssd-cache-compression */
    int compression_level;        /* ssd-cache-compression-level (0: the codec's default) */
    ChunkBucketsDropped dropped;  /* may be NULL */
    void *dropped_ctx;
} ChunkBucketsOptions;

typedef struct {
    uint64_t user_bytes_written;    /* chunk bytes put (before compression) */
    uint64_t stored_bytes_written;  /* sub-slot bytes those took (compressed, padded to sub-slots) */
    uint64_t device_bytes_written;  /* every byte written to the SSD: sub-slots and metadata areas */
    uint64_t buckets_written;
    uint64_t chunks_compressed;     /* puts stored compressed */
    uint64_t chunks_dropped_by_layout; /* evicted to make room (the `dropped` callback) */
    uint64_t prefix_collisions;     /* lookups whose prefix matched a chunk of another fingerprint */
    uint64_t damaged_reads;         /* chunks whose bytes did not decode or match, or could not be read */
    uint64_t damaged_buckets;       /* buckets whose metadata area failed its check (at open or later) */
    uint64_t gets;                  /* chunk_buckets_get calls that found the fingerprint on the SSD */
    uint64_t bytes_served;
    double cpu_compress_s, cpu_decompress_s; /* thread CPU time in the codec */
} ChunkBucketsCounters;

typedef struct ChunkBuckets ChunkBuckets;

/* Create or reopen the layout in opt->directory, claimed for the buckets
 * (cache_dir_claim: locked, another format's files removed). Buckets it
 * cannot use as they are, are rebuilt empty with one line on stderr
 * saying why: buckets of another store, fingerprint function,
 * compression, sub-slot size or bucket size. A bucket whose metadata area
 * fails its check holds nothing (counted in damaged_buckets). NULL with
 * err on an I/O error, a held lock (DESTOR_ERROR_LOCKED) or bad options
 * (DESTOR_ERROR_CONFIG). */
ChunkBuckets *chunk_buckets_open(const ChunkBucketsOptions *opt, GError **err);

/* Write the buckets changed by drops, sync, release the lock and free.
 * FALSE when something could not be written (freed all the same). */
gboolean chunk_buckets_close(ChunkBuckets *b, GError **err);

/* Is the chunk there? Reads the bucket's metadata area when a prefix
 * matches (the full fingerprint is only on the SSD); its length in
 * *length when not NULL. */
gboolean chunk_buckets_contains(ChunkBuckets *b, const Fingerprint *fp, uint32_t *length);

/* Does any chunk of the fingerprint's bucket have its prefix? Memory
 * only: TRUE may be a prefix collision, FALSE is certain. */
gboolean chunk_buckets_maybe_contains(const ChunkBuckets *b, const Fingerprint *fp);

/* Add a chunk (len in 1 .. chunk_buckets_max_chunk()): compress it, make
 * room in its bucket (the `dropped` callback), write its sub-slots and the
 * bucket's metadata area (see the top).
 * TRUE and nothing written when it is already there. FALSE on an I/O
 * error. */
gboolean chunk_buckets_put(ChunkBuckets *b, const Fingerprint *fp, const void *buf, uint32_t len, GError **err);

/* The largest chunk: a whole bucket of sub-slots, at most 255 of them. */
uint32_t chunk_buckets_max_chunk(const ChunkBuckets *b);

/* The buckets' compression rule, for the layout and for simulation (which
 * compresses each admitted chunk once to place it as real mode does):
 * compress buf[0..len) with `codec` into out (room for len bytes) and
 * return the compressed length when that takes at least one sub-slot
 * (of `subslot` bytes) fewer than len; else len (stored as it is; out is
 * then undefined). *cpu_s gets the codec's thread CPU time added. */
uint32_t chunk_buckets_compress(CacheCodec *codec, uint32_t subslot, const uint8_t *buf, uint32_t len, uint8_t *out,
                                double *cpu_s);

typedef enum {
    CHUNK_BUCKETS_HIT = 0,     /* the bytes are in buf, matched against the fingerprint */
    CHUNK_BUCKETS_ABSENT = 1,  /* not there (a prefix collision is absent too) */
    CHUNK_BUCKETS_DAMAGED = 2, /* was there, but did not decode or match or could not be read: dropped */
} ChunkBucketsGet;

/* Read the chunk into buf (room for chunk_buckets_max_chunk() bytes, or
 * its length from chunk_buckets_contains); *len gets its length. */
ChunkBucketsGet chunk_buckets_get(ChunkBuckets *b, const Fingerprint *fp, void *buf, uint32_t *len);

/* The policy evicted the chunk: its sub-slots become free (on the SSD at
 * the bucket's next write, or at sync/close). FALSE when it was not there. */
gboolean chunk_buckets_drop(ChunkBuckets *b, const Fingerprint *fp);

/* Call fn for each chunk (reads every bucket's metadata area). The layout
 * must not change during the walk. */
void chunk_buckets_foreach(ChunkBuckets *b, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length),
                           void *ctx);

/* Write the buckets changed by drops and fsync chunks.buckets. */
gboolean chunk_buckets_sync(ChunkBuckets *b, GError **err);

uint64_t chunk_buckets_chunks(const ChunkBuckets *b);     /* chunks held */
uint64_t chunk_buckets_used_slots(const ChunkBuckets *b); /* sub-slots they take */
uint32_t chunk_buckets_count(const ChunkBuckets *b);      /* capacity in buckets */
uint32_t chunk_buckets_subslot_size(const ChunkBuckets *b);
const ChunkBucketsCounters *chunk_buckets_counters(const ChunkBuckets *b);
/* Bytes of memory the in-memory index takes (prefixes, flag bits, the
 * dirty-bucket bits and the sketch), and the rest (the bucket buffers). */
size_t chunk_buckets_index_bytes(const ChunkBuckets *b);
size_t chunk_buckets_fixed_bytes(const ChunkBuckets *b);

#endif
