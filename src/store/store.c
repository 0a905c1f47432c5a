/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store.c: creating and opening the working directory. */
#include "store/store.h"
#include "index/fp_index.h"
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "recipe/refcount_recount.h"
#include "store/freed_list.h"
#include "store/reader_lock.h"
#include "store/store_index.h"
#include "storage/rados_lock.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/lock_file.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META_V1_SIZE 32
#define META_SIZE 48 /* version 2: with the store identity; 3: and its kind; 4: and its file digest */

static char *meta_path(const char *dir)
{
    return g_build_filename(dir, "store.meta", NULL);
}

/* A random (version 4) UUID. */
static void new_store_id(StoreId *id)
{
    char *text = g_uuid_string_random();
    for (size_t i = 0, j = 0; i < STORE_ID_LEN; j++) {
        if (text[j] == '-')
            continue;
        id->bytes[i++] = (uint8_t)(g_ascii_xdigit_value(text[j]) << 4 | g_ascii_xdigit_value(text[j + 1]));
        j++;
    }
    g_free(text);
}

/* store.meta (version 4) of s's container size, kind and file digest;
 * into the store's cluster first when it has one. */
static gboolean meta_write(const Store *s, FingerprintAlgorithm fp, const StoreId *id, GError **err)
{
    uint8_t m[META_SIZE] = { 0 };
    memcpy(m, STORE_META_MAGIC, 8);
    le32_put(m + 8, STORE_META_VERSION);
    le32_put(m + 12, (uint32_t)s->container_size);
    le32_put(m + 16, (uint32_t)fp);
    memcpy(m + 20, id->bytes, STORE_ID_LEN);
    le32_put(m + 36, (uint32_t)s->kind);
    le32_put(m + 40, (uint32_t)s->file_digest);
    le32_put(m + 44, checksum_crc32(CHECKSUM_CRC32_START, m, 44));
    if (s->cluster != NULL && !store_cluster_put_meta(s->cluster, m, sizeof m, err))
        return FALSE;
    char *path = meta_path(s->dir);
    gboolean ok = file_publish_atomic(path, m, sizeof m, err);
    g_free(path);
    return ok;
}

/* Version 1 (32 bytes, no identity), version 2 (48 bytes), version 3
 * (48 bytes, with the kind of container store) or version 4 (and the file
 * digest). */
static gboolean meta_valid(const uint8_t *m, size_t len)
{
    if (len < 12 || memcmp(m, STORE_META_MAGIC, 8) != 0)
        return FALSE;
    uint32_t version = le32_get(m + 8);
    size_t want = version == 1 ? META_V1_SIZE : version >= 2 && version <= 4 ? META_SIZE : 0;
    return len == want && le32_get(m + want - 4) == checksum_crc32(CHECKSUM_CRC32_START, m, want - 4);
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
        if (!meta_valid(m, len)) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged or of an unknown version", path);
        } else {
            s->container_size = le32_get(m + 12);
            s->fingerprint = (FingerprintAlgorithm)le32_get(m + 16);
            s->has_id = le32_get(m + 8) >= 2;
            memset(&s->id, 0, sizeof s->id);
            if (s->has_id)
                memcpy(s->id.bytes, m + 20, STORE_ID_LEN);
            uint32_t kind = le32_get(m + 8) >= 3 ? le32_get(m + 36) : CONTAINER_STORE_POOL;
            s->kind = (ContainerStoreKind)kind;
            uint32_t digest = le32_get(m + 8) >= 4 ? le32_get(m + 40) : FILE_DIGEST_SHA256;
            s->file_digest = (FileDigestAlgorithm)digest;
            ok = container_store_kind_name(s->kind) != NULL && file_digest_name(s->file_digest) != NULL;
            if (container_store_kind_name(s->kind) == NULL)
                g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                            "%s names an unknown kind of container store (%u)", path, kind);
            else if (!ok)
                g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                            "%s names an unknown file digest (%u)", path, digest);
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
    s->rados = (ContainerStoreRados){ .conf = g_strdup(cfg->rados_conf), .pool = g_strdup(cfg->rados_pool),
                                      .ns = g_strdup(cfg->rados_namespace), .timeout = cfg->rados_timeout,
                                      .lock_duration = cfg->rados_lock_duration };
    s->lock_fd = -1;
    s->readers_fd = -1;
    return s;
}

