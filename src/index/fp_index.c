/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_index.c: the Berkeley DB hash file of every stored chunk, with rebuild
 * from the container pool after an unclean stop; a backup's lookups go to
 * the design the config chose (fp_design.h). */
#include "index/fp_index.h"
#include "index/fp_design.h"
#include "storage/container.h"
#include "util/bdb_error.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <db.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define DB_NAME "fingerprints.db"
#define DIRTY_NAME "DIRTY"
/* Present while the pool may hold a fingerprint twice (a near-exact index
 * missed a duplicate): gc, dropping the entries of freed containers, then
 * rebuilds the DB so a copy that survives is named again. */
#define DUPLICATES_NAME "DUPLICATES"
/* Present while the pool may hold a fingerprint twice for any reason
 * (issue 42): a job put a fingerprint the DB held (a near-exact miss,
 * rewriting's copies), or a rebuild met one twice (a job or gc stopped
 * midway); removed by a rebuild that meets none. Absent, with neither
 * DUPLICATES nor a missing COUNTED, every stored fingerprint has one copy
 * (fp_index_single_copies). */
#define COPIES_NAME "COPIES"
/* Present once COPIES is known to be kept as above: the DB was created
 * empty, or rebuilt, by a binary that counts every second copy. A store's
 * older binaries did not: until its index is rebuilt, an absent COPIES
 * there proves nothing. */
#define COUNTED_NAME "COUNTED"
/* The DB's cache: the exact index reads the DB on every lookup the job's
 * table misses; a near-exact design only writes it. */
#define DB_CACHE_EXACT (64u << 20)
#define DB_CACHE_WRITE_ONLY (256u << 10)

struct FpIndex {
    char *dir;
    char *db_path;
    char *dirty_path;
    char *dups_path;
    char *counted_path;
    gboolean counted;       /* COUNTED is known to exist */
    char *copies_path;
    gboolean copies;        /* COPIES is known to exist */
    gboolean dups_marked;   /* DUPLICATES is known to exist */
    gboolean dups_mine;     /* this job published it (and removes it if it stored no second copy) */
    DB *db;
    size_t fp_len;
    uint32_t db_cache;      /* bytes of the DB's cache */
    const FpDesignOps *ops; /* the design answering lookups */
    FpDesign *design;
    gboolean rebuilt;       /* the DB was rebuilt at this open */
    uint64_t missed;        /* near-exact: new chunks the DB already held */
    ContainerSource *pool;  /* what a rebuild reads */
    gboolean (*skip)(ContainerId id, void *ctx); /* containers a rebuild does not read (NULL: none) */
    void *skip_ctx;
    uint32_t containers;    /* slots a rebuild reads: the pool's at open, plus this job's */
    gboolean prior_chunks;  /* the pool held containers at open: the DB may know chunks
                               the job's table does not (else lookups skip the DB) */
    gboolean marked;        /* DIRTY is known to exist */
    gboolean read_only;     /* the DB is open read-only, unmarked: the index was clean at
                               open and nothing has written it since (make_writable) */
    GArray *kept;           /* FpIndexEntry: what persist_container put (fp_index_keep_new), or NULL */
    GArray *unreadable;     /* ContainerId: the containers its latest rebuild could not read back */
};

static gboolean open_handle(DB **db, const char *path, u_int32_t flags, uint32_t cache, GError **err)
{
    int ret = bdb_create(db);
    if (ret != 0)
        return bdb_fail(err, ret, "create handle for", path);
    (*db)->set_cachesize(*db, 0, cache, 1);
    (*db)->set_flags(*db, DB_CHKSUM);
    ret = (*db)->open(*db, NULL, path, NULL, DB_HASH, flags, 0644);
    if (ret != 0) {
        (*db)->close(*db, 0);
        *db = NULL;
        return bdb_fail(err, ret, "open fingerprint index", path);
    }
    return TRUE;
}

static gboolean open_db(FpIndex *idx, GError **err)
{
    return open_handle(&idx->db, idx->db_path, idx->read_only ? DB_RDONLY : DB_CREATE, idx->db_cache, err);
}

