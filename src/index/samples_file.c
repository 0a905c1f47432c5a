/* SPDX-License-Identifier: GPL-3.0-or-later */
/* samples_file.c: "DPLCSMP1", the stamp (method, ratio, fingerprint
 * length, containers: u32 each), the entry count (u64), each entry (the
 * fingerprint's bytes and its container id, u32), then a CRC-32 of all
 * that; little-endian. */
#include "index/samples_file.h"
#include "util/checksum.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

#define MAGIC "DPLCSMP1"
#define HEADER (8 + 4 * 4 + 8)

typedef struct {
    GByteArray *out;
    size_t fp_len;
} Writer;

static void put_entry(const Fingerprint *fp, const ChunkLocation *loc, void *ctx)
{
    Writer *w = ctx;
    uint8_t id[4];
    le32_put(id, loc->container);
    g_byte_array_append(w->out, fp->bytes, (guint)w->fp_len);
    g_byte_array_append(w->out, id, 4);
}

static void put_stamp(uint8_t *p, const SamplesStamp *s, uint64_t count)
{
    memcpy(p, MAGIC, 8);
    le32_put(p + 8, (uint32_t)s->method);
    le32_put(p + 12, s->ratio);
    le32_put(p + 16, s->fp_len);
    le32_put(p + 20, s->containers);
    le64_put(p + 24, count);
}

gboolean samples_file_save(const char *path, const SamplesStamp *stamp, const FpTable *t, GError **err)
{
    Writer w = { g_byte_array_new(), stamp->fp_len };
    uint8_t head[HEADER], crc[4];
    put_stamp(head, stamp, fp_table_size(t));
    g_byte_array_append(w.out, head, HEADER);
    fp_table_foreach(t, put_entry, &w);
    le32_put(crc, checksum_crc32(0, w.out->data, w.out->len));
    g_byte_array_append(w.out, crc, 4);
    gboolean ok = file_publish_atomic(path, w.out->data, w.out->len, err);
    g_byte_array_unref(w.out);
    return ok;
}

void samples_file_load(const char *path, const SamplesStamp *stamp, FpTable *t, gboolean *loaded, char **why)
{
    *loaded = FALSE;
    *why = NULL;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return;
    uint8_t *data = NULL;
    size_t len = 0;
    GError *local = NULL;
    if (!file_read_whole(path, &data, &len, &local)) {
        *why = g_strdup(local->message);
        g_error_free(local);
        return;
    }
    size_t entry = stamp->fp_len + 4;
    uint64_t count = len >= HEADER ? le64_get(data + 24) : 0;
    uint8_t want[HEADER];
    put_stamp(want, stamp, count);
    if (len < HEADER + 4 || memcmp(data, MAGIC, 8) != 0 || count > (len - HEADER - 4) / entry ||
        len != HEADER + count * entry + 4 || le32_get(data + len - 4) != checksum_crc32(0, data, len - 4)) {
        *why = g_strdup_printf("%s is damaged", path);
    } else if (memcmp(data, want, HEADER) == 0) {
        const uint8_t *p = data + HEADER;
        for (uint64_t i = 0; i < count; i++, p += entry) {
            Fingerprint fp = { 0 };
            memcpy(fp.bytes, p, stamp->fp_len);
            ChunkLocation loc = { .container = le32_get(p + stamp->fp_len) };
            fp_table_put(t, &fp, &loc);
        }
        *loaded = TRUE;
    }
    g_free(data);
}