/* A rados store's metadata in its namespace: connected, and store.meta
 * brought into a working directory that has none (a new cache of the
 * store, store_cluster.h), before anything reads it. Without one there,
 * only a writer with `create` goes on (to make a new store). */
static gboolean open_cluster(Store *s, const Config *cfg, gboolean create, GError **err)
{
    if (cfg->container_store != CONTAINER_STORE_RADOS)
        return TRUE;
    if ((s->cluster = store_cluster_open(&s->rados, err)) == NULL)
        return FALSE;
    s->rados.shared = store_cluster_connection(s->cluster); /* the containers' too */
    char *path = meta_path(s->dir);
    uint8_t *m = NULL;
    size_t len = 0;
    gboolean found = FALSE, ok = TRUE;
    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        ok = store_cluster_get_meta(s->cluster, &m, &len, &found, err);
    if (ok && found && g_mkdir_with_parents(s->dir, 0755) != 0) {
        destor_set_errno(err, errno, "create working directory %s", s->dir);
        ok = FALSE;
    }
    ok = ok && (!found || file_publish_atomic(path, m, len, err));
    gboolean here = ok && g_file_test(path, G_FILE_TEST_EXISTS), claimed = FALSE;
    if (ok && !here && (ok = store_cluster_claimed(s->cluster, &claimed, err)) && claimed) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "%s holds a store whose jobs and settings are only in the working directory that made it (an "
                    "older destor): run '" STORE_CLUSTER_MIGRATE_COMMAND "' there first",
                    store_cluster_shown(s->cluster));
        ok = FALSE;
    } else if (ok && !here && !create) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_NO_STORE,
                    "no store in working directory %s nor in %s (check rados-namespace, or run 'destor backup "
                    "PATH' first)",
                    s->dir, store_cluster_shown(s->cluster));
        ok = FALSE;
    }
    g_free(m);
    g_free(path);
    return ok;
}

/* Bring the working directory up to the cluster's state (a rados store's);
 * when gc freed containers elsewhere, the local fingerprint index is marked
 * stale (the next writer's open reloads it, store_index.h, and first frees
 * what that gc listed and left). */
static gboolean pull_cluster(Store *s, GError **err)
{
    gboolean stale;
    if (s->cluster == NULL || !store_cluster_pull(s->cluster, s->dir, &stale, err))
        return s->cluster == NULL;
    char *index = g_build_filename(s->dir, "index", NULL);
    gboolean ok = !stale || fp_index_mark_stale(index, err);
    g_free(index);
    return ok;
}

gboolean store_pull(Store *s, GError **err)
{
    return pull_cluster(s, err);
}

gboolean store_refresh_records(Store *s, GError **err)
{
    g_assert(s->lock_fd >= 0);
    if (s->cluster == NULL)
        return TRUE;
    GArray *live = job_catalog_list_live(s->dir, err);
    gboolean ok = live != NULL;
    for (guint i = 0; ok && i < live->len; i++)
        ok = store_cluster_fetch_records(s->cluster, s->dir, g_array_index(live, uint32_t, i), err);
    if (live != NULL)
        g_array_unref(live);
    return ok;
}

/* A store's containers (the pool file, the containers/ directory) are
 * created first, store.meta last, so a store.meta without them means they
 * were lost: damage, unless no job was ever committed (a store made by an
 * older version, killed between the two), which the writer may simply
 * create. A rados store keeps nothing of them here (a lost object is
 * found when read, lost newest ones by store_next_container). */
static gboolean open_containers(Store *s, gboolean writable, GError **err)
{
    const char *entry = container_store_kind_entry(s->kind);
    char *path = entry != NULL ? g_build_filename(s->dir, entry, NULL) : NULL;
    gboolean lost = path != NULL && !g_file_test(path, G_FILE_TEST_EXISTS);
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
        s->containers = container_store_open_at(s->kind, s->dir, &s->rados, s->container_size, writable, err);
    g_free(path);
    return s->containers != NULL &&
           container_store_claim(s->containers, s->id.bytes, sizeof s->id.bytes, writable, err);
}

/* The config names the kind of container store it expects: a store of the
 * other kind is refused, never opened as an empty one. */
