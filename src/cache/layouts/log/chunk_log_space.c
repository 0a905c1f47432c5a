/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_log_space.c: the chunk log's placement and reclamation decisions,
 * shared by the log on the SSD and its simulation (chunk_log_space.h). */
#include "cache/layouts/log/chunk_log_space.h"
#include "cache/layouts/log/chunk_log_format.h"
#include "util/check.h"

#include <string.h>

void chunk_log_space_init(ChunkLogSpace *sp, uint32_t seg_size, uint32_t n_segments, ChunkLogReclaim reclaim,
                          ChunkLogDropped dropped, void *dropped_ctx)
{
    g_assert(n_segments >= 2 && seg_size > CHUNK_LOG_SEGMENT_HEADER + CHUNK_LOG_TABLE_ENTRY);
    memset(sp, 0, sizeof *sp);
    sp->seg_size = seg_size;
    sp->n_segments = n_segments;
    sp->reclaim = reclaim;
    sp->seg = g_new0(ChunkLogSegment, n_segments);
    chunk_log_index_init(&sp->index);
    sp->next_seq = 1;
    sp->open_home = CHUNK_LOG_NO_SEGMENT;
    sp->open_end = CHUNK_LOG_SEGMENT_HEADER;
    sp->dropped = dropped;
    sp->dropped_ctx = dropped_ctx;
}

void chunk_log_space_clear(ChunkLogSpace *sp)
{
    chunk_log_index_clear(&sp->index);
    g_free(sp->seg);
    sp->seg = NULL;
}

void chunk_log_space_forget(ChunkLogSpace *sp)
{
    g_assert(sp->open_home == CHUNK_LOG_NO_SEGMENT);
    chunk_log_index_clear(&sp->index);
    chunk_log_index_init(&sp->index);
    memset(sp->seg, 0, sizeof(ChunkLogSegment) * sp->n_segments);
    sp->live_bytes = 0;
    sp->next_seq = 1;
}

uint32_t chunk_log_space_segments(uint64_t capacity_bytes, uint32_t seg_size)
{
    return (uint32_t)(capacity_bytes / seg_size);
}

uint32_t chunk_log_space_max_chunk(uint32_t seg_size)
{
    return seg_size - CHUNK_LOG_SEGMENT_HEADER - CHUNK_LOG_TABLE_ENTRY;
}

uint32_t chunk_log_space_reinsert_bound(uint32_t seg_size)
{
    return (seg_size - CHUNK_LOG_SEGMENT_HEADER) / CHUNK_LOG_REINSERT_SHARE;
}

uint32_t chunk_log_space_find(const ChunkLogSpace *sp, const Fingerprint *fp)
{
    return chunk_log_index_find(&sp->index, fp);
}

/* ---- live counts ---- */

/* live bytes are stored bytes: what the chunks take in their segments */
static void live_add(ChunkLogSpace *sp, uint32_t s, uint32_t stored)
{
    g_assert(s < sp->n_segments);
    sp->seg[s].live_bytes += stored;
    sp->seg[s].live_chunks++;
    sp->live_bytes += stored;
}

void chunk_log_space_add(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t s, uint32_t offset, uint32_t length,
                         uint32_t stored, uint32_t check)
{
    g_assert(stored >= 1 && stored <= length);
    chunk_log_index_add(&sp->index, fp, s, offset, length, stored, check);
    live_add(sp, s, stored);
}

void chunk_log_space_remove(ChunkLogSpace *sp, uint32_t e)
{
    ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
    ChunkLogSegment *sg = &sp->seg[en->segment];
    g_assert(sg->live_chunks > 0 && sg->live_bytes >= en->stored);
    sg->live_bytes -= en->stored;
    sg->live_chunks--;
    sp->live_bytes -= en->stored;
    chunk_log_index_remove(&sp->index, e);
}

/* ---- the open segment ---- */

static void reset_open(ChunkLogSpace *sp, uint32_t home)
{
    sp->open_home = home;
    sp->open_end = CHUNK_LOG_SEGMENT_HEADER;
    sp->open_n = 0;
    sp->open_user = sp->open_user_stored = sp->open_cleaner = sp->open_reinserted = 0;
    if (home != CHUNK_LOG_NO_SEGMENT) {
        g_assert(sp->seg[home].live_chunks == 0);
        sp->seg[home].state = CHUNK_LOG_SEG_OPEN;
        sp->seg[home].seq = 0;
    }
    if (sp->io)
        sp->io->reset_open(sp->io_ctx, home);
}

static gboolean open_fits(const ChunkLogSpace *sp, uint32_t len)
{
    return (uint64_t)sp->open_end + len + (uint64_t)(sp->open_n + 1) * CHUNK_LOG_TABLE_ENTRY <= sp->seg_size;
}

