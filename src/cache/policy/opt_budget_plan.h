/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_budget_plan.h: the offline write-aware optimum as a function: the
 * schedule of the most hits an SSD cache of C unit-size slots can buy with
 * at most B admissions over a known sequence (the min-cost flow of
 * opt_budget_plan.c). Its users: the offline policy opt-budget
 * (policies/container/opt_budget.c), which follows the schedule, and the
 * admission rule `learned` (admission/learned.c), which trains on it. */
#ifndef DESTOR_CACHE_OPT_BUDGET_PLAN_H
#define DESTOR_CACHE_OPT_BUDGET_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define OPT_PLAN_NEVER UINT32_MAX
#define OPT_PLAN_ADMIT 1u /* the miss here is written */
#define OPT_PLAN_KEEP 2u  /* the object stays cached after this access */

typedef struct {
    uint64_t hits, writes;   /* of the schedule returned */
    uint64_t hull_hits_bound; /* no schedule of at most B writes hits more */
    uint64_t price_ppm;      /* the price of a write in hits, x 10^6 */
    uint64_t solves;         /* min-cost flows solved */
} OptBudgetResult;

/* next[i] is the position of the next access to the object accessed at i
 * (OPT_PLAN_NEVER: none), for n < 2^30 positions; plan[i] receives
 * OPT_PLAN_ADMIT / OPT_PLAN_KEEP bits. budget: writes (UINT64_MAX: none).
 * coarse FALSE: the price is the smallest whole one whose schedule keeps
 * the budget (opt-budget's exact search); TRUE: the search halves the
 * price's ratio (geometric midpoints) until its bracket is within 1/16 of
 * itself, a dozen solves at most, and returns the bracket's top schedule
 * (still within the budget, possibly fewer hits than the exact one). */
void opt_budget_plan(const uint32_t *next, size_t n, uint32_t capacity, uint64_t budget, int coarse,
                     uint8_t *plan, OptBudgetResult *r);

#endif
