/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_output.c: chunk copying from a chunk source to a sink (an output
 * descriptor through a 1 MiB buffer, or the caller's own). */
#include "read/file_output.h"
#include "util/error.h"
#include "util/fileio.h"

#include <string.h>
#include <xxhash.h>

#define OUT_BUFFER (1u << 20)
/* The reads announced to the source at a time (chunk_source_ahead): the
 * chunks of up to 1 MiB (at least one chunk), at most 256 of them. A
 * 64 KiB range is one announcement; a whole file, one per MiB. */
#define AHEAD_BYTES (1u << 20)
#define AHEAD_CHUNKS 256u

static gboolean damaged(GError **err, const FileRecord *r, uint32_t job_id, const char *what)
{
    char *path = file_record_path_display(r);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s in job %u: %s", path, job_id, what);
    g_free(path);
    return FALSE;
}

/* The chunks [*first, *last) of r that hold bytes of [start, end), and the
 * file offset *pos at which chunk *first starts. */
static void chunk_span(const FileRecord *r, uint64_t start, uint64_t end, guint *first, guint *last,
                       uint64_t *pos)
{
    guint i = 0;
    uint64_t p = 0;
    while (i < r->chunks->len && p + g_array_index(r->chunks, ChunkRef, i).length <= start)
        p += g_array_index(r->chunks, ChunkRef, i++).length;
    *first = i;
    *pos = p;
    while (i < r->chunks->len && p < end)
        p += g_array_index(r->chunks, ChunkRef, i++).length;
    *last = start < end ? i : *first;
}

/* chunk_span by binary search in `starts` (file_output_chunk_starts). */
static void chunk_span_indexed(const FileRecord *r, const uint64_t *starts, uint64_t start, uint64_t end,
                               guint *first, guint *last, uint64_t *pos)
{
    guint n = r->chunks->len, lo = 0, hi = n;
    while (lo < hi) { /* the first chunk that ends past start */
        guint mid = lo + (hi - lo) / 2;
        if (starts[mid + 1] <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    *pos = starts[lo];
    hi = n;
    while (lo < hi) { /* the first chunk that starts at or past end */
        guint mid = lo + (hi - lo) / 2;
        if (starts[mid] < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    *last = start < end ? lo : *first;
}

uint64_t *file_output_chunk_starts(const FileRecord *r)
{
    uint64_t *starts = g_new(uint64_t, r->chunks->len + 1);
    starts[0] = 0;
    for (guint i = 0; i < r->chunks->len; i++)
        starts[i + 1] = starts[i] + g_array_index(r->chunks, ChunkRef, i).length;
    return starts;
}

void file_output_span(const FileRecord *r, const FileRange *range, guint *first, guint *last)
{
    uint64_t start, end, pos;
    file_range_clip(range, r->size, &start, &end);
    chunk_span(r, start, end, first, last, &pos);
}

uint64_t file_output_file_key(const FileRecord *r, uint32_t job_id)
{
    return XXH3_64bits_withSeed(r->path->data, r->path->len, job_id);
}

/* Tell the source where chunk i (at file offset chunk_pos) is read from,
 * and which of its bytes [start, end) wants. */
static void locate(ChunkSource *chunks, uint64_t file, guint i, const ChunkRef *c, uint64_t chunk_pos,
                   uint64_t start, uint64_t end)
{
    if (chunks->locate == NULL)
        return;
    uint64_t skip = start > chunk_pos ? start - chunk_pos : 0;
    uint64_t stop = MIN(end, chunk_pos + c->length);
    ChunkPosition p = { .file = file, .index = i, .offset = (uint32_t)skip,
                        .length = (uint32_t)(stop - chunk_pos - skip) };
    chunk_source_locate(chunks, &p);
}

gboolean file_output_touch(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                           GError **err)
{
    uint64_t start, end, pos;
    guint first, last;
    file_range_clip(range, r->size, &start, &end);
    chunk_span(r, start, end, &first, &last, &pos);
    uint64_t file = chunks->locate ? file_output_file_key(r, job_id) : 0;
    for (guint i = first; i < last; i++) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        locate(chunks, file, i, c, pos, start, end);
        pos += c->length;
        if (!chunk_source_touch(chunks, c, err))
            return FALSE;
    }
    return TRUE;
}

gboolean file_output_copy(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                          const uint64_t *starts, FileOutputSink sink, void *ctx, FileDigestAlgorithm verify,
                          GError **err)
{
    uint64_t start, end, pos;
    guint first, last;
    file_range_clip(range, r->size, &start, &end);
    if (starts != NULL)
        chunk_span_indexed(r, starts, start, end, &first, &last, &pos);
    else
        chunk_span(r, start, end, &first, &last, &pos);
    g_assert(verify == FILE_DIGEST_NONE || (start == 0 && end == r->size));
    FileHasher *hasher = NULL;
    if (verify != FILE_DIGEST_NONE) {
        hasher = file_hasher_new(verify);
        file_hasher_begin(hasher);
    }
    gboolean ok = TRUE;
    uint64_t file = chunks->locate ? file_output_file_key(r, job_id) : 0;
    guint announced = first; /* reads [i, announced) are announced */
    /* a run of chunks at a time where the source gives them (read_run) */
    g_assert(chunks->read_run == NULL || (chunks->locate == NULL && chunks->ahead == NULL));
    for (guint i = first, n = 1; i < last && ok; i += n) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        if (i == announced && chunks->ahead != NULL) {
            uint64_t bytes = 0;
            while (announced < last && announced - i < AHEAD_CHUNKS && bytes < AHEAD_BYTES)
                bytes += g_array_index(r->chunks, ChunkRef, announced++).length;
            chunk_source_ahead(chunks, c, announced - i);
        }
        uint64_t chunk_pos = pos;
        locate(chunks, file, i, c, chunk_pos, start, end);
        GError *mismatch = NULL;
        const uint8_t *chunk = chunk_source_read_run(chunks, c, last - i, &n, &mismatch, err);
        for (guint k = 0; chunk != NULL && k < n; k++)
            pos += c[k].length;
        if (chunk == NULL) {
            if (mismatch != NULL) {
                damaged(err, r, job_id, mismatch->message);
                g_error_free(mismatch);
            }
            ok = FALSE;
            break;
        }
        /* the part of the chunks inside [start, end) */
        uint64_t skip = start > chunk_pos ? start - chunk_pos : 0;
        size_t len = (size_t)(MIN(end, pos) - chunk_pos - skip);
        if (hasher)
            file_hasher_add(hasher, chunk + skip, len);
        ok = sink(ctx, chunk + skip, len, err);
    }
    ok = ok && sink(ctx, NULL, 0, err); /* the end: before the digest's verdict */
    if (ok && hasher) {
        uint8_t actual[FILE_DIGEST_SLOT];
        file_hasher_end(hasher, actual);
        if (memcmp(actual, r->digest, FILE_DIGEST_SLOT) != 0) {
            char *what = g_strdup_printf("content does not match its stored %s", file_digest_name(verify));
            ok = damaged(err, r, job_id, what);
            g_free(what);
        }
    }
    file_hasher_free(hasher);
    return ok;
}

/* The descriptor sink: bytes gathered into OUT_BUFFER, a longer piece
 * written straight through, the rest at the end. */
typedef struct {
    int fd;
    const char *name;
    uint8_t *out;
    size_t used;
} FdSink;

static gboolean fd_sink(void *ctx, const uint8_t *data, size_t len, GError **err)
{
    FdSink *f = ctx;
    if (data == NULL)
        return f->used == 0 || file_write_all(f->fd, f->out, f->used, f->name, err);
    if (f->used + len > OUT_BUFFER) {
        if (!file_write_all(f->fd, f->out, f->used, f->name, err))
            return FALSE;
        f->used = 0;
    }
    if (len > OUT_BUFFER)
        return file_write_all(f->fd, data, len, f->name, err);
    memcpy(f->out + f->used, data, len);
    f->used += len;
    return TRUE;
}

gboolean file_output_write(ChunkSource *chunks, const FileRecord *r, uint32_t job_id, const FileRange *range,
                           int fd, const char *out_name, FileDigestAlgorithm verify, GError **err)
{
    FdSink f = { .fd = fd, .name = out_name, .out = g_malloc(OUT_BUFFER) };
    gboolean ok = file_output_copy(chunks, r, job_id, range, NULL, fd_sink, &f, verify, err);
    g_free(f.out);
    return ok;
}
