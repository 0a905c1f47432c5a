/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segmenting.h: Destor's segmenting of the chunk stream
 * (fingerprint-index-segment-algorithm and -boundary), the rule alone:
 * told each chunk's fingerprint in stream order and each file's end, it
 * says where a segment ends. The backup's segment stage holds the chunks
 * and the silo index looks each segment up as a whole. */
#ifndef DESTOR_SEGMENTING_H
#define DESTOR_SEGMENTING_H

#include "index/fp_index_params.h"
#include "util/fingerprint.h"

#include <glib.h>

typedef enum {
    SEGMENT_CUT_NONE,   /* the chunk joins the open segment */
    SEGMENT_CUT_BEFORE, /* the open segment ends before the chunk, which starts the next */
    SEGMENT_CUT_AFTER,  /* the chunk joins the open segment, which ends with it */
} SegmentCut;

typedef struct {
    SegmentParams p;
    size_t fp_len;
    guint count; /* chunks in the open segment */
} Segmenter;

void segmenter_init(Segmenter *s, const SegmentParams *p, size_t fp_len);
/* The next chunk of the stream. */
SegmentCut segmenter_chunk(Segmenter *s, const Fingerprint *fp);
/* A file's last chunk has gone by: TRUE if the open segment ends here
 * (file-defined, and it holds a chunk). */
gboolean segmenter_file_end(Segmenter *s);

#endif
