/* store.c: creating and opening the working directory. */
#include "store.h"
#include "recipe/job_catalog.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/lock_file.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define META_SIZE 32

static char *meta_path(const char *dir)
{
    return g_build_filename(dir, "store.meta", NULL);
}

static gboolean meta_write(const char *dir, size_t container_size, FingerprintAlgorithm fp, GError **err)
{
    uint8_t m[META_SIZE] = { 0 };
    memcpy(m, STORE_META_MAGIC, 8);
    le32_put(m + 8, STORE_META_VERSION);
    le32_put(m + 12, (uint32_t)container_size);
    le32_put(m + 16, (uint32_t)fp);
    le32_put(m + 28, checksum_crc32(CHECKSUM_CRC32_START, m, 28));
    char *path = meta_path(dir);
    gboolean ok = file_publish_atomic(path, m, sizeof m, err);
    g_free(path);
    return ok;
}

static gboolean meta_read(Store *s, GError **err)
{
    char *path = meta_path(s->dir);
    uint8_t *m = NULL;
    size_t len = 0;
    gboolean ok = FALSE;
    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_NO_STORE,
                    "no store in working directory %s (run 'destor backup PATH' first)", s->dir);
    } else if (file_read_whole(path, &m, &len, err)) {
        if (len != META_SIZE || memcmp(m, STORE_META_MAGIC, 8) != 0 || le32_get(m + 8) != STORE_META_VERSION ||
            le32_get(m + 28) != checksum_crc32(CHECKSUM_CRC32_START, m, 28)) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged or of an unknown version", path);
        } else {
            s->container_size = le32_get(m + 12);
            s->fingerprint = (FingerprintAlgorithm)le32_get(m + 16);
            ok = TRUE;
        }
    }
    g_free(m);
    g_free(path);
    return ok;
}

static Store *store_new(const Config *cfg)
{
    Store *s = g_new0(Store, 1);
    s->dir = g_strdup(cfg->working_directory);
    s->lock_fd = -1;
    return s;
}

/* A store is created pool first, store.meta last, so a store.meta without
 * a pool means the pool was lost: damage, unless no job was ever committed
 * (a store made by an older version, killed between the two), which the
 * writer may simply create. */
static gboolean open_pool(Store *s, gboolean writable, GError **err)
{
    char *path = g_build_filename(s->dir, "containers.pool", NULL);
    gboolean lost = !g_file_test(path, G_FILE_TEST_EXISTS);
    if (lost && writable) {
        GArray *ids = job_catalog_list(s->dir, err);
        if (ids == NULL) {
            g_free(path);
            return FALSE;
        }
        lost = ids->len > 0;
        g_array_unref(ids);
    }
    if (lost)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "%s is missing: the store's containers are lost (restore it from a copy)", path);
    else
        s->pool = container_pool_open(path, s->container_size, writable, err);
    g_free(path);
    return s->pool != NULL;
}

Store *store_open_read(const Config *cfg, GError **err)
{
    Store *s = store_new(cfg);
    if (!meta_read(s, err) || !open_pool(s, FALSE, err)) {
        store_close(s);
        return NULL;
    }
    if (cfg->store_read_uncached)
        container_pool_set_uncached(s->pool, TRUE);
    return s;
}

static gboolean take_lock(Store *s, GError **err)
{
    char *path = g_build_filename(s->dir, "LOCK", NULL);
    char *busy = g_strdup_printf("another backup is running in %s (%s is locked)", s->dir, path);
    s->lock_fd = lock_file_take(path, busy, err);
    g_free(busy);
    g_free(path);
    return s->lock_fd >= 0;
}

Store *store_open_write(const Config *cfg, GError **err)
{
    Store *s = store_new(cfg);
    if (g_mkdir_with_parents(s->dir, 0755) != 0) {
        destor_set_errno(err, errno, "create working directory %s", s->dir);
        goto fail;
    }
    if (access(s->dir, W_OK) != 0) {
        destor_set_errno(err, errno, "working directory %s", s->dir);
        goto fail;
    }
    if (!take_lock(s, err))
        goto fail;
    char *meta = meta_path(s->dir);
    gboolean fresh = !g_file_test(meta, G_FILE_TEST_EXISTS);
    g_free(meta);
    if (fresh) {
        s->container_size = cfg->container_size;
        if (!open_pool(s, TRUE, err) || !meta_write(s->dir, cfg->container_size, cfg->fingerprint, err))
            goto fail;
    }
    if (!meta_read(s, err))
        goto fail;
    if (s->container_size != cfg->container_size || s->fingerprint != cfg->fingerprint) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "the store in %s was created with container-size %zu and fingerprint-algorithm %s; "
                    "the config asks for %zu and %s (use a new working-directory)",
                    s->dir, s->container_size, fingerprint_algorithm_name(s->fingerprint),
                    cfg->container_size, fingerprint_algorithm_name(cfg->fingerprint));
        goto fail;
    }
    if (s->pool == NULL && !open_pool(s, TRUE, err))
        goto fail;
    return s;
fail:
    store_close(s);
    return NULL;
}

void store_close(Store *s)
{
    if (s == NULL)
        return;
    container_pool_close(s->pool);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    g_free(s->dir);
    g_free(s);
}

gboolean store_next_container(Store *s, ContainerId *next, GError **err)
{
    uint32_t slots;
    GArray *ids = container_pool_count(s->pool, &slots, err) ? job_catalog_list(s->dir, err) : NULL;
    if (ids == NULL)
        return FALSE;
    gboolean ok = TRUE;
    if (ids->len > 0) {
        uint32_t newest = g_array_index(ids, uint32_t, ids->len - 1);
        JobManifest m;
        ok = job_manifest_load(s->dir, newest, &m, err);
        if (ok && slots < m.containers_total) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                        "%s/containers.pool holds %u containers but job %u committed %u: the pool lost data; "
                        "backup refused (it would reuse lost container ids); restore containers.pool from a "
                        "copy, 'destor verify' lists what is unreadable",
                        s->dir, slots, newest, m.containers_total);
            ok = FALSE;
        }
        job_manifest_clear(&m);
    }
    g_array_unref(ids);
    *next = slots;
    return ok;
}
