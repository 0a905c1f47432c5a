/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wlfu.c: wlfu, "write-aware LFU", a policy of our own (issue 25's third
 * attempt, docs/CACHE.md). sigpop's significance test refused most
 * newcomers and its cold filter kept the first cache fill for later:
 * together they lost 1 to 4 points of hit ratio while writing a tenth to a
 * quarter of PLC's bytes. wlfu keeps sigpop's frequency order and spends
 * more of that write headroom: a miss replaces the least frequent cached
 * container when it is more frequent (TinyLFU's plain comparison, Einziger,
 * Friedman & Manes, ACM TOS 2017), or as frequent and read twice lately
 * (LARC's ghost-hit evidence, Huang et al., MSST 2013, as a tie-break).
 *
 *   f(x)   the access count of every container of the store, the core's
 *          (`cache-counters`, access_counts.h): +1 on every access, every
 *          f halved (rounded down) once W accesses have been counted since
 *          the last halving, W = floor(wlfu-age-window x n_containers), at
 *          least 1; wlfu-age-window 0: never.
 *   victim the cached container of lowest recorded f (f at its last access
 *          or aging); among equals the least recently accessed.
 *   ghost  the ids of the misses refused lately, oldest first, at most
 *          max(1, floor(g C)) of them, g = wlfu-ghost-share.
 *   miss x a = f(x), this access counted (and an aging it completed done);
 *          x leaves the ghost list if there (a ghost hit):
 *          a free slot                  -> admitted into it
 *          else b = recorded f(victim):
 *          a > b                        -> replaces the victim
 *          a = b and a ghost hit        -> replaces the victim (tie_ghost)
 *          otherwise                    -> refused (refused_not_above), and
 *                                          x joins the ghost list as newest
 *
 * Defaults, fixed from the definition before the robustness workloads were
 * run with it (the commit that adds this file says so): wlfu-age-window 16,
 * sigpop's, so that the two differ in their admission only; g = 0.5, half
 * of ARC's C ghosts and the middle of LARC's 0.1 C .. 0.9 C, as adapt and
 * minisim. There is no cold filter: a free slot holds nothing, so filling
 * it can only add hits, and the fill costs at most C writes once.
 *
 * Memory: 20 bytes a slot (recorded f, last-access tick, the indexed heap)
 * and the ghost list (GHOST_LIST_BYTES, 10.5 to 14.5 bytes an id): at
 * caches of 20% and 10% of the store, under 7 bytes per stored container.
 *
 * Counters: admitted_tie_ghost, refused_not_above, ghost_hits, agings.
 * Saved state, version 1 (the counts are saved by the core): capacity u32,
 * n_containers u32, the clock u64; per slot the recorded f u32 and the
 * last-access tick u64 (0 for a free slot; ticks start at 1); the ghost
 * list (length u32, ids u32 oldest first). */
#include "cache/policy/count_aging.h"
#include "cache/policy/count_state.h"
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_heap.h"
#include "cache/policies/container/wlfu_rule.h"
#include "util/le.h"

#include <math.h>
#include <string.h>

enum { KEY_AGE_WINDOW, KEY_GHOST_SHARE, N_KEYS };
enum { ADMITTED_TIE_GHOST, REFUSED_NOT_ABOVE, GHOST_HITS, AGINGS, N_COUNTERS };

typedef struct {
    CacheSlot slot;
} HeapEntry;

/* recorded f, tick, heap entry and position */
#define WLFU_BYTES_PER_SLOT (sizeof(uint32_t) + sizeof(uint64_t) + SLOT_HEAP_BYTES_PER_SLOT(HeapEntry))

static inline gboolean slot_less(const void *ctx, const HeapEntry *x, const HeapEntry *y);

SLOT_HEAP_DEFINE(WlfuHeap, wlfu_heap, HeapEntry, slot_less)

typedef struct {
    const CachePolicyEnv *env;
    uint64_t window;  /* W accesses; 0: never age */
    uint64_t clock;   /* ticks of accesses to cached slots */
    uint32_t *key;    /* per slot: f recorded at the last access or aging */
    uint64_t *tick;   /* per slot: clock at the last access (0: free) */
    WlfuHeap heap;    /* the cached slots; the top is the victim */
    GhostList ghost;  /* refused misses */
} Wlfu;

static inline gboolean slot_less(const void *ctx, const HeapEntry *x, const HeapEntry *y)
{
    const Wlfu *s = ctx;
    CacheSlot a = x->slot, b = y->slot;
    return wlfu_rule_before(s->key[a], s->tick[a], s->key[b], s->tick[b]);
}

static void *wlfu_create(const CachePolicyEnv *env)
{
    Wlfu *s = g_new0(Wlfu, 1);
    uint32_t cap = env->capacity ? env->capacity : 1;
    s->env = env;
    s->window = count_aging_window(env->values[KEY_AGE_WINDOW].number, env->n_containers);
    s->key = g_new0(uint32_t, cap);
    s->tick = g_new0(uint64_t, cap);
    wlfu_heap_init(&s->heap, env->capacity, s);
    uint32_t g = (uint32_t)floor(env->values[KEY_GHOST_SHARE].number * (double)env->capacity);
    ghost_list_init(&s->ghost, g ? g : 1);
    return s;
}

static void wlfu_destroy(void *st)
{
    Wlfu *s = st;
    g_free(s->key);
    g_free(s->tick);
    wlfu_heap_free(&s->heap);
    ghost_list_free(&s->ghost);
    g_free(s);
}

static uint64_t wlfu_count_age_window(void *st)
{
    return ((Wlfu *)st)->window;
}

/* Every f was halved: re-read the cached containers' and restore the heap
 * order, O(C). */
static void wlfu_counts_aged(void *st)
{
    Wlfu *s = st;
    COUNT_AGING_REKEY(s->env, s->key, &s->heap, wlfu_heap);
    s->env->counters[AGINGS]++;
}

static void touch(Wlfu *s, CacheSlot slot)
{
    s->key[slot] = cache_policy_env_slot_count(s->env, slot);
    s->tick[slot] = ++s->clock;
}

static void wlfu_hit(void *st, CacheSlot slot)
{
    Wlfu *s = st;
    touch(s, slot); /* f and tick only grow between agings: later in the order */
    wlfu_heap_sink(&s->heap, slot);
}

static CacheDecision wlfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Wlfu *s = st;
    gboolean ghost_hit = ghost_list_remove(&s->ghost, id);
    s->env->counters[GHOST_HITS] += ghost_hit;
    if (!full)
        return CACHE_ADMIT_FREE;
    uint32_t a = cache_policy_env_count(s->env, id);
    CacheSlot v = wlfu_heap_top(&s->heap)->slot;
    uint32_t b = s->key[v];
    if (wlfu_rule_admits(a, b, ghost_hit)) {
        s->env->counters[ADMITTED_TIE_GHOST] += a == b;
        *victim = v;
        return CACHE_ADMIT_REPLACE;
    }
    ghost_list_push(&s->ghost, id);
    s->env->counters[REFUSED_NOT_ABOVE]++;
    return CACHE_REFUSE;
}

