/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store_cluster.c: the store's metadata in its RADOS namespace (store_cluster.h). */
#include "store/store_cluster.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/job_tombstone.h"
#include "recipe/recipe_index.h"
#include "recipe/refcount_recount.h"
#include "storage/container_rados.h"
#include "storage/rados_object.h"
#include "store/freed_list.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DELETED_SUFFIX ".deleted"
#define OBJECTS_SUFFIX ".objects"
#define TOKEN_LEN 16
#define RECIPE_VALUE 12 /* record offset u64, length u32 */
#define RECIPE_BATCH 1024
/* Jobs a pull fetches at once, as many as the omap writes a writer keeps
 * in flight (rados_object.h). */
#define PULL_IN_FLIGHT RADOS_OMAP_IN_FLIGHT

typedef struct {
    GArray *ids;            /* committed, ascending (omap keys are in order) */
    GHashTable *manifests;  /* id -> GBytes */
    GHashTable *tombstones; /* id -> GBytes */
    GHashTable *tokens;     /* id -> its objects' token (char *) */
} Catalog;

struct StoreCluster {
    RadosCluster c;
    char token[TOKEN_LEN + 1]; /* names the objects of a job this process writes */
    Catalog cat;               /* as last read, and the jobs committed since */
};

/* Object `job.NNNNNNNN.TOKEN.what`: the token of the process that wrote the
 * job, so that a writer that lost the lock never writes over the objects
 * of a job another writer committed under the same id. */
static char *job_object(uint32_t job_id, const char *token, const char *what)
{
    return g_strdup_printf("job.%08u.%s.%s", job_id, token, what);
}

/* The token of committed job `job_id`'s objects. */
static const char *committed_token(StoreCluster *sc, uint32_t job_id, GError **err)
{
    const char *token = g_hash_table_lookup(sc->cat.tokens, GUINT_TO_POINTER(job_id));
    if (token == NULL)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "job %u has no objects key in the job catalog (object %s in %s)", job_id,
                    STORE_CLUSTER_JOBS_OBJECT, sc->c.shown);
    return token;
}

static void catalog_init(Catalog *cat)
{
    cat->ids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    cat->manifests = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_bytes_unref);
    cat->tombstones = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_bytes_unref);
    cat->tokens = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
}

static void catalog_clear(Catalog *cat)
{
    g_array_unref(cat->ids);
    g_hash_table_unref(cat->manifests);
    g_hash_table_unref(cat->tombstones);
    g_hash_table_unref(cat->tokens);
}

static char *job_file(const char *workdir, uint32_t job_id, const char *name)
{
    char *dir = job_dir_path(workdir, job_id);
    char *path = g_build_filename(dir, name, NULL);
    g_free(dir);
    return path;
}

StoreCluster *store_cluster_open(const ContainerStoreRados *target, GError **err)
{
    StoreCluster *sc = g_new0(StoreCluster, 1);
    catalog_init(&sc->cat);
    for (int i = 0; i < TOKEN_LEN; i++)
        sc->token[i] = "0123456789abcdef"[g_random_int_range(0, 16)];
    if (!rados_cluster_connect(&sc->c, target, err)) {
        store_cluster_close(sc);
        return NULL;
    }
    return sc;
}

void store_cluster_close(StoreCluster *sc)
{
    if (sc == NULL)
        return;
    rados_cluster_close(&sc->c);
    catalog_clear(&sc->cat);
    g_free(sc);
}

gboolean store_cluster_get_meta(StoreCluster *sc, uint8_t **meta, size_t *len, gboolean *found, GError **err)
{
    return rados_object_get(&sc->c, STORE_CLUSTER_META_OBJECT, meta, len, found, err);
}

gboolean store_cluster_put_meta(StoreCluster *sc, const uint8_t *meta, size_t len, GError **err)
{
    return rados_object_put(&sc->c, STORE_CLUSTER_META_OBJECT, meta, len, err);
}

/* ---- writing ---- */

/* Local file `path` as object `oid`; a missing file removes the object
 * when `optional`, else is an error. */
static gboolean put_file(StoreCluster *sc, const char *oid, const char *path, gboolean optional, GError **err)
{
    if (optional && !g_file_test(path, G_FILE_TEST_EXISTS))
        return rados_object_remove(&sc->c, oid, err);
    uint8_t *data;
    size_t len;
    if (!file_read_whole(path, &data, &len, err))
        return FALSE;
    gboolean ok = rados_object_put(&sc->c, oid, data, len, err);
    g_free(data);
    return ok;
}

typedef struct {
    GPtrArray *keys; /* "/" + path: the root's path is empty, which an omap key may not be */
    GArray *key_lens, *val_lens;
    GPtrArray *vals;
} RecipeBatch;

