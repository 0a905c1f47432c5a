/* SPDX-License-Identifier: GPL-3.0-or-later */
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
#include "cache/policy/access_counts.h"

#include <glib.h>
#include <stdint.h>

typedef uint32_t CacheSlot;
#define CACHE_NO_SLOT UINT32_MAX
#define CACHE_NO_CONTAINER UINT32_MAX /* no store has it: ids are below n_containers */


/* ---- a policy's own config keys (policy_keys.c parses them) ----
 *
 * Each key is named "<policy>-<key>" (e.g. plc-filter-threshold) and is
 * set in destor.config or with -p like any other key. A value is a number
 * (CACHE_KEY_UINT: a whole number; CACHE_KEY_REAL: a decimal) in
 * [min, max], or one of `words`; a CACHE_KEY_WORD key takes only words. */
typedef enum { CACHE_KEY_UINT, CACHE_KEY_REAL, CACHE_KEY_WORD } CachePolicyKeyType;

typedef struct {
    const char *name;          /* the full config key */
    CachePolicyKeyType type;
    double min, max;           /* UINT and REAL */
    const char *const *words;  /* NULL-terminated, or NULL */
    const char *default_value; /* as it would be written in destor.config */
    const char *doc;           /* one line */
} CachePolicyKey;

/* A parsed value: word >= 0 is an index into the key's words; otherwise
 * `number` holds the number. */
typedef struct {
    int word;
    double number;
} CachePolicyValue;

/* One of a policy's own counters, reported under "policy_counters" in the
 * cache's JSON and in the text summary. */
typedef struct {
    const char *name;  /* snake_case JSON key */
    const char *label; /* text summary */
    const char *alias; /* a top-level JSON key it was reported under before
                          the policy seam, kept for one release; or NULL */
} CachePolicyCounter;

/* Keys, counters and values of all policies, set from the configuration
 * (policy_keys.c). NULL stands for "every key at its default". */
typedef struct CachePolicySettings CachePolicySettings;

/* What a policy sees of the core. Pointers stay valid for the policy's life;
 * the arrays are the core's and are read-only here. */
typedef struct {
    uint32_t capacity;                /* slots */
    uint32_t n_containers;
    const AccessCounts *counts;       /* every container's access count: the
                                         current access counted, the aging it
                                         completed done (access_counts.h) */
    const uint32_t *reference_count;  /* n_containers, or NULL (all 0) */
    const ContainerId *slot_id;       /* container in each slot, or
                                         CACHE_NO_CONTAINER for a free one */
    const CachePolicyValue *values;   /* the policy's keys, in its keys[] order */
    uint64_t *counters;               /* the policy's counters, in its counters[]
                                         order; the policy adds to them */
} CachePolicyEnv;

/* Is `slot` occupied (it holds env->slot_id[slot])? */
static inline gboolean cache_policy_env_occupied(const CachePolicyEnv *env, CacheSlot slot)
{
    return slot < env->capacity && env->slot_id[slot] != CACHE_NO_CONTAINER;
}

/* Container id's access count (an estimate with `cache-counters sketch`). */
static inline uint32_t cache_policy_env_count(const CachePolicyEnv *env, ContainerId id)
{
    return access_counts_get(env->counts, id);
}

/* The access count of the container in an occupied slot. */
static inline uint32_t cache_policy_env_slot_count(const CachePolicyEnv *env, CacheSlot slot)
{
    return access_counts_get(env->counts, env->slot_id[slot]);
}

typedef enum {
    CACHE_ADMIT_FREE,     /* write the newcomer into a free slot (cache not full) */
    CACHE_ADMIT_REPLACE,  /* write it over *victim */
    CACHE_REFUSE,         /* not admitted (a policy counts its reasons in
                             its own counters) */
} CacheDecision;

typedef struct CachePolicyOps CachePolicyOps;
struct CachePolicyOps {
    const char *name;
    const char *description; /* one line */
    const char *citation;    /* where it comes from */
    /* Offline: decides from the whole future access sequence, handed over
     * by prepare() before the first access. The core refuses an offline
     * policy in real mode, and any access before prepare(). */
    gboolean offline;
    /* Reads env->reference_count, the store's reference count of every
     * container (PLC): only for such a policy are they loaded and held. */
    gboolean needs_reference_count;
    const CachePolicyKey *keys;
    size_t n_keys;
    const CachePolicyCounter *counters;
    size_t n_counters;
    /* The core clears an evicted container's access count (PLC). */
    gboolean reset_access_on_evict;
    /* Optional: how many accesses between two halvings of every access
     * count (aging), asked once after create(); 0: never. Without it the
     * counts are never aged. After each aging the core calls counts_aged()
     * before the hit() or admit() of the access that completed it. */
    uint64_t (*count_age_window)(void *st);
    void (*counts_aged)(void *st);