static void wlfu_inserted(void *st, CacheSlot slot)
{
    Wlfu *s = st;
    touch(s, slot);
    wlfu_heap_insert(&s->heap, (HeapEntry){ slot });
}

static void wlfu_removed(void *st, CacheSlot slot)
{
    Wlfu *s = st;
    wlfu_heap_remove(&s->heap, slot);
    s->key[slot] = 0;
    s->tick[slot] = 0;
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 16

static void wlfu_save_state(void *st, GByteArray *out)
{
    Wlfu *s = st;
    uint32_t cap = s->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD + COUNT_STATE_SLOT * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, s->env->n_containers);
    le64_put(b + 8, s->clock);
    count_state_save(s->env, s->key, s->tick, b + STATE_HEAD);
    ghost_list_save(&s->ghost, 1, out);
}

/* Back to the state of create(), after a blob was refused half-read. */
static void forget_all(Wlfu *s)
{
    uint32_t cap = s->env->capacity ? s->env->capacity : 1;
    memset(s->key, 0, cap * sizeof *s->key);
    memset(s->tick, 0, cap * sizeof *s->tick);
    s->heap.size = 0;
    s->clock = 0;
    while (ghost_list_pop_oldest(&s->ghost) != GHOST_NONE)
        ;
}

/* The blob must describe this cache (capacity and store size) exactly. A
 * restored slot the blob saved as free joins as a fresh access, after the
 * others; a saved slot that was not restored is ignored. A recorded f
 * above the container's count (with exact counts: other than it), a tick
 * above the clock, two equal ticks or a ghost id outside the store is
 * refused. */
