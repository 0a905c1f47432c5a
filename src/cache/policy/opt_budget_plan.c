/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_budget_plan.c: the offline write-aware optimum (opt_budget_plan.h):
 * the most hits an SSD cache of C unit-size slots can buy with at most B
 * admissions over a known sequence.
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
 * The budget: writes(w) does not grow with w; the search finds the
 * smallest whole w in [1, K^2] (at K^2 no admission pays) whose schedule
 * writes at most B, and that schedule is followed. It is optimal for its
 * own write count (a vertex of the frontier's upper hull); between
 * vertices it may have fewer hits than the best schedule within B. The
 * search keeps a bracket lo < hi with writes(lo) > B >= writes(hi) and
 * tries next the price where the two schedules' objectives K hits - w
 * writes are equal (next_price): a schedule found there is either a new
 * vertex of the hull between them or proves them adjacent, so the search
 * walks the hull's vertices towards B (Newton's method on the convex,
 * piecewise-linear max over schedules of K hits - w writes) instead of
 * halving [1, K^2] about 2 log2 K times; a step that does not halve the
 * bracket twice in a row is followed by a halving one. Any schedule of at most B writes
 * has at most
 *   hits(w) + (w / K) (B - writes(w))
 * hits, for every w (Lagrangian duality): the least of it over the two
 * bracketing prices is reported in hull_hits_bound, the upper bound the
 * frontier draws between vertices.
 *
 * Cost: a solve is C shortest paths over 3n + 1 nodes and at most 10n
 * edges, O(C n log n); the search makes a handful of solves (measured by
 * scripts/bench-opt-budget.sh) where bisection made about 2 log2 n + 2.
 *
 * coarse (opt_budget_plan.h): the same search on geometric midpoints,
 * stopped at a bracket within 1/16 of its top, for `learned`'s oracle.
 */
#include "cache/policy/opt_budget_plan.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#define INF INT64_MAX

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
    uint32_t *where; /* a node's index in it, or OPT_PLAN_NEVER */
} Flow;

/* The sequence and the schedule being made. */
typedef struct {
    const uint32_t *next;
    uint8_t *plan;
    size_t n;
    uint32_t capacity;
    uint64_t budget, solves;
} Schedule;

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
 * T_i -> S_i and S_i -> H_next[i] (OPT_PLAN_NEVER where next[i] is OPT_PLAN_NEVER). */
