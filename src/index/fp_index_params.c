/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_index_params.c: the index parameters' defaults and names. */
#include "index/fp_index_params.h"

static const char *const sampling_names[] = { "uniform", "random", "min", "optmin" };

void fp_index_params_default(FpIndexParams *p)
{
    *p = (FpIndexParams){ .kind = FP_INDEX_EXACT,
                          .sampling = FP_INDEX_DEFAULT_SAMPLING,
                          .sampling_ratio = FP_INDEX_DEFAULT_RATIO,
                          .cache_containers = FP_INDEX_DEFAULT_CACHE };
}

const char *fp_index_kind_name(FpIndexKind kind)
{
    switch (kind) {
    case FP_INDEX_EXACT:
        return "exact physical";
    case FP_INDEX_SAMPLED:
        return "near-exact physical";
    case FP_INDEX_SILO:
        return "near-exact logical silo";
    }
    g_assert_not_reached();
}

gboolean sampling_method_parse(const char *name, SamplingMethod *out)
{
    for (guint i = 0; i < G_N_ELEMENTS(sampling_names); i++)
        if (g_ascii_strcasecmp(name, sampling_names[i]) == 0) {
            *out = (SamplingMethod)i;
            return TRUE;
        }
    return FALSE;
}

const char *sampling_method_name(SamplingMethod m)
{
    g_assert((guint)m < G_N_ELEMENTS(sampling_names));
    return sampling_names[m];
}