static void batch_clear(RecipeBatch *b)
{
    g_ptr_array_set_size(b->keys, 0);
    g_ptr_array_set_size(b->vals, 0);
    g_array_set_size(b->key_lens, 0);
    g_array_set_size(b->val_lens, 0);
}

static gboolean batch_flush(StoreCluster *sc, const char *oid, RecipeBatch *b, gboolean first, GError **err)
{
    gboolean ok = rados_omap_put(&sc->c, oid, first, (const char *const *)b->keys->pdata,
                                 (const size_t *)(void *)b->key_lens->data, (const char *const *)b->vals->pdata,
                                 (const size_t *)(void *)b->val_lens->data, b->keys->len, err);
    batch_clear(b);
    return ok;
}

/* The recipe index as an omap of `token`'s job object, from the records
 * (path -> offset, length); with `clear`, emptied first. */
static gboolean put_recipe(StoreCluster *sc, const char *workdir, uint32_t job_id, const char *token, gboolean clear,
                           GError **err)
{
    if (token == NULL)
        return FALSE; /* committed_token() said why */
    JobMetaReader *meta = job_catalog_open_records(workdir, job_id, err);
    if (meta == NULL)
        return FALSE;
    char *oid = job_object(job_id, token, "recipe");
    RecipeBatch b = { g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(size_t)),
                      g_array_new(FALSE, FALSE, sizeof(size_t)), g_ptr_array_new_with_free_func(g_free) };
    gboolean ok = TRUE, first = TRUE;
    GError *local = NULL;
    uint64_t offset = job_meta_reader_offset(meta);
    FileRecord *r;
    while (ok && (r = job_meta_reader_next(meta, &local)) != NULL) {
        uint64_t next = job_meta_reader_offset(meta);
        char *key = g_malloc(r->path->len + 1);
        key[0] = '/';
        memcpy(key + 1, r->path->data, r->path->len);
        uint8_t *val = g_malloc(RECIPE_VALUE);
        le64_put(val, offset);
        le32_put(val + 8, (uint32_t)(next - offset));
        size_t key_len = r->path->len + 1, val_len = RECIPE_VALUE;
        g_ptr_array_add(b.keys, key);
        g_ptr_array_add(b.vals, val);
        g_array_append_val(b.key_lens, key_len);
        g_array_append_val(b.val_lens, val_len);
        file_record_free(r);
        offset = next;
        if (b.keys->len == RECIPE_BATCH) {
            ok = batch_flush(sc, oid, &b, first && clear, err);
            first = FALSE;
        }
    }
    if (local != NULL) {
        g_propagate_error(err, local);
        ok = FALSE;
    }
    ok = ok && (b.keys->len > 0 || first ? batch_flush(sc, oid, &b, first && clear, err) : TRUE);
    job_meta_reader_close(meta);
    g_ptr_array_unref(b.keys);
    g_ptr_array_unref(b.vals);
    g_array_unref(b.key_lens);
    g_array_unref(b.val_lens);
    g_free(oid);
    return ok;
}

/* Job `job_id`'s file `name` in `workdir` as its object `what` of `token` (put_file). */
static gboolean put_job_file(StoreCluster *sc, const char *workdir, uint32_t job_id, const char *token,
                             const char *what, const char *name, gboolean optional, GError **err)
{
    if (token == NULL)
        return FALSE; /* committed_token() said why */
    char *oid = job_object(job_id, token, what);
    char *path = job_file(workdir, job_id, name);
    gboolean ok = put_file(sc, oid, path, optional, err);
    g_free(path);
    g_free(oid);
    return ok;
}

gboolean store_cluster_put_records(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    return put_job_file(sc, workdir, job_id, committed_token(sc, job_id, err), "records", JOB_META_FILE, FALSE, err);
}

gboolean store_cluster_put_recipe(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    /* every key set again, none cleared first: a kill midway leaves each
     * key either as it was or right */
    return put_recipe(sc, workdir, job_id, committed_token(sc, job_id, err), FALSE, err);
}

gboolean store_cluster_put_refcount(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    return put_job_file(sc, workdir, job_id, committed_token(sc, job_id, err), "refcount", JOB_REFCOUNT_FILE, FALSE,
                        err);
}

gboolean store_cluster_put_job(StoreCluster *sc, const char *workdir, uint32_t job_id, gboolean with_records,
                               GError **err)
{
    return (!with_records || (put_job_file(sc, workdir, job_id, sc->token, "records", JOB_META_FILE, FALSE, err) &&
                              put_recipe(sc, workdir, job_id, sc->token, TRUE, err))) &&
           put_job_file(sc, workdir, job_id, sc->token, "refcount", JOB_REFCOUNT_FILE, FALSE, err) &&
           put_job_file(sc, workdir, job_id, sc->token, "utilization", JOB_UTILIZATION_FILE, TRUE, err);
}

