/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_core_internal.h: the CacheCore structure, shared by the files that
 * implement the core (cache_core.c: access path; cache_persist.c: restart;
 * cache_report.c: statistics). Nothing outside src/cache includes it. */
#ifndef DESTOR_CACHE_CORE_INTERNAL_H
#define DESTOR_CACHE_CORE_INTERNAL_H

#include "cache/container/cache_core.h"
#include "cache/structures/slot_map.h"
#include "cache/container/ssd_store.h"
#include "cache/common/cache_codec.h"

/* One request's bracket: the cache's own (cache_core_request_begin), or
 * a reader's of several at once (cache_reader.h). Under the cache's lock. */
typedef struct {
    gboolean open;
    gboolean missed;   /* a miss among its accesses */
    uint64_t accesses; /* its accesses so far */
    double model_s;    /* what its accesses advanced the device model's clock */
    gint64 wall_start;
} CacheRequest;

struct CacheCore {
    ContainerSource source; /* first: the cache is a ContainerSource */
    GMutex lock;
    CacheCoreOptions opt;   /* directory points at our copy */
    char *directory;
    const CachePolicyOps *ops;
    void *pst;              /* the policy's state */
    CachePolicyValue *values;  /* the policy's keys */
    uint64_t *policy_counters; /* the policy's counters */
    gboolean prepared;      /* an offline policy has its sequence */
    CachePolicyEnv env;     /* what the policy sees */

    uint32_t n;             /* containers in the store */
    uint32_t capacity;      /* slots */
    uint32_t used;          /* occupied slots */
    AccessCounts counts;    /* every container's access count */
    SlotMap slot_of;        /* the slot of each cached container */
    ContainerId *slot_id;   /* capacity: container in each slot, or CACHE_NO_CONTAINER */
    uint64_t *slot_check;   /* capacity, real mode: cache_copy_check() of the slot */
    uint32_t *slot_stored;  /* capacity: the copy's stored length (container_size: raw) */
    uint32_t *free_slots;   /* stack; popped from the top: lowest slot first */
    uint32_t n_free;
    CacheQuadrantRecord *quad; /* n, or NULL when not tracked */

    SsdStore *ssd;          /* real mode */
    ContainerSource *backing;
    uint8_t *scratch;       /* real mode, container_size, for buf == NULL */
    CacheCodec *codec;      /* ssd-cache-compression (none: NULL) */
    uint8_t *packed;        /* real mode with a codec: container_size, a compressed copy */
    uint8_t *unpacked;      /* real mode with a codec: container_size, a new compressed
                               copy decoded again before it is written */
    uint32_t *sim_stored;   /* simulation with a codec, n: each container's stored
                               length, measured from the store at its first
                               admission (0: not yet) */

    CacheCounters counters;
    gboolean foreign_warned; /* the one warning about another store's cache is out */
    gboolean stale_warned;   /* the one warning about copies the store no longer holds */
    /* cache.meta's anchor (cache_meta.h): the highest cached id and its
     * container_stamp() when cached; CACHE_NO_CONTAINER when unknown */
    ContainerId anchor_id;
    uint32_t anchor_stamp;
    DeviceModel model;
    gint64 opened_us;
    CacheRequest request;    /* cache_core_request_begin/_end's: cache_access()'s accesses */
    Admission admission;     /* ssd-cache-admission, with its write budget */

    CacheObserver observer;
    void *observer_data;
};

/* cache_core.c */
/* With the lock held: one access (as cache_access), one reread (as
 * cache_reread), counted in request rq (when open); open and close rq (as
 * cache_core_request_begin and _end; *wall_s its wall seconds). */
gboolean cache_core_access_locked(CacheCore *c, CacheRequest *rq, ContainerId id, uint8_t *buf, GError **err);
gboolean cache_core_reread_locked(CacheCore *c, CacheRequest *rq, ContainerId id, uint8_t *buf, GError **err);
void cache_core_request_begin_locked(CacheCore *c, CacheRequest *rq, uint64_t time_ns);
double cache_core_request_end_locked(CacheCore *c, CacheRequest *rq, double *wall_s);
void cache_core_push_free(CacheCore *c, CacheSlot slot);
/* Occupy `slot` with `id`, whose copy takes `stored` bytes before padding
 * (maps only; the policy is told by the caller). */
void cache_core_bind(CacheCore *c, CacheSlot slot, ContainerId id, uint64_t check, uint32_t stored);

/* What reading a cached copy back found. */
typedef enum {
    CACHE_COPY_OK,        /* buf holds the container, its check right */
    CACHE_COPY_IO_ERROR,  /* *err set */
    CACHE_COPY_FOREIGN,   /* a sound header of another store */
    CACHE_COPY_UNDECODABLE, /* the header is this copy's, its compressed bytes do not decode */
    CACHE_COPY_DAMAGED,   /* anything else: header or bytes not the ones recorded */
} CacheCopyState;

/* Real mode: read slot's copy, decompress it if compressed (its header
 * says how), and check it is container `id` with `check`, into buf
 * (container_size bytes; aligned for O_DIRECT, the copy is read straight
 * into it, with its header when `stored`, the stored length recorded for
 * it, is what the header says: ssd_store_read). The CPU time
 * decompressing is counted. */
CacheCopyState cache_core_load_copy(CacheCore *c, CacheSlot slot, ContainerId id, uint64_t check, uint32_t stored,
                                    uint8_t *buf, GError **err);

/* Empty `slot` and tell the policy (a copy that may not be served). */
void cache_core_drop_slot(CacheCore *c, CacheSlot slot);

/* Count `n` cached copies of another store (or of an older incarnation of
 * this one) dropped, and warn about it once per run. */
void cache_core_foreign_dropped(CacheCore *c, uint32_t n);

/* Count a cached copy dropped because the store now holds other bytes
 * under its id, and warn about it once per run. */
void cache_core_stale_dropped(CacheCore *c, ContainerId id);
/* Is `id` among the containers gc freed (CacheCoreOptions.freed)? */
gboolean cache_core_freed(const CacheCore *c, ContainerId id);

/* Does a slot header describe the copy the core expects in it? */
gboolean cache_core_header_matches(const CacheCore *c, const SsdSlotHeader *h, ContainerId id, uint64_t check);

/* cache_persist.c: real mode. Restore from cache.meta at open (then mark
 * the run in progress); save it marked clean at close. */
gboolean cache_persist_restore(CacheCore *c, GError **err);
gboolean cache_persist_save(CacheCore *c, gboolean clean, GError **err);

/* The check of a cached copy: zlib crc32 in the low 32 bits, adler32 in the
 * high 32. CRC-32 alone cannot tell containers apart when their format embeds
 * a CRC-32 of themselves (every such container has the same CRC-32, or one
 * that only depends on the embedded value); adler32 is not linear in the
 * same way, so together they do. */
uint64_t cache_copy_check(const uint8_t *buf, size_t len);

#endif
