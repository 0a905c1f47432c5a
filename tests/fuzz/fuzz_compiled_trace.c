/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_compiled_trace.c: compiled traces, compiled_trace_decode().
 *
 * Input: a mode byte, then the file. Mode bit 0: recompute the trailing
 * CRC-32 so the fuzzer gets past it to the field checks. A decoded trace
 * must be consistent (the per-request counts add up to the sequence, every
 * id below the pool size, every request's job listed, bytes served exactly
 * by the requests that read a container, their sum a JSON integer) and must
 * encode back to exactly the bytes it was decoded from. */
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
        if (total != t->ids->len || t->req_bytes->len != t->req_job->len ||
            t->req_job->len != t->req_accesses->len)
            abort();
        for (guint i = 0; i < t->ids->len; i++)
            if (g_array_index(t->ids, uint32_t, i) >= t->n_containers)
                abort();
        GByteArray *again = g_byte_array_new();
        compiled_trace_encode(t, again);
        /* reserved header bytes are not kept: compare what is */
        if (again->len != len || memcmp(again->data, buf, 44) != 0 ||
            memcmp(again->data + 48, buf + 48, len - 48 - 4) != 0)
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