/* Append a chunk of len bytes, taking `stored` bytes (fewer when
 * compressed), CRC-32 `check`, to the open segment: a new entry (e
 * CHUNK_LOG_NO_ENTRY) or entry e moved there by the cleaner from offset
 * `from` of its victim. */
static void open_append(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t len, uint32_t stored, uint32_t check,
                        uint32_t e, uint32_t from)
{
    g_assert(sp->open_home != CHUNK_LOG_NO_SEGMENT && stored >= 1 && stored <= len && open_fits(sp, stored));
    if (sp->io)
        sp->io->place(sp->io_ctx, fp, sp->open_end, sp->open_n, len, stored, check, from);
    if (e == CHUNK_LOG_NO_ENTRY) {
        chunk_log_index_add(&sp->index, fp, sp->open_home, sp->open_end, len, stored, check);
    } else { /* the cleaner moving a chunk: same entry, new place, as stored */
        ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
        g_assert(en->length == len && en->stored == stored && en->check == check);
        en->segment = sp->open_home;
        en->offset = sp->open_end;
    }
    live_add(sp, sp->open_home, stored);
    sp->open_end += stored;
    sp->open_n++;
}

gboolean chunk_log_space_seal(ChunkLogSpace *sp, GError **err)
{
    if (sp->open_home == CHUNK_LOG_NO_SEGMENT || sp->open_n == 0)
        return TRUE;
    if (sp->io && !sp->io->write_open(sp->io_ctx, sp->next_seq, err))
        return FALSE;
    sp->c.segments_written++;
    sp->c.device_bytes_written += sp->seg_size;
    sp->c.user_bytes_written += sp->open_user;
    sp->c.user_stored_bytes_written += sp->open_user_stored;
    sp->c.cleaner_bytes_written += sp->open_cleaner;
    sp->c.reinserted_bytes_written += sp->open_reinserted;
    sp->seg[sp->open_home].state = CHUNK_LOG_SEG_WRITTEN;
    sp->seg[sp->open_home].seq = sp->next_seq++;
    sp->open_home = CHUNK_LOG_NO_SEGMENT;
    sp->open_n = 0;
    sp->open_end = CHUNK_LOG_SEGMENT_HEADER;
    sp->open_user = sp->open_user_stored = sp->open_cleaner = sp->open_reinserted = 0;
    return TRUE;
}

/* ---- reclaiming ---- */

/* The segment to reclaim: the oldest written (evict, reinsert), or the
 * one with the fewest live bytes, the oldest of those (clean). */
static uint32_t pick_victim(const ChunkLogSpace *sp)
{
    uint32_t best = CHUNK_LOG_NO_SEGMENT;
    for (uint32_t s = 0; s < sp->n_segments; s++) {
        const ChunkLogSegment *sg = &sp->seg[s];
        if (sg->state != CHUNK_LOG_SEG_WRITTEN)
            continue;
        if (best == CHUNK_LOG_NO_SEGMENT) {
            best = s;
            continue;
        }
        const ChunkLogSegment *b = &sp->seg[best];
        gboolean better = sp->reclaim == CHUNK_LOG_CLEAN
                              ? (sg->live_bytes < b->live_bytes || (sg->live_bytes == b->live_bytes && sg->seq < b->seq))
                              : sg->seq < b->seq;
        if (better)
            best = s;
    }
    return best;
}

static void dropped(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t len)
{
    sp->c.chunks_dropped_by_log++;
    if (sp->dropped)
        sp->dropped(sp->dropped_ctx, fp, len);
}

/* Drop segment s's live chunks, in the index's entry order. */
static void evict_segment(ChunkLogSpace *sp, uint32_t s)
{
    for (uint32_t e = 0; e < sp->index.n_entries && sp->seg[s].live_chunks > 0; e++) {
        ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
        if (en->length == 0 || en->segment != s)
            continue;
        Fingerprint fp = en->fp;
        uint32_t len = en->length;
        chunk_log_space_remove(sp, e);
        dropped(sp, &fp, len);
    }
    g_assert(sp->seg[s].live_chunks == 0 && sp->seg[s].live_bytes == 0);
    sp->c.segments_evicted++;
}

/* The live counts add up: every segment's against the log's and the
 * index's (a sanity check after each reclamation). */
static void check_counts(const ChunkLogSpace *sp)
{
    uint64_t bytes = 0, chunks = 0;
    for (uint32_t s = 0; s < sp->n_segments; s++) {
        g_assert(sp->seg[s].state != CHUNK_LOG_SEG_FREE || sp->seg[s].live_chunks == 0);
        bytes += sp->seg[s].live_bytes;
        chunks += sp->seg[s].live_chunks;
    }
    g_assert(bytes == sp->live_bytes && chunks == chunk_log_index_used(&sp->index));
}

