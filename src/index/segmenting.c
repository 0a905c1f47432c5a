/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segmenting.c: where segments end, by Destor's three algorithms (see
 * segmenting.h and destor.config(5)). fixed: every `size` chunks, files
 * notwithstanding. content-defined (Sparse Indexing's): once the segment
 * holds `min` chunks, a chunk whose fingerprint value is 0 modulo `size`
 * starts the next one, and a segment that reaches `max` chunks ends there.
 * file-defined (Extreme Binning's): a file's chunks, cut at `max` too, so
 * that what the backup holds stays bounded (Destor's is unbounded). */
#include "index/segmenting.h"
#include "index/sampling.h"

void segmenter_init(Segmenter *s, const SegmentParams *p, size_t fp_len)
{
    g_assert(p->size >= 1 && p->max >= 1 && p->min <= p->max);
    *s = (Segmenter){ .p = *p, .fp_len = fp_len };
}

SegmentCut segmenter_chunk(Segmenter *s, const Fingerprint *fp)
{
    switch (s->p.algorithm) {
    case SEGMENT_FIXED:
        if (++s->count < s->p.size)
            return SEGMENT_CUT_NONE;
        s->count = 0;
        return SEGMENT_CUT_AFTER;
    case SEGMENT_CONTENT_DEFINED:
        if (s->count >= s->p.min && s->count > 0 && sampling_fp_value(fp, s->fp_len) % s->p.size == 0) {
            s->count = 1;
            return SEGMENT_CUT_BEFORE;
        }
        break;
    case SEGMENT_FILE_DEFINED:
        break;
    }
    if (++s->count < s->p.max)
        return SEGMENT_CUT_NONE;
    s->count = 0;
    return SEGMENT_CUT_AFTER;
}

gboolean segmenter_file_end(Segmenter *s)
{
    if (s->p.algorithm != SEGMENT_FILE_DEFINED || s->count == 0)
        return FALSE;
    s->count = 0;
    return TRUE;
}
