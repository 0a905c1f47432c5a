/* SPDX-License-Identifier: GPL-3.0-or-later */
/* har_history.c: the per-job container utilization record HAR reads back
 * (see har_history.h; the layout is in docs/FORMAT.md). */
#include "backup/har_history.h"
#include "recipe/job_catalog.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <string.h>

#define HEADER_SIZE 32 /* magic, container size, count, chunk bytes, reserved */
#define ENTRY_SIZE 8   /* container id, bytes used */

struct HarUsage {
    GHashTable *seen;  /* (container << 32 | offset) of each distinct chunk */
    GHashTable *bytes; /* container -> bytes of its distinct chunks */
    uint64_t total;    /* every chunk's bytes, repeats too */
};

HarUsage *har_usage_new(void)
{
    HarUsage *u = g_new0(HarUsage, 1);
    u->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    u->bytes = g_hash_table_new(g_direct_hash, g_direct_equal);
    return u;
}

void har_usage_free(HarUsage *u)
{
    if (u == NULL)
        return;
    g_hash_table_unref(u->seen);
    g_hash_table_unref(u->bytes);
    g_free(u);
}

void har_usage_add_file(HarUsage *u, const FileRecord *r)
{
    for (guint i = 0; i < r->chunks->len; i++) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        u->total += c->length;
        gint64 key = (gint64)(((guint64)c->container << 32) | c->offset);
        if (g_hash_table_contains(u->seen, &key))
            continue;
        g_hash_table_add(u->seen, g_memdup2(&key, sizeof key));
        gpointer old = g_hash_table_lookup(u->bytes, GUINT_TO_POINTER(c->container));
        g_hash_table_insert(u->bytes, GUINT_TO_POINTER(c->container),
                            GUINT_TO_POINTER(GPOINTER_TO_UINT(old) + c->length));
    }
}

static gint by_id(gconstpointer a, gconstpointer b)
{
    uint32_t x = le32_get(a), y = le32_get(b);
    return x < y ? -1 : x > y;
}

gboolean har_usage_save(const HarUsage *u, const char *job_dir, uint32_t container_size, GError **err)
{
    guint n = g_hash_table_size(u->bytes);
    size_t len = HEADER_SIZE + (size_t)n * ENTRY_SIZE + 4;
    uint8_t *buf = g_malloc0(len);
    memcpy(buf, HAR_MAGIC, 8);
    le32_put(buf + 8, container_size);
    le32_put(buf + 12, n);
    le64_put(buf + 16, u->total);
    GHashTableIter it;
    gpointer k, v;
    uint8_t *e = buf + HEADER_SIZE;
    g_hash_table_iter_init(&it, u->bytes);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        le32_put(e, GPOINTER_TO_UINT(k));
        le32_put(e + 4, GPOINTER_TO_UINT(v));
        e += ENTRY_SIZE;
    }
    qsort(buf + HEADER_SIZE, n, ENTRY_SIZE, (int (*)(const void *, const void *))by_id);
    le32_put(buf + len - 4, checksum_crc32(0, buf, len - 4));
    char *path = g_build_filename(job_dir, JOB_UTILIZATION_FILE, NULL);
    gboolean ok = file_publish_unsynced_dir(path, buf, len, err);
    g_free(path);
    g_free(buf);
    return ok;
}

/* A container of the last job and how much of it that job used. */
typedef struct {
    uint32_t id, bytes;
} Use;

static gint by_use(gconstpointer a, gconstpointer b)
{
    const Use *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Parse a record; FALSE (with *why) if it is not a sound one. */
static gboolean parse(const uint8_t *buf, size_t len, uint32_t *container_size, uint64_t *total, GArray *uses,
                      const char **why)
{
    if (len < HEADER_SIZE + 4 || memcmp(buf, HAR_MAGIC, 8) != 0) {
        *why = "not a container utilization record";
        return FALSE;
    }
    uint32_t n = le32_get(buf + 12);
    if (len != HEADER_SIZE + (size_t)n * ENTRY_SIZE + 4) {
        *why = "its length disagrees with its count";
        return FALSE;
    }
    if (le32_get(buf + len - 4) != checksum_crc32(0, buf, len - 4)) {
        *why = "its checksum fails";
        return FALSE;
    }
    *container_size = le32_get(buf + 8);
    *total = le64_get(buf + 16);
    for (uint32_t i = 0; i < n; i++) {
        Use one = { le32_get(buf + HEADER_SIZE + i * ENTRY_SIZE), le32_get(buf + HEADER_SIZE + i * ENTRY_SIZE + 4) };
        g_array_append_val(uses, one);
    }
    return TRUE;
}

GHashTable *har_sparse_load(const char *workdir, uint32_t job_id, const RewriteConfig *cfg, GError **err)
{
    GArray *live = job_catalog_list_live(workdir, err);
    if (live == NULL)
        return NULL;
    GHashTable *sparse = g_hash_table_new(g_direct_hash, g_direct_equal);
    int64_t last = -1;
    for (guint i = 0; i < live->len; i++)
        if (g_array_index(live, uint32_t, i) < job_id)
            last = g_array_index(live, uint32_t, i);
    g_array_unref(live);
    if (last < 0)
        return sparse;
    char *dir = job_dir_path(workdir, (uint32_t)last);
    char *path = g_build_filename(dir, JOB_UTILIZATION_FILE, NULL);
    g_free(dir);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) { /* that job ran without HAR */
        g_free(path);
        return sparse;
    }
    if (!file_read_whole(path, &buf, &len, err)) {
        g_free(path);
        g_hash_table_unref(sparse);
        return NULL;
    }
    GArray *uses = g_array_new(FALSE, FALSE, sizeof(Use));
    uint32_t container_size = 0;
    uint64_t total = 0;
    const char *why = NULL;
    if (!parse(buf, len, &container_size, &total, uses, &why) || container_size == 0) {
        destor_warning("%s: %s; HAR rewrites nothing in this job", path, why ? why : "no container size");
    } else {
        g_array_sort(uses, by_use);
        double budget = cfg->har_rewrite_limit * (double)total;
        for (guint i = 0; i < uses->len; i++) {
            const Use *u = &g_array_index(uses, Use, i);
            if ((double)u->bytes >= cfg->har_utilization_threshold * container_size || (double)u->bytes > budget)
                break; /* the rest are used more */
            budget -= u->bytes;
            g_hash_table_add(sparse, GUINT_TO_POINTER(u->id));
        }
    }
    g_array_unref(uses);
    g_free(buf);
    g_free(path);
    return sparse;
}
