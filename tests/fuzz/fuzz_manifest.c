/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_manifest.c: a job manifest, job_manifest_decode() (the checks and
 * decoding of job_manifest_load() on the file's bytes).
 *
 * Input: a mode byte, then the manifest. The job id asked for is the one in
 * the manifest (bytes 12..15) unless mode bit 2 is set (then 0, as when a
 * manifest sits in another job's directory). Mode bit 0: write the true
 * source-root length (len - fixed part - 8) after the fixed part (128
 * bytes in version 1, 160 in version 2); bit 1: recompute the trailing
 * CRC. */
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
    size_t fixed = len >= 12 ? MANIFEST_FIXED_SIZE_OF(le32_get(buf + 8)) : MANIFEST_FIXED_SIZE;
    if ((mode & 1) && len >= fixed + 8)
        le32_put(buf + fixed, (uint32_t)(len - fixed - 8));
    if ((mode & 2) && len >= 4)
        le32_put(buf + len - 4, fuzz_crc(buf, len - 4));
    uint32_t job_id = (mode & 4) || len < 16 ? 0 : le32_get(buf + 12);

    JobManifest m;
    GError *err = NULL;
    gboolean ok = job_manifest_decode(buf, len, job_id, "jobs/fuzz/manifest", &m, &err);
    if (ok != (err == NULL))
        abort();
    if (ok) {
        if (m.job_id != job_id || m.source_root == NULL || strlen(m.source_root) > len)
            abort();
    } else if (m.source_root != NULL) {
        abort(); /* a refused manifest leaves nothing to free */
    }
    job_manifest_clear(&m);
    g_clear_error(&err);
    free(buf);
    return 0;
}