gboolean store_cluster_put_job_object(StoreCluster *sc, uint32_t job_id, const char *what, const void *bytes,
                                      size_t len, GError **err)
{
    char *oid = job_object(job_id, sc->token, what);
    gboolean ok = rados_object_put(&sc->c, oid, bytes, len, err);
    g_free(oid);
    return ok;
}

gboolean store_cluster_get_job_object(StoreCluster *sc, uint32_t job_id, const char *what, uint8_t **bytes,
                                      size_t *len, gboolean *found, GError **err)
{
    const char *token = committed_token(sc, job_id, err);
    if (token == NULL)
        return FALSE;
    char *oid = job_object(job_id, token, what);
    gboolean ok = rados_object_get(&sc->c, oid, bytes, len, found, err);
    g_free(oid);
    return ok;
}

const GArray *store_cluster_jobs(const StoreCluster *sc)
{
    return sc->cat.ids;
}

static gboolean catalog_put(StoreCluster *sc, const char *key, const uint8_t *val, size_t len, GError **err)
{
    size_t key_len = strlen(key);
    const char *v = (const char *)val;
    return rados_omap_put(&sc->c, STORE_CLUSTER_JOBS_OBJECT, FALSE, &key, &key_len, &v, &len, 1, err);
}

gboolean store_cluster_commit_job(StoreCluster *sc, uint32_t job_id, const uint8_t *manifest, size_t len,
                                  GError **err)
{
    char key[16], objects_key[32];
    snprintf(key, sizeof key, "%08u", job_id);
    snprintf(objects_key, sizeof objects_key, "%08u" OBJECTS_SUFFIX, job_id);
    const char *keys[] = { key, objects_key };
    const char *vals[] = { (const char *)manifest, sc->token };
    size_t key_lens[] = { strlen(key), strlen(objects_key) }, val_lens[] = { len, TOKEN_LEN };
    gboolean taken;
    if (!rados_omap_put_new(&sc->c, STORE_CLUSTER_JOBS_OBJECT, key, keys, key_lens, vals, val_lens, 2, &taken, err))
        return FALSE;
    if (taken) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED,
                    "job %u was committed in %s by another writer (this one lost the store's lock); not overwritten",
                    job_id, sc->c.shown);
        return FALSE;
    }
    g_array_append_val(sc->cat.ids, job_id);
    g_hash_table_insert(sc->cat.manifests, GUINT_TO_POINTER(job_id), g_bytes_new(manifest, len));
    g_hash_table_insert(sc->cat.tokens, GUINT_TO_POINTER(job_id), g_strdup(sc->token));
    return TRUE;
}

gboolean store_cluster_put_tombstone(StoreCluster *sc, uint32_t job_id, const uint8_t *bytes, size_t len,
                                     GError **err)
{
    char key[32];
    snprintf(key, sizeof key, "%08u" DELETED_SUFFIX, job_id);
    return catalog_put(sc, key, bytes, len, err);
}

gboolean store_cluster_drop_records(StoreCluster *sc, uint32_t job_id, GError **err)
{
    const char *token = committed_token(sc, job_id, err);
    if (token == NULL)
        return FALSE;
    char *records = job_object(job_id, token, "records");
    char *recipe = job_object(job_id, token, "recipe");
    gboolean ok = rados_object_remove(&sc->c, recipe, err) && rados_object_remove(&sc->c, records, err);
    g_free(recipe);
    g_free(records);
    return ok;
}

gboolean store_cluster_put_freed(StoreCluster *sc, const uint8_t *bytes, size_t len, GError **err)
{
    return rados_object_put(&sc->c, STORE_CLUSTER_FREED_OBJECT, bytes, len, err);
}

gboolean store_cluster_mark_refcounts(StoreCluster *sc, gboolean stale, GError **err)
{
    return stale ? rados_object_put(&sc->c, STORE_CLUSTER_DIRTY_OBJECT, "dirty\n", 6, err)
                 : rados_object_remove(&sc->c, STORE_CLUSTER_DIRTY_OBJECT, err);
}

/* ---- reading into the working directory ---- */