static gboolean mark_dirty(FpIndex *idx, GError **err);
static gboolean open_checked(FpIndex *idx, uint32_t count, char **why, GError **err);
static gboolean rebuild_damaged(FpIndex *idx, const char *why, GError **err);

/* Before the first write to an index opened read-only: DIRTY published
 * durably, then the DB opened again to write (Berkeley DB writes nothing
 * through a read-only handle, so until now the DB was the one its last
 * clean commit left, as the absent mark says). With `check`, the DB is
 * checked again as at open (open_checked): a read error at this open has
 * Berkeley DB re-initialise the file, which would lose every entry
 * (io_backup.py's read faults); rebuild, which replaces the DB, needs no
 * check. */
static gboolean make_writable(FpIndex *idx, gboolean check, GError **err)
{
    if (!idx->read_only)
        return TRUE;
    if (!mark_dirty(idx, err))
        return FALSE;
    if (idx->db != NULL) {
        idx->db->close(idx->db, 0);
        idx->db = NULL;
    }
    idx->read_only = FALSE;
    if (!check)
        return open_db(idx, err);
    char *why = NULL;
    gboolean ok = open_checked(idx, idx->containers, &why, err) && (why == NULL || rebuild_damaged(idx, why, err));
    g_free(why);
    return ok;
}

static void encode_loc(uint8_t out[12], const ChunkLocation *loc)
{
    le32_put(out, loc->container);
    le32_put(out + 4, loc->offset);
    le32_put(out + 8, loc->length);
}

/* Put fp's location; *existed (when not NULL) says whether the DB held fp
 * already (its entry is replaced all the same): one DB operation for a new
 * fingerprint, as a plain put. */
static gboolean db_put(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc, gboolean *existed,
                       GError **err)
{
    uint8_t val[12];
    encode_loc(val, loc);
    DBT key = { .data = (void *)fp->bytes, .size = (u_int32_t)idx->fp_len };
    DBT data = { .data = val, .size = sizeof val };
    int ret = idx->db->put(idx->db, NULL, &key, &data, existed ? DB_NOOVERWRITE : 0);
    if (existed != NULL && (*existed = ret == DB_KEYEXIST))
        ret = idx->db->put(idx->db, NULL, &key, &data, 0);
    return ret == 0 ? TRUE : bdb_fail(err, ret, "write to", idx->db_path);
}

static gboolean fp_index_commit_db(FpIndex *idx, GError **err);

/* Publish the mark `path` (its contents `text`) durably unless *marked
 * says it exists. */
static gboolean mark(const char *path, const char *text, gboolean *marked, GError **err)
{
    return *marked || (*marked = file_publish_atomic(path, text, strlen(text), err));
}

/* Remove the mark `path` unless *marked says it is absent. */
static gboolean unmark(const char *path, gboolean *marked, GError **err)
{
    if (*marked && unlink(path) != 0 && errno != ENOENT) {
        destor_set_errno(err, errno, "remove %s", path);
        return FALSE;
    }
    *marked = FALSE;
    return TRUE;
}

/* Publish DUPLICATES durably unless it exists; `mine`: this index may
 * remove it again at its commit (it stored no second copy). */
static gboolean mark_duplicates(FpIndex *idx, gboolean mine, GError **err)
{
    if (idx->dups_marked)
        return TRUE;
    if (!mark(idx->dups_path, "duplicates\n", &idx->dups_marked, err))
        return FALSE;
    idx->dups_mine = mine;
    return TRUE;
}

/* Put a container's chunks in the DB: a fingerprint stored twice (a
 * near-exact index missed the first copy, rewriting wrote it again) keeps
 * the newest copy, here and in a rebuild (which puts containers in id
 * order). With count_missed, count the chunks the DB already had: the
 * duplicates the exact index would have found (ids only grow, so the entry
 * replaced named an older copy, or one of the same container in a
 * rebuild); one counted is marked in COPIES before DIRTY is cleared. */
