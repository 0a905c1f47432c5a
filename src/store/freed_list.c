/* SPDX-License-Identifier: GPL-3.0-or-later */
/* freed_list.c: reading, publishing and finishing the list of freed
 * containers (see freed_list.h). */
#include "store/freed_list.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

#define FREED_MAGIC "DPLCFRE1"
#define FREED_VERSION 1
#define FREED_HEADER 20

static char *list_path(const char *workdir)
{
    return g_build_filename(workdir, FREED_LIST_FILE, NULL);
}

static gboolean decode(const uint8_t *p, size_t len, const char *path, GArray *ids, uint32_t *containers,
                       GError **err)
{
    uint32_t n = len >= FREED_HEADER ? le32_get(p + 16) : 0;
    gboolean ok = len >= FREED_HEADER + 4 && memcmp(p, FREED_MAGIC, 8) == 0 && le32_get(p + 8) == FREED_VERSION &&
                  (uint64_t)n * 4 + FREED_HEADER + 4 == len &&
                  le32_get(p + len - 4) == checksum_crc32(CHECKSUM_CRC32_START, p, len - 4);
    for (uint32_t i = 0; ok && i < n; i++) {
        ContainerId id = le32_get(p + FREED_HEADER + (size_t)i * 4);
        ok = i == 0 || id > g_array_index(ids, ContainerId, i - 1);
        g_array_append_val(ids, id);
    }
    if (!ok)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "list of freed containers %s is damaged", path);
    else
        *containers = le32_get(p + 12);
    return ok;
}

GArray *freed_list_load(const char *workdir, uint32_t *containers, GError **err)
{
    char *path = list_path(workdir);
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    uint8_t *p = NULL;
    size_t len = 0;
    uint32_t count = 0;
    gboolean ok = !g_file_test(path, G_FILE_TEST_EXISTS) ||
                  (file_read_whole(path, &p, &len, err) && decode(p, len, path, ids, &count, err));
    if (containers != NULL)
        *containers = count;
    g_free(p);
    g_free(path);
    if (!ok)
        g_clear_pointer(&ids, g_array_unref);
    return ids;
}

GArray *freed_list_decode(const uint8_t *p, size_t len, const char *shown, uint32_t *containers, GError **err)
{
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    uint32_t count = 0;
    if (!decode(p, len, shown, ids, &count, err))
        g_clear_pointer(&ids, g_array_unref);
    if (containers != NULL)
        *containers = count;
    return ids;
}

uint8_t *freed_list_encode(const GArray *ids, uint32_t containers, size_t *len_out)
{
    size_t len = FREED_HEADER + (size_t)ids->len * 4 + 4;
    uint8_t *p = g_malloc0(len);
    memcpy(p, FREED_MAGIC, 8);
    le32_put(p + 8, FREED_VERSION);
    le32_put(p + 12, containers);
    le32_put(p + 16, ids->len);
    for (guint i = 0; i < ids->len; i++) {
        g_assert(i == 0 || g_array_index(ids, ContainerId, i) > g_array_index(ids, ContainerId, i - 1));
        g_assert(g_array_index(ids, ContainerId, i) < containers);
        le32_put(p + FREED_HEADER + (size_t)i * 4, g_array_index(ids, ContainerId, i));
    }
    le32_put(p + len - 4, checksum_crc32(CHECKSUM_CRC32_START, p, len - 4));
    *len_out = len;
    return p;
}

gboolean freed_list_publish(const char *workdir, const GArray *ids, uint32_t containers, GError **err)
{
    size_t len;
    uint8_t *p = freed_list_encode(ids, containers, &len);
    char *path = list_path(workdir);
    gboolean ok = file_publish_atomic(path, p, len, err);
    g_free(path);
    g_free(p);
    return ok;
}

gboolean freed_list_has(const GArray *ids, ContainerId id)
{
    guint lo = 0, hi = ids->len;
    while (lo < hi) {
        guint mid = lo + (hi - lo) / 2;
        ContainerId at = g_array_index(ids, ContainerId, mid);
        if (at == id)
            return TRUE;
        if (at < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FALSE;
}

gboolean freed_list_finish(ContainerStore *cs, const GArray *ids, GError **err)
{
    guint freed = 0;
    for (guint i = 0; i < ids->len; i++) {
        ContainerId id = g_array_index(ids, ContainerId, i);
        gboolean live = FALSE;
        if (!container_store_live(cs, id, &live, err) || (live && !container_store_free(cs, id, err)))
            return FALSE;
        freed += live;
    }
    return freed == 0 || container_store_sync(cs, err);
}