static gboolean catalog_entry(const char *key, size_t key_len, const uint8_t *val, size_t val_len, void *ctx,
                              GError **err)
{
    (void)err;
    Catalog *cat = ctx;
    if (key_len < 8 || strspn(key, "0123456789") < 8)
        return TRUE; /* not ours */
    uint32_t id = (uint32_t)g_ascii_strtoull(key, NULL, 10);
    GBytes *bytes = g_bytes_new(val, val_len);
    if (key_len == 8) {
        g_array_append_val(cat->ids, id);
        g_hash_table_insert(cat->manifests, GUINT_TO_POINTER(id), bytes);
    } else if (key_len == 8 + strlen(DELETED_SUFFIX) && memcmp(key + 8, DELETED_SUFFIX, key_len - 8) == 0) {
        g_hash_table_insert(cat->tombstones, GUINT_TO_POINTER(id), bytes);
    } else if (key_len == 8 + strlen(OBJECTS_SUFFIX) && memcmp(key + 8, OBJECTS_SUFFIX, key_len - 8) == 0) {
        g_hash_table_insert(cat->tokens, GUINT_TO_POINTER(id), g_strndup((const char *)val, val_len));
        g_bytes_unref(bytes);
    } else {
        g_bytes_unref(bytes);
    }
    return TRUE;
}

/* Object `oid` into local file `path` (atomically; durably or as a cache's
 * file, file_publish_cached); a missing object is an INTEGRITY error unless
 * `optional` (then the file is removed). */
static gboolean fetch_file(StoreCluster *sc, const char *oid, const char *path, gboolean optional, gboolean durable,
                           GError **err)
{
    uint8_t *data;
    size_t len;
    gboolean found;
    if (!rados_object_get(&sc->c, oid, &data, &len, &found, err))
        return FALSE;
    gboolean ok;
    if (found)
        ok = durable ? file_publish_atomic(path, data, len, err) : file_publish_cached(path, data, len, err);
    else if (optional)
        ok = unlink(path) == 0 || errno == ENOENT || (destor_set_errno(err, errno, "remove %s", path), FALSE);
    else {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "object %s is missing from %s (a committed job's)",
                    oid, sc->c.shown);
        ok = FALSE;
    }
    g_free(data);
    return ok;
}

static gboolean recipe_entry(const char *key, size_t key_len, const uint8_t *val, size_t val_len, void *ctx,
                             GError **err)
{
    if (key_len < 1 || key[0] != '/' || val_len != RECIPE_VALUE) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "a recipe index entry in the cluster is damaged");
        return FALSE;
    }
    return recipe_index_put(ctx, key + 1, key_len - 1, le64_get(val), le32_get(val + 8), err);
}

/* The recipe index from its omap: built beside, renamed over (another
 * process may bring the same job in at once). */
static gboolean fetch_recipe(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    const char *token = committed_token(sc, job_id, err);
    if (token == NULL)
        return FALSE;
    char *oid = job_object(job_id, token, "recipe");
    char *path = job_file(workdir, job_id, JOB_RECIPE_INDEX_FILE);
    char *tmp = g_strdup_printf("%s.pull-%ld", path, (long)getpid());
    gboolean found = TRUE;
    RecipeIndex *idx = recipe_index_create(tmp, err);
    gboolean ok = idx != NULL && rados_omap_each(&sc->c, oid, recipe_entry, idx, &found, err);
    if (ok && !found) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "object %s is missing from %s (a committed job's)",
                    oid, sc->c.shown);
        ok = FALSE;
    }
    if (ok) {
        ok = recipe_index_finish(idx, err);
        idx = NULL;
    }
    if (ok && rename(tmp, path) != 0) {
        destor_set_errno(err, errno, "rename %s to %s", tmp, path);
        ok = FALSE;
    }
    recipe_index_close(idx);
    if (!ok)
        (void)unlink(tmp);
    g_free(tmp);
    g_free(path);
    g_free(oid);
    return ok;
}

static gboolean fetch_job_file(StoreCluster *sc, const char *workdir, uint32_t job_id, const char *what,
                               const char *name, gboolean optional, gboolean durable, GError **err)
{
    const char *token = committed_token(sc, job_id, err);
    if (token == NULL)
        return FALSE;
    char *oid = job_object(job_id, token, what);
    char *path = job_file(workdir, job_id, name);
    gboolean ok = fetch_file(sc, oid, path, optional, durable, err);
    g_free(path);
    g_free(oid);
    return ok;
}

static gboolean publish_job_file(const char *workdir, uint32_t job_id, const char *name, GBytes *bytes,
                                 gboolean durable, GError **err)
{
    char *path = job_file(workdir, job_id, name);
    gsize len;
    const void *data = g_bytes_get_data(bytes, &len);
    gboolean ok = durable ? file_publish_atomic(path, data, len, err) : file_publish_cached(path, data, len, err);
    g_free(path);
    return ok;
}

gboolean store_cluster_fetch_records(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    return fetch_job_file(sc, workdir, job_id, "records", JOB_META_FILE, FALSE, TRUE, err);
}