static gboolean check_kind(const Store *s, const Config *cfg, GError **err)
{
    if (s->kind == cfg->container_store)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                "the store in %s keeps its containers %s (container-store %s); container-store %s does not match",
                s->dir, container_store_kind_described(s->kind), container_store_kind_name(s->kind),
                container_store_kind_name(cfg->container_store));
    return FALSE;
}

/* What a reader's open brings from a rados store's cluster. */
typedef enum {
    READ_ALL,     /* the working directory brought up to the cluster */
    READ_CATALOG, /* only the catalog read (store_open_list) */
    READ_JOB,     /* the catalog, and one job into the working directory (store_open_job) */
} ReadScope;

/* A reader's open (job_id: READ_JOB's). */
static Store *open_read(const Config *cfg, ReadScope scope, uint32_t job_id, GError **err)
{
    Store *s = store_new(cfg);
    GError *local = NULL;
    if (!open_cluster(s, cfg, FALSE, err) || !meta_read(s, err) || !check_kind(s, cfg, err) ||
        ((s->readers_fd = reader_lock_shared(s->dir, &local)) < 0 && local != NULL) ||
        /* the lease before anything is read: a gc holding the readers out is waited for */
        (s->cluster != NULL && (s->rados.lease = s->readers_lease = rados_readers_join(
                                    store_cluster_connection(s->cluster), s->rados.lock_duration, err)) == NULL) ||
        !open_containers(s, FALSE, err) ||
        !(s->cluster == NULL || scope == READ_ALL ? pull_cluster(s, err)
          : scope == READ_CATALOG             ? store_cluster_read(s->cluster, s->dir, err)
                                              : store_cluster_pull_job(s->cluster, s->dir, job_id, err))) {
        if (local != NULL)
            g_propagate_error(err, local);
        store_close(s);
        return NULL;
    }
    if (cfg->store_read_uncached)
        container_store_set_uncached(s->containers, TRUE);
    s->listing = scope != READ_ALL && s->cluster != NULL;
    return s;
}

Store *store_open_read(const Config *cfg, GError **err)
{
    return open_read(cfg, READ_ALL, 0, err);
}

Store *store_open_list(const Config *cfg, GError **err)
{
    return open_read(cfg, READ_CATALOG, 0, err);
}

Store *store_open_job(const Config *cfg, uint32_t job_id, GError **err)
{
    return open_read(cfg, READ_JOB, job_id, err);
}

GArray *store_jobs(const Store *s, GError **err)
{
    if (!s->listing)
        return job_catalog_list(s->dir, err);
    const GArray *ids = store_cluster_jobs(s->cluster);
    GArray *copy = g_array_sized_new(FALSE, FALSE, sizeof(uint32_t), ids->len);
    g_array_append_vals(copy, ids->data, ids->len);
    return copy;
}

gboolean store_job_manifest(const Store *s, uint32_t job_id, JobManifest *m, GError **err)
{
    if (!s->listing)
        return job_manifest_load_any(s->dir, job_id, m, err);
    GBytes *bytes = store_cluster_manifest(s->cluster, job_id);
    g_assert(bytes != NULL); /* the catalog's ids have manifests */
    gsize len;
    const uint8_t *data = g_bytes_get_data(bytes, &len);
    char *shown = g_strdup_printf("job %u's catalog entry in %s", job_id, store_cluster_shown(s->cluster));
    gboolean ok = job_manifest_decode(data, len, job_id, shown, m, err);
    g_free(shown);
    return ok;
}

gboolean store_job_deleted(const Store *s, uint32_t job_id)
{
    return s->listing ? store_cluster_deleted(s->cluster, job_id) : job_is_deleted(s->dir, job_id);
}

gboolean store_current_refcounts(const Store *s, uint32_t **counts, uint32_t *n, GError **err)
{
    if (!s->listing)
        return refcount_load_current(s->dir, counts, n, err);
    const GArray *ids = store_cluster_jobs(s->cluster);
    *counts = NULL;
    *n = 0;
    if (ids->len == 0)
        return TRUE;
    uint32_t newest = g_array_index(ids, uint32_t, ids->len - 1);
    uint8_t *bytes = NULL;
    size_t len = 0;
    gboolean found = FALSE;
    gboolean ok = store_cluster_get_job_object(s->cluster, newest, "refcount", &bytes, &len, &found, err);
    if (ok && !found)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "job %u's reference counts are missing from %s",
                    newest, store_cluster_shown(s->cluster));
    char *shown = g_strdup_printf("job %u's reference counts in %s", newest, store_cluster_shown(s->cluster));
    ok = ok && found && refcount_decode(bytes, len, shown, counts, n, err);
    g_free(shown);
    g_free(bytes);
    return ok;
}