static gboolean put_container(FpIndex *idx, const uint8_t *container, size_t size, gboolean count_missed,
                              GError **err)
{
    uint32_t n = container_chunk_count(container);
    ChunkLocation loc = { .container = container_id_of(container) };
    for (uint32_t i = 0; i < n; i++) {
        Fingerprint fp;
        container_chunk_entry(container, size, i, &fp, &loc.offset, &loc.length);
        gboolean existed = FALSE;
        g_assert(idx->marked); /* a kill before DUPLICATES is published leaves the DB to a rebuild, which counts */
        if (!db_put(idx, &fp, &loc, count_missed ? &existed : NULL, err))
            return FALSE;
        idx->missed += existed;
    }
    return TRUE;
}

/* Replace the DB by one built from the metadata sections of the first
 * `count` containers of the pool (torn ones and the ones idx->skip names
 * skipped). The caller has marked the index dirty, so a kill midway leaves
 * it to be rebuilt again. */
static gboolean rebuild(FpIndex *idx, ContainerSource *pool, uint32_t count, GError **err)
{
    if (!make_writable(idx, FALSE, err))
        return FALSE;
    idx->rebuilt = TRUE;
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
    if (idx->unreadable == NULL)
        idx->unreadable = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    g_array_set_size(idx->unreadable, 0);
    uint64_t missed = idx->missed;
    gboolean ok = TRUE;
    for (uint32_t id = 0; id < count && ok; id++) {
        GError *local = NULL;
        if (idx->skip != NULL && idx->skip(id, idx->skip_ctx))
            continue;
        if (!container_source_read(pool, id, buf, &local)) {
            /* A torn container from the interrupted job: nothing names it. */
            if (local->code != DESTOR_ERROR_INTEGRITY) {
                g_propagate_error(err, local);
                ok = FALSE;
                break;
            }
            g_clear_error(&local);
            ContainerId unread = id;
            g_array_append_val(idx->unreadable, unread);
            continue;
        }
        ok = put_container(idx, buf, pool->container_size, TRUE, err);
    }
    g_free(buf);
    /* A fingerprint the pool holds twice (a job or gc stopped before its
     * commit, a repair) is marked before the caller clears DIRTY. */
    ok = ok && mark(idx->counted_path, "counted\n", &idx->counted, err);
    if (ok && idx->missed > missed)
        ok = mark(idx->copies_path, "copies\n", &idx->copies, err);
    /* No fingerprint is stored twice any more (a near-exact job that is
     * running keeps its DUPLICATES: it may store a second copy yet). */
    else if (ok && unmark(idx->copies_path, &idx->copies, err) && idx->dups_marked &&
             (idx->design == NULL || idx->ops == &fp_design_exact)) {
        if (!unmark(idx->dups_path, &idx->dups_marked, err))
            return FALSE;
        idx->dups_mine = FALSE;
    }
    idx->missed = missed; /* a rebuild misses nothing */
    if (ok && idx->unreadable->len > 0)
        destor_note("index rebuilt without %u container(s) that do not read back (torn by an interrupted backup, "
                    "freed by gc, or damaged)", idx->unreadable->len);
    return ok;
}

/* The DB failed as only a damaged one does: say so, rebuild it from the
 * containers (the job's DIRTY mark stays until its commit), and go on. */
static gboolean rebuild_damaged(FpIndex *idx, const char *why, GError **err)
{
    destor_note("fingerprint index %s is damaged (%s); rebuilding it from the containers", idx->db_path, why);
    return rebuild(idx, idx->pool, idx->containers, err);
}

/* fp_index_persist_container, counting the chunks the DB held already or
 * not (count). */
static gboolean persist(FpIndex *idx, const uint8_t *container, size_t size, gboolean count, GError **err)
{
    if (!make_writable(idx, TRUE, err))
        return FALSE;
    idx->containers = MAX(idx->containers, container_id_of(container) + 1);
    idx->ops->persisted(idx->design, container, size);
    for (uint32_t i = 0, n = container_chunk_count(container); idx->kept != NULL && i < n; i++) {
        FpIndexEntry e = { .loc.container = container_id_of(container) };
        container_chunk_entry(container, size, i, &e.fp, &e.loc.offset, &e.loc.length);
        g_array_append_val(idx->kept, e);
    }
    GError *local = NULL;
    if (put_container(idx, container, size, count, &local))
        return TRUE;
    if (local->code != DESTOR_ERROR_INTEGRITY) {
        g_propagate_error(err, local);
        return FALSE;
    }
    /* The rebuild reads this container back from the pool, where it was
     * written before it was persisted here. */
    gboolean ok = rebuild_damaged(idx, local->message, err);
    g_error_free(local);
    return ok;
}

