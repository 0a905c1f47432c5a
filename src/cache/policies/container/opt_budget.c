/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_budget.c: opt-budget, the offline write-aware bound: the most hits an
 * SSD cache can buy with at most B container writes (opt-budget-writes).
 * belady is the ceiling on hits and offline-static the floor on writes;
 * this traces the frontier between them.
 *
 * The schedule is opt_budget_plan.c's (a min-cost flow over the access
 * intervals with a price per admission, the price searched for the
 * budget): optimal for its own write count, and hull_hits_bound bounds
 * every schedule within B.
 *
 * The policy then follows its position as belady does: exactly one hit()
 * or admit() per access, checked against the prepared sequence
 * (off_sequence_accesses; from the first mismatch nothing is admitted). A
 * container the schedule gives up stays in its slot, dead: the next
 * admission replaces a dead slot (the one given up last). A dead container
 * accessed again is a hit the schedule did not count; none happens at an
 * optimum (it would beat the optimum), and the e2e test checks hits =
 * planned_hits.
 *
 * Key: opt-budget-writes, a whole number of container writes, or unlimited
 * (the default: belady's hits with the fewest writes). Counters:
 * planned_hits, planned_writes, hull_hits_bound, price_per_million (w / K
 * x 10^6), flow_solves, refused_not_planned, off_sequence_accesses. Memory
 * during prepare: 10 edges of 20 bytes and 3 nodes of 24 bytes an access,
 * freed after it; then 6 bytes an access and 4 a container, 8 a slot. No
 * saved state (simulation only). */
#include "cache/policy/opt_budget_plan.h"
#include "cache/policy/policy.h"
#include "util/error.h"

#include <string.h>

#define NEVER OPT_PLAN_NEVER

enum { KEY_WRITES, N_KEYS };
enum {
    PLANNED_HITS,
    PLANNED_WRITES,
    HULL_BOUND,
    PRICE_PPM,
    SOLVES,
    REFUSED_NOT_PLANNED,
    OFF_SEQUENCE,
    N_COUNTERS
};

typedef struct {
    const CachePolicyEnv *env;
    uint32_t *next;     /* per position */
    uint32_t *expect;   /* per container: its next access from pos on */
    uint8_t *plan;      /* per position: OPT_PLAN_ADMIT and OPT_PLAN_KEEP bits */
    size_t n, pos;
    gboolean lost;
    uint64_t budget;    /* writes, or UINT64_MAX */
    uint32_t *dead;     /* dead slots; dead_at[slot] its index, or NEVER */
    uint32_t *dead_at;
    uint32_t n_dead;
} OptBudget;

/* The schedule for the prepared sequence, and its counters. */
static void plan_schedule(OptBudget *o)
{
    OptBudgetResult r;
    opt_budget_plan(o->next, o->n, o->env->capacity, o->budget, FALSE, o->plan, &r);
    o->env->counters[PLANNED_HITS] = r.hits;
    o->env->counters[PLANNED_WRITES] = r.writes;
    o->env->counters[HULL_BOUND] = r.hull_hits_bound;
    o->env->counters[PRICE_PPM] = r.price_ppm;
    o->env->counters[SOLVES] += r.solves;
}

static void *ob_create(const CachePolicyEnv *env)
{
    OptBudget *o = g_new0(OptBudget, 1);
    uint32_t cap = env->capacity ? env->capacity : 1;
    o->env = env;
    o->budget = env->values[KEY_WRITES].word == 0 ? UINT64_MAX : (uint64_t)env->values[KEY_WRITES].number;
    o->dead = g_new(uint32_t, cap);
    o->dead_at = g_new(uint32_t, cap);
    for (uint32_t s = 0; s < cap; s++)
        o->dead_at[s] = NEVER;
    return o;
}

static void ob_destroy(void *st)
{
    OptBudget *o = st;
    g_free(o->next);
    g_free(o->expect);
    g_free(o->plan);
    g_free(o->dead);
    g_free(o->dead_at);
    g_free(o);
}

static gboolean ob_prepare(void *st, const ContainerId *seq, size_t n, GError **err)
{
    OptBudget *o = st;
    if (n >= (1u << 30)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "opt-budget: %zu accesses; its flow network holds at most %u", n, (1u << 30) - 1);
        return FALSE;
    }
    g_free(o->next);
    g_free(o->expect);
    g_free(o->plan);
    o->next = g_new(uint32_t, n ? n : 1);
    o->plan = g_new0(uint8_t, n ? n : 1);
    o->expect = g_new(uint32_t, o->env->n_containers ? o->env->n_containers : 1);
    for (uint32_t id = 0; id < o->env->n_containers; id++)
        o->expect[id] = NEVER;
    for (size_t i = n; i-- > 0;) {
        o->next[i] = o->expect[seq[i]];
        o->expect[seq[i]] = (uint32_t)i;
    }
    o->n = n;
    if (o->env->capacity > 0)
        plan_schedule(o);
    return TRUE;
}