static void build(Flow *f, const Schedule *o, int64_t w, int64_t k, uint32_t *admit_edge, uint32_t *keep_edge)
{
    uint32_t cap = o->capacity;
    f->n_edges = 0;
    for (uint32_t v = 0; v < f->n_nodes; v++)
        f->head[v] = OPT_PLAN_NEVER;
    for (size_t i = 0; i < o->n; i++) {
        add_edge(f, node_t(i), node_t(i + 1), (int32_t)cap, 0);
        add_edge(f, node_h(i), node_t(i + 1), 1, 0);
        admit_edge[i] = keep_edge[i] = OPT_PLAN_NEVER;
        if (o->next[i] != OPT_PLAN_NEVER) {
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
        f->where[v] = OPT_PLAN_NEVER;
    }
    f->dist[0] = 0;
    f->heap[size] = 0;
    f->where[0] = size++;
    while (size > 0) {
        uint32_t u = f->heap[0];
        heap_swap(f, 0, --size);
        f->where[u] = OPT_PLAN_NEVER;
        heap_down(f, 0, size);
        for (uint32_t k = f->head[u]; k != OPT_PLAN_NEVER; k = f->e[k].next) {
            const Edge *e = &f->e[k];
            if (e->cap <= 0 || f->pot[e->to] == INF)
                continue;
            int64_t rc = e->cost + f->pot[u] - f->pot[e->to];
            g_assert(rc >= 0);
            if (f->dist[u] + rc < f->dist[e->to]) {
                gboolean queued = f->dist[e->to] != INF && f->where[e->to] != OPT_PLAN_NEVER;
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
        for (uint32_t k = f->head[u]; k != OPT_PLAN_NEVER; k = f->e[k].next) {
            const Edge *e = &f->e[k];
            if (e->cap > 0 && f->pot[u] + e->cost < f->pot[e->to]) {
                g_assert(e->to > u);
                f->pot[e->to] = f->pot[u] + e->cost;
            }
        }
    }
}

/* The min-cost schedule at price w: fills o->plan; its writes and hits. */
static void solve(Flow *f, Schedule *o, int64_t w, int64_t k, uint32_t *admit_edge, uint32_t *keep_edge,
                  uint64_t *writes, uint64_t *hits)
{
    uint32_t cap = o->capacity, sink = f->n_nodes - 1;
    build(f, o, w, k, admit_edge, keep_edge);
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
        if (admit_edge[i] != OPT_PLAN_NEVER && f->e[admit_edge[i]].cap == 0)
            p |= OPT_PLAN_ADMIT;
        if (keep_edge[i] != OPT_PLAN_NEVER && f->e[keep_edge[i]].cap == 0)
            p |= OPT_PLAN_KEEP;
        g_assert(!(p & OPT_PLAN_ADMIT) || (p & OPT_PLAN_KEEP));
        o->plan[i] = p;
        *writes += (p & OPT_PLAN_ADMIT) != 0;
        *hits += (p & OPT_PLAN_KEEP) != 0;
    }
    o->solves++;
}

/* A schedule found by the search: its price, hits and writes. */
typedef struct {
    int64_t w;
    uint64_t hits, writes;
} Vertex;

/* Any schedule of at most B writes has at most v's hits plus its price
 * times the writes left (Lagrangian duality, v optimal at its price); the
 * least of it over the bracket's two ends. */
static uint64_t dual_bound(const Vertex *v, uint64_t budget, int64_t k)
{
    double b = (double)v->hits + (double)v->w / (double)k * ((double)budget - (double)v->writes);
    return b < 0 ? 0 : (uint64_t)b;
}

/* The next price to try in (lo, hi). Exact search: where the lines
 * K hits - w writes of the two bracketing schedules cross (the secant on
 * the hull, Newton's step for a piecewise-linear convex function: at a
 * schedule between them it moves to a new vertex of the hull, and once the
 * two are adjacent vertices it lands on the breakpoint between them), or
 * the middle after two steps in a row that did not halve the bracket (so
 * never more than about three times bisection's solves). Coarse search: the geometric
 * middle. */
static int64_t next_price(const Vertex *lo, const Vertex *hi, int64_t k, int coarse, int bisect)
{
    int64_t mid;
    if (coarse)
        mid = (int64_t)sqrt((double)lo->w * (double)hi->w);
    else if (bisect)
        mid = lo->w + (hi->w - lo->w) / 2;
    else /* lo->writes > budget >= hi->writes, so the divisor is > 0 */
        mid = (int64_t)floor((double)k * ((double)lo->hits - (double)hi->hits) /
                             (double)(lo->writes - hi->writes));
    return mid <= lo->w ? lo->w + 1 : mid >= hi->w ? hi->w - 1 : mid;
}

/* The bracket is fine enough: adjacent whole prices, or in coarse mode
 * within a sixteenth of its top. */
static int bracket_done(int64_t lo, int64_t hi, int coarse)
{
    return hi - lo <= 1 || (coarse && 16 * (hi - lo) <= hi);
}

void opt_budget_plan(const uint32_t *next, size_t n, uint32_t capacity, uint64_t budget, int coarse,
                     uint8_t *plan, OptBudgetResult *r)
{
    g_assert(n < (1u << 30));
    Schedule sch = { next, plan, n, capacity, budget, 0 }, *o = &sch;
    memset(r, 0, sizeof *r);
    if (capacity == 0) {
        memset(plan, 0, n);
        return;
    }
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
    int64_t k = (int64_t)o->n + 1;
    uint64_t writes, hits, bound;
    solve(&f, o, 1, k, admit_edge, keep_edge, &writes, &hits);
    Vertex lo = { 1, hits, writes }, hi = { k * k, 0, 0 }; /* at K^2 no admission pays */
    int64_t last = 1; /* the price whose schedule o->plan holds */
    if (writes > o->budget) {
        /* writes(lo) > B >= writes(hi): narrow [lo, hi] */
        int slow = 0; /* steps in a row that did not halve the bracket */
        while (!bracket_done(lo.w, hi.w, coarse)) {
            int64_t before = hi.w - lo.w, mid = next_price(&lo, &hi, k, coarse, slow == 2);
            solve(&f, o, mid, k, admit_edge, keep_edge, &writes, &hits);
            last = mid;
            Vertex v = { mid, hits, writes };
            if (writes > o->budget)
                lo = v;
            else
                hi = v;
            slow = slow < 2 && 2 * (hi.w - lo.w) > before ? slow + 1 : 0;
        }
        if (last != hi.w)
            solve(&f, o, hi.w, k, admit_edge, keep_edge, &writes, &hits);
        g_assert(writes <= o->budget && writes == hi.writes && hits == hi.hits);
        bound = MIN(dual_bound(&lo, o->budget, k), dual_bound(&hi, o->budget, k));
    } else {
        hi = lo;
        bound = hits;
    }
    r->hits = hits;
    r->writes = writes;
    r->hull_hits_bound = MAX(bound, hits);
    r->price_ppm = (uint64_t)((double)hi.w / (double)k * 1e6);
    r->solves = o->solves;
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