gboolean chunk_log_space_check(const ChunkLogSpace *sp)
{
    if (!chunk_log_index_check(&sp->index))
        return FALSE;
    uint64_t *bytes = g_new0(uint64_t, sp->n_segments);
    uint32_t *chunks = g_new0(uint32_t, sp->n_segments);
    gboolean ok = TRUE;
    for (uint32_t e = 0; e < sp->index.n_entries && ok; e++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
        if (en->length == 0)
            continue;
        ok = en->segment < sp->n_segments && (uint64_t)en->offset + en->stored <= sp->seg_size;
        if (ok) {
            bytes[en->segment] += en->stored;
            chunks[en->segment]++;
        }
    }
    uint64_t total = 0;
    for (uint32_t s = 0; s < sp->n_segments && ok; s++) {
        const ChunkLogSegment *g = &sp->seg[s];
        ok = g->live_bytes == bytes[s] && g->live_chunks == chunks[s] &&
             (g->state == CHUNK_LOG_SEG_OPEN) == (s == sp->open_home) &&
             (g->state != CHUNK_LOG_SEG_FREE || g->live_chunks == 0);
        total += g->live_bytes;
    }
    g_free(bytes);
    g_free(chunks);
    return ok && total == sp->live_bytes && sp->open_end <= sp->seg_size &&
           (sp->open_home != CHUNK_LOG_NO_SEGMENT || sp->open_n == 0);
}

/* Segment s's live entries, in the index's entry order (*n of them),
 * taken out of its counts and the log's live bytes, and s made the open
 * segment's home: each is counted again as it lands there (the same
 * segment number), or dropped (drop_taken). */
static uint32_t *take_out_live(ChunkLogSpace *sp, uint32_t s, uint32_t *n)
{
    uint32_t *live = g_new(uint32_t, sp->seg[s].live_chunks ? sp->seg[s].live_chunks : 1);
    *n = 0;
    for (uint32_t e = 0; e < sp->index.n_entries && *n < sp->seg[s].live_chunks; e++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
        if (en->length != 0 && en->segment == s)
            live[(*n)++] = e;
    }
    g_assert(*n == sp->seg[s].live_chunks);
    sp->live_bytes -= sp->seg[s].live_bytes;
    sp->seg[s].live_bytes = 0;
    sp->seg[s].live_chunks = 0;
    reset_open(sp, s);
    return live;
}

/* Drop entry e of take_out_live's segment s (damaged: its bytes did not
 * match, or could not be read). */
static void drop_taken(ChunkLogSpace *sp, uint32_t s, uint32_t e, gboolean damaged)
{
    const ChunkLogEntry *en = chunk_log_index_entry(&sp->index, e);
    Fingerprint fp = en->fp;
    uint32_t len = en->length;
    live_add(sp, s, en->stored); /* counted so the removal can take it off again */
    chunk_log_space_remove(sp, e);
    if (damaged)
        sp->c.damaged_reads++;
    dropped(sp, &fp, len);
}

/* Move segment s's live chunks into the open segment, whose home s
 * becomes (it is empty: they fit, since they fitted in s), in the index's
 * entry order. A chunk whose bytes do not match is dropped as damaged; an
 * unreadable segment is evicted. */
static void clean_segment(ChunkLogSpace *sp, uint32_t s)
{
    if (sp->io && !sp->io->read_victim(sp->io_ctx, s)) { /* nothing in it can be served */
        sp->c.damaged_reads += sp->seg[s].live_chunks;
        evict_segment(sp, s);
        reset_open(sp, s);
        return;
    }
    uint32_t n;
    uint32_t *moving = take_out_live(sp, s, &n);
    for (uint32_t i = 0; i < n; i++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&sp->index, moving[i]);
        Fingerprint fp = en->fp;
        uint32_t len = en->length, stored = en->stored, from = en->offset, check = en->check;
        if (sp->io && !sp->io->chunk_ok(sp->io_ctx, check, from, len, stored)) {
            drop_taken(sp, s, moving[i], TRUE);
            continue;
        }
        open_append(sp, &fp, len, stored, check, moving[i], from);
        sp->open_cleaner += stored;
    }
    g_free(moving);
    sp->c.segments_cleaned++;
}

/* Reinsert: segment s (the oldest) becomes the open segment's home; each
 * of its live chunks, in the index's entry order, is asked about (`keep`)
 * (after `reclaiming` is told the segment's room) while it fits within
 * the bound (chunk_log_space_reinsert_bound, entry included) and leaves room for the put of `need` stored bytes that
 * reclaims; kept, it is rewritten into the open segment, else dropped. The
 * victim is read when the first chunk is kept (a kept chunk it cannot
 * read, or whose bytes do not match, is dropped as damaged). */
