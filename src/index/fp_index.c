/* fp_index.c: in-memory table over a Berkeley DB hash file, with rebuild
 * from the container pool after an unclean stop. */
#include "index/fp_index.h"
#include "storage/container.h"
#include "util/bdb_error.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/le.h"

#include <db.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define DB_NAME "fingerprints.db"
#define DIRTY_NAME "DIRTY"

struct FpIndex {
    char *dir;
    char *db_path;
    char *dirty_path;
    DB *db;
    size_t fp_len;
    GHashTable *job_chunks; /* Fingerprint* -> IndexEntry*, key inside value */
};

typedef struct {
    Fingerprint fp;
    ChunkLocation loc;
} IndexEntry;

static gboolean open_db(FpIndex *idx, GError **err)
{
    int ret = db_create(&idx->db, NULL, 0);
    if (ret != 0)
        return bdb_fail(err, ret, "create handle for", idx->db_path);
    idx->db->set_cachesize(idx->db, 0, 64u << 20, 1);
    idx->db->set_flags(idx->db, DB_CHKSUM);
    ret = idx->db->open(idx->db, NULL, idx->db_path, NULL, DB_HASH, DB_CREATE, 0644);
    if (ret != 0) {
        idx->db->close(idx->db, 0);
        idx->db = NULL;
        return bdb_fail(err, ret, "open fingerprint index", idx->db_path);
    }
    return TRUE;
}

/* Berkeley DB creates a database as "__db.NAME" and renames it into place;
 * a process killed in between leaves that file, and every later open with
 * DB_CREATE then waits for its (dead) creator and fails. The caller holds
 * the store's writer lock, so no live process owns such a file. */
static gboolean remove_creation_leftovers(const char *dir, GError **err)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return TRUE;
    gboolean ok = TRUE;
    const char *name;
    while (ok && (name = g_dir_read_name(d)) != NULL) {
        if (!g_str_has_prefix(name, "__db."))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        if (unlink(path) != 0 && errno != ENOENT) {
            destor_set_errno(err, errno, "remove %s left by an interrupted backup", path);
            ok = FALSE;
        }
        g_free(path);
    }
    g_dir_close(d);
    return ok;
}

static void encode_loc(uint8_t out[12], const ChunkLocation *loc)
{
    le32_put(out, loc->container);
    le32_put(out + 4, loc->offset);
    le32_put(out + 8, loc->length);
}

static gboolean db_put(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc, GError **err)
{
    uint8_t val[12];
    encode_loc(val, loc);
    DBT key = { .data = (void *)fp->bytes, .size = (u_int32_t)idx->fp_len };
    DBT data = { .data = val, .size = sizeof val };
    int ret = idx->db->put(idx->db, NULL, &key, &data, 0);
    return ret == 0 ? TRUE : bdb_fail(err, ret, "write to", idx->db_path);
}

gboolean fp_index_persist_container(FpIndex *idx, const uint8_t *container, size_t size, GError **err)
{
    uint32_t n = container_chunk_count(container);
    ChunkLocation loc = { .container = container_id_of(container) };
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        container_chunk_entry(container, size, i, &fp, &loc.offset, &loc.length);
        if (!db_put(idx, &fp, &loc, err))
            return FALSE;
    }
    return TRUE;
}

static gboolean rebuild(FpIndex *idx, ContainerSource *pool, uint32_t count, GError **err)
{
    if (idx->db != NULL) {
        idx->db->close(idx->db, 0);
        idx->db = NULL;
    }
    if (unlink(idx->db_path) != 0 && errno != ENOENT) {
        destor_set_errno(err, errno, "remove stale %s", idx->db_path);
        return FALSE;
    }
    if (!open_db(idx, err))
        return FALSE;
    uint8_t *buf = g_malloc(pool->container_size);
    uint32_t skipped = 0;
    gboolean ok = TRUE;
    for (uint32_t id = 0; id < count && ok; id++) {
        GError *local = NULL;
        if (!container_source_read(pool, id, buf, &local)) {
            /* A torn container from the interrupted job: nothing names it. */
            if (local->code != DESTOR_ERROR_INTEGRITY) {
                g_propagate_error(err, local);
                ok = FALSE;
                break;
            }
            g_clear_error(&local);
            skipped++;
            continue;
        }
        ok = fp_index_persist_container(idx, buf, pool->container_size, err);
    }
    g_free(buf);
    if (ok && skipped > 0)
        destor_note("index rebuilt; %u torn container(s) from an interrupted backup ignored", skipped);
    return ok && fp_index_commit_job(idx, err);
}