    void *(*create)(const CachePolicyEnv *env);
    void (*destroy)(void *st);

    /* The container in `slot` was hit (its access count already counts it). */
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

    /* Offline policies: the whole container-access sequence of the replay,
     * seq[0] first, before the first access (the core keeps no copy; the
     * policy copies what it needs). FALSE with *err set to refuse it. */
    gboolean (*prepare)(void *st, const ContainerId *seq, size_t n, GError **err);

    /* Optional, for a restart after a clean shutdown: the policy's whole
     * state (ghost lists, sketches, clock hands...) as one blob, stored in
     * cache.meta with state_version and a CRC. save_state appends it to
     * `out`; on reopen, after the restored slots are bound (see
     * cache_policy_env_occupied) and after load_slot/load_done below,
     * load_state gets the blob of a run of the same policy and
     * state_version back. It must check what it reads (the blob passed its
     * CRC but may come from another capacity); FALSE: unusable, and the
     * core destroys this instance (whatever it took of the blob), creates
     * a fresh one and rebuilds it from inserted() calls instead. */
    uint32_t state_version;
    void (*save_state)(void *st, GByteArray *out);
    gboolean (*load_state)(void *st, const uint8_t *blob, size_t len);

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
    /* Optional: all bytes the policy holds now, ghost lists and sketches
     * included; without it bytes_per_slot x capacity. */
    size_t (*memory)(const void *st);
};

/* policy_registry.c: name -> ops. Returns FALSE for an unknown name. For
 * "none" (no cache) returns TRUE with *ops = NULL. */
gboolean cache_policy_lookup(const char *name, const CachePolicyOps **ops);
/* The registered names of either granularity, "none" first, each once,
 * NULL-terminated (for messages). */
const char *const *cache_policy_names(void);
/* The registered policies ("none" excluded), in registry order. */
size_t cache_policy_count(void);
const CachePolicyOps *cache_policy_at(size_t i);

/* policy_keys.c: the policies' own keys. */
CachePolicySettings *cache_policy_settings_new(void);
CachePolicySettings *cache_policy_settings_copy(const CachePolicySettings *s);
void cache_policy_settings_free(CachePolicySettings *s);
/* The registered key named `key` (underscores accepted for dashes), of a
 * policy of either granularity, or NULL; *owner is its policy when that is
 * a container policy, NULL for a chunk policy's key. */
const CachePolicyKey *cache_policy_find_key(const char *key, const CachePolicyOps **owner);
/* Check and record a value. FALSE with a DESTOR_ERROR_CONFIG naming key and
 * value when the value is out of range, or when no policy has the key. */
gboolean cache_policy_settings_set(CachePolicySettings *s, const char *key, const char *value, GError **err);
/* The values of ops' keys (defaults where unset), n_keys of them. */
void cache_policy_settings_resolve(const CachePolicySettings *s, const CachePolicyOps *ops,
                                   CachePolicyValue *out);
/* The same for any table of n keys (a chunk policy's). */
void cache_policy_settings_resolve_keys(const CachePolicySettings *s, const CachePolicyKey *keys, size_t n,
                                        CachePolicyValue *out);
/* A key set in s, away from its default, that is not one of keys[0..n)
 * (the selected policy's; none with n 0), or NULL: the first by name. */
const char *cache_policy_settings_stray(const CachePolicySettings *s, const CachePolicyKey *keys, size_t n);
/* Parse one value of `key` (also used for defaults). */
gboolean cache_policy_key_parse(const CachePolicyKey *key, const char *value, CachePolicyValue *out,
                                GError **err);

/* How the core wires a policy (state st) to the access counts, shared with
 * the unit tests' driver so the two cannot drift apart: the aging window
 * the policy asks for (0: none), set once it is created; and one access of
 * id counted, the policy told when that access aged the counts. */
static inline void cache_policy_set_age_window(const CachePolicyOps *ops, void *st, AccessCounts *counts)
{
    access_counts_set_window(counts, ops->count_age_window ? ops->count_age_window(st) : 0);
}

static inline void cache_policy_count_access(const CachePolicyOps *ops, void *st, AccessCounts *counts,
                                             ContainerId id)
{
    if (access_counts_count(counts, id) && ops->counts_aged)
        ops->counts_aged(st);
}

#endif