GArray *store_freed(const Store *s, uint32_t *containers, GError **err)
{
    if (!s->listing)
        return freed_list_load(s->dir, containers, err);
    uint8_t *bytes = NULL;
    size_t len = 0;
    gboolean found = FALSE;
    GArray *ids = NULL;
    if (store_cluster_get_freed(s->cluster, &bytes, &len, &found, err) && !found) {
        ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
        if (containers != NULL)
            *containers = 0;
    } else if (found) {
        char *shown = g_strdup_printf("the freed list in %s", store_cluster_shown(s->cluster));
        ids = freed_list_decode(bytes, len, shown, containers, err);
        g_free(shown);
    }
    g_free(bytes);
    return ids;
}

static gboolean take_lock(Store *s, GError **err)
{
    char *path = g_build_filename(s->dir, "LOCK", NULL);
    char *busy = g_strdup_printf("another writer (backup, delete, gc or repair) is running in %s (%s is locked)",
                                 s->dir, path);
    s->lock_fd = lock_file_take(path, busy, err);
    g_free(busy);
    g_free(path);
    return s->lock_fd >= 0;
}

/* What an interrupted gc listed as freed and left in the store. gc lists
 * and frees only under the index's DIRTY mark (lifecycle/gc.h), so without
 * it there is nothing to finish (and no call per freed id at every open). */
static gboolean finish_frees(Store *s, GError **err)
{
    char *index = g_build_filename(s->dir, "index", NULL);
    gboolean dirty = fp_index_marked_dirty(index);
    g_free(index);
    if (!dirty)
        return TRUE;
    GArray *ids = freed_list_load(s->dir, NULL, err);
    gboolean ok = ids != NULL && freed_list_finish(s->containers, ids, err);
    if (ids != NULL)
        g_array_unref(ids);
    return ok;
}

/* `path` (`what` in errors) is not a symlink: a link planted at one of the
 * store's own directories (index/, jobs/, a job's directory, containers/)
 * would have the writer change another store's files, or any directory's,
 * through it. A DESTOR_ERROR_PLANTED error, as for a file. */
gboolean store_planted_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static gboolean own_dir(const char *path, const char *what, GError **err)
{
    if (!store_planted_dir(path))
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_PLANTED,
                "%s %s: it is a symbolic link, which destor never writes through (remove it)", what, path);
    return FALSE;
}

/* The writer's directories in the store are its own (own_dir): checked
 * once the lock is taken, before anything is written. A job's directory is
 * checked when it holds a manifest, as job_catalog_list counts jobs. */
static gboolean own_dirs(const Store *s, GError **err)
{
    char *index = g_build_filename(s->dir, "index", NULL);
    char *jobs = g_build_filename(s->dir, "jobs", NULL);
    gboolean ok = own_dir(index, "index directory", err) && own_dir(jobs, "jobs directory", err);
    /* every kind's: the store's kind is not read yet when one is created */
    for (int k = 0; ok && k < CONTAINER_STORE_KINDS; k++) {
        const char *entry = container_store_kind_entry((ContainerStoreKind)k);
        char *containers = entry != NULL ? g_build_filename(s->dir, entry, NULL) : NULL;
        ok = containers == NULL || own_dir(containers, "container store", err);
        g_free(containers);
    }
    /* a files store's subdirectories of containers (container_files.c
     * never reaches a file through one, but gc would stop midway) */
    char *files = g_build_filename(s->dir, container_store_kind_entry(CONTAINER_STORE_FILES), NULL);
    GDir *d = ok ? g_dir_open(files, 0, NULL) : NULL;
    const char *name;
    while (d != NULL && ok && (name = g_dir_read_name(d)) != NULL) {
        if (strlen(name) != 6 || strspn(name, "0123456789abcdef") != 6)
            continue;
        char *path = g_build_filename(files, name, NULL);
        ok = own_dir(path, "container directory", err);
        g_free(path);
    }
    if (d != NULL)
        g_dir_close(d);
    g_free(files);
    d = ok ? g_dir_open(jobs, 0, NULL) : NULL;
    while (d != NULL && ok && (name = g_dir_read_name(d)) != NULL) {
        if (strlen(name) != 8 || strspn(name, "0123456789") != 8)
            continue; /* not a job's directory (a file's link is file_open_own's) */
        char *path = g_build_filename(jobs, name, NULL);
        char *manifest = g_build_filename(path, JOB_MANIFEST_FILE, NULL);
        /* one without a manifest is no job (job_catalog_list): an
         * unfinished backup's, which the next backup removes, link or not */
        ok = !g_file_test(manifest, G_FILE_TEST_EXISTS) || own_dir(path, "job directory", err);
        g_free(manifest);
        g_free(path);
    }
    if (d != NULL)
        g_dir_close(d);
    g_free(jobs);
    g_free(index);
    return ok;
}