/* Committed job `job_id`'s files but its manifest into the working
 * directory, not yet durable (pull_jobs); a deleted one without records
 * (gc may have removed them). */
static gboolean fetch_job(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    GBytes *tombstone = g_hash_table_lookup(sc->cat.tombstones, GUINT_TO_POINTER(job_id));
    char *dir = job_dir_path(workdir, job_id);
    gboolean ok = g_mkdir_with_parents(dir, 0755) == 0;
    if (!ok)
        destor_set_errno(err, errno, "create %s", dir);
    g_free(dir);
    if (ok && tombstone == NULL)
        ok = fetch_job_file(sc, workdir, job_id, "records", JOB_META_FILE, FALSE, FALSE, err) &&
             fetch_recipe(sc, workdir, job_id, err);
    return ok && fetch_job_file(sc, workdir, job_id, "refcount", JOB_REFCOUNT_FILE, FALSE, FALSE, err) &&
           fetch_job_file(sc, workdir, job_id, "utilization", JOB_UTILIZATION_FILE, TRUE, FALSE, err) &&
           (tombstone == NULL || publish_job_file(workdir, job_id, JOB_DELETED_FILE, tombstone, FALSE, err));
}

/* Job `job_id`'s records again, not yet durable (pull_freed). */
static gboolean fetch_records(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    return fetch_job_file(sc, workdir, job_id, "records", JOB_META_FILE, FALSE, FALSE, err);
}

typedef gboolean (*FetchFn)(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err);

typedef struct {
    StoreCluster *sc;
    const char *workdir;
    FetchFn fn;
    GMutex lock;
    GError *error; /* the first failure; the jobs not started yet are skipped */
} Fetches;

static void fetch_one(gpointer job, gpointer ctx)
{
    Fetches *f = ctx;
    g_mutex_lock(&f->lock);
    gboolean failed = f->error != NULL;
    g_mutex_unlock(&f->lock);
    GError *local = NULL;
    if (failed || f->fn(f->sc, f->workdir, GPOINTER_TO_UINT(job) - 1, &local))
        return;
    g_mutex_lock(&f->lock);
    if (f->error == NULL)
        f->error = local;
    else
        g_error_free(local);
    g_mutex_unlock(&f->lock);
}

/* fn for each of `ids`, PULL_IN_FLIGHT at once (librados is thread-safe:
 * their round trips overlap), then every file they wrote made durable by
 * one syncfs(2) of the working directory's file system instead of an fsync
 * each. */
static gboolean fetch_all(StoreCluster *sc, const char *workdir, const GArray *ids, FetchFn fn, GError **err)
{
    if (ids->len == 0)
        return TRUE;
    Fetches f = { sc, workdir, fn, { 0 }, NULL };
    g_mutex_init(&f.lock);
    GThreadPool *pool = g_thread_pool_new(fetch_one, &f, MIN(ids->len, PULL_IN_FLIGHT), FALSE, err);
    gboolean ok = pool != NULL;
    for (guint i = 0; ok && i < ids->len; i++)
        ok = g_thread_pool_push(pool, GUINT_TO_POINTER(g_array_index(ids, uint32_t, i) + 1), err);
    if (pool != NULL)
        g_thread_pool_free(pool, FALSE, TRUE);
    g_mutex_clear(&f.lock);
    if (f.error != NULL) {
        if (ok)
            g_propagate_error(err, f.error);
        else
            g_error_free(f.error);
        return FALSE;
    }
    if (!ok)
        return FALSE;
    int fd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || syncfs(fd) != 0) {
        destor_set_errno(err, errno, "sync the file system of %s", workdir);
        ok = FALSE;
    }
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Does local file `path` hold exactly `bytes`? */
static gboolean same_file(const char *path, GBytes *bytes)
{
    uint8_t *data = NULL;
    size_t len = 0;
    gsize want;
    const void *expected = g_bytes_get_data(bytes, &want);
    gboolean same = g_file_test(path, G_FILE_TEST_EXISTS) && file_read_whole(path, &data, &len, NULL) &&
                    len == want && memcmp(data, expected, len) == 0;
    g_free(data);
    return same;
}

/* Of the committed jobs `ids`, those `workdir` lacks (or holds otherwise)
 * fetched into it (fetch_all), each one's manifest last: the manifest is a
 * cache's file (file_publish_cached), not made durable, because every pull
 * compares it byte for byte with its catalog entry and fetches a job whose
 * manifest differs (a crash left it empty or missing) again. *fetched:
 * their ids; *changed: a job was fetched or a tombstone brought in. A
 * working directory holding any job the catalog lacks is refused. */