gboolean fp_index_persist_container(FpIndex *idx, const uint8_t *container, size_t size, GError **err)
{
    return persist(idx, container, size, TRUE, err);
}

/* Cheap check of an index that was left clean: every chunk of the newest
 * sound container must be in it (an index lagging behind the pool, or one
 * whose pages fail their checksums, says otherwise). Sets *why if not. */
static gboolean spot_check(FpIndex *idx, uint32_t count, char **why, GError **err)
{
    uint8_t *buf = g_malloc(idx->pool->container_size);
    gboolean ok = TRUE;
    for (uint32_t tries = 0; tries < 2 && count > 0 && *why == NULL && ok; tries++) {
        ContainerId id = --count;
        GError *local = NULL;
        if (!container_source_read(idx->pool, id, buf, &local)) {
            if (local->code == DESTOR_ERROR_INTEGRITY) { /* a torn slot: look at the one before */
                g_error_free(local);
            } else {
                g_propagate_error(err, local);
                ok = FALSE;
            }
            continue;
        }
        uint32_t n = container_chunk_count(buf);
        for (uint32_t i = 0; i < n && *why == NULL; i++) {
            FpIndexEntry e;
            container_chunk_entry(buf, idx->pool->container_size, i, &e.fp, &e.loc.offset, &e.loc.length);
            uint8_t val[12];
            DBT key = { .data = e.fp.bytes, .size = (u_int32_t)idx->fp_len };
            DBT data = { .data = val, .ulen = sizeof val, .flags = DB_DBT_USERMEM };
            int ret = idx->db->get(idx->db, NULL, &key, &data, 0);
            if (ret == DB_NOTFOUND)
                *why = g_strdup_printf("it lacks the chunks of container %u", id);
            else if (ret != 0)
                *why = g_strdup(db_strerror(ret));
        }
        break;
    }
    g_free(buf);
    return ok;
}

/* Open the DB and spot-check it; *why says why it must be rebuilt (it
 * fails to open as damaged, or the check fails), else stays NULL. FALSE
 * only on another error. */
static gboolean open_checked(FpIndex *idx, uint32_t count, char **why, GError **err)
{
    GError *local = NULL;
    if (open_db(idx, &local))
        return spot_check(idx, count, why, err);
    if (local->code != DESTOR_ERROR_INTEGRITY) {
        g_propagate_error(err, local);
        return FALSE;
    }
    *why = g_strdup(local->message);
    g_error_free(local);
    return TRUE;
}

/* Open an index that was left clean (now marked dirty by the caller); a
 * missing, unreadable or lagging one is rebuilt. */
static gboolean open_clean(FpIndex *idx, uint32_t count, GError **err)
{
    char *why = NULL;
    /* an empty pool: nothing stored twice */
    if (count == 0 && !mark(idx->counted_path, "counted\n", &idx->counted, err))
        return FALSE;
    if (!g_file_test(idx->db_path, G_FILE_TEST_EXISTS) && count > 0)
        why = g_strdup("it is missing");
    else if (!open_checked(idx, count, &why, err))
        return FALSE;
    gboolean ok = why == NULL || (rebuild_damaged(idx, why, err) && fp_index_commit_db(idx, err));
    g_free(why);
    return ok;
}

/* The index in `dir` (created), its paths set, marked dirty before anything
 * opens the DB to write: Berkeley DB may write to a file it failed to read
 * (a read error at open re-initialises it), and whatever a failed open
 * leaves is then rebuilt by the next writer. With `read_only`, a clean
 * index whose DB exists is not marked: its DB is opened read-only, and
 * marked and opened to write at the first write (make_writable), so a job
 * that stores no chunk (a later one, of files all found) never syncs the
 * mark in or out. NULL on failure. *dirty: it was marked already. */