static gboolean wlfu_load_state(void *st, const uint8_t *blob, size_t len)
{
    Wlfu *s = st;
    const CachePolicyEnv *env = s->env;
    size_t at = STATE_HEAD + (size_t)COUNT_STATE_SLOT * env->capacity;
    if (len < at || le32_get(blob) != env->capacity || le32_get(blob + 4) != env->n_containers)
        return FALSE;
    s->clock = le64_get(blob + 8);
    if (s->clock == UINT64_MAX || !count_state_load(env, blob + STATE_HEAD, s->clock, s->key, s->tick) ||
        !ghost_list_load(&s->ghost, 1, blob, len, &at) || at != len) {
        forget_all(s);
        return FALSE;
    }
    for (uint32_t n = s->ghost.oldest[0]; n != GHOST_NONE; n = s->ghost.next[n])
        if (s->ghost.id[n] >= env->n_containers) {
            forget_all(s);
            return FALSE;
        }
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (s->tick[slot] != 0)
            wlfu_heap_append(&s->heap, (HeapEntry){ slot });
    wlfu_heap_rebuild(&s->heap);
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (cache_policy_env_occupied(env, slot) && s->tick[slot] == 0)
            wlfu_inserted(s, slot);
    return TRUE;
}

static size_t wlfu_memory(const void *st)
{
    const Wlfu *s = st;
    return sizeof *s + (size_t)s->env->capacity * WLFU_BYTES_PER_SLOT + GHOST_LIST_BYTES(s->ghost.max);
}

static const CachePolicyKey wlfu_keys[N_KEYS] = {
    [KEY_AGE_WINDOW] = { "wlfu-age-window", CACHE_KEY_REAL, 0, 1000000, NULL, "16",
                         "halve every frequency each this many x n_containers accesses (0: never)" },
    [KEY_GHOST_SHARE] = { "wlfu-ghost-share", CACHE_KEY_REAL, 0, 4, NULL, "0.5",
                          "a miss as frequent as the victim is admitted if refused lately; the list of "
                          "refused misses keeps this x the capacity (at least 1)" },
};

static const CachePolicyCounter wlfu_counters[N_COUNTERS] = {
    [ADMITTED_TIE_GHOST] = { "admitted_tie_ghost", "admitted: as frequent as the victim and refused lately",
                             NULL },
    [REFUSED_NOT_ABOVE] = { "refused_not_above", "refused: not above the victim's frequency", NULL },
    [GHOST_HITS] = { "ghost_hits", "misses refused lately (ghost hits)", NULL },
    [AGINGS] = { "agings", "agings (every frequency halved)", NULL },
};

const CachePolicyOps cache_policy_wlfu = {
    .name = "wlfu",
    .description = "write-aware LFU: a miss replaces the least frequent container if more frequent, or as "
                   "frequent and refused lately",
    .citation = "ours, after Einziger et al. (TinyLFU, ACM TOS 2017), Huang et al. (LARC, MSST 2013) and sigpop",
    .offline = FALSE,
    .keys = wlfu_keys,
    .n_keys = N_KEYS,
    .counters = wlfu_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = wlfu_create,
    .destroy = wlfu_destroy,
    .hit = wlfu_hit,
    .admit = wlfu_admit,
    .inserted = wlfu_inserted,
    .removed = wlfu_removed,
    .count_age_window = wlfu_count_age_window,
    .counts_aged = wlfu_counts_aged,
    .state_version = 1,
    .save_state = wlfu_save_state,
    .load_state = wlfu_load_state,
    .bytes_per_slot = WLFU_BYTES_PER_SLOT,
    .memory = wlfu_memory,
};
