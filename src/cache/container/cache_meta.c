/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_meta.c: encode, checksum, publish and decode cache.meta. */
#include "cache/container/cache_meta.h"
#include "cache/policy/access_counts.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <errno.h>
#include <string.h>

void cache_meta_clear(CacheMeta *m)
{
    g_free(m->entries);
    g_free(m->counts);
    g_free(m->state);
    memset(m, 0, sizeof *m);
}

static uint32_t crc_of(const uint8_t *p, size_t len)
{
    return checksum_crc32(CHECKSUM_CRC32_START, p, len);
}

gboolean cache_meta_save(const char *path, const CacheMeta *m, GError **err)
{
    size_t cell = access_counts_cell_bytes(m->counts_mode);
    size_t len = CACHE_META_HEADER_SIZE + (size_t)m->n_entries * CACHE_META_ENTRY_SIZE +
                 (size_t)m->n_counts * cell + 12 + m->state_len + 4;
    uint8_t *buf = g_malloc0(len);
    memcpy(buf, CACHE_META_MAGIC, 8);
    le32_put(buf + 8, CACHE_META_VERSION);
    le32_put(buf + 12, m->clean ? 1u : 0u);
    le64_put(buf + 16, m->container_size);
    le32_put(buf + 24, m->capacity);
    le32_put(buf + 28, m->n_entries);
    le32_put(buf + 32, m->n_counts);
    le32_put(buf + 36, m->counts_mode);
    le64_put(buf + 40, m->policy_word);
    size_t name_len = strnlen(m->policy, CACHE_META_POLICY_LEN);
    memcpy(buf + 48, m->policy, name_len); /* NUL-padded: buf is zeroed */
    memcpy(buf + 64, m->store_id, CACHE_META_STORE_ID_LEN);
    le64_put(buf + 80, m->counts_since_aging);
    le32_put(buf + 88, m->anchor_id);
    le32_put(buf + 92, m->anchor_stamp);
    le32_put(buf + 96, m->compression);
    uint8_t *p = buf + CACHE_META_HEADER_SIZE;
    for (uint32_t i = 0; i < m->n_entries; i++, p += CACHE_META_ENTRY_SIZE) {
        le32_put(p, m->entries[i].id);
        le32_put(p + 4, m->entries[i].slot);
        le64_put(p + 8, m->entries[i].check);
        le64_put(p + 16, m->entries[i].word);
        le32_put(p + 24, m->entries[i].stored_len);
    }
    for (uint32_t i = 0; i < m->n_counts; i++, p += cell) {
        if (cell == 4)
            le32_put(p, m->counts[i]);
        else
            le16_put(p, (uint16_t)m->counts[i]);
    }
    le32_put(p, m->state_version);
    le32_put(p + 4, m->state_len);
    if (m->state_len)
        memcpy(p + 8, m->state, m->state_len);
    p += 8 + m->state_len;
    le32_put(p, crc_of(p - m->state_len, m->state_len));
    p += 4;
    le32_put(p, crc_of(buf, len - 4));
    gboolean ok = file_publish_atomic(path, buf, len, err);
    g_free(buf);
    return ok;
}

static gboolean damaged(GError **err, const char *path, const char *why)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "SSD cache metadata %s: %s", path, why);
    return FALSE;
}

