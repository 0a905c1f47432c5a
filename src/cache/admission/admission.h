/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission.h: the admission axis of both SSD caches (docs/ADMISSION.md).
 *
 * An admission rule decides, before the eviction policy is asked, whether
 * a miss may be written to the SSD at all; the policy then decides as it
 * always did (it may refuse too: plc, tinylfu, larc... keep their own
 * admission, so their decisions are unchanged). Any rule goes with any
 * online policy, at container and chunk granularity alike
 * (ssd-cache-admission). A refused candidate never reaches the policy: its
 * state stays as it was.
 *
 * The core calls, all under its lock:
 *   request  at every request's start, with its time on the trace's
 *            clock (nanoseconds; 0 when untimed)         (optional)
 *   access   at every access, hit or miss, before admit   (optional)
 *   admit    for a miss the cache does not hold; FALSE: refused (NULL:
 *            every candidate admitted, at no call's cost)
 *   written  the bytes an admitted candidate put on the SSD (optional);
 *            never more than the candidate's `bytes`
 *   rewritten  bytes the cache's layout rewrote on its own (the chunk
 *            log's cleaner, reinsert's kept chunks), charged to a rule that spends the budget
 *            (optional; it may leave the credit below zero)
 *
 * Adding a rule: one file defining `const AdmissionOps admission_<symbol>`
 * and one X(<symbol>) line in admission_registry.c. */
#ifndef DESTOR_CACHE_ADMISSION_H
#define DESTOR_CACHE_ADMISSION_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* What a rule knows of its cache, fixed at open. */
typedef struct {
    double budget;    /* ssd-cache-write-budget: bytes per request (0: none) */
    double dwpd;      /* ssd-cache-write-budget-dwpd: drive writes a day of
                         the trace's time (0: none); at most one is set */
    double depth;     /* the write budget's depth: one cache's worth of bytes */
    uint64_t objects; /* the objects the cache holds: container slots, or its
                         bytes over the store's average chunk (at least 1) */
    uint64_t containers; /* the store's containers, whose memory bound
                            (issue 38: 8 bytes each) a rule sizes its own
                            parts by; 0: no such bound (chunk granularity) */
} AdmissionEnv;

/* One miss asking for a place. */
typedef struct {
    uint64_t key;   /* the container id, or the chunk's identity */
    uint64_t bytes; /* the most its admission writes to the SSD */
} AdmissionCandidate;

typedef struct {
    const char *name;        /* the ssd-cache-admission value */
    const char *description; /* one line */
    /* TRUE: spends ssd-cache-write-budget, which must then be set; FALSE:
     * the budget must not be set (it would do nothing). */
    gboolean spends_budget;
    void *(*create)(const AdmissionEnv *env);
    void (*destroy)(void *st);
    void (*request)(void *st, uint64_t time_ns);
    void (*access)(void *st, uint64_t key);
    gboolean (*admit)(void *st, const AdmissionCandidate *c);
    void (*written)(void *st, uint64_t bytes);
    void (*rewritten)(void *st, uint64_t bytes);
    size_t (*memory)(const void *st); /* all bytes the rule holds */
} AdmissionOps;

/* admission_registry.c: name -> ops (FALSE: no such rule). */
gboolean admission_lookup(const char *name, const AdmissionOps **ops);
size_t admission_count(void);
const AdmissionOps *admission_at(size_t i);
/* The rule a cache runs with when ssd-cache-admission is not set: `all`
 * without a write budget, `compete` with one (either kind). */
const AdmissionOps *admission_default(gboolean budget);

/* Is a write budget set, per request or in DWPD? */
static inline gboolean admission_env_budgeted(const AdmissionEnv *env)
{
    return env->budget > 0 || env->dwpd > 0;
}

/* One rule at work, as a core holds it. */
typedef struct {
    const AdmissionOps *ops;
    AdmissionEnv env;
    void *st;
    uint64_t requests;          /* begun */
    uint64_t first_ns, last_ns; /* the first and the latest request's times */
    uint64_t charged;           /* bytes written and rewritten, as the budget pays them */
} Admission;

void admission_open(Admission *a, const AdmissionOps *ops, const AdmissionEnv *env);
void admission_close(Admission *a);

static inline void admission_request(Admission *a, uint64_t time_ns)
{
    if (a->requests++ == 0)
        a->first_ns = time_ns;
    a->last_ns = time_ns;
    if (a->ops->request)
        a->ops->request(a->st, time_ns);
}

/* What the budget's rate has allowed so far, beyond the first fill of one
 * cache: bytes per request x requests, or DWPD x depth x the seconds from
 * the first request to the latest / 86400 (0 without a budget). */
static inline double admission_budget_bytes(const Admission *a)
{
    if (a->env.dwpd > 0)
        return a->env.dwpd * a->env.depth * (double)(a->last_ns - a->first_ns) / 86400e9;
    return a->env.budget * (double)a->requests;
}

static inline void admission_access(Admission *a, uint64_t key)
{
    if (a->ops->access)
        a->ops->access(a->st, key);
}

static inline gboolean admission_admit(Admission *a, uint64_t key, uint64_t bytes)
{
    AdmissionCandidate c = { key, bytes };
    return a->ops->admit == NULL || a->ops->admit(a->st, &c);
}

static inline void admission_written(Admission *a, uint64_t bytes)
{
    a->charged += bytes;
    if (a->ops->written)
        a->ops->written(a->st, bytes);
}

static inline void admission_rewritten(Admission *a, uint64_t bytes)
{
    a->charged += bytes;
    if (a->ops->rewritten && bytes > 0)
        a->ops->rewritten(a->st, bytes);
}

static inline size_t admission_memory(const Admission *a)
{
    return a->ops->memory ? a->ops->memory(a->st) : 0;
}

#endif
