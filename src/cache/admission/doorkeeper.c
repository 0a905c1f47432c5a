/* SPDX-License-Identifier: GPL-3.0-or-later */
/* doorkeeper.c: admission `doorkeeper`, the frequency filter TinyLFU puts
 * in front of its sketch (Einziger, Friedman & Manes, ACM TOS 2017) and
 * PLC's popularity filter (Liu et al., MSST 2014) share, as a rule of its
 * own: a miss goes to the policy only when it was accessed before within
 * the recent window (recent_accesses.h: its estimate, this access counted,
 * is at least 2), so a container or chunk read once is never written. */
#include "cache/admission/recent_accesses.h"

#define DOORKEEPER_MIN_ACCESSES 2

static void *doorkeeper_create(const AdmissionEnv *env)
{
    RecentAccesses *r = g_new0(RecentAccesses, 1);
    recent_accesses_init(r, env);
    return r;
}

static void doorkeeper_destroy(void *st)
{
    sketch_free(st);
    g_free(st);
}

static void doorkeeper_access(void *st, uint64_t key)
{
    recent_accesses_add(st, key);
}

static gboolean doorkeeper_admit(void *st, const AdmissionCandidate *c)
{
    return recent_accesses_estimate(st, c->key) >= DOORKEEPER_MIN_ACCESSES;
}

static size_t doorkeeper_memory(const void *st)
{
    return sizeof(RecentAccesses) + recent_accesses_memory(st);
}

const AdmissionOps admission_doorkeeper = {
    .name = "doorkeeper",
    .description = "a miss goes to the policy only when accessed before in the recent window (TinyLFU's, PLC's filter)",
    .spends_budget = FALSE,
    .create = doorkeeper_create,
    .destroy = doorkeeper_destroy,
    .access = doorkeeper_access,
    .admit = doorkeeper_admit,
    .memory = doorkeeper_memory,
};