gboolean cache_meta_load(const char *path, CacheMeta *m, gboolean *found, GError **err)
{
    memset(m, 0, sizeof *m);
    *found = FALSE;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!file_read_whole(path, &buf, &len, err))
        return FALSE;
    *found = TRUE;
    gboolean ok = FALSE;
    if (len < CACHE_META_V1_HEADER_SIZE + 4) {
        damaged(err, path, "too short");
        goto out;
    }
    if (le32_get(buf + len - 4) != crc_of(buf, len - 4)) {
        damaged(err, path, "checksum mismatch");
        goto out;
    }
    if (memcmp(buf, CACHE_META_MAGIC, 8) != 0) {
        damaged(err, path, "bad magic");
        goto out;
    }
    m->version = le32_get(buf + 8);
    if (m->version < 1 || m->version > CACHE_META_VERSION) {
        damaged(err, path, "unknown version");
        goto out;
    }
    size_t header = m->version == 1   ? CACHE_META_V1_HEADER_SIZE
                    : m->version < 4 ? CACHE_META_V2_HEADER_SIZE
                    : m->version < 5 ? CACHE_META_V4_HEADER_SIZE
                    : m->version < 6 ? CACHE_META_V5_HEADER_SIZE
                                     : CACHE_META_HEADER_SIZE;
    size_t entry = m->version < 6 ? CACHE_META_V5_ENTRY_SIZE : CACHE_META_ENTRY_SIZE;
    if (len < header + 4) {
        damaged(err, path, "too short");
        goto out;
    }
    m->has_store_id = m->version >= 2;
    if (m->has_store_id)
        memcpy(m->store_id, buf + 64, CACHE_META_STORE_ID_LEN);
    m->clean = (le32_get(buf + 12) & 1u) != 0;
    m->container_size = le64_get(buf + 16);
    m->capacity = le32_get(buf + 24);
    m->n_entries = le32_get(buf + 28);
    m->n_counts = le32_get(buf + 32);
    m->counts_mode = m->version >= 4 ? le32_get(buf + 36) : ACCESS_COUNTS_EXACT;
    if (m->counts_mode >= ACCESS_COUNTS_MODES) {
        damaged(err, path, "unknown counts mode");
        goto out;
    }
    if (m->version >= 4)
        m->counts_since_aging = le64_get(buf + 80);
    m->has_anchor = m->version >= 5;
    if (m->has_anchor) {
        m->anchor_id = le32_get(buf + 88);
        m->anchor_stamp = le32_get(buf + 92);
    }
    m->compression = m->version >= 6 ? le32_get(buf + 96) : 0;
    size_t cell = access_counts_cell_bytes(m->counts_mode);
    m->policy_word = le64_get(buf + 40);
    memcpy(m->policy, buf + 48, CACHE_META_POLICY_LEN);
    m->policy[CACHE_META_POLICY_LEN] = '\0';
    uint64_t want = header + (uint64_t)m->n_entries * entry +
                    (uint64_t)m->n_counts * cell + 4;
    uint64_t state_at = want - 4;
    if (m->version >= 3) {
        if (want + 12 > len) {
            damaged(err, path, "size does not match its counts");
            goto out;
        }
        m->state_version = le32_get(buf + state_at);
        m->state_len = le32_get(buf + state_at + 4);
        want += 12 + (uint64_t)m->state_len;
    }
    if (want != len) {
        damaged(err, path, "size does not match its counts");
        goto out;
    }
    m->entries = g_new(CacheMetaEntry, m->n_entries ? m->n_entries : 1);
    m->counts = g_new(uint32_t, m->n_counts ? m->n_counts : 1);
    const uint8_t *p = buf + header;
    for (uint32_t i = 0; i < m->n_entries; i++, p += entry) {
        m->entries[i].id = le32_get(p);
        m->entries[i].slot = le32_get(p + 4);
        m->entries[i].check = le64_get(p + 8);
        m->entries[i].word = le64_get(p + 16);
        m->entries[i].stored_len = m->version >= 6 ? le32_get(p + 24) : 0;
    }
    for (uint32_t i = 0; i < m->n_counts; i++, p += cell)
        m->counts[i] = cell == 4 ? le32_get(p) : le16_get(p);
    if (m->version >= 3) {
        const uint8_t *blob = buf + state_at + 8;
        if (le32_get(blob + m->state_len) != crc_of(blob, m->state_len)) {
            damaged(err, path, "policy state checksum mismatch");
            goto out;
        }
        m->state = g_memdup2(blob, m->state_len ? m->state_len : 1);
    }
    ok = TRUE;
out:
    if (!ok)
        cache_meta_clear(m);
    g_free(buf);
    return ok;
}