static gboolean pull_jobs(StoreCluster *sc, const char *workdir, Catalog *cat, const GArray *ids, GArray *fetched,
                          gboolean *changed, GError **err)
{
    GArray *local = job_catalog_list(workdir, err);
    if (local == NULL)
        return FALSE;
    gboolean ok = TRUE;
    for (guint i = 0; ok && i < local->len; i++) {
        uint32_t id = g_array_index(local, uint32_t, i);
        if (g_hash_table_contains(cat->manifests, GUINT_TO_POINTER(id)))
            continue;
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "working directory %s holds job %u, which %s does not: it is no cache of this store "
                    "(use another working-directory)",
                    workdir, id, sc->c.shown);
        ok = FALSE;
    }
    g_array_unref(local);
    for (guint i = 0; ok && i < ids->len; i++) {
        uint32_t id = g_array_index(ids, uint32_t, i);
        GBytes *manifest = g_hash_table_lookup(cat->manifests, GUINT_TO_POINTER(id));
        GBytes *tombstone = g_hash_table_lookup(cat->tombstones, GUINT_TO_POINTER(id));
        char *path = job_file(workdir, id, JOB_MANIFEST_FILE);
        gboolean have = same_file(path, manifest);
        g_free(path);
        if (!have)
            g_array_append_val(fetched, id);
        else if (tombstone != NULL && !job_is_deleted(workdir, id))
            ok = *changed = publish_job_file(workdir, id, JOB_DELETED_FILE, tombstone, TRUE, err);
    }
    *changed = *changed || fetched->len > 0;
    ok = ok && fetch_all(sc, workdir, fetched, fetch_job, err);
    for (guint i = 0; ok && i < fetched->len; i++) {
        uint32_t id = g_array_index(fetched, uint32_t, i);
        ok = publish_job_file(workdir, id, JOB_MANIFEST_FILE, g_hash_table_lookup(cat->manifests, GUINT_TO_POINTER(id)),
                              FALSE, err);
    }
    return ok;
}

/* The cluster's freed list (*bytes, NULL when there is none; unref it):
 * does it differ from the working directory's? */
static gboolean freed_differs(StoreCluster *sc, const char *workdir, GBytes **bytes, gboolean *differs,
                              GError **err)
{
    uint8_t *data;
    size_t len;
    gboolean found;
    *bytes = NULL;
    *differs = FALSE;
    if (!rados_object_get(&sc->c, STORE_CLUSTER_FREED_OBJECT, &data, &len, &found, err))
        return FALSE;
    char *path = g_build_filename(workdir, FREED_LIST_FILE, NULL);
    *bytes = found ? g_bytes_new_take(data, len) : NULL;
    *differs = found && !same_file(path, *bytes);
    g_free(path);
    return TRUE;
}

/* The freed list, and first every live job's records when it changed
 * (but those of the jobs just `fetched`, already current). */
static gboolean pull_freed(StoreCluster *sc, const char *workdir, const Catalog *cat, const GArray *fetched,
                           gboolean *freed_changed, GError **err)
{
    GBytes *bytes;
    if (!freed_differs(sc, workdir, &bytes, freed_changed, err))
        return FALSE;
    char *path = g_build_filename(workdir, FREED_LIST_FILE, NULL);
    GArray *live = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0, j = 0; *freed_changed && i < cat->ids->len; i++) {
        uint32_t id = g_array_index(cat->ids, uint32_t, i);
        while (j < fetched->len && g_array_index(fetched, uint32_t, j) < id)
            j++;
        gboolean just = j < fetched->len && g_array_index(fetched, uint32_t, j) == id;
        if (!just && !g_hash_table_contains(cat->tombstones, GUINT_TO_POINTER(id)))
            g_array_append_val(live, id);
    }
    gboolean ok = fetch_all(sc, workdir, live, fetch_records, err);
    g_array_unref(live);
    if (ok && *freed_changed)
        ok = file_publish_atomic(path, g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), err);
    if (bytes != NULL)
        g_bytes_unref(bytes);
    g_free(path);
    return ok;
}

/* sc->cat, read again. */
static gboolean read_catalog(StoreCluster *sc, GError **err)
{
    gboolean found;
    catalog_clear(&sc->cat);
    catalog_init(&sc->cat);
    return rados_omap_each(&sc->c, STORE_CLUSTER_JOBS_OBJECT, catalog_entry, &sc->cat, &found, err);
}

static gboolean cluster_has(StoreCluster *sc, const char *oid, gboolean *has, GError **err)
{
    uint64_t size;
    time_t mtime;
    int r = rados_stat(sc->c.io, oid, &size, &mtime);
    *has = r == 0;
    if (r == 0 || r == -ENOENT)
        return TRUE;
    char *what = g_strdup_printf("stat object %s", oid);
    rados_cluster_error(&sc->c, err, r, what);
    g_free(what);
    return FALSE;
}

