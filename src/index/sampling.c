/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampling.c: Destor's four sampling methods over one container's chunks.
 * Every method keeps at least one chunk of a container, so every container
 * can be found again. */
#include "index/sampling.h"

#include <string.h>

typedef struct {
    const Fingerprint *fp;
    guint pos;
} Ranked;

static int by_fp(const void *a, const void *b)
{
    /* the slot is zero-padded past the fingerprint: the same order */
    return memcmp(((const Ranked *)a)->fp->bytes, ((const Ranked *)b)->fp->bytes, FP_SLOT);
}

uint64_t sampling_fp_value(const Fingerprint *fp, size_t fp_len)
{
    uint64_t v = 0;
    for (size_t i = fp_len - 8; i < fp_len; i++)
        v = v << 8 | fp->bytes[i];
    return v;
}

static void select_min(const Fingerprint *fps, guint n, guint want, gboolean *is_sample)
{
    Ranked *r = g_new(Ranked, n);
    for (guint i = 0; i < n; i++)
        r[i] = (Ranked){ &fps[i], i };
    qsort(r, n, sizeof *r, by_fp);
    for (guint i = 0; i < want && i < n; i++)
        is_sample[r[i].pos] = TRUE;
    g_free(r);
}

void sampling_select(SamplingMethod m, unsigned ratio, const Fingerprint *fps, guint n, size_t fp_len,
                     gboolean *is_sample)
{
    g_assert(ratio >= 1 && n >= 1);
    memset(is_sample, 0, n * sizeof *is_sample);
    gboolean any = FALSE;
    switch (m) {
    case SAMPLING_UNIFORM:
        for (guint i = 0; i < n; i += ratio)
            is_sample[i] = any = TRUE;
        break;
    case SAMPLING_RANDOM:
        for (guint i = 0; i < n; i++)
            if (sampling_fp_value(&fps[i], fp_len) % ratio == 0)
                is_sample[i] = any = TRUE;
        break;
    case SAMPLING_MIN:
        select_min(fps, n, (n + ratio - 1) / ratio, is_sample);
        any = TRUE;
        break;
    case SAMPLING_OPTMIN:
        for (guint from = 0; from < n; from += ratio) {
            guint best = from;
            for (guint i = from + 1; i < n && i < from + ratio; i++)
                if (memcmp(fps[i].bytes, fps[best].bytes, FP_SLOT) < 0)
                    best = i;
            is_sample[best] = TRUE;
        }
        any = TRUE;
        break;
    }
    if (!any) /* random found none: the smallest one stands in */
        select_min(fps, n, 1, is_sample);
}
