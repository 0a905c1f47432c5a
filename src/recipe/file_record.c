/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_record.c: encoding and strict decoding of job_meta_data records. */
#include "recipe/file_record.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/le.h"

#include <string.h>

enum {
    R_MAGIC = 0,      /* u32 */
    R_LEN = 4,        /* u32 whole record incl. trailing CRC */
    R_TYPE = 8,       /* u8 + 3 reserved */
    R_MODE = 12,      /* u32 */
    R_MTIME = 16,     /* i64 seconds */
    R_MTIME_NS = 24,  /* u32 */
    R_PATH_LEN = 28,  /* u32 */
    R_SIZE = 32,      /* u64 */
    R_CHUNKS = 40,    /* u64 */
    R_DIGEST = 48,    /* FILE_DIGEST_SLOT bytes */
    R_LINK_LEN = 80,  /* u32 */
    R_RESERVED = 84,  /* u32 */
};

FileRecord *file_record_new(EntryType type, const char *path, size_t path_len)
{
    FileRecord *r = g_new0(FileRecord, 1);
    r->type = type;
    r->path = g_byte_array_new();
    g_byte_array_append(r->path, (const guint8 *)path, (guint)path_len);
    r->link = g_byte_array_new();
    r->chunks = g_array_new(FALSE, FALSE, sizeof(ChunkRef));
    return r;
}

void file_record_free(FileRecord *r)
{
    if (r == NULL)
        return;
    g_byte_array_unref(r->path);
    g_byte_array_unref(r->link);
    g_array_unref(r->chunks);
    g_free(r);
}

FileRecord *file_record_share(const FileRecord *r)
{
    FileRecord *c = g_new(FileRecord, 1);
    *c = *r;
    c->path = g_byte_array_ref(r->path);
    c->link = g_byte_array_ref(r->link);
    c->chunks = g_array_ref(r->chunks);
    return c;
}

void file_record_encode(const FileRecord *r, GByteArray *out)
{
    size_t len = RECORD_HEADER_SIZE + r->path->len + r->link->len +
                 (size_t)r->chunks->len * CHUNK_REF_SIZE + 4;
    guint start = out->len;
    g_byte_array_set_size(out, start + (guint)len);
    uint8_t *p = out->data + start;
    memset(p, 0, RECORD_HEADER_SIZE);
    le32_put(p + R_MAGIC, RECORD_MAGIC);
    le32_put(p + R_LEN, (uint32_t)len);
    p[R_TYPE] = (uint8_t)r->type;
    le32_put(p + R_MODE, r->mode);
    le64_put(p + R_MTIME, (uint64_t)r->mtime_sec);
    le32_put(p + R_MTIME_NS, r->mtime_nsec);
    le32_put(p + R_PATH_LEN, r->path->len);
    le64_put(p + R_SIZE, r->size);
    le64_put(p + R_CHUNKS, r->chunks->len);
    memcpy(p + R_DIGEST, r->digest, FILE_DIGEST_SLOT);
    le32_put(p + R_LINK_LEN, r->link->len);
    uint8_t *q = p + RECORD_HEADER_SIZE;
    memcpy(q, r->path->data, r->path->len);
    q += r->path->len;
    if (r->link->len > 0) /* an empty GByteArray has no data pointer */
        memcpy(q, r->link->data, r->link->len);
    q += r->link->len;
    for (guint i = 0; i < r->chunks->len; i++, q += CHUNK_REF_SIZE) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        memcpy(q, c->fp.bytes, FP_SLOT);
        le32_put(q + 32, c->container);
        le32_put(q + 36, c->offset);
        le32_put(q + 40, c->length);
    }
    le32_put(q, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
}

uint32_t file_record_length(const uint8_t head[8])
{
    if (le32_get(head + R_MAGIC) != RECORD_MAGIC)
        return 0;
    uint32_t len = le32_get(head + R_LEN);
    return len >= RECORD_HEADER_SIZE + 4 ? len : 0;
}

static FileRecord *bad(GError **err, const char *where, const char *what)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged: %s", where, what);
    return NULL;
}

FileRecord *file_record_decode(const uint8_t *buf, size_t len, const char *where, GError **err)
{
    if (len < RECORD_HEADER_SIZE + 4 || file_record_length(buf) != len)
        return bad(err, where, "bad record header or length");
    if (le32_get(buf + len - 4) != checksum_crc32(CHECKSUM_CRC32_START, buf, len - 4))
        return bad(err, where, "record checksum mismatch");
    uint8_t type = buf[R_TYPE];
    uint64_t path_len = le32_get(buf + R_PATH_LEN);
    uint64_t link_len = le32_get(buf + R_LINK_LEN);
    uint64_t nchunks = le64_get(buf + R_CHUNKS);
    if (type < ENTRY_FILE || type > ENTRY_SYMLINK)
        return bad(err, where, "unknown entry type");
    /* backup writes the permission bits and a timespec's nanoseconds only */
    if ((le32_get(buf + R_MODE) & ~07777u) != 0 || le32_get(buf + R_MTIME_NS) >= 1000000000u)
        return bad(err, where, "mode or mtime out of range");
    /* nchunks is bounded first: a huge count would wrap the sum below. */
    if (path_len == 0 || nchunks > len / CHUNK_REF_SIZE ||
        RECORD_HEADER_SIZE + path_len + link_len + nchunks * CHUNK_REF_SIZE + 4 != len)
        return bad(err, where, "field lengths do not add up");
    FileRecord *r = file_record_new((EntryType)type, (const char *)buf + RECORD_HEADER_SIZE, path_len);
    r->mode = le32_get(buf + R_MODE);
    r->mtime_sec = (int64_t)le64_get(buf + R_MTIME);
    r->mtime_nsec = le32_get(buf + R_MTIME_NS);
    r->size = le64_get(buf + R_SIZE);
    memcpy(r->digest, buf + R_DIGEST, FILE_DIGEST_SLOT);
    const uint8_t *q = buf + RECORD_HEADER_SIZE + path_len;
    g_byte_array_append(r->link, q, (guint)link_len);
    q += link_len;
    g_array_set_size(r->chunks, (guint)nchunks);
    uint64_t total = 0;
    for (uint64_t i = 0; i < nchunks; i++, q += CHUNK_REF_SIZE) {
        ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        memcpy(c->fp.bytes, q, FP_SLOT);
        c->container = le32_get(q + 32);
        c->offset = le32_get(q + 36);
        c->length = le32_get(q + 40);
        total += c->length;
    }
    if (memchr(r->path->data, '\0', r->path->len) != NULL) {
        file_record_free(r);
        return bad(err, where, "path holds a NUL byte");
    }
    if (total != (r->type == ENTRY_FILE ? r->size : 0)) {
        file_record_free(r);
        return bad(err, where, "chunk lengths do not add up to the file size");
    }
    return r;
}

char *file_record_path_display(const FileRecord *r)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < r->path->len; i++) {
        guint8 c = r->path->data[i];
        if (c >= 0x20 && c != 0x7f && c != '\\')
            g_string_append_c(s, (gchar)c);
        else
            g_string_append_printf(s, "\\x%02x", c);
    }
    return g_string_free(s, FALSE);
}
