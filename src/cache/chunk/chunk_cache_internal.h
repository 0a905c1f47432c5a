/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_cache_internal.h: the ChunkCache structure, shared by the files
 * that implement it (chunk_cache.c: access path; chunk_cache_report.c:
 * statistics). Nothing outside src/cache includes it. */
#ifndef DESTOR_CHUNK_CACHE_INTERNAL_H
#define DESTOR_CHUNK_CACHE_INTERNAL_H

#include "cache/chunk/chunk_cache.h"
#include "cache/structures/chunk_table.h"
#include "cache/structures/key_table.h"

/* Containers a request remembers having read whole (ssd-cache-chunk-fetch
 * container): a later miss in one of them costs no second HDD read. As
 * many as the container read path's per-request LRU (read_session.h). */
#define CHUNK_CACHE_REQUEST_CONTAINERS 8

typedef struct ChunkCacheAheadBatch ChunkCacheAheadBatch;

/* Real mode: one chunk read ahead (chunk_cache_read_ahead) and not used
 * yet. */
typedef struct {
    Fingerprint fp;
    uint32_t len;
    uint8_t *buf; /* len bytes, checked, when result is HIT */
    ChunkLayoutGet result;
    gboolean started; /* in the batch still being read (result not known yet) */
    ChunkCacheAheadBatch *batch; /* that batch, while started */
} ChunkCacheAhead;

/* The bytes read ahead and not used yet the cache keeps at most (the
 * oldest go first): four announcements of the read side's 1 MiB
 * (file_output.c, read_session_ahead), so one request's own announcement
 * never pushes out the trace's look-ahead. */
#define CHUNK_CACHE_AHEAD_MAX (4u << 20)
/* Read-ahead batches being read at once (the log reads two,
 * CHUNK_LOG_BATCHES_IN_FLIGHT): a third waits for the oldest. */
#define CHUNK_CACHE_AHEAD_BATCHES 2u

/* One started chunk_cache_read_ahead batch. */
struct ChunkCacheAheadBatch {
    GPtrArray *entries;     /* ChunkCacheAhead, started */
    ChunkLayoutRead *reads; /* theirs, in the same order */
    void *ticket;           /* the layout's get_many */
};

/* One reader's request: its bracket, the containers it read whole and its
 * container buffer. Each thread reading through the cache at once has its
 * own (chunk_cache_reader_new); the cache's fields are under its lock, a
 * reader's are its thread's. */
struct ChunkCacheReader {
    ChunkCache *cache;
    gboolean in_request, missed;
    uint64_t accesses;  /* its accesses in the request */
    double model_s;     /* the model's time its accesses in the request took */
    gint64 wall_start;
    ContainerId read[CHUNK_CACHE_REQUEST_CONTAINERS]; /* fetch container: read whole in the request */
    uint32_t n_read, next_read;
    uint8_t *container_buf; /* real mode, fetch container: the request's last container */
    ContainerId container_in_buf;
};

struct ChunkCache {
    GMutex lock;
    ChunkCacheOptions opt;
    const ChunkPolicyOps *ops;
    void *pst;
    CachePolicyValue *values;
    uint64_t *policy_counters;
    ChunkPolicyEnv env;
    Admission admission;   /* ssd-cache-admission, with its write budget */

    /* the data cache: per slot */
    Fingerprint *fp;
    uint32_t *length;   /* 0: a free slot */
    ContainerId *container;
    uint32_t *offset;
    uint8_t *kept;      /* reinsert kept it and it was not hit since (counters.kept_hit) */
    uint32_t n_slots;   /* slots the arrays hold */
    uint32_t *free_slots; /* stack of free slots below n_slots */
    uint32_t n_free;
    uint32_t n_taken;   /* slots ever used: each below it is occupied or free */
    uint64_t used_bytes;
    uint32_t max_chunk; /* a longer chunk is never cached: the layout holds none (lops->max_chunk) */
    ChunkTable table;

    ChunkCacheCounters counters;
    DeviceModel model;
    ChunkCacheReader own; /* the reader of chunk_cache_read, _touch and the request bracket */

    /* the layout (ssd-cache-layout), through the seam, in both modes */
    const ChunkLayoutOps *lops;
    ChunkLayoutOptions lopt;  /* what it is opened with (no directory), completed by its geometry */
    void *lmodel; /* simulation: the layout's decisions without data (lops->model_*) */

    /* real mode: the layout on the SSD */
    void *layout;             /* NULL in simulation */
    gboolean damaged_warned;  /* the one warning about damaged chunks is out */
    GHashTable *ahead_by_fp;  /* Fingerprint -> ChunkCacheAhead: the announced reads' cached chunks */
    GQueue *ahead_order;      /* of them, oldest first */
    uint64_t ahead_bytes;
    GQueue ahead_batches;     /* ChunkCacheAheadBatch being read, oldest first (at most
                                 CHUNK_CACHE_AHEAD_BATCHES) */

    /* fetch container: the chunk lists of the containers read whole
     * (chunk_cache_offer.c), ContainerId -> ChunkCacheContainerChunks */
    GHashTable *container_chunks;
    uint64_t container_chunk_entries;
    gboolean offer_warned;

