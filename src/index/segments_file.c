/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segments_file.c: "DPLCSEG1", the stamp as in index/samples (method,
 * ratio, fingerprint length, containers: u32 each), the segment count
 * (u64), each segment (its container count u32, then the ids u32), the
 * feature count (u64), each feature (the fingerprint's bytes, its segment
 * id u32), then a CRC-32 of all that; little-endian. */
#include "index/segments_file.h"
#include "util/checksum.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

#define MAGIC "DPLCSEG1"
#define STAMP (8 + 4 * 4)

typedef struct {
    GByteArray *out;
    size_t fp_len;
} Writer;

static void put_u32(GByteArray *out, uint32_t v)
{
    uint8_t b[4];
    le32_put(b, v);
    g_byte_array_append(out, b, 4);
}

static void put_u64(GByteArray *out, uint64_t v)
{
    uint8_t b[8];
    le64_put(b, v);
    g_byte_array_append(out, b, 8);
}

static void put_feature(const Fingerprint *fp, const ChunkLocation *loc, void *ctx)
{
    Writer *w = ctx;
    g_byte_array_append(w->out, fp->bytes, (guint)w->fp_len);
    put_u32(w->out, loc->container);
}

static void put_stamp(GByteArray *out, const SamplesStamp *s)
{
    g_byte_array_append(out, (const guint8 *)MAGIC, 8);
    put_u32(out, (uint32_t)s->method);
    put_u32(out, s->ratio);
    put_u32(out, s->fp_len);
    put_u32(out, s->containers);
}

gboolean segments_file_save(const char *path, const SamplesStamp *stamp, const GPtrArray *segments,
                            const FpTable *features, GError **err)
{
    Writer w = { g_byte_array_new(), stamp->fp_len };
    put_stamp(w.out, stamp);
    put_u64(w.out, segments->len);
    for (guint i = 0; i < segments->len; i++) {
        const GArray *c = g_ptr_array_index(segments, i);
        put_u32(w.out, c->len);
        for (guint k = 0; k < c->len; k++)
            put_u32(w.out, g_array_index(c, ContainerId, k));
    }
    put_u64(w.out, fp_table_size(features));
    fp_table_foreach(features, put_feature, &w);
    put_u32(w.out, checksum_crc32(0, w.out->data, w.out->len));
    gboolean ok = file_publish_atomic(path, w.out->data, w.out->len, err);
    g_byte_array_unref(w.out);
    return ok;
}

/* Parse data[0, len) (its checksum checked) into segments and features;
 * FALSE if malformed. */
static gboolean parse(const uint8_t *p, size_t len, size_t fp_len, GPtrArray *segments, FpTable *features)
{
    const uint8_t *end = p + len;
    if ((size_t)(end - p) < 8)
        return FALSE;
    uint64_t nseg = le64_get(p);
    p += 8;
    for (uint64_t s = 0; s < nseg; s++) {
        if ((size_t)(end - p) < 4)
            return FALSE;
        uint32_t n = le32_get(p);
        p += 4;
        if ((size_t)(end - p) / 4 < n)
            return FALSE;
        GArray *c = g_array_sized_new(FALSE, FALSE, sizeof(ContainerId), n);
        for (uint32_t k = 0; k < n; k++, p += 4) {
            ContainerId id = le32_get(p);
            g_array_append_val(c, id);
        }
        g_ptr_array_add(segments, c);
    }
    if ((size_t)(end - p) < 8)
        return FALSE;
    uint64_t nfeat = le64_get(p);
    p += 8;
    if ((uint64_t)(end - p) != nfeat * (fp_len + 4))
        return FALSE;
    for (; p < end; p += fp_len + 4) {
        Fingerprint fp = { 0 };
        memcpy(fp.bytes, p, fp_len);
        ChunkLocation loc = { .container = le32_get(p + fp_len) };
        if (loc.container >= segments->len)
            return FALSE;
        fp_table_put(features, &fp, &loc);
    }
    return TRUE;
}

void segments_file_load(const char *path, const SamplesStamp *stamp, GPtrArray *segments, FpTable *features,
                        gboolean *loaded, char **why)
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
    GByteArray *want = g_byte_array_new();
    put_stamp(want, stamp);
    if (len < STAMP + 4 || memcmp(data, MAGIC, 8) != 0 ||
        le32_get(data + len - 4) != checksum_crc32(0, data, len - 4)) {
        *why = g_strdup_printf("%s is damaged", path);
    } else if (memcmp(data, want->data, STAMP) == 0) {
        *loaded = parse(data + STAMP, len - STAMP - 4, stamp->fp_len, segments, features);
        if (!*loaded) {
            *why = g_strdup_printf("%s is damaged", path);
            g_ptr_array_set_size(segments, 0);
        }
    }
    g_byte_array_unref(want);
    g_free(data);
}
