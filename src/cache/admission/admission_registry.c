/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission_registry.c: the one table of admission rules, by their
 * ssd-cache-admission name. Adding a rule: its own file here (defining
 * `const AdmissionOps admission_<symbol>`) and one X(<symbol>) line below;
 * the config key, the cores and the registry-wide tests find it here. */
#include "cache/admission/admission.h"

#include <string.h>

#define REGISTERED(X) \
    X(all)            \
    X(doorkeeper)     \
    X(bucket)         \
    X(compete)        \
    X(learned)

#define DECLARE(sym) extern const AdmissionOps admission_##sym;
REGISTERED(DECLARE)
#define ENTRY(sym) &admission_##sym,
static const AdmissionOps *const registry[] = { REGISTERED(ENTRY) };

#define N_RULES (sizeof registry / sizeof registry[0])

gboolean admission_lookup(const char *name, const AdmissionOps **ops)
{
    for (size_t i = 0; name != NULL && i < N_RULES; i++) {
        if (strcmp(registry[i]->name, name) == 0) {
            *ops = registry[i];
            return TRUE;
        }
    }
    return FALSE;
}

size_t admission_count(void)
{
    return N_RULES;
}

const AdmissionOps *admission_at(size_t i)
{
    return i < N_RULES ? registry[i] : NULL;
}

const AdmissionOps *admission_default(gboolean budget)
{
    return budget ? &admission_compete : &admission_all;
}

void admission_open(Admission *a, const AdmissionOps *ops, const AdmissionEnv *env)
{
    g_assert(ops != NULL && ops->spends_budget == admission_env_budgeted(env));
    g_assert(env->budget <= 0 || env->dwpd <= 0);
    *a = (Admission){ .ops = ops, .env = *env };
    a->st = ops->create(&a->env);
}

void admission_close(Admission *a)
{
    if (a->ops && a->st)
        a->ops->destroy(a->st);
    a->st = NULL;
}