/* The writer: with `create`, a new store is made when there is none and
 * the config must agree with the store's fixed parameters; without it (repair)
 * the store must exist and its own parameters rule. */
static Store *open_writer(const Config *cfg, gboolean create, gboolean migrate, GError **err)
{
    Store *s = store_new(cfg);
    if (!open_cluster(s, cfg, create, err))
        goto fail;
    if (!create && (!meta_read(s, err) || !check_kind(s, cfg, err))) /* before anything is created */
        goto fail;
    if (g_mkdir_with_parents(s->dir, 0755) != 0) {
        destor_set_errno(err, errno, "create working directory %s", s->dir);
        goto fail;
    }
    if (access(s->dir, W_OK) != 0) {
        destor_set_errno(err, errno, "working directory %s", s->dir);
        goto fail;
    }
    if (!take_lock(s, err) || !own_dirs(s, err))
        goto fail;
    char *meta = meta_path(s->dir);
    gboolean fresh = create && !g_file_test(meta, G_FILE_TEST_EXISTS);
    g_free(meta);
    StoreId id;
    new_store_id(&id);
    if (fresh) {
        s->container_size = cfg->container_size;
        s->kind = cfg->container_store;
        s->id = id; /* what the containers are claimed for */
        s->file_digest = cfg->file_digest != FILE_DIGEST_NONE ? cfg->file_digest : FILE_DIGEST_XXH3;
        if (!open_containers(s, TRUE, err) || !meta_write(s, cfg->fingerprint, &id, err))
            goto fail;
    }
    if (!meta_read(s, err) || !check_kind(s, cfg, err))
        goto fail;
    /* A store made before identities existed gets one now, under the lock. */
    if (!s->has_id && (!meta_write(s, s->fingerprint, &id, err) || !meta_read(s, err)))
        goto fail;
    if (create && (s->container_size != cfg->container_size || s->fingerprint != cfg->fingerprint)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "the store in %s was created with container-size %zu and fingerprint-algorithm %s; "
                    "the config asks for %zu and %s (use a new working-directory)",
                    s->dir, s->container_size, fingerprint_algorithm_name(s->fingerprint),
                    cfg->container_size, fingerprint_algorithm_name(cfg->fingerprint));
        goto fail;
    }
    if (create && cfg->file_digest != FILE_DIGEST_NONE && cfg->file_digest != s->file_digest) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "the store in %s was created with file-digest %s; the config asks for %s "
                    "(use a new working-directory, or leave file-digest unset to use the store's)",
                    s->dir, file_digest_name(s->file_digest), file_digest_name(cfg->file_digest));
        goto fail;
    }
    if (s->containers == NULL && !open_containers(s, TRUE, err))
        goto fail;
    if (!migrate && !pull_cluster(s, err)) /* under the store's RADOS lock */
        goto fail;
    if (!reader_lock_create(s->dir, &s->readers_lock_new, err) || !store_settle_refcounts(s, err) ||
        !finish_frees(s, err) || (!migrate && !store_index_sync(s, err)))
        goto fail;
    return s;
fail:
    store_close(s);
    return NULL;
}

Store *store_open_write(const Config *cfg, GError **err)
{
    return open_writer(cfg, TRUE, FALSE, err);
}

Store *store_open_repair(const Config *cfg, GError **err)
{
    return open_writer(cfg, FALSE, FALSE, err);
}

