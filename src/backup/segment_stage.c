/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segment_stage.c: the segment buffer (see segment_stage.h). Memory: the
 * open segment's chunk data plus about 50 bytes a held chunk. */
#include "backup/segment_stage.h"
#include "index/segmenting.h"

/* One held chunk and the chunk list its reference goes to. */
typedef struct {
    Fingerprint fp;
    gsize data_off;
    uint32_t length;
    GArray *chunks; /* the owning record's chunk list (a reference) */
} Held;

struct SegmentStage {
    Segmenter cut;
    SegmentSink sink;
    GArray *held;      /* Held */
    GArray *fps;       /* Fingerprint: the held chunks', for the announcement */
    GByteArray *data;
    GQueue waiting;    /* FileRecord shallow copies, in order */
};

SegmentStage *segment_stage_new(const SegmentParams *p, size_t fp_len, const SegmentSink *sink)
{
    SegmentStage *s = g_new0(SegmentStage, 1);
    segmenter_init(&s->cut, p, fp_len);
    s->sink = *sink;
    s->held = g_array_new(FALSE, FALSE, sizeof(Held));
    s->fps = g_array_new(FALSE, FALSE, sizeof(Fingerprint));
    s->data = g_byte_array_new();
    g_queue_init(&s->waiting);
    return s;
}

static void drop_held(SegmentStage *s)
{
    for (guint i = 0; i < s->held->len; i++)
        g_array_unref(g_array_index(s->held, Held, i).chunks);
    g_array_set_size(s->held, 0);
    g_array_set_size(s->fps, 0);
    g_byte_array_set_size(s->data, 0);
}

void segment_stage_free(SegmentStage *s)
{
    if (s == NULL)
        return;
    drop_held(s);
    g_array_unref(s->held);
    g_array_unref(s->fps);
    g_byte_array_unref(s->data);
    g_queue_clear_full(&s->waiting, (GDestroyNotify)file_record_free);
    g_free(s);
}

gboolean segment_stage_flush(SegmentStage *s, GError **err)
{
    gboolean ok = s->held->len == 0 ||
                  s->sink.segment(s->sink.ctx, (const Fingerprint *)s->fps->data, s->fps->len, err);
    for (guint i = 0; i < s->held->len && ok; i++) {
        Held *h = &g_array_index(s->held, Held, i);
        FileRecord view = { .chunks = h->chunks };
        guint before = h->chunks->len;
        ok = s->sink.chunk(s->sink.ctx, &view, &h->fp, s->data->data + h->data_off, h->length, err);
        g_assert(!ok || h->chunks->len == before + 1);
    }
    drop_held(s);
    while (ok && !g_queue_is_empty(&s->waiting)) {
        FileRecord *r = g_queue_pop_head(&s->waiting);
        ok = s->sink.entry(s->sink.ctx, r, err);
        file_record_free(r);
    }
    return ok;
}

static void hold(SegmentStage *s, FileRecord *r, const Fingerprint *fp, const uint8_t *data, size_t len)
{
    Held h = { .fp = *fp, .data_off = s->data->len, .length = (uint32_t)len, .chunks = g_array_ref(r->chunks) };
    g_array_append_val(s->held, h);
    g_array_append_val(s->fps, *fp);
    g_byte_array_append(s->data, data, (guint)len);
}

gboolean segment_stage_add_chunk(SegmentStage *s, FileRecord *r, const Fingerprint *fp, const uint8_t *data,
                                 size_t len, GError **err)
{
    switch (segmenter_chunk(&s->cut, fp)) {
    case SEGMENT_CUT_NONE:
        hold(s, r, fp, data, len);
        return TRUE;
    case SEGMENT_CUT_BEFORE:
        if (!segment_stage_flush(s, err))
            return FALSE;
        hold(s, r, fp, data, len);
        return TRUE;
    case SEGMENT_CUT_AFTER:
        hold(s, r, fp, data, len);
        return segment_stage_flush(s, err);
    }
    g_assert_not_reached();
}

gboolean segment_stage_add_entry(SegmentStage *s, const FileRecord *r, GError **err)
{
    gboolean file_end = r->type == ENTRY_FILE && segmenter_file_end(&s->cut);
    if (s->held->len == 0 && g_queue_is_empty(&s->waiting))
        return s->sink.entry(s->sink.ctx, r, err);
    g_queue_push_tail(&s->waiting, file_record_share(r));
    return !file_end || segment_stage_flush(s, err);
}
