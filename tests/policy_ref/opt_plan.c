/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_plan.c: opt_budget_plan (src/cache/policy/opt_budget_plan.h) from
 * the command line, the oracle tests/policy_ref/admission_reference.py
 * asks for each of `learned`'s training windows (the planner itself is
 * held against exhaustive search in tests/unit/test_policy_offline.c).
 *
 * Usage: opt_plan CAPACITY BUDGET COARSE < "n next_0 ... next_n-1"
 * (next: the next position of the same object, -1 for none). Prints the
 * n plan values (OPT_PLAN_ADMIT 1 | OPT_PLAN_KEEP 2), one a line, and on
 * standard error the schedule's hits and writes and the min-cost flows
 * solved (scripts/bench-opt-budget.sh reports them). Exit 2 on bad
 * input. */
#include "cache/policy/opt_budget_plan.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: opt_plan CAPACITY BUDGET COARSE < n next...\n");
        return 2;
    }
    uint32_t cap = (uint32_t)strtoul(argv[1], NULL, 10);
    uint64_t budget = strtoull(argv[2], NULL, 10);
    int coarse = atoi(argv[3]) != 0;
    unsigned long n;
    if (scanf("%lu", &n) != 1 || n >= (1ul << 30)) {
        fprintf(stderr, "opt_plan: no length\n");
        return 2;
    }
    uint32_t *next = g_new(uint32_t, n ? n : 1);
    uint8_t *plan = g_new(uint8_t, n ? n : 1);
    for (unsigned long i = 0; i < n; i++) {
        long v;
        if (scanf("%ld", &v) != 1 || v < -1 || (v >= 0 && ((unsigned long)v <= i || (unsigned long)v >= n))) {
            fprintf(stderr, "opt_plan: bad next[%lu]\n", i);
            return 2;
        }
        next[i] = v < 0 ? OPT_PLAN_NEVER : (uint32_t)v;
    }
    OptBudgetResult r;
    opt_budget_plan(next, n, cap, budget, coarse, plan, &r);
    for (unsigned long i = 0; i < n; i++)
        printf("%u\n", plan[i]);
    fprintf(stderr, "hits %" G_GUINT64_FORMAT " writes %" G_GUINT64_FORMAT " solves %" G_GUINT64_FORMAT "\n",
            r.hits, r.writes, r.solves);
    g_free(next);
    g_free(plan);
    return 0;
}