static FpIndex *index_new(const char *dir, size_t fp_len, uint32_t db_cache, gboolean read_only, gboolean *dirty,
                          GError **err)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        destor_set_errno(err, errno, "create %s", dir);
        return NULL;
    }
    FpIndex *idx = g_new0(FpIndex, 1);
    idx->dir = g_strdup(dir);
    idx->db_path = g_build_filename(dir, DB_NAME, NULL);
    idx->dirty_path = g_build_filename(dir, DIRTY_NAME, NULL);
    idx->dups_path = g_build_filename(dir, DUPLICATES_NAME, NULL);
    idx->dups_marked = g_file_test(idx->dups_path, G_FILE_TEST_EXISTS);
    idx->counted_path = g_build_filename(dir, COUNTED_NAME, NULL);
    idx->counted = g_file_test(idx->counted_path, G_FILE_TEST_EXISTS);
    idx->copies_path = g_build_filename(dir, COPIES_NAME, NULL);
    idx->copies = g_file_test(idx->copies_path, G_FILE_TEST_EXISTS);
    idx->fp_len = fp_len;
    idx->db_cache = db_cache;
    *dirty = idx->marked = g_file_test(idx->dirty_path, G_FILE_TEST_EXISTS);
    idx->read_only = read_only && !*dirty && g_file_test(idx->db_path, G_FILE_TEST_EXISTS);
    if (bdb_remove_creation_leftovers(dir, err) && (idx->read_only || mark_dirty(idx, err)))
        return idx;
    fp_index_close(idx);
    return NULL;
}

static FpIndex *open_index(const char *dir, size_t fp_len, ContainerSource *pool, uint32_t container_count,
                           const FpIndexParams *params, gboolean force_rebuild,
                           gboolean (*skip)(ContainerId id, void *ctx), void *skip_ctx, GError **err)
{
    gboolean exact = params == NULL || params->kind == FP_INDEX_EXACT, dirty;
    /* read-only until written: a backup's exact index over a pool that
     * holds containers (a near-exact design marks its DUPLICATES at open,
     * and an empty pool's index is created) */
    gboolean read_only = !force_rebuild && exact && params != NULL && container_count > 0;
    FpIndex *idx = index_new(dir, fp_len, exact ? DB_CACHE_EXACT : DB_CACHE_WRITE_ONLY, read_only, &dirty, err);
    if (idx == NULL)
        return NULL;
    idx->ops = exact ? &fp_design_exact : params->kind == FP_INDEX_SAMPLED ? &fp_design_sampled : &fp_design_silo;
    idx->pool = pool;
    idx->skip = skip;
    idx->skip_ctx = skip_ctx;
    idx->containers = container_count;
    idx->prior_chunks = container_count > 0;
    gboolean ok = force_rebuild || dirty ? rebuild(idx, pool, container_count, err) && fp_index_commit_db(idx, err)
                                         : open_clean(idx, container_count, err);
    FpIndexParams exact_params;
    fp_index_params_default(&exact_params);
    ok = ok && (idx->design = idx->ops->open(idx, params ? params : &exact_params, err)) != NULL;
    /* A near-exact job may store a second copy of a fingerprint. */
    if (ok && idx->ops != &fp_design_exact)
        ok = mark_duplicates(idx, TRUE, err);
    if (!ok) {
        fp_index_close(idx);
        return NULL;
    }
    return idx;
}

FpIndex *fp_index_open(const char *dir, size_t fp_len, ContainerSource *pool, uint32_t container_count,
                       const FpIndexParams *params, GError **err)
{
    return open_index(dir, fp_len, pool, container_count, params, FALSE, NULL, NULL, err);
}

FpIndex *fp_index_rebuild(const char *dir, size_t fp_len, ContainerSource *pool, uint32_t container_count,
                          gboolean (*skip)(ContainerId id, void *ctx), void *skip_ctx, GError **err)
{
    return open_index(dir, fp_len, pool, container_count, NULL, TRUE, skip, skip_ctx, err);
}

const GArray *fp_index_unreadable(const FpIndex *idx)
{
    return idx->unreadable;
}

