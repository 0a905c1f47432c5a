/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_file_record.c: one job_meta_data record, file_record_decode().
 *
 * Input: a mode byte, then the record. Mode bit 0: write the record's true
 * length into its length field; bit 1: recompute its trailing CRC (both
 * before decoding, so the fuzzer gets past them to the field checks).
 *
 * A record that decodes must re-encode to the same bytes (apart from the
 * reserved bytes, which the decoder ignores and the encoder zeroes), and its
 * path must print. */
#include "fuzz_util.h"

#include "recipe/file_record.h"
#include "util/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t mode;
    size_t len;
    uint8_t *rec = fuzz_mode_input(data, size, 1, &mode, &len);
    if (rec == NULL)
        return 0;
    if ((mode & 1) && len >= 8)
        le32_put(rec + 4, (uint32_t)len);
    if ((mode & 2) && len >= 4)
        le32_put(rec + len - 4, fuzz_crc(rec, len - 4));

    GError *err = NULL;
    FileRecord *r = file_record_decode(rec, len, "fuzz record", &err);
    if ((r == NULL) == (err == NULL))
        abort(); /* NULL must come with an error, a record without */
    if (r != NULL) {
        char *shown = file_record_path_display(r);
        if (shown == NULL || strlen(shown) < r->path->len)
            abort();
        g_free(shown);

        GByteArray *again = g_byte_array_new();
        file_record_encode(r, again);
        uint8_t *want = fuzz_dup(rec, len);
        memset(want + 9, 0, 3);  /* reserved after the type byte */
        memset(want + 84, 0, 4); /* reserved u32 */
        le32_put(want + len - 4, fuzz_crc(want, len - 4));
        if (again->len != len || memcmp(again->data, want, len) != 0) {
            fprintf(stderr, "fuzz: decoded record does not re-encode to its bytes\n");
            abort();
        }
        free(want);
        g_byte_array_unref(again);
        file_record_free(r);
    }
    g_clear_error(&err);
    free(rec);
    return 0;
}
