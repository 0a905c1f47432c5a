/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout.h: the seam between the chunk cache core and its on-SSD
 * layouts (ssd-cache-layout log | buckets): one ops table that the
 * segment log (chunk_log.h, through chunk_layout_log.c) and the
 * bucketized layout (chunk_buckets.h, through chunk_layout_buckets.c)
 * both implement, so the core holds a layout without knowing which.
 *
 * A directory written with one layout and opened with the other is
 * rebuilt empty, said on stderr (each layout claims the directory for
 * itself: cache_dir.h). */
#ifndef DESTOR_CACHE_CHUNK_LAYOUT_H
#define DESTOR_CACHE_CHUNK_LAYOUT_H

#include "cache/common/cache_codec.h"
#include "cache/common/cache_dir.h"
#include "cache/common/report_table.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The layouts, in the registry's order (cache_dir.h's
 * CACHE_DIR_CHUNK_LAYOUTS: one line a layout): CHUNK_LAYOUT_LOG, segments
 * written whole (Nitro's WEUs: chunk_log.h); CHUNK_LAYOUT_BUCKETS,
 * AustereCache's buckets of sub-slots (chunk_buckets.h). */
typedef enum {
#define CHUNK_LAYOUT_KIND(kind, name) CHUNK_LAYOUT_##kind,
    CACHE_DIR_CHUNK_LAYOUTS(CHUNK_LAYOUT_KIND)
#undef CHUNK_LAYOUT_KIND
    CHUNK_LAYOUT_COUNT
} ChunkLayoutKind;

/* Its ops' name: "log", "buckets" */
const char *chunk_layout_name(ChunkLayoutKind kind);
/* FALSE for any other name. */
gboolean chunk_layout_parse(const char *name, ChunkLayoutKind *out);

typedef void (*ChunkLayoutDropped)(void *ctx, const Fingerprint *fp, uint32_t length);
/* The log reclaims a segment under CHUNK_LOG_REINSERT: keep this live
 * chunk (rewritten into the open segment)? Asked only while the bound on
 * reinserted bytes leaves room for it; a chunk not kept is dropped (the
 * `dropped` callback). It must not call into the layout. */
typedef gboolean (*ChunkLayoutKeep)(void *ctx, const Fingerprint *fp, uint32_t length);
/* The log starts reclaiming a segment under CHUNK_LOG_REINSERT, whose
 * room after its header is `room` bytes; the keeps asked until the next
 * call are about its chunks. It must not call into the layout. */
typedef void (*ChunkLayoutReclaiming)(void *ctx, uint32_t room);

/* The store's identity a layout records (store.meta). */
#define CHUNK_LAYOUT_STORE_ID_LEN 16

/* The log's ssd-cache-segment-reclaim: how a segment is reclaimed when no
 * free one is left. */
typedef enum {
    CHUNK_LOG_EVICT = 0, /* oldest segment, every live chunk dropped (Nitro) */
    CHUNK_LOG_CLEAN = 1, /* fewest live bytes; live chunks rewritten when that frees >= half a segment */
    CHUNK_LOG_REINSERT = 2, /* oldest segment; the live chunks the policy keeps (up to half a segment)
                               rewritten, the others dropped */
} ChunkLogReclaim;

/* "evict", "clean", "reinsert" (ssd-cache-segment-reclaim) */
const char *chunk_log_reclaim_name(ChunkLogReclaim r);
/* FALSE for any other name. */
gboolean chunk_log_reclaim_parse(const char *name, ChunkLogReclaim *out);

/* What either layout is opened with; each takes the fields it knows. */
typedef struct {
    const char *directory;
    uint64_t capacity_bytes;
    FingerprintAlgorithm fp_alg;
    uint8_t store_id[CHUNK_LAYOUT_STORE_ID_LEN];
    gboolean o_direct;          /* ssd-cache-o-direct */
    uint32_t segment_size;      /* log only (0: its default) */
    ChunkLogReclaim reclaim;    /* log only */
    CacheCodecKind compression; /* ssd-cache-compression (a directory written with another is rebuilt) */
    int compression_level;
    ChunkLayoutDropped dropped; /* chunks the layout evicts by itself; may be NULL */
    void *dropped_ctx;
    ChunkLayoutKeep keep;       /* the log's reinsert: NULL keeps nothing (FIFO, as evict) */
    ChunkLayoutReclaiming reclaiming; /* the log's reinsert; may be NULL; called with keep_ctx */
    void *keep_ctx;
} ChunkLayoutOptions;

typedef enum {
    CHUNK_LAYOUT_HIT = 0,
    CHUNK_LAYOUT_ABSENT = 1,
    CHUNK_LAYOUT_DAMAGED = 2, /* dropped, counted; the caller fetches it again */
} ChunkLayoutGet;

/* One chunk of a batched get (a request's cached chunks read together). */
typedef struct {
    const Fingerprint *fp; /* in */
    void *buf;             /* in: room for the chunk's length (as `contains` reports it) */
    uint32_t len;          /* out: its length on a hit */
    ChunkLayoutGet result; /* out */
} ChunkLayoutRead;

/* What a layout written in whole segments (the log) counts of them. */
typedef struct {
    uint64_t user_bytes_written;        /* chunk bytes written in a segment (when written; the
                                           layout's user_bytes_written counts them when put) */
    uint64_t user_stored_bytes_written; /* their stored bytes */
    uint64_t cleaner_bytes_written;     /* stored bytes the cleaner rewrote */
    uint64_t reinserted_bytes_written;  /* stored bytes reinsert rewrote (when written) */
    uint64_t chunks_reinserted;         /* chunks reinsert kept */
    uint64_t chunks_reinsert_cut;       /* chunks reinsert dropped unasked: past its bound */
    uint64_t segments_written, segments_evicted, segments_cleaned, segments_reinserted;
    uint64_t damaged_segments;          /* found unusable when the index was rebuilt at open */
} ChunkLayoutSegments;

/* The counters both layouts have. */
typedef struct {
    uint64_t user_bytes_written;   /* chunk bytes put */
    uint64_t device_bytes_written; /* every byte written to the SSD */
    uint64_t chunks_dropped_by_layout;
    uint64_t damaged_reads;
    uint64_t prefix_collisions;    /* buckets only (0 for the log) */
    uint64_t gets;
    uint64_t bytes_served;
    uint64_t stored_bytes_written; /* what the puts' chunks took (buckets: compressed, whole sub-slots;
                                      the log: their stored bytes, compressed or as they are) */
    uint64_t chunks_compressed;    /* puts stored compressed */
    uint64_t stored_bytes_held;    /* bytes the chunks held take (buckets: their sub-slots; the log: stored bytes) */
    double cpu_compress_s, cpu_decompress_s; /* thread CPU time in the codec */
    ChunkLayoutSegments segments;  /* a layout of segments (the log); zeros for the buckets */
} ChunkLayoutCounters;

/* What a layout's report rows read (its ops' `report`, `model_report`):
 * its counters and the figures of the chunk cache they are shown with,
 * filled by the cache (chunk_cache_report.c). */
typedef struct {
    ChunkLayoutCounters counters;     /* the layout's, or in simulation its model's */
    gboolean real;                    /* the layout on the SSD, not its model */
    uint64_t capacity_bytes;          /* what the layout was opened with (the log's: by its reclaim rule) */
    const char *reclaim;              /* the log's ssd-cache-segment-reclaim (chunk_log_reclaim_name) */
    const char *compression;          /* ssd-cache-compression (cache_codec_name) */
    double compression_ratio;         /* chunk bytes put / the bytes they took on the SSD */
    uint64_t capacity_logical_bytes;  /* the chunk bytes the SSD holds at that ratio */
    /* the chunk cache's counts of the layout's answers (ChunkCacheCounters): chunks found damaged,
     * live chunks a layout that does not evict dropped by itself (the log reclaiming a segment), chunks
     * the policy kept that were hit before reclaimed again, failed puts, puts of bytes not their
     * fingerprint's */
    uint64_t damaged, dropped, kept_hit, ssd_write_errors, put_mismatched;
} ChunkLayoutReport;

typedef struct {
    const char *name; /* its ssd-cache-layout value */
    ChunkLayoutKind kind;
    /* A get is one of the layout's own replacement decisions (buckets: the
     * sketch counts hits), so gets must come one access at a time, in
     * order: the core reads nothing ahead of its access. */
    gboolean get_decides;
    /* The layout does the replacement itself (buckets: in the newcomer's
     * bucket, with the policy austere): the core admits a chunk without
     * making room, and a chunk the layout drops is an eviction. Otherwise
     * the policy evicts until a newcomer fits, and a chunk the layout
     * drops by itself (the log reclaiming a segment) is counted apart. */
    gboolean evicts;

    /* What the layout needs to know before it opens, from the options the
     * cache gives (no directory: simulation asks too). Complete them:
     * the log's segment size, and its capacity by its reclaim rule
     * (chunk_cache.h); a layout leaves what it does not use. */
    void (*geometry)(ChunkLayoutOptions *opt);
    /* The largest chunk a layout opened with opt holds. */
    uint32_t (*max_chunk)(const ChunkLayoutOptions *opt);
    /* The layout's compression rule: buf[0..len) compressed with codec
     * into out (room for len bytes); the compressed length when the
     * layout would keep it so, else len (out then undefined). *cpu_s
     * gets the codec's thread CPU time added. */
    uint32_t (*compress)(const ChunkLayoutOptions *opt, CacheCodec *codec, const uint8_t *buf, uint32_t len,
                         uint8_t *out, double *cpu_s);
    /* The bytes a chunk of `stored` stored bytes takes on the SSD (the
     * buckets: whole sub-slots). */
    uint32_t (*stored_size)(const ChunkLayoutOptions *opt, uint32_t stored);

    void *(*open)(const ChunkLayoutOptions *opt, GError **err);
    gboolean (*close)(void *layout, GError **err);
    gboolean (*contains)(void *layout, const Fingerprint *fp, uint32_t *length);
    gboolean (*put)(void *layout, const Fingerprint *fp, const void *buf, uint32_t len, GError **err);
    ChunkLayoutGet (*get)(void *layout, const Fingerprint *fp, void *buf, uint32_t *len);
    /* `get` for each of n chunks, as `get` checks and counts each, started
     * now; the results are in reads after get_many_wait with the ticket
     * it returns (reads and buffers stay until then; every ticket is
     * waited for, in order). The log keeps several SSD reads in flight on
     * its reader threads while the caller goes on
     * (chunk_log_get_many_start); the buckets read one after another at
     * once. The layout's own put, sync and close finish a started batch
     * first (its results then wait in the ticket). */
    void *(*get_many)(void *layout, ChunkLayoutRead *reads, size_t n);
    void (*get_many_wait)(void *layout, void *ticket);
    /* Optional (NULL: a layout that reads at get_many, the buckets): a
     * hold on the SSD reads of a started ticket, or NULL when nothing is
     * left to wait for; hold_wait waits for those reads and hold_release
     * lets the hold go, both from any thread without the layout's
     * caller's lock (the layout is not touched), so one thread waits for
     * its reads while others use the layout. The results are still taken
     * by get_many_wait. */
    void *(*get_many_hold)(void *layout, void *ticket);
    void (*hold_wait)(void *hold);
    void (*hold_release)(void *hold);
    gboolean (*drop)(void *layout, const Fingerprint *fp);
    void (*foreach)(void *layout, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length), void *ctx);
    gboolean (*sync)(void *layout, GError **err);
    uint64_t (*chunks)(void *layout);
    void (*counters)(void *layout, ChunkLayoutCounters *out);
    size_t (*index_bytes)(void *layout); /* the in-memory index */

    /* Simulation: the layout's decisions without its data (the chunk
     * cache's simulate mode). Opened with the options the layout would be
     * (no directory, no bytes), a model holds the same chunks, makes the
     * same `dropped` calls and counts what the layout counts (where that
     * is a function of the sequence) on the same puts, hits and drops. A
     * put names the chunk's length and its stored length (what it takes
     * on the SSD: fewer bytes when the layout's compression rule keeps it
     * compressed, chunk_cache_stored_length). */
    void *(*model_open)(const ChunkLayoutOptions *opt, GError **err);
    void (*model_close)(void *model);
    void (*model_put)(void *model, const Fingerprint *fp, uint32_t length, uint32_t stored);
    void (*model_hit)(void *model, const Fingerprint *fp);
    gboolean (*model_drop)(void *model, const Fingerprint *fp);
    /* device_bytes_written 0: the model does not count the device's
     * bytes (buckets); the caller counts the chunks' own */
    void (*model_counters)(void *model, ChunkLayoutCounters *out);
    size_t (*model_index_bytes)(void *model); /* what the layout's index would take */

    /* Its part of the chunk cache's report: the name of its JSON object,
     * and the rows (over a ChunkLayoutReport) of that object's members
     * and of its text lines, the layout's and its model's in simulation
     * (chunk_layout_report.h). */
    const char *report_name;
    const ReportTable *report, *model_report;
} ChunkLayoutOps;

#define CHUNK_LAYOUT_DECLARE(kind, name) extern const ChunkLayoutOps chunk_layout_##name##_ops;
CACHE_DIR_CHUNK_LAYOUTS(CHUNK_LAYOUT_DECLARE)
#undef CHUNK_LAYOUT_DECLARE

const ChunkLayoutOps *chunk_layout_ops(ChunkLayoutKind kind);

/* A layout's put: the chunk's bytes matched against their fingerprint
 * (by fpr), once, as it is admitted; from then on their CRC-32, taken
 * from the same bytes, stands for them (a hit checks it). *check gets
 * that CRC-32; FALSE with an INTEGRITY error naming `layout` when the
 * bytes are not fp's (nothing is stored). */
gboolean chunk_layout_check_put(Fingerprinter *fpr, const Fingerprint *fp, const void *buf, uint32_t len,
                                const char *layout, uint32_t *check, GError **err);

#endif