static void reinsert_segment(ChunkLogSpace *sp, uint32_t s, uint32_t need)
{
    const uint64_t bound = chunk_log_space_reinsert_bound(sp->seg_size);
    uint64_t kept = 0;
    int readable = -1; /* the victim not read yet */
    uint32_t n;
    if (sp->reclaiming)
        sp->reclaiming(sp->keep_ctx, sp->seg_size - CHUNK_LOG_SEGMENT_HEADER);
    uint32_t *live = take_out_live(sp, s, &n);
    for (uint32_t i = 0; i < n; i++) {
        const ChunkLogEntry *en = chunk_log_index_entry(&sp->index, live[i]);
        Fingerprint fp = en->fp;
        uint32_t len = en->length, stored = en->stored, from = en->offset, check = en->check;
        uint64_t takes = (uint64_t)stored + CHUNK_LOG_TABLE_ENTRY;
        gboolean room = kept + takes <= bound && open_fits(sp, stored + need + CHUNK_LOG_TABLE_ENTRY);
        if (!room)
            sp->c.chunks_reinsert_cut++;
        if (!room || sp->keep == NULL || !sp->keep(sp->keep_ctx, &fp, len)) {
            drop_taken(sp, s, live[i], FALSE);
            continue;
        }
        if (readable < 0)
            readable = sp->io == NULL || sp->io->read_victim(sp->io_ctx, s);
        if (!readable || (sp->io && !sp->io->chunk_ok(sp->io_ctx, check, from, len, stored))) {
            drop_taken(sp, s, live[i], TRUE);
            continue;
        }
        open_append(sp, &fp, len, stored, check, live[i], from);
        kept += takes;
        sp->open_reinserted += stored;
        sp->c.chunks_reinserted++;
    }
    g_assert(kept <= bound && open_fits(sp, need));
    g_free(live);
    sp->c.segments_reinserted++;
}

/* Give the open segment a home with room for a chunk of `need` stored bytes: a
 * free segment (the lowest), or a reclaimed one. Cleaning is chosen only
 * when it frees at least half a segment and leaves room for the chunk, so
 * every cleaning pass makes progress and the chunk always fits after it;
 * reinsert keeps at most its bound and leaves room for the chunk. */
static void take_home(ChunkLogSpace *sp, uint32_t need)
{
    for (uint32_t s = 0; s < sp->n_segments; s++)
        if (sp->seg[s].state == CHUNK_LOG_SEG_FREE) {
            reset_open(sp, s);
            return;
        }
    uint32_t v = pick_victim(sp);
    g_assert(v != CHUNK_LOG_NO_SEGMENT); /* n_segments >= 2 and only one is open */
    if (sp->reclaim == CHUNK_LOG_REINSERT) {
        reinsert_segment(sp, v, need);
        check_counts(sp);
        DESTOR_CHECK(chunk_log_space_check(sp));
        return;
    }
    const ChunkLogSegment *vs = &sp->seg[v];
    if (sp->reclaim == CHUNK_LOG_CLEAN && vs->live_bytes * 2 <= sp->seg_size - CHUNK_LOG_SEGMENT_HEADER &&
        CHUNK_LOG_SEGMENT_HEADER + vs->live_bytes + need + (uint64_t)(vs->live_chunks + 1) * CHUNK_LOG_TABLE_ENTRY <=
            sp->seg_size) {
        clean_segment(sp, v);
        check_counts(sp);
        DESTOR_CHECK(chunk_log_space_check(sp));
        return;
    }
    evict_segment(sp, v);
    reset_open(sp, v);
    check_counts(sp);
    DESTOR_CHECK(chunk_log_space_check(sp));
}

gboolean chunk_log_space_put(ChunkLogSpace *sp, const Fingerprint *fp, uint32_t length, uint32_t stored,
                             uint32_t check, GError **err)
{
    g_assert(length >= 1 && length <= chunk_log_space_max_chunk(sp->seg_size));
    g_assert(stored >= 1 && stored <= length);
    g_assert(chunk_log_index_find(&sp->index, fp) == CHUNK_LOG_NO_ENTRY);
    if (sp->open_home != CHUNK_LOG_NO_SEGMENT && !open_fits(sp, stored) && !chunk_log_space_seal(sp, err))
        return FALSE;
    if (sp->open_home == CHUNK_LOG_NO_SEGMENT)
        take_home(sp, stored);
    open_append(sp, fp, length, stored, check, CHUNK_LOG_NO_ENTRY, CHUNK_LOG_FROM_PUT);
    sp->open_user += length;
    sp->open_user_stored += stored;
    sp->c.put_bytes += length;
    sp->c.put_stored_bytes += stored;
    if (stored < length)
        sp->c.chunks_compressed++;
    return TRUE;
}

uint64_t chunk_log_space_meta_written(ChunkLogSpace *sp, uint32_t n_chunks)
{
    uint64_t n = chunk_log_meta_size(sp->n_segments, n_chunks);
    sp->c.device_bytes_written += n;
    return n;
}
