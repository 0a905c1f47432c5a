/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_job_meta.c: a whole job_meta_data file through its reader,
 * job_meta_reader_open() then job_meta_reader_next() to the end, and one
 * job_meta_reader_at() at an offset and length as a (possibly damaged)
 * recipe index would give them.
 *
 * Input: mode (1 byte), at_offset (u32 LE), at_length (u32 LE), then the
 * file. The job id asked for is the one in the file's header (bytes 12..15),
 * or 0 when the file is shorter. Mode bit 0: rewrite the 32-byte header as
 * the writer would for that id; bit 1: recompute the CRC of every record
 * found walking the file (so the fuzzer explores the framing, not the
 * checksums); bit 2: skip the job_meta_reader_at() call.
 *
 * The reader works on a file, so each input is written to a scratch file. */
#include "fuzz_util.h"

#include "recipe/file_record.h"
#include "recipe/job_meta.h"
#include "util/le.h"

#define PREFIX 9

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (size < PREFIX)
        return 0;
    uint8_t mode = data[0];
    uint64_t at_offset = le32_get(data + 1);
    uint32_t at_length = le32_get(data + 5);
    size_t len = size - PREFIX;
    uint8_t *file = fuzz_dup(data + PREFIX, len);
    uint32_t job_id = len >= 16 ? le32_get(file + 12) : 0;

    if ((mode & 1) && len >= JOB_META_HEADER_SIZE) {
        memset(file, 0, JOB_META_HEADER_SIZE);
        memcpy(file, JOB_META_MAGIC, 8);
        le32_put(file + 8, JOB_META_VERSION);
        le32_put(file + 12, job_id);
        le32_put(file + 28, fuzz_crc(file, 28));
    }
    if (mode & 2) {
        size_t off = JOB_META_HEADER_SIZE;
        while (off + 8 <= len) {
            uint32_t rl = file_record_length(file + off);
            if (rl == 0 || rl > len - off)
                break;
            le32_put(file + off + rl - 4, fuzz_crc(file + off, rl - 4));
            off += rl;
        }
    }

    char *path = fuzz_write_file("job_meta_data", file, len);
    GError *err = NULL;
    JobMetaReader *r = job_meta_reader_open(path, job_id, &err);
    if ((r == NULL) == (err == NULL))
        abort();
    g_clear_error(&err);
    if (r != NULL) {
        FileRecord *rec;
        uint64_t last = job_meta_reader_offset(r);
        while ((rec = job_meta_reader_next(r, &err)) != NULL) {
            uint64_t now = job_meta_reader_offset(r);
            if (now <= last || now > len)
                abort(); /* the reader must move forward inside the file */
            last = now;
            file_record_free(rec);
        }
        if (last != len && err == NULL)
            abort(); /* stopped early without saying why */
        g_clear_error(&err);
        if (!(mode & 4)) {
            rec = job_meta_reader_at(r, at_offset, at_length, &err);
            if ((rec == NULL) == (err == NULL))
                abort();
            file_record_free(rec);
            g_clear_error(&err);
        }
        job_meta_reader_close(r);
    }
    g_free(path);
    free(file);
    return 0;
}
