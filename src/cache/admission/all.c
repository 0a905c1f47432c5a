/* SPDX-License-Identifier: GPL-3.0-or-later */
/* all.c: admission `all`: every miss goes to the policy (the caches'
 * behaviour before admission was an axis of its own; the default without a
 * write budget). */
#include "cache/admission/admission.h"

static void *all_create(const AdmissionEnv *env)
{
    (void)env;
    return g_new0(char, 1);
}

const AdmissionOps admission_all = {
    .name = "all",
    .description = "every miss goes to the policy",
    .spends_budget = FALSE,
    .create = all_create,
    .destroy = g_free,
};