    /* simulation with compression: each admitted chunk's stored length
     * (chunk_cache_stored.c) and the puts' counts (the held chunks'
     * stored bytes are the layout model's: lops->model_counters) */
    CacheCodec *sim_codec; /* NULL: nothing remembered */
    uint64_t *stored_keys; /* chunk identities (chunk_table_key) */
    uint32_t *stored_len;
    uint32_t n_stored, cap_stored;
    KeyTable stored_table;
    uint8_t *sim_buf, *sim_out; /* max_chunk each */
    double sim_cpu_compress_s;
    uint64_t stored_unread; /* chunks simulation could not read to compress (counted as they are) */
    gboolean stored_warned;
    uint64_t put_stored_bytes; /* the admissions' stored bytes (simulation) */
    uint64_t put_compressed;   /* of them, chunks stored compressed (simulation) */

    ChunkObserver observer;
    void *observer_data;
};

/* chunk_cache.c, for chunk_cache_real.c */
/* The layout (or its model) dropped a cached chunk by itself. */
void chunk_cache_layout_dropped(void *ctx, const Fingerprint *fp, uint32_t length);
/* The slot holding fp, or CHUNK_NO_SLOT; empty an occupied one (the
 * policy told). */
ChunkSlot chunk_cache_slot(const ChunkCache *c, const Fingerprint *fp);
void chunk_cache_drop_slot(ChunkCache *c, ChunkSlot s);

/* Occupy a slot with a chunk the log holds (warm start; the caller tells
 * the policy). */
ChunkSlot chunk_cache_bind(ChunkCache *c, const Fingerprint *fp, uint32_t length);

/* Admit a chunk the data cache does not hold (a miss, or an offer: then a
 * refusal is counted in offers_refused, not refused), evicting until it
 * fits; real mode puts data into the log. TRUE: admitted. */
gboolean chunk_cache_admit(ChunkCache *c, const ChunkRef *ref, const ChunkAccess *a, const uint8_t *data,
                           gboolean offer);

/* chunk_cache_offer.c: offer the other chunks of missed's container, read
 * whole by this miss, in its offset order; offer one chunk; free the lists
 * and their bytes. */
typedef struct ChunkCacheContainerChunks ChunkCacheContainerChunks;
void chunk_cache_offer_container(ChunkCache *c, const ChunkCacheReader *r, const ChunkRef *missed);
gboolean chunk_cache_offer_locked(ChunkCache *c, const ChunkRef *ref, const uint8_t *data);
void chunk_cache_offers_free(ChunkCache *c);
size_t chunk_cache_offers_memory(const ChunkCache *c);

/* chunk_cache_stored.c: the bytes chunk `ref` takes on the SSD when
 * admitted: its length, or in simulation with compression its compressed
 * length by the layout's rule (read from the store and compressed at its
 * first admission, then remembered). */
void chunk_cache_stored_init(ChunkCache *c);
void chunk_cache_stored_free(ChunkCache *c);
uint32_t chunk_cache_stored_length(ChunkCache *c, const ChunkRef *ref, const uint8_t *data);
size_t chunk_cache_stored_memory(const ChunkCache *c);

/* chunk_cache_real.c: the container r's last miss read whole (fetch
 * container), if it is `id`; else NULL. */
const uint8_t *chunk_cache_real_container(const ChunkCacheReader *r, ContainerId id);

/* chunk_cache_real.c: real mode's byte moves. Open the log and warm the
 * policy from it; close it (nothing in simulation). */
gboolean chunk_cache_real_open(ChunkCache *c, GError **err);
gboolean chunk_cache_real_close(ChunkCache *c, GError **err);
/* Read the chunks of refs the data cache holds now and not read ahead yet
 * together through the layout's get_many, each checked, kept for the
 * reads that follow (at most CHUNK_CACHE_AHEAD_MAX bytes). */
void chunk_cache_real_read_ahead(ChunkCache *c, const ChunkRef *refs, size_t n);
/* With the cache's lock held: when fp is being read ahead, wait for its
 * batch's SSD reads without the lock (other readers' accesses are decided
 * meanwhile; the lock is held again on return and anything may have
 * changed), so that the access's decision then finds it read. */
void chunk_cache_real_wait_ahead(ChunkCache *c, const Fingerprint *fp);
/* Put into the layout again: what was read ahead of fp (perhaps found
 * damaged) is forgotten. */
void chunk_cache_real_forget_ahead(ChunkCache *c, const Fingerprint *fp);
/* The cached chunk ref into buf, checked by the layout (read ahead, or
 * read now); FALSE: damaged or lost (counted; the caller drops the slot).
 * swap not NULL (*swap == buf, g_malloc'd): a chunk read ahead is not
 * copied, its buffer (ref->length bytes) is exchanged for *swap. */
gboolean chunk_cache_real_get(ChunkCache *c, const ChunkRef *ref, uint8_t *buf, uint8_t **swap);
/* The chunk from the store by the miss path, checked, through r's
 * container buffer: touches nothing of the cache's, so it runs without
 * its lock. */
gboolean chunk_cache_real_fetch(const ChunkCache *c, ChunkCacheReader *r, const ChunkRef *ref, uint8_t *buf,
                                GError **err);
/* r's container buffer (real mode, fetch container), or none. */
void chunk_cache_real_reader_init(const ChunkCache *c, ChunkCacheReader *r);
void chunk_cache_real_reader_free(ChunkCacheReader *r);

#endif