gboolean store_cluster_claimed(StoreCluster *sc, gboolean *claimed, GError **err)
{
    if (!cluster_has(sc, CONTAINER_RADOS_ID_OBJECT, claimed, err))
        return FALSE;
    if (!*claimed)
        return TRUE;
    rados_list_ctx_t list;
    int r = rados_nobjects_list_open(sc->c.io, &list);
    if (r < 0) {
        rados_cluster_error(&sc->c, err, r, "list the containers");
        return FALSE;
    }
    const char *entry;
    *claimed = FALSE;
    while (!*claimed && (r = rados_nobjects_list_next(list, &entry, NULL, NULL)) == 0)
        *claimed = g_str_has_prefix(entry, CONTAINER_RADOS_OBJECT_PREFIX);
    rados_nobjects_list_close(list);
    if (r < 0 && r != -ENOENT) {
        rados_cluster_error(&sc->c, err, r, "list the containers");
        return FALSE;
    }
    return TRUE;
}

struct RadosCluster *store_cluster_connection(StoreCluster *sc)
{
    return &sc->c;
}

const char *store_cluster_shown(const StoreCluster *sc)
{
    return sc->c.shown;
}

/* Does the namespace hold the store's metadata (else an older store's,
 * whose metadata is in `workdir`)? */
static gboolean check_meta(StoreCluster *sc, const char *workdir, GError **err)
{
    gboolean has_meta;
    if (!cluster_has(sc, STORE_CLUSTER_META_OBJECT, &has_meta, err))
        return FALSE;
    if (!has_meta)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "the store in %s keeps its jobs and settings in that directory only, not in %s (made by an "
                    "older destor): run '" STORE_CLUSTER_MIGRATE_COMMAND "' once to move them into the cluster",
                    workdir, sc->c.shown);
    return has_meta;
}

gboolean store_cluster_read(StoreCluster *sc, const char *workdir, GError **err)
{
    return check_meta(sc, workdir, err) && read_catalog(sc, err);
}

GBytes *store_cluster_manifest(const StoreCluster *sc, uint32_t job_id)
{
    return g_hash_table_lookup(sc->cat.manifests, GUINT_TO_POINTER(job_id));
}

gboolean store_cluster_deleted(const StoreCluster *sc, uint32_t job_id)
{
    return g_hash_table_contains(sc->cat.tombstones, GUINT_TO_POINTER(job_id));
}

gboolean store_cluster_get_freed(StoreCluster *sc, uint8_t **bytes, size_t *len, gboolean *found, GError **err)
{
    return rados_object_get(&sc->c, STORE_CLUSTER_FREED_OBJECT, bytes, len, found, err);
}

gboolean store_cluster_pull(StoreCluster *sc, const char *workdir, gboolean *index_stale, GError **err)
{
    gboolean dirty, changed = FALSE, freed_changed = FALSE;
    *index_stale = FALSE;
    if (!check_meta(sc, workdir, err))
        return FALSE;
    Catalog *cat = &sc->cat;
    GArray *fetched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean ok = read_catalog(sc, err) && pull_jobs(sc, workdir, cat, cat->ids, fetched, &changed, err) &&
                  pull_freed(sc, workdir, cat, fetched, &freed_changed, err);
    if (ok && (changed || freed_changed) && cat->ids->len > 0)
        ok = fetch_job_file(sc, workdir, g_array_index(cat->ids, uint32_t, cat->ids->len - 1), "refcount",
                            JOB_REFCOUNT_FILE, FALSE, TRUE, err);
    g_array_unref(fetched);
    ok = ok && cluster_has(sc, STORE_CLUSTER_DIRTY_OBJECT, &dirty, err) &&
         (!dirty || refcount_is_dirty(workdir) || refcount_mark_dirty(workdir, err));
    *index_stale = freed_changed;
    return ok;
}

gboolean store_cluster_pull_job(StoreCluster *sc, const char *workdir, uint32_t job_id, GError **err)
{
    if (!check_meta(sc, workdir, err) || !read_catalog(sc, err))
        return FALSE;
    GArray *one = g_array_new(FALSE, FALSE, sizeof(uint32_t)), *fetched = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (g_hash_table_contains(sc->cat.manifests, GUINT_TO_POINTER(job_id)))
        g_array_append_val(one, job_id);
    gboolean changed = FALSE, ok = pull_jobs(sc, workdir, &sc->cat, one, fetched, &changed, err);
    /* a job held before: its records are as of the working directory's
     * freed list, or newer; gc rewrote them if the cluster's differs. The
     * freed list itself stays (a full pull compares it to bring in the
     * records of every job). */
    GBytes *freed = NULL;
    gboolean differs;
    if (ok && one->len == 1 && fetched->len == 0 && !store_cluster_deleted(sc, job_id))
        ok = freed_differs(sc, workdir, &freed, &differs, err) &&
             (!differs || fetch_all(sc, workdir, one, fetch_records, err));
    if (freed != NULL)
        g_bytes_unref(freed);
    g_array_unref(fetched);
    g_array_unref(one);
    return ok;
}

