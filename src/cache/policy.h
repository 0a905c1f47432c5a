/* policy.h: the replacement-policy interface of the SSD container cache.
 *
 * The cache core (cache_core.h) owns the cached set, the slots, the
 * per-container counters, the statistics and all I/O. A policy only decides:
 *   - what to record on a hit                       (hit)
 *   - whether to admit a missed container, and
 *     which cached container it replaces           (admit)
 * and is told what the core then did               (inserted, removed).
 * A policy does no I/O and never changes the core's counters; it keeps its
 * own bookkeeping indexed by slot (0 .. capacity-1), so its memory grows
 * with the cache, not with the store.
 *
 * Adding a policy: one new file defining a `const CachePolicyOps`, plus one
 * line in the table of policy_registry.c. */
#ifndef DESTOR_CACHE_POLICY_H
#define DESTOR_CACHE_POLICY_H

#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

typedef uint32_t CacheSlot;
#define CACHE_NO_SLOT UINT32_MAX

/* Per-container record kept by the core for every container in the store
 * (8 bytes; with the store's reference_count that is 12 bytes a container). */
typedef struct {
    uint32_t access_count; /* accesses so far, the current one included;
                              PLC resets it to 0 when the container is evicted */
    CacheSlot slot;        /* slot holding the container, or CACHE_NO_SLOT */
} CacheEntry;

/* PLC's initial inner_priority: from the container's hotness, or fixed. */
typedef enum {
    PLC_PRIORITY_HOTNESS, /* access_count - plc-filter-threshold (>= 1 on admission) */
    PLC_PRIORITY_FIXED,   /* plc_initial_priority for every newcomer */
} PlcPriorityMode;

/* Tunables of the policies (only PLC has any). Defaults in cache_config.c. */
typedef struct {
    uint32_t plc_filter_threshold;   /* admit only when access_count > this (4) */
    uint32_t plc_delay_threshold;    /* initial delay_count (2) */
    gboolean plc_inout_auto;         /* f(x) = clamp(x / threshold, 1, 2) (TRUE) */
    double plc_inout_factor;         /* constant f when !plc_inout_auto, in [1, 2] */
    PlcPriorityMode plc_priority_mode;
    uint32_t plc_initial_priority;   /* with PLC_PRIORITY_FIXED */
    gboolean plc_delay_reset;        /* after a failed In-Out Comparison, restore
                                        the victim's delay_count (FALSE: it stays 0) */
} CachePolicyParams;

/* What a policy sees of the core. Pointers stay valid for the policy's life;
 * the arrays are the core's and are read-only here. */
typedef struct {
    uint32_t capacity;                /* slots */
    uint32_t n_containers;
    const CacheEntry *containers;     /* n_containers records */
    const uint32_t *reference_count;  /* n_containers, or NULL (all 0) */
    const ContainerId *slot_id;       /* container in each occupied slot */
    const CachePolicyParams *params;
} CachePolicyEnv;

typedef enum {
    CACHE_ADMIT_FREE,     /* write the newcomer into a free slot (cache not full) */
    CACHE_ADMIT_REPLACE,  /* write it over *victim */
    CACHE_REFUSE,         /* not admitted (no more specific reason) */
    CACHE_REFUSE_FILTER,  /* PLC: Popularity Filter */
    CACHE_REFUSE_DELAY,   /* PLC: Delayed Eviction spared the victim */
    CACHE_REFUSE_INOUT,   /* PLC: In-Out Comparison kept the victim */
} CacheDecision;

typedef struct CachePolicyOps CachePolicyOps;
struct CachePolicyOps {
    const char *name;
    /* The core clears an evicted container's access_count (PLC). */
    gboolean reset_access_on_evict;

    void *(*create)(const CachePolicyEnv *env);
    void (*destroy)(void *st);

    /* The container in `slot` was hit (its access_count already counts it). */
    void (*hit)(void *st, CacheSlot slot);
    /* Container `id` missed. `full`: no free slot. Return a decision; with
     * CACHE_ADMIT_REPLACE set *victim to an occupied slot. May update the
     * policy's own state (PLC moves its clock hand here). */
    CacheDecision (*admit)(void *st, ContainerId id, gboolean full, CacheSlot *victim);
    /* The core wrote env->slot_id[slot] into `slot` (after a removal, when
     * the decision was a replacement). */
    void (*inserted)(void *st, CacheSlot slot);
    /* `slot` was emptied: the victim of a replacement, or an entry the core
     * dropped (damaged copy, failed write). */
    void (*removed)(void *st, CacheSlot slot);

    /* Optional, for a restart after a clean shutdown. save fills words[slot]
     * for every occupied slot and returns one policy-wide word; on reopen the
     * core calls load_slot for the restored slots in ascending word order,
     * then load_done with the policy-wide word. Without them the core calls
     * inserted() in slot order. */
    uint64_t (*save)(void *st, uint64_t *words);
    void (*load_slot)(void *st, CacheSlot slot, uint64_t word);
    void (*load_done)(void *st, uint64_t global_word);

    /* Bytes of policy state per slot, for the memory report. */
    size_t bytes_per_slot;
};

extern const CachePolicyOps cache_policy_fifo;
extern const CachePolicyOps cache_policy_lru;
extern const CachePolicyOps cache_policy_lfu;
extern const CachePolicyOps cache_policy_lfu_incache;
extern const CachePolicyOps cache_policy_plc;
extern const CachePolicyOps cache_policy_clock;
extern const CachePolicyOps cache_policy_2q;
extern const CachePolicyOps cache_policy_arc;
extern const CachePolicyOps cache_policy_larc;
extern const CachePolicyOps cache_policy_s3fifo;
extern const CachePolicyOps cache_policy_sieve;
extern const CachePolicyOps cache_policy_tinylfu;
extern const CachePolicyOps cache_policy_wtinylfu;

/* policy_registry.c: name -> ops. Returns FALSE for an unknown name. For
 * "none" (no cache) returns TRUE with *ops = NULL. */
gboolean cache_policy_lookup(const char *name, const CachePolicyOps **ops);
/* The registered names, "none" first, NULL-terminated (for messages). */
const char *const *cache_policy_names(void);

/* plc.c: In-Out Comparison on its own (for tests and docs): does newcomer b
 * replace victim a? */
gboolean plc_inout_passes(const CachePolicyParams *p, uint32_t b_access, uint32_t b_ref,
                          uint32_t a_access, uint32_t a_ref);
/* plc.c: f(victim access_count) in [1.0, 2.0]. */
double plc_inout_f(const CachePolicyParams *p, uint32_t a_access);

#endif