void fp_index_close(FpIndex *idx)
{
    if (idx == NULL)
        return;
    if (idx->design != NULL)
        idx->ops->close(idx->design);
    if (idx->db != NULL)
        idx->db->close(idx->db, 0);
    if (idx->kept != NULL)
        g_array_unref(idx->kept);
    if (idx->unreadable != NULL)
        g_array_unref(idx->unreadable);
    g_free(idx->dir);
    g_free(idx->db_path);
    g_free(idx->dirty_path);
    g_free(idx->dups_path);
    g_free(idx->counted_path);
    g_free(idx->copies_path);
    g_free(idx);
}

void fp_index_keep_new(FpIndex *idx)
{
    if (idx->kept == NULL)
        idx->kept = g_array_new(FALSE, FALSE, sizeof(FpIndexEntry));
}

const GArray *fp_index_new_entries(const FpIndex *idx)
{
    g_assert(idx->kept != NULL);
    return idx->kept;
}

FpIndex *fp_index_open_cache(const char *dir, size_t fp_len, gboolean fresh, GError **err)
{
    gboolean dirty;
    FpIndex *idx = index_new(dir, fp_len, DB_CACHE_EXACT, FALSE, &dirty, err);
    if (idx == NULL)
        return NULL;
    gboolean ok = !fresh || unlink(idx->db_path) == 0 || errno == ENOENT;
    if (!ok)
        destor_set_errno(err, errno, "remove %s", idx->db_path);
    if (!ok || !open_db(idx, err)) {
        fp_index_close(idx);
        return NULL;
    }
    return idx;
}

gboolean fp_index_cache_commit(FpIndex *idx, GError **err)
{
    g_assert(idx->design == NULL);
    const char *beside[] = { FP_SAMPLES_FILE, FP_SEGMENTS_FILE };
    for (size_t i = 0; i < G_N_ELEMENTS(beside); i++) {
        char *path = g_build_filename(idx->dir, beside[i], NULL);
        gboolean gone = unlink(path) == 0 || errno == ENOENT;
        if (!gone)
            destor_set_errno(err, errno, "remove %s", path);
        g_free(path);
        if (!gone)
            return FALSE;
    }
    return fp_index_commit_db(idx, err);
}

gboolean fp_index_mark_stale(const char *dir, GError **err)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        destor_set_errno(err, errno, "create %s", dir);
        return FALSE;
    }
    char *path = g_build_filename(dir, DIRTY_NAME, NULL);
    gboolean ok = file_publish_atomic(path, "dirty\n", 6, err);
    g_free(path);
    return ok;
}

gboolean fp_index_marked_dirty(const char *dir)
{
    char *path = g_build_filename(dir, DIRTY_NAME, NULL);
    gboolean dirty = g_file_test(path, G_FILE_TEST_EXISTS);
    g_free(path);
    return dirty;
}

/* Only the mark's name counts (fp_index_marked_dirty, index_new): it is
 * created empty under that name and its directory fsynced, one sync where
 * a mark published whole (written, fsynced, renamed, the directory fsynced)
 * took two; an empty file takes no data block (a full disk, where gc must
 * mark the index before it frees anything). O_EXCL and O_NOFOLLOW: nothing
 * at the name is written through; something there that is not the mark
 * (a link planted after index_new looked) is replaced by one published
 * whole. */
static gboolean mark_dirty(FpIndex *idx, GError **err)
{
    if (idx->marked)
        return TRUE;
    int dir_fd = open(idx->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) {
        destor_set_errno(err, errno, "open directory %s", idx->dir);
        return FALSE;
    }
    int fd = openat(dir_fd, DIRTY_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
        idx->marked = file_fsync(dir_fd, idx->dir, err);
    } else if (errno == EEXIST) {
        idx->marked = file_publish_atomic(idx->dirty_path, "", 0, err);
    } else {
        destor_set_errno(err, errno, "create %s", idx->dirty_path);
    }
    close(dir_fd);
    return idx->marked;
}

gboolean fp_index_begin_job(FpIndex *idx, GError **err)
{
    return idx->read_only || mark_dirty(idx, err); /* read-only: marked at its first write */
}

