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
#include "cache/policies/container/count_order.h"
#include "cache/policies/container/wlfu_rule.h"
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "util/le.h"

#include <math.h>
#include <stddef.h>

enum { KEY_AGE_WINDOW, KEY_GHOST_SHARE, N_KEYS };
enum { ADMITTED_TIE_GHOST, REFUSED_NOT_ABOVE, GHOST_HITS, AGINGS, N_COUNTERS };

typedef struct {
    CountOrder order; /* first (count_order's ops): the victim order, (f recorded, tick of the last access) */
    GhostList ghost;  /* refused misses */
} Wlfu;
G_STATIC_ASSERT(offsetof(Wlfu, order) == 0);

static void *wlfu_create(const CachePolicyEnv *env)
{
    Wlfu *s = g_new0(Wlfu, 1);
    count_order_init(&s->order, env, env->values[KEY_AGE_WINDOW].number);
    uint32_t g = (uint32_t)floor(env->values[KEY_GHOST_SHARE].number * (double)env->capacity);
    ghost_list_init(&s->ghost, g ? g : 1);
    return s;
}

static void wlfu_destroy(void *st)
{
    Wlfu *s = st;
    count_order_free(&s->order);
    ghost_list_free(&s->ghost);
    g_free(s);
}

static void wlfu_counts_aged(void *st)
{
    Wlfu *s = st;
    count_order_aged(&s->order);
    s->order.env->counters[AGINGS]++;
}

static void wlfu_hit(void *st, CacheSlot slot)
{
    count_order_hit(&((Wlfu *)st)->order, slot);
}

static CacheDecision wlfu_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Wlfu *s = st;
    const CachePolicyEnv *env = s->order.env;
    gboolean ghost_hit = ghost_list_remove(&s->ghost, id);
    env->counters[GHOST_HITS] += ghost_hit;
    if (!full)
        return CACHE_ADMIT_FREE;
    uint32_t a = cache_policy_env_count(env, id);
    CacheSlot v = count_order_victim(&s->order);
    uint32_t b = s->order.key[v];
    if (wlfu_rule_admits(a, b, ghost_hit)) {
        env->counters[ADMITTED_TIE_GHOST] += a == b;
        *victim = v;
        return CACHE_ADMIT_REPLACE;
    }
    ghost_list_push(&s->ghost, id);
    env->counters[REFUSED_NOT_ABOVE]++;
    return CACHE_REFUSE;
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 16

static void wlfu_save_state(void *st, GByteArray *out)
{
    Wlfu *s = st;
    uint32_t cap = s->order.env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD + COUNT_ORDER_RECORD * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, s->order.env->n_containers);
    le64_put(b + 8, s->order.clock);
    count_order_save(&s->order, b + STATE_HEAD);
    ghost_list_save(&s->ghost, 1, out);
}

/* Back to the state of create(), after a blob was refused half-read. */
static void forget_all(Wlfu *s)
{
    count_order_forget(&s->order);
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
    const CachePolicyEnv *env = s->order.env;
    size_t at = STATE_HEAD + (size_t)COUNT_ORDER_RECORD * env->capacity;
    if (len < at || le32_get(blob) != env->capacity || le32_get(blob + 4) != env->n_containers)
        return FALSE;
    uint64_t clock = le64_get(blob + 8);
    if (clock == UINT64_MAX || !count_order_load(&s->order, blob + STATE_HEAD, clock) ||
        !ghost_list_load(&s->ghost, 1, blob, len, &at) || at != len) {
        forget_all(s);
        return FALSE;
    }
    for (uint32_t n = s->ghost.oldest[0]; n != GHOST_NONE; n = s->ghost.next[n])
        if (s->ghost.id[n] >= env->n_containers) {
            forget_all(s);
            return FALSE;
        }
    return TRUE;
}

static size_t wlfu_memory(const void *st)
{
    const Wlfu *s = st;
    return sizeof *s + (size_t)s->order.env->capacity * COUNT_ORDER_BYTES_PER_SLOT + GHOST_LIST_BYTES(s->ghost.max);
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
    .inserted = count_order_inserted_op,
    .removed = count_order_removed_op,
    .count_age_window = count_order_age_window_op,
    .counts_aged = wlfu_counts_aged,
    .state_version = 1,
    .save_state = wlfu_save_state,
    .load_state = wlfu_load_state,
    .bytes_per_slot = COUNT_ORDER_BYTES_PER_SLOT,
    .memory = wlfu_memory,
};
