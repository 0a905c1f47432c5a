/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_compiled_trace.c: compiled traces, compiled_trace_decode().
 *
 * Input: a mode byte, then the file. Mode bit 0: recompute the trailing
 * CRC-32 so the fuzzer gets past it to the field checks. A decoded trace
 * must be consistent (the per-request counts add up to the sequence, every
 * id below the pool size, every request's job listed, bytes served exactly
 * by the requests that read a container, their sum a JSON integer; version
 * 2: every access names a table entry and reads inside its chunk, a
 * request's accesses read its bytes) and must encode back to exactly the
 * bytes it was decoded from. */
#include "fuzz_util.h"

#include "trace/compiled_trace.h"
#include "util/error.h"
#include "util/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t mode;
    size_t len;
    uint8_t *buf = fuzz_mode_input(data, size, 1, &mode, &len);
    if (buf == NULL)
        return 0;
    if ((mode & 1) && len >= 4)
        le32_put(buf + len - 4, fuzz_crc(buf, len - 4));

    GError *err = NULL;
    CompiledTrace *t = compiled_trace_decode(buf, len, "fuzz.ctr", &err);
    if ((t == NULL) != (err != NULL))
        abort();
    if (t != NULL) {
        uint64_t total = 0, served = 0;
        for (guint i = 0; i < t->req_accesses->len; i++) {
            uint64_t bytes = g_array_index(t->req_bytes, uint64_t, i);
            uint32_t count = g_array_index(t->req_accesses, uint32_t, i);
            if ((bytes == 0) != (count == 0) || bytes > COMPILED_TRACE_MAX_BYTES - served)
                abort(); /* bytes served without a container read, or a sum the summary cannot report */
            total += count;
            served += bytes;
        }
        gboolean chunks = compiled_trace_is_chunks(t);
        if (total != (chunks ? t->chunks.touches->len : t->ids->len) || t->req_bytes->len != t->req_job->len ||
            t->req_job->len != t->req_accesses->len || (chunks && t->ids->len != 0) ||
            (!chunks && (t->chunks.chunks->len != 0 || t->chunks.touches->len != 0)))
            abort();
        for (guint i = 0; i < t->chunks.chunks->len; i++) {
            const ChunkRef *r = &g_array_index(t->chunks.chunks, ChunkRef, i);
            if (r->container >= t->n_containers || r->length == 0 || (uint64_t)r->offset + r->length > t->container_size)
                abort();
        }
        guint next = 0;
        for (guint i = 0; chunks && i < t->req_accesses->len; i++) {
            uint64_t read = 0;
            for (uint32_t k = 0; k < g_array_index(t->req_accesses, uint32_t, i); k++, next++) {
                const ChunkTouch *x = &g_array_index(t->chunks.touches, ChunkTouch, next);
                if (x->chunk >= t->chunks.chunks->len || x->touch_length == 0 ||
                    (uint64_t)x->touch_offset + x->touch_length >
                        g_array_index(t->chunks.chunks, ChunkRef, x->chunk).length)
                    abort();
                read += x->touch_length;
            }
            if (read != g_array_index(t->req_bytes, uint64_t, i))
                abort();
        }
        for (guint i = 0; i < t->ids->len; i++)
            if (g_array_index(t->ids, uint32_t, i) >= t->n_containers)
                abort();
        GByteArray *again = g_byte_array_new();
        compiled_trace_encode(t, again);
        /* every header field is kept (44..48: the chunk table's size, zero in version 1) */
        if (again->len != len || memcmp(again->data, buf, len - 4) != 0)
            abort();
        g_byte_array_unref(again);
        compiled_trace_free(t);
    } else if (err->domain != DESTOR_ERROR || err->code != DESTOR_ERROR_INTEGRITY ||
               strstr(err->message, "fuzz.ctr") == NULL) {
        abort();
    }
    g_clear_error(&err);
    free(buf);
    return 0;
}