/* Is `name` a job object (job.NNNNNNNN.T.what) of no committed job? */
static gboolean uncommitted_object(StoreCluster *sc, const char *name)
{
    size_t len = strlen(name);
    if (!g_str_has_prefix(name, "job.") || len < 4 + 8 + 1 + TOKEN_LEN + 2 || name[12] != '.' ||
        name[13 + TOKEN_LEN] != '.' || strspn(name + 4, "0123456789") != 8)
        return FALSE;
    uint32_t id = (uint32_t)g_ascii_strtoull(name + 4, NULL, 10);
    const char *token = g_hash_table_lookup(sc->cat.tokens, GUINT_TO_POINTER(id));
    return token == NULL || strncmp(token, name + 13, TOKEN_LEN) != 0;
}

gboolean store_cluster_drop_uncommitted(StoreCluster *sc, uint32_t *removed, GError **err)
{
    *removed = 0;
    rados_list_ctx_t list;
    int r = rados_nobjects_list_open(sc->c.io, &list);
    if (r < 0) {
        rados_cluster_error(&sc->c, err, r, "list the objects");
        return FALSE;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *entry;
    while ((r = rados_nobjects_list_next(list, &entry, NULL, NULL)) == 0)
        if (uncommitted_object(sc, entry))
            g_ptr_array_add(names, g_strdup(entry));
    rados_nobjects_list_close(list);
    gboolean ok = r == -ENOENT || (rados_cluster_error(&sc->c, err, r, "list the objects"), FALSE);
    for (guint i = 0; ok && i < names->len; i++) {
        ok = rados_object_remove(&sc->c, names->pdata[i], err);
        *removed += ok;
    }
    g_ptr_array_unref(names);
    return ok;
}

/* ---- moving an older store in ---- */

static gboolean put_local_file(StoreCluster *sc, const char *workdir, const char *name, const char *oid,
                               GError **err)
{
    char *path = g_build_filename(workdir, name, NULL);
    gboolean ok = !g_file_test(path, G_FILE_TEST_EXISTS) || put_file(sc, oid, path, FALSE, err);
    g_free(path);
    return ok;
}

gboolean store_cluster_migrate(StoreCluster *sc, const char *workdir, const uint8_t *meta, size_t meta_len,
                               uint32_t *jobs, GError **err)
{
    *jobs = 0;
    GArray *local = read_catalog(sc, err) ? job_catalog_list(workdir, err) : NULL;
    gboolean ok = local != NULL;
    for (guint i = 0; ok && i < local->len; i++) {
        uint32_t id = g_array_index(local, uint32_t, i);
        if (g_hash_table_contains(sc->cat.manifests, GUINT_TO_POINTER(id)))
            continue;
        gboolean deleted = job_is_deleted(workdir, id);
        char *records = job_file(workdir, id, JOB_META_FILE);
        char *manifest = job_file(workdir, id, JOB_MANIFEST_FILE);
        char *tombstone = job_file(workdir, id, JOB_DELETED_FILE);
        uint8_t *m = NULL, *t = NULL;
        size_t m_len = 0, t_len = 0;
        ok = store_cluster_put_job(sc, workdir, id, !deleted || g_file_test(records, G_FILE_TEST_EXISTS), err) &&
             file_read_whole(manifest, &m, &m_len, err) &&
             (!deleted || (file_read_whole(tombstone, &t, &t_len, err) &&
                           store_cluster_put_tombstone(sc, id, t, t_len, err))) &&
             store_cluster_commit_job(sc, id, m, m_len, err);
        *jobs += ok;
        g_free(t);
        g_free(m);
        g_free(tombstone);
        g_free(manifest);
        g_free(records);
    }
    if (local != NULL)
        g_array_unref(local);
    return ok && put_local_file(sc, workdir, FREED_LIST_FILE, STORE_CLUSTER_FREED_OBJECT, err) &&
           (!refcount_is_dirty(workdir) || store_cluster_mark_refcounts(sc, TRUE, err)) &&
           store_cluster_put_meta(sc, meta, meta_len, err);
}