FpIndex *fp_index_open(const char *dir, size_t fp_len, ContainerSource *pool,
                       uint32_t container_count, GError **err)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        destor_set_errno(err, errno, "create %s", dir);
        return NULL;
    }
    FpIndex *idx = g_new0(FpIndex, 1);
    idx->dir = g_strdup(dir);
    idx->db_path = g_build_filename(dir, DB_NAME, NULL);
    idx->dirty_path = g_build_filename(dir, DIRTY_NAME, NULL);
    idx->fp_len = fp_len;
    idx->job_chunks = g_hash_table_new_full(fingerprint_hash, fingerprint_equal, NULL, g_free);
    gboolean dirty = g_file_test(idx->dirty_path, G_FILE_TEST_EXISTS);
    gboolean ok = remove_creation_leftovers(dir, err) &&
                  (dirty ? rebuild(idx, pool, container_count, err) : open_db(idx, err));
    if (!ok) {
        fp_index_close(idx);
        return NULL;
    }
    return idx;
}

void fp_index_close(FpIndex *idx)
{
    if (idx == NULL)
        return;
    if (idx->db != NULL)
        idx->db->close(idx->db, 0);
    g_hash_table_destroy(idx->job_chunks);
    g_free(idx->dir);
    g_free(idx->db_path);
    g_free(idx->dirty_path);
    g_free(idx);
}

gboolean fp_index_begin_job(FpIndex *idx, GError **err)
{
    return file_publish_atomic(idx->dirty_path, "dirty\n", 6, err);
}

gboolean fp_index_commit_job(FpIndex *idx, GError **err)
{
    int ret = idx->db->sync(idx->db, 0);
    if (ret != 0)
        return bdb_fail(err, ret, "flush", idx->db_path);
    int fd = open(idx->db_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        destor_set_errno(err, errno, "open %s", idx->db_path);
        return FALSE;
    }
    gboolean ok = file_fsync(fd, idx->db_path, err);
    close(fd);
    if (!ok)
        return FALSE;
    if (unlink(idx->dirty_path) != 0 && errno != ENOENT) {
        destor_set_errno(err, errno, "remove %s", idx->dirty_path);
        return FALSE;
    }
    return dir_fsync(idx->dir, err);
}

gboolean fp_index_lookup(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    IndexEntry *e = g_hash_table_lookup(idx->job_chunks, fp);
    if (e != NULL) {
        *loc = e->loc;
        *found = TRUE;
        return TRUE;
    }
    uint8_t val[12];
    DBT key = { .data = (void *)fp->bytes, .size = (u_int32_t)idx->fp_len };
    DBT data = { .data = val, .ulen = sizeof val, .flags = DB_DBT_USERMEM };
    int ret = idx->db->get(idx->db, NULL, &key, &data, 0);
    if (ret == DB_NOTFOUND) {
        *found = FALSE;
        return TRUE;
    }
    if (ret != 0)
        return bdb_fail(err, ret, "read", idx->db_path);
    if (data.size != sizeof val) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s holds a malformed entry", idx->db_path);
        return FALSE;
    }
    loc->container = le32_get(val);
    loc->offset = le32_get(val + 4);
    loc->length = le32_get(val + 8);
    *found = TRUE;
    return TRUE;
}

void fp_index_add(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc)
{
    IndexEntry *e = g_new(IndexEntry, 1);
    e->fp = *fp;
    e->loc = *loc;
    g_hash_table_replace(idx->job_chunks, &e->fp, e);
}

gboolean fp_index_count(FpIndex *idx, uint64_t *count, GError **err)
{
    DB_HASH_STAT *st = NULL;
    int ret = idx->db->stat(idx->db, NULL, &st, 0);
    if (ret != 0)
        return bdb_fail(err, ret, "stat", idx->db_path);
    *count = st->hash_nkeys;
    free(st);
    return TRUE;
}