/* The access at the current position, if it is the prepared one: its plan. */
static gboolean follow(OptBudget *o, ContainerId id, uint8_t *plan)
{
    if (!o->lost && o->pos < o->n && o->expect[id] == o->pos) {
        *plan = o->plan[o->pos];
        o->expect[id] = o->next[o->pos];
        o->pos++;
        return TRUE;
    }
    o->lost = TRUE;
    o->env->counters[OFF_SEQUENCE]++;
    return FALSE;
}

static void set_dead(OptBudget *o, CacheSlot slot, gboolean dead)
{
    if (dead && o->dead_at[slot] == NEVER) {
        o->dead_at[slot] = o->n_dead;
        o->dead[o->n_dead++] = slot;
    } else if (!dead && o->dead_at[slot] != NEVER) {
        uint32_t at = o->dead_at[slot], last = o->dead[--o->n_dead];
        o->dead[at] = last;
        o->dead_at[last] = at;
        o->dead_at[slot] = NEVER;
    }
}

static void ob_hit(void *st, CacheSlot slot)
{
    OptBudget *o = st;
    uint8_t plan;
    if (follow(o, o->env->slot_id[slot], &plan))
        set_dead(o, slot, !(plan & OPT_PLAN_KEEP));
}

static CacheDecision ob_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    OptBudget *o = st;
    uint8_t plan;
    if (!follow(o, id, &plan))
        return CACHE_REFUSE;
    if (!(plan & OPT_PLAN_ADMIT)) {
        o->env->counters[REFUSED_NOT_PLANNED]++;
        return CACHE_REFUSE;
    }
    if (!full)
        return CACHE_ADMIT_FREE;
    g_assert(o->n_dead > 0); /* the schedule keeps at most C - 1 others alive here */
    *victim = o->dead[o->n_dead - 1];
    return CACHE_ADMIT_REPLACE;
}

static void ob_inserted(void *st, CacheSlot slot)
{
    set_dead(st, slot, FALSE);
}

static void ob_removed(void *st, CacheSlot slot)
{
    set_dead(st, slot, FALSE);
}

static size_t ob_memory(const void *st)
{
    const OptBudget *o = st;
    return sizeof *o + o->n * (sizeof(uint32_t) + sizeof(uint8_t)) +
           (o->expect ? o->env->n_containers * sizeof(uint32_t) : 0) + o->env->capacity * 2 * sizeof(uint32_t);
}

static const char *const ob_unlimited[] = { "unlimited", NULL };

static const CachePolicyKey ob_keys[N_KEYS] = {
    [KEY_WRITES] = { "opt-budget-writes", CACHE_KEY_UINT, 0, 4294967295.0, ob_unlimited, "unlimited",
                     "the most container writes the schedule may make (unlimited: belady's hits, fewest writes)" },
};

static const CachePolicyCounter ob_counters[N_COUNTERS] = {
    [PLANNED_HITS] = { "planned_hits", "hits of the schedule", NULL },
    [PLANNED_WRITES] = { "planned_writes", "writes of the schedule", NULL },
    [HULL_BOUND] = { "hull_hits_bound", "no schedule within the budget hits more", NULL },
    [PRICE_PPM] = { "price_per_million", "price of a write in hits, x 10^6", NULL },
    [SOLVES] = { "flow_solves", "min-cost flows solved", NULL },
    [REFUSED_NOT_PLANNED] = { "refused_not_planned", "refused: the schedule does not write it", NULL },
    [OFF_SEQUENCE] = { "off_sequence_accesses", "accesses off the sequence", NULL },
};

const CachePolicyOps cache_policy_opt_budget = {
    .name = "opt-budget",
    .description = "offline: the most hits within opt-budget-writes SSD writes (a min-cost flow priced per write)",
    .citation = "Berger, Beckmann, Harchol-Balter: Practical Bounds on Optimal Caching with Variable Object "
                "Sizes, SIGMETRICS 2018 (the flow view), with a Lagrangian price per admission",
    .offline = TRUE,
    .keys = ob_keys,
    .n_keys = N_KEYS,
    .counters = ob_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = ob_create,
    .destroy = ob_destroy,
    .hit = ob_hit,
    .admit = ob_admit,
    .inserted = ob_inserted,
    .removed = ob_removed,
    .prepare = ob_prepare,
    .bytes_per_slot = 2 * sizeof(uint32_t),
    .memory = ob_memory,
};
