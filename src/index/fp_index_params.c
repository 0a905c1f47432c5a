/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_index_params.c: the index parameters' defaults and names. */
#include "index/fp_index_params.h"

static const char *const sampling_names[] = { "uniform", "random", "min", "optmin" };
static const char *const segment_names[] = { "fixed", "content-defined", "file-defined" };
static const char *const selection_names[] = { "base", "top", "mix" };

static gboolean name_parse(const char *const *names, guint n, const char *name, guint *out)
{
    for (guint i = 0; i < n; i++)
        if (g_ascii_strcasecmp(name, names[i]) == 0) {
            *out = i;
            return TRUE;
        }
    return FALSE;
}

void fp_index_params_default(FpIndexParams *p)
{
    *p = (FpIndexParams){ .kind = FP_INDEX_EXACT,
                          .sampling = FP_INDEX_DEFAULT_SAMPLING,
                          .sampling_ratio = FP_INDEX_DEFAULT_RATIO,
                          .cache_containers = FP_INDEX_DEFAULT_CACHE,
                          .segment = { .algorithm = SEGMENT_FIXED,
                                       .size = SEGMENT_DEFAULT_SIZE,
                                       .min = SEGMENT_DEFAULT_MIN,
                                       .max = SEGMENT_DEFAULT_MAX,
                                       .selection = SEGMENT_SELECT_TOP,
                                       .top_k = 1,
                                       .prefetching = SEGMENT_DEFAULT_PREFETCHING } };
}

SamplingMethod fp_index_sampling(const FpIndexParams *p)
{
    return p->sampling_set || p->kind != FP_INDEX_SILO ? p->sampling : SAMPLING_MIN;
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
    guint i;
    if (!name_parse(sampling_names, G_N_ELEMENTS(sampling_names), name, &i))
        return FALSE;
    *out = (SamplingMethod)i;
    return TRUE;
}

const char *sampling_method_name(SamplingMethod m)
{
    g_assert((guint)m < G_N_ELEMENTS(sampling_names));
    return sampling_names[m];
}

gboolean segment_algorithm_parse(const char *name, SegmentAlgorithm *out)
{
    guint i;
    if (!name_parse(segment_names, G_N_ELEMENTS(segment_names), name, &i))
        return FALSE;
    *out = (SegmentAlgorithm)i;
    return TRUE;
}

const char *segment_algorithm_name(SegmentAlgorithm a)
{
    g_assert((guint)a < G_N_ELEMENTS(segment_names));
    return segment_names[a];
}

gboolean segment_selection_parse(const char *name, SegmentSelection *out)
{
    guint i;
    if (!name_parse(selection_names, G_N_ELEMENTS(selection_names), name, &i))
        return FALSE;
    *out = (SegmentSelection)i;
    return TRUE;
}

const char *segment_selection_name(SegmentSelection s)
{
    g_assert((guint)s < G_N_ELEMENTS(selection_names));
    return selection_names[s];
}