Store *store_open_migrate(const Config *cfg, uint32_t *jobs, GError **err)
{
    if (cfg->container_store != CONTAINER_STORE_RADOS) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "rados-migrate applies to container-store rados only (the config says %s)",
                    container_store_kind_name(cfg->container_store));
        return NULL;
    }
    Store *s = open_writer(cfg, FALSE, TRUE, err);
    char *path = s != NULL ? meta_path(s->dir) : NULL;
    uint8_t *m = NULL;
    size_t len;
    gboolean ok = s != NULL && file_read_whole(path, &m, &len, err) &&
                  store_cluster_migrate(s->cluster, s->dir, m, len, jobs, err);
    g_free(m);
    g_free(path);
    if (!ok) {
        store_close(s);
        return NULL;
    }
    return s;
}

void store_close(Store *s)
{
    if (s == NULL)
        return;
    rados_lock_release(s->readers_lease);
    container_store_close(s->containers);
    store_cluster_close(s->cluster);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    g_free((char *)s->rados.conf);
    g_free((char *)s->rados.pool);
    g_free((char *)s->rados.ns);
    if (s->readers_fd >= 0)
        close(s->readers_fd);
    g_free(s->dir);
    g_free(s);
}

/* The newest manifest that reads back (a damaged one is verify's to
 * report; refusing every backup over it would leave the store stuck):
 * its job and count, or *job -1. */
static gboolean newest_manifest(const Store *s, int64_t *job, uint32_t *count, GError **err)
{
    GArray *ids = store_jobs(s, err);
    if (ids == NULL)
        return FALSE;
    *job = -1;
    *count = 0;
    for (guint i = ids->len; i > 0 && *job < 0; i--) {
        JobManifest m;
        if (!store_job_manifest(s, g_array_index(ids, uint32_t, i - 1), &m, NULL))
            continue;
        *job = m.job_id;
        *count = m.containers_total;
        job_manifest_clear(&m);
    }
    g_array_unref(ids);
    return TRUE;
}

gboolean store_committed_containers(const Store *s, uint32_t *n, GError **err)
{
    int64_t job;
    uint32_t by_gc = 0;
    GArray *freed = newest_manifest(s, &job, n, err) ? store_freed(s, &by_gc, err) : NULL;
    if (freed == NULL)
        return FALSE;
    g_array_unref(freed);
    *n = MAX(*n, by_gc);
    return TRUE;
}

/* The counts a recount wrote, into the cluster, and its mark gone there
 * (the working directory's went first: a kill between leaves the cluster's
 * mark, and the next writer counts again). */
static gboolean push_recount(const Store *s, GError **err)
{
    GArray *ids = job_catalog_list(s->dir, err);
    gboolean ok = ids != NULL &&
                  (ids->len == 0 ||
                   store_cluster_put_refcount(s->cluster, s->dir, g_array_index(ids, uint32_t, ids->len - 1), err)) &&
                  store_cluster_mark_refcounts(s->cluster, FALSE, err);
    if (ids != NULL)
        g_array_unref(ids);
    return ok;
}

gboolean store_settle_refcounts(const Store *s, GError **err)
{
    uint32_t n;
    return !refcount_is_dirty(s->dir) ||
           (store_committed_containers(s, &n, err) && refcount_recount(s->dir, n, err) &&
            (s->cluster == NULL || push_recount(s, err)));
}

gboolean store_next_container(Store *s, ContainerId *next, GError **err)
{
    uint32_t slots, committed, count;
    int64_t job;
    const char *entry = container_store_kind_entry(s->kind);
    if (!container_store_count(s->containers, &slots, err) || !store_committed_containers(s, &committed, err) ||
        !newest_manifest(s, &job, &count, err))
        return FALSE;
    *next = slots;
    if (slots >= committed)
        return TRUE;
    char *where = entry != NULL ? g_build_filename(s->dir, entry, NULL)
                                : g_strdup_printf("RADOS pool %s namespace '%s'", s->rados.pool, s->rados.ns);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                "%s holds %u containers but %u were committed (job %lld, or gc after it): the store lost "
                "data; backup refused (it would reuse lost container ids); restore it from a copy, "
                "'destor verify' lists what is unreadable",
                where, slots, committed, (long long)job);
    g_free(where);
    return FALSE;
}

void store_dirs(const Config *cfg, const char *dirs[STORE_DIRS])
{
    dirs[0] = cfg->working_directory;
    dirs[1] = cfg->cache.directory;
}