/* Flush the DB and clear the dirty mark; nothing to do for a DB that was
 * never written (read-only, unmarked). */
static gboolean fp_index_commit_db(FpIndex *idx, GError **err)
{
    if (idx->read_only)
        return TRUE;
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
    idx->marked = FALSE;
    return dir_fsync(idx->dir, err);
}

static gboolean db_lookup(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
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

gboolean fp_index_db_get(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    GError *local = NULL;
    if (db_lookup(idx, fp, loc, found, &local))
        return TRUE;
    if (local->code != DESTOR_ERROR_INTEGRITY) {
        g_propagate_error(err, local);
        return FALSE;
    }
    gboolean ok = rebuild_damaged(idx, local->message, err) && db_lookup(idx, fp, loc, found, err);
    g_error_free(local);
    return ok;
}

gboolean fp_index_lookup(FpIndex *idx, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    return idx->ops->lookup(idx->design, fp, loc, found, err);
}

gboolean fp_index_takes_segments(const FpIndex *idx)
{
    return idx->ops->segment != NULL;
}

gboolean fp_index_segment(FpIndex *idx, const Fingerprint *fps, guint n, GError **err)
{
    return idx->ops->segment == NULL || n == 0 || idx->ops->segment(idx->design, fps, n, err);
}

void fp_index_add(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc)
{
    idx->ops->add(idx->design, fp, loc);
}

gboolean fp_index_commit_job(FpIndex *idx, GError **err)
{
    /* DIRTY goes last: a kill before leaves both to be rebuilt (and
     * DUPLICATES, if this job published it, stays: a conservative mark);
     * a second copy put is marked before (a kill leaves DIRTY, and the
     * rebuild counts it). */
    if (!idx->ops->commit(idx->design, err) ||
        (idx->missed > 0 && !mark(idx->copies_path, "copies\n", &idx->copies, err)) || !fp_index_commit_db(idx, err))
        return FALSE;
    if (idx->dups_mine && idx->missed == 0) {
        if (!unmark(idx->dups_path, &idx->dups_marked, err))
            return FALSE;
        idx->dups_mine = FALSE;
    }
    return TRUE;
}

/* Pages of the DB's cache in use, in bytes. */
static uint64_t db_cache_in_use(FpIndex *idx)
{
    DB_ENV *env = idx->db->get_env(idx->db);
    DB_MPOOL_STAT *gsp = NULL;
    u_int32_t pagesize = 0;
    if (env == NULL || env->memp_stat(env, &gsp, NULL, 0) != 0)
        return 0;
    idx->db->get_pagesize(idx->db, &pagesize);
    uint64_t bytes = (uint64_t)gsp->st_pages * pagesize;
    free(gsp);
    return bytes;
}

void fp_index_stats(FpIndex *idx, FpIndexStats *st)
{
    memset(st, 0, sizeof *st);
    idx->ops->stats(idx->design, st);
    st->db_cache_bytes = db_cache_in_use(idx);
    st->missed_duplicates = idx->missed;
    st->ram_bytes = st->table_bytes + st->cache_bytes + st->db_cache_bytes;
}

gboolean fp_index_prior_chunks(const FpIndex *idx)
{
    return idx->prior_chunks;
}

ContainerSource *fp_index_pool(const FpIndex *idx)
{
    return idx->pool;
}

uint32_t fp_index_containers(const FpIndex *idx)
{
    return idx->containers;
}

size_t fp_index_fp_len(const FpIndex *idx)
{
    return idx->fp_len;
}

const char *fp_index_dir(const FpIndex *idx)
{
    return idx->dir;
}

gboolean fp_index_was_rebuilt(const FpIndex *idx)
{
    return idx->rebuilt;
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

GArray *fp_index_read_all(const char *dir, size_t fp_len, gboolean *exists, GError **err)
{
    char *path = g_build_filename(dir, DB_NAME, NULL);
    GArray *entries = g_array_new(FALSE, FALSE, sizeof(FpIndexEntry));
    *exists = g_file_test(path, G_FILE_TEST_EXISTS);
    DB *db = NULL;
    DBC *cursor = NULL;
    gboolean ok = !*exists || open_handle(&db, path, DB_RDONLY, DB_CACHE_EXACT, err);
    int ret = 0;
    if (ok && db != NULL && (ret = db->cursor(db, NULL, &cursor, 0)) != 0)
        ok = bdb_fail(err, ret, "read", path);
    while (ok && cursor != NULL) {
        DBT key = { 0 }, data = { 0 };
        ret = cursor->get(cursor, &key, &data, DB_NEXT);
        if (ret == DB_NOTFOUND)
            break;
        if (ret != 0) {
            ok = bdb_fail(err, ret, "read", path);
        } else if (key.size != fp_len || data.size != 12) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s holds a malformed entry", path);
            ok = FALSE;
        } else {
            FpIndexEntry e = { 0 };
            memcpy(e.fp.bytes, key.data, fp_len);
            const uint8_t *v = data.data;
            e.loc.container = le32_get(v);
            e.loc.offset = le32_get(v + 4);
            e.loc.length = le32_get(v + 8);
            g_array_append_val(entries, e);
        }
    }
    if (cursor != NULL)
        cursor->close(cursor);
    if (db != NULL)
        db->close(db, 0);
    g_free(path);
    if (!ok) {
        g_array_unref(entries);
        return NULL;
    }
    return entries;
}

uint64_t fp_index_prefix(const Fingerprint *fp)
{
    return le64_get(fp->bytes);
}

gboolean fp_index_put(FpIndex *idx, const Fingerprint *fp, const ChunkLocation *loc, GError **err)
{
    g_assert(idx->marked);
    return db_put(idx, fp, loc, NULL, err);
}

gboolean fp_index_drop_containers(FpIndex *idx, gboolean (*dropped)(ContainerId id, void *ctx), void *ctx,
                                  GArray *removed, uint64_t *count, GError **err)
{
    g_assert(idx->marked); /* a kill midway leaves the index to be rebuilt */
    DBC *cursor = NULL;
    *count = 0;
    int ret = idx->db->cursor(idx->db, NULL, &cursor, 0);
    if (ret != 0)
        return bdb_fail(err, ret, "read", idx->db_path);
    gboolean ok = TRUE;
    while (ok) {
        DBT key = { 0 }, data = { 0 };
        ret = cursor->get(cursor, &key, &data, DB_NEXT);
        if (ret == DB_NOTFOUND)
            break;
        if (ret != 0 || data.size != 12) {
            ok = ret != 0 ? bdb_fail(err, ret, "read", idx->db_path)
                          : (g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s holds a malformed entry",
                                         idx->db_path),
                             FALSE);
        } else if (dropped(le32_get(data.data), ctx)) {
            if (removed != NULL && key.size >= 8) {
                uint64_t prefix = le64_get(key.data);
                g_array_append_val(removed, prefix);
            }
            ret = cursor->del(cursor, 0);
            ok = ret == 0 || bdb_fail(err, ret, "remove an entry from", idx->db_path);
            *count += ok;
        }
    }
    cursor->close(cursor);
    /* A dropped entry may have named the newest of two copies, and the
     * older one survive: only the containers say (docs/ARCHITECTURE.md). */
    if (ok && *count > 0 && idx->dups_marked)
        ok = rebuild(idx, idx->pool, idx->containers, err);
    return ok;
}

gboolean fp_index_persist_copies(FpIndex *idx, const uint8_t *container, size_t size, GError **err)
{
    return persist(idx, container, size, FALSE, err);
}

gboolean fp_index_single_copies(const FpIndex *idx)
{
    return idx->ops == &fp_design_exact && idx->counted && !idx->copies && !idx->dups_marked;
}

gboolean fp_index_read_sound(ContainerSource *pool, ContainerId id, uint8_t *buf, gboolean *sound, GError **err)
{
    GError *local = NULL;
    *sound = container_source_read(pool, id, buf, &local);
    if (*sound)
        return TRUE;
    if (local->code != DESTOR_ERROR_INTEGRITY) {
        g_propagate_error(err, local);
        return FALSE;
    }
    g_error_free(local);
    return TRUE;
}
