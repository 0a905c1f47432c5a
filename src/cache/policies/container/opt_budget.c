/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_budget.c: opt-budget, the offline write-aware bound: the most hits an
 * SSD cache can buy with at most B container writes (opt-budget-writes).
 * belady is the ceiling on hits and offline-static the floor on writes;
 * this traces the frontier between them.
 *
 * For unit-size containers, caching with bypass is a min-cost flow over
 * the access intervals (the flow view of Berger, Beckmann and
 * Harchol-Balter, "Practical Bounds on Optimal Caching with Variable Object
 * Sizes", SIGMETRICS 2018), here with a price per admission. Positions
 * 0..n-1 of the sequence; next[i] the next access to the same container.
 * Nodes: T_i (a free slot before access i; T_n the sink), H_i (the
 * container of access i arrives cached: a hit), S_i (it stays cached after
 * access i). Edges, capacity / cost:
 *   T_i -> T_i+1        C / 0      a slot stays free
 *   T_i -> S_i          1 / w      the miss at i is admitted (an SSD write)
 *   S_i -> H_next[i]    1 / -K     kept until its next access: a hit
 *   H_i -> S_i          1 / 0      kept on after the hit
 *   H_i -> T_i+1        1 / 0      given up after the hit (its slot free)
 * C units flow from T_0 to T_n; an integral min-cost flow is a schedule
 * maximizing K hits - w writes (the network's matrix is totally
 * unimodular), i.e. hits - lambda writes with lambda = w / K. K = n + 1, so
 * at w = 1 the flow has belady's hits with the fewest writes that get
 * them. Each solve is successive shortest paths (Dijkstra on reduced costs,
 * potentials first from the DAG), at most C augmentations.
 *
 * The budget: writes(w) does not grow with w; a binary search over whole
 * w in [1, K (n + 1)] (at the top no admission pays) finds the smallest w
 * whose schedule writes at most B, and that schedule is followed. It is
 * optimal for its own write count (a vertex of the frontier's upper hull);
 * between vertices it may have fewer hits than the best schedule within
 * B. Any schedule of at most B writes has at most
 *   hits(w) + (w / K) (B - writes(w))
 * hits, for every w (Lagrangian duality): the least of it over the two
 * bracketing prices is reported in hull_hits_bound, the upper bound the
 * frontier draws between vertices.
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
#include "cache/policy/policy.h"
#include "util/error.h"

#include <string.h>

#define NEVER UINT32_MAX
#define INF INT64_MAX

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
    uint32_t to, next;
    int32_t cap;
    int64_t cost;
} Edge;

typedef struct {
    uint32_t n_nodes, n_edges;
    uint32_t *head;
    Edge *e;
    int64_t *pot, *dist;
    uint32_t *via;   /* the edge a node was reached by */
    uint32_t *heap;  /* Dijkstra's binary heap of nodes */
    uint32_t *where; /* a node's index in it, or NEVER */
} Flow;

typedef struct {
    const CachePolicyEnv *env;
    uint32_t *next;     /* per position */
    uint32_t *expect;   /* per container: its next access from pos on */
    uint8_t *plan;      /* per position: ADMIT and KEEP bits */
    size_t n, pos;
    gboolean lost;
    uint64_t budget;    /* writes, or UINT64_MAX */
    uint32_t *dead;     /* dead slots; dead_at[slot] its index, or NEVER */
    uint32_t *dead_at;
    uint32_t n_dead;
} OptBudget;

#define PLAN_ADMIT 1u /* the miss here is written */
#define PLAN_KEEP 2u  /* the container stays cached after this access */

/* ---------- the flow network ---------- */

static uint32_t node_t(size_t i) { return (uint32_t)(3 * i); }
static uint32_t node_h(size_t i) { return (uint32_t)(3 * i + 1); }
static uint32_t node_s(size_t i) { return (uint32_t)(3 * i + 2); }

static uint32_t add_edge(Flow *f, uint32_t u, uint32_t v, int32_t cap, int64_t cost)
{
    uint32_t k = f->n_edges;
    f->e[k] = (Edge){ v, f->head[u], cap, cost };
    f->head[u] = k;
    f->e[k + 1] = (Edge){ u, f->head[v], 0, -cost };
    f->head[v] = k + 1;
    f->n_edges += 2;
    return k;
}

/* The network for price w; admit_edge[i] and keep_edge[i] are the edges
 * T_i -> S_i and S_i -> H_next[i] (NEVER where next[i] is NEVER). */
static void build(Flow *f, const OptBudget *o, uint32_t cap, int64_t w, int64_t k, uint32_t *admit_edge,
                  uint32_t *keep_edge)
{
    f->n_edges = 0;
    for (uint32_t v = 0; v < f->n_nodes; v++)
        f->head[v] = NEVER;
    for (size_t i = 0; i < o->n; i++) {
        add_edge(f, node_t(i), node_t(i + 1), (int32_t)cap, 0);
        add_edge(f, node_h(i), node_t(i + 1), 1, 0);
        admit_edge[i] = keep_edge[i] = NEVER;
        if (o->next[i] != NEVER) {
            add_edge(f, node_h(i), node_s(i), 1, 0);
            admit_edge[i] = add_edge(f, node_t(i), node_s(i), 1, w);
            keep_edge[i] = add_edge(f, node_s(i), node_h(o->next[i]), 1, -k);
        }
    }
}

static gboolean heap_less(const Flow *f, uint32_t a, uint32_t b)
{
    return f->dist[f->heap[a]] < f->dist[f->heap[b]];
}

static void heap_swap(Flow *f, uint32_t a, uint32_t b)
{
    uint32_t x = f->heap[a];
    f->heap[a] = f->heap[b];
    f->heap[b] = x;
    f->where[f->heap[a]] = a;
    f->where[f->heap[b]] = b;
}

static void heap_up(Flow *f, uint32_t i)
{
    while (i > 0 && heap_less(f, i, (i - 1) / 2)) {
        heap_swap(f, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(Flow *f, uint32_t i, uint32_t size)
{
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < size && heap_less(f, l, m))
            m = l;
        if (l + 1 < size && heap_less(f, l + 1, m))
            m = l + 1;
        if (m == i)
            return;
        heap_swap(f, i, m);
        i = m;
    }
}

/* Shortest paths from T_0 on reduced costs (all >= 0 over edges with room
 * between reachable nodes); FALSE if the sink is not reached. */
static gboolean dijkstra(Flow *f)
{
    uint32_t size = 0;
    for (uint32_t v = 0; v < f->n_nodes; v++) {
        f->dist[v] = INF;
        f->where[v] = NEVER;
    }
    f->dist[0] = 0;
    f->heap[size] = 0;
    f->where[0] = size++;
    while (size > 0) {
        uint32_t u = f->heap[0];
        heap_swap(f, 0, --size);
        f->where[u] = NEVER;
        heap_down(f, 0, size);
        for (uint32_t k = f->head[u]; k != NEVER; k = f->e[k].next) {
            const Edge *e = &f->e[k];
            if (e->cap <= 0 || f->pot[e->to] == INF)
                continue;
            int64_t rc = e->cost + f->pot[u] - f->pot[e->to];
            g_assert(rc >= 0);
            if (f->dist[u] + rc < f->dist[e->to]) {
                gboolean queued = f->dist[e->to] != INF && f->where[e->to] != NEVER;
                f->dist[e->to] = f->dist[u] + rc;
                f->via[e->to] = k;
                if (!queued) {
                    f->heap[size] = e->to;
                    f->where[e->to] = size++;
                }
                heap_up(f, f->where[e->to]);
            }
        }
    }
    return f->dist[f->n_nodes - 1] != INF;
}

/* Potentials: shortest distances from T_0 over the forward edges, in node
 * order (a topological order: every edge goes to a later node). */
static void initial_potentials(Flow *f)
{
    for (uint32_t v = 0; v < f->n_nodes; v++)
        f->pot[v] = INF;
    f->pot[0] = 0;
    for (uint32_t u = 0; u < f->n_nodes; u++) {
        if (f->pot[u] == INF)
            continue;
        for (uint32_t k = f->head[u]; k != NEVER; k = f->e[k].next) {
            const Edge *e = &f->e[k];
            if (e->cap > 0 && f->pot[u] + e->cost < f->pot[e->to]) {
                g_assert(e->to > u);
                f->pot[e->to] = f->pot[u] + e->cost;
            }
        }
    }
}

/* The min-cost schedule at price w: fills o->plan; its writes and hits. */
static void solve(Flow *f, OptBudget *o, int64_t w, int64_t k, uint32_t *admit_edge, uint32_t *keep_edge,
                  uint64_t *writes, uint64_t *hits)
{
    uint32_t cap = o->env->capacity, sink = f->n_nodes - 1;
    build(f, o, cap, w, k, admit_edge, keep_edge);
    initial_potentials(f);
    for (uint32_t pushed = 0; pushed < cap && dijkstra(f);) {
        if (f->dist[sink] + f->pot[sink] - f->pot[0] >= 0)
            break; /* no path that gains: the other units stay free */
        for (uint32_t v = 0; v < f->n_nodes; v++)
            if (f->dist[v] != INF)
                f->pot[v] += f->dist[v];
        int32_t room = (int32_t)(cap - pushed);
        for (uint32_t v = sink; v != 0; v = f->e[f->via[v] ^ 1].to)
            room = MIN(room, f->e[f->via[v]].cap);
        for (uint32_t v = sink; v != 0; v = f->e[f->via[v] ^ 1].to) {
            f->e[f->via[v]].cap -= room;
            f->e[f->via[v] ^ 1].cap += room;
        }
        pushed += (uint32_t)room;
    }
    *writes = *hits = 0;
    for (size_t i = 0; i < o->n; i++) {
        uint8_t p = 0;
        if (admit_edge[i] != NEVER && f->e[admit_edge[i]].cap == 0)
            p |= PLAN_ADMIT;
        if (keep_edge[i] != NEVER && f->e[keep_edge[i]].cap == 0)
            p |= PLAN_KEEP;
        g_assert(!(p & PLAN_ADMIT) || (p & PLAN_KEEP));
        o->plan[i] = p;
        *writes += (p & PLAN_ADMIT) != 0;
        *hits += (p & PLAN_KEEP) != 0;
    }
    o->env->counters[SOLVES]++;
}

/* Any schedule of at most B writes has at most this many hits (price w). */
static uint64_t dual_bound(uint64_t hits, uint64_t writes, uint64_t budget, int64_t w, int64_t k)
{
    double b = (double)hits + (double)w / (double)k * ((double)budget - (double)writes);
    return b < 0 ? 0 : (uint64_t)b;
}

/* Search the price for the budget; leaves the chosen schedule in o->plan. */
static void plan_schedule(OptBudget *o)
{
    uint32_t nodes = (uint32_t)(3 * o->n + 1);
    Flow f = { .n_nodes = nodes };
    f.head = g_new(uint32_t, nodes);
    f.e = g_new(Edge, 10 * o->n + 2);
    f.pot = g_new(int64_t, nodes);
    f.dist = g_new(int64_t, nodes);
    f.via = g_new(uint32_t, nodes);
    f.heap = g_new(uint32_t, nodes);
    f.where = g_new(uint32_t, nodes);
    uint32_t *admit_edge = g_new(uint32_t, o->n ? o->n : 1), *keep_edge = g_new(uint32_t, o->n ? o->n : 1);
    int64_t k = (int64_t)o->n + 1, lo = 1, hi = k * k;
    uint64_t writes, hits, lo_writes, lo_hits;
    solve(&f, o, lo, k, admit_edge, keep_edge, &writes, &hits);
    uint64_t bound = hits;
    if (writes > o->budget) {
        /* writes(lo) > B >= writes(hi) = 0: halve [lo, hi] */
        lo_writes = writes;
        lo_hits = hits;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            solve(&f, o, mid, k, admit_edge, keep_edge, &writes, &hits);
            if (writes > o->budget) {
                lo = mid;
                lo_writes = writes;
                lo_hits = hits;
            } else {
                hi = mid;
            }
        }
        solve(&f, o, hi, k, admit_edge, keep_edge, &writes, &hits);
        g_assert(writes <= o->budget);
        bound = MIN(dual_bound(hits, writes, o->budget, hi, k), dual_bound(lo_hits, lo_writes, o->budget, lo, k));
    } else {
        hi = lo;
    }
    o->env->counters[PLANNED_HITS] = hits;
    o->env->counters[PLANNED_WRITES] = writes;
    o->env->counters[HULL_BOUND] = MAX(bound, hits);
    o->env->counters[PRICE_PPM] = (uint64_t)((double)hi / (double)k * 1e6);
    g_free(admit_edge);
    g_free(keep_edge);
    g_free(f.head);
    g_free(f.e);
    g_free(f.pot);
    g_free(f.dist);
    g_free(f.via);
    g_free(f.heap);
    g_free(f.where);
}

/* ---------- the policy ---------- */

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
        set_dead(o, slot, !(plan & PLAN_KEEP));
}

static CacheDecision ob_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    OptBudget *o = st;
    uint8_t plan;
    if (!follow(o, id, &plan))
        return CACHE_REFUSE;
    if (!(plan & PLAN_ADMIT)) {
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
