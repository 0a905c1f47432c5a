/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_refcount.c: a job's reference-count file, refcount_decode() (the
 * checks and decoding of refcount_load_current() on the file's bytes).
 *
 * Input: a mode byte, then the file. Mode bit 0: write the count the length
 * implies ((len - 16) / 4) at offset 8; bit 1: recompute the CRC of the
 * array (offset 12). */
#include "fuzz_util.h"

#include "recipe/job_catalog.h"
#include "util/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t mode;
    size_t len;
    uint8_t *buf = fuzz_mode_input(data, size, 1, &mode, &len);
    if (buf == NULL)
        return 0;
    if ((mode & 1) && len >= 16)
        le32_put(buf + 8, (uint32_t)((len - 16) / 4));
    if ((mode & 2) && len >= 16)
        le32_put(buf + 12, fuzz_crc(buf + 16, len - 16));

    uint32_t *counts = NULL, n = 0;
    GError *err = NULL;
    gboolean ok = refcount_decode(buf, len, "jobs/fuzz/refcount", &counts, &n, &err);
    if (ok != (err == NULL))
        abort();
    if (ok) {
        if (counts == NULL || (size_t)n * 4 + 16 != len)
            abort();
        volatile uint32_t sum = 0;
        for (uint32_t i = 0; i < n; i++)
            sum += counts[i];
        (void)sum;
    } else if (counts != NULL || n != 0) {
        abort();
    }
    g_free(counts);
    g_clear_error(&err);
    free(buf);
    return 0;
}
