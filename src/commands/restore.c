/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore.c: whole-job restore. Files and directories first, symlinks last
 * (so no write can pass through a restored link), then directory modes and
 * mtimes deepest first (so creating children does not disturb them). Files
 * and symlinks are made under a new name and renamed over what was there,
 * so nothing existing in the target is ever written through or emptied.
 * Entries of the job that conflict with each other (a file or symlink
 * where the job has entries below it) are damage, like an unsafe path. */
#include "commands/restore.h"
#include "read/cached_source.h"
#include "read/chunk_cache_source.h"
#include "read/chunk_stream.h"
#include "read/file_output.h"
#include "read/job.h"
#include "read/prefetch_source.h"
#include "read/restore_cache.h"
#include "read/safe_path.h"
#include "util/dir_within.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESTORE_READAHEAD 8 /* containers the kernel reads ahead */
#define RESTORE_PREFETCH 4  /* containers read and checked ahead */
#define RESTORE_PREFETCH_THREADS 1 /* restore waits for the file system (seconds a GiB): one reader keeps up */

typedef struct {
    int root_fd;
    uint32_t job_id;
    FileDigestAlgorithm check; /* the digest every file is checked against (its record's), or NONE */
    Job *job;                  /* for the entry at a path (conflicts) */
    GHashTable *dir_paths;     /* every path the job has a directory at, or entries below */
    ChunkSource *chunks;
    GPtrArray *deferred_links; /* FileRecord* */
    GPtrArray *dirs;           /* FileRecord* */
    uint64_t restored, bytes;
    uint64_t unsafe; /* stored paths refused (unsafe, or conflicting): the job is damaged or hostile */
    uint64_t failed; /* entries the target would not take (I/O, space, conflicts) */
    char *first_problem; /* the first entry refused, for the final error */
} Restore;

/* Skip an entry: errnum 0 for an unsafe or conflicting stored path, else
 * the error the target gave. The first is named by the final error (so one
 * problem is one destor: line), each later one by a warning. */
static void refuse(Restore *rs, const FileRecord *r, const char *why, int errnum)
{
    char *path = file_record_path_display(r);
    char *problem = errnum ? g_strdup_printf("'%s': %s: %s", path, why, g_strerror(errnum))
                           : g_strdup_printf("'%s': %s", path, why);
    if (rs->first_problem == NULL) {
        rs->first_problem = problem;
    } else {
        destor_warning("not restoring %s", problem);
        g_free(problem);
    }
    g_free(path);
    if (errnum)
        rs->failed++;
    else
        rs->unsafe++;
}

static void record_times(const FileRecord *r, struct timespec ts[2])
{
    ts[0] = ts[1] = (struct timespec){ .tv_sec = r->mtime_sec, .tv_nsec = r->mtime_nsec };
}

static gboolean set_times(int dir, const char *name, const FileRecord *r, int flags)
{
    struct timespec ts[2];
    record_times(r, ts);
    return utimensat(dir, name, ts, flags) == 0;
}

/* Written beside its name and renamed into place once complete, mode and
 * times set: whatever was at the name (a file, a hard link to a file
 * elsewhere, a symlink) is replaced, never written through, and a read that
 * fails (a damaged chunk, content that does not match the record's digest:
 * a forged chunk list) leaves it as it was. */
static gboolean restore_file(Restore *rs, int dir, const char *name, const FileRecord *r, GError **err)
{
    char *shown = file_record_path_display(r);
    FileReplace fr;
    if (!file_replace_begin(&fr, dir, name, shown, 0600, NULL)) {
        refuse(rs, r, "cannot create", errno);
        g_free(shown);
        return TRUE;
    }
    gboolean ok = file_output_write(rs->chunks, r, rs->job_id, NULL, fr.fd, shown, rs->check, err);
    g_free(shown);
    if (!ok) {
        file_replace_abort(&fr);
        return FALSE;
    }
    struct timespec ts[2];
    record_times(r, ts);
    if (fchmod(fr.fd, r->mode & 07777) != 0) {
        refuse(rs, r, "cannot set mode", errno);
        file_replace_abort(&fr);
    } else if (futimens(fr.fd, ts) != 0) {
        refuse(rs, r, "cannot set times", errno);
        file_replace_abort(&fr);
    } else if (!file_replace_commit(&fr, FALSE, NULL)) {
        refuse(rs, r, "cannot put in place", errno);
    } else {
        rs->restored++;
        rs->bytes += r->size;
    }
    return TRUE;
}

/* Remember that the job has entries below every parent of `path` (a plain
 * path): the longest parent first, stopping at one already known. */
static void note_parents(Restore *rs, char *path)
{
    for (size_t i = strlen(path); i-- > 0;) {
        if (path[i] != '/')
            continue;
        path[i] = '\0';
        gboolean known = g_hash_table_contains(rs->dir_paths, path);
        if (!known)
            g_hash_table_add(rs->dir_paths, g_strdup(path));
        path[i] = '/';
        if (known)
            break;
    }
}

/* The job's own file or symlink at a parent of `path` (a plain path), if
 * it has one: what keeps the parent from being a directory, by the job's
 * doing rather than the target's. Looked up only when a parent fails. */
static char *own_blocker(Restore *rs, const char *path)
{
    for (const char *slash = strchr(path, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
        char *parent = g_strndup(path, (gsize)(slash - path));
        FileRecord *p = job_find(rs->job, parent, NULL);
        gboolean blocks = p != NULL && p->type != ENTRY_DIR;
        file_record_free(p);
        if (blocks)
            return parent;
        g_free(parent);
    }
    return NULL;
}

/* Entry in its parent: regular files now, the rest remembered. */
static gboolean restore_entry(Restore *rs, FileRecord *r, gboolean *keep, GError **err)
{
    *keep = FALSE;
    const char *path = (const char *)r->path->data;
    if (!safe_path_is_plain(path, r->path->len)) {
        refuse(rs, r, "unsafe stored path (absolute, empty or with '.' or '..')", 0);
        return TRUE;
    }
    char *cpath = g_strndup(path, r->path->len);
    note_parents(rs, cpath);
    if (r->type == ENTRY_DIR)
        g_hash_table_add(rs->dir_paths, g_strdup(cpath));
    else if (r->type == ENTRY_FILE && g_hash_table_contains(rs->dir_paths, cpath)) {
        refuse(rs, r, "the job also has a directory or entries at this path (its entries conflict)", 0);
        g_free(cpath);
        return TRUE;
    }
    const char *name;
    int dir = safe_path_open_parent(rs->root_fd, cpath, &name);
    int open_errno = errno;
    gboolean ok = TRUE;
    char *blocker;
    if (dir < 0 && (open_errno == ENOTDIR || open_errno == ELOOP) && (blocker = own_blocker(rs, cpath)) != NULL) {
        char *why = g_strdup_printf("lies below the job's own file or symlink '%s' (its entries conflict)", blocker);
        refuse(rs, r, why, 0);
        g_free(why);
        g_free(blocker);
    } else if (dir < 0) {
        refuse(rs, r, "a parent directory cannot be created or is not a directory", open_errno);
    } else if (r->type == ENTRY_FILE) {
        ok = restore_file(rs, dir, name, r, err);
    } else if (r->type == ENTRY_DIR) {
        if (mkdirat(dir, name, 0700) != 0 && errno != EEXIST)
            refuse(rs, r, "cannot create directory", errno);
        else {
            g_ptr_array_add(rs->dirs, r);
            *keep = TRUE;
        }
    } else {
        g_ptr_array_add(rs->deferred_links, r);
        *keep = TRUE;
    }
    if (dir >= 0)
        close(dir);
    g_free(cpath);
    return ok;
}

static void finish_deferred(Restore *rs)
{
    for (guint i = 0; i < rs->deferred_links->len; i++) {
        FileRecord *r = rs->deferred_links->pdata[i];
        char *cpath = g_strndup((const char *)r->path->data, r->path->len);
        if (g_hash_table_contains(rs->dir_paths, cpath)) {
            refuse(rs, r, "the job also has a directory or entries below this symlink (its entries conflict)", 0);
            g_free(cpath);
            continue;
        }
        char *target = g_strndup((const char *)r->link->data, r->link->len);
        const char *name;
        int dir = safe_path_open_parent(rs->root_fd, cpath, &name);
        if (dir < 0) {
            refuse(rs, r, "a parent directory is not a directory", errno);
        } else {
            if (!file_replace_symlink(dir, name, target))
                refuse(rs, r, "cannot create symlink", errno);
            else {
                set_times(dir, name, r, AT_SYMLINK_NOFOLLOW);
                rs->restored++;
            }
            close(dir);
        }
        g_free(target);
        g_free(cpath);
    }
    for (guint i = rs->dirs->len; i-- > 0;) {
        FileRecord *r = rs->dirs->pdata[i];
        char *cpath = g_strndup((const char *)r->path->data, r->path->len);
        const char *name;
        int dir = safe_path_open_parent(rs->root_fd, cpath, &name);
        if (dir >= 0) {
            int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0) {
                fchmod(fd, r->mode & 07777);
                close(fd);
                set_times(dir, name, r, AT_SYMLINK_NOFOLLOW);
                rs->restored++;
            }
            close(dir);
        }
        g_free(cpath);
    }
}

/* A target that holds the store's working directory or the cache's, or
 * lies inside one, would have restored files replace the store's own. */
static gboolean target_apart_from_store(const Config *cfg, int root_fd, const char *target, GError **err)
{
    const char *dirs[STORE_DIRS];
    store_dirs(cfg, dirs);
    for (guint i = 0; i < STORE_DIRS; i++) {
        if (dirs[i] == NULL)
            continue;
        const char *how = dir_fd_within(root_fd, dirs[i]) ? "is inside"
                          : dir_path_within(dirs[i], target) ? "contains" : NULL;
        if (how != NULL) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "restore target %s %s %s, which the store uses: restore elsewhere", target, how, dirs[i]);
            return FALSE;
        }
    }
    return TRUE;
}

/* The restore cache (restore-cache) over the SSD cache when there is one
 * (it decides what it reads); else over the pool, its reads learnt first
 * (the job's chunks through an ids-only restore cache of the same kind and
 * size) and read and checked ahead in that order. */
static gboolean open_source(Restore *rs, const Config *cfg, Store *store, CachedSource *cached,
                            PrefetchSource **prefetch, GError **err)
{
    ContainerSource *below = NULL;
    if (cache_config_enabled(&cfg->cache)) {
        if (cfg->cache.simulate) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "restore writes real files: simulation mode applies to read-file only");
            return FALSE;
        }
        if (!cached_source_open(cached, cfg, store, err))
            return FALSE;
        if (cached->chunk_cache != NULL) { /* ssd-cache-granularity chunk: it reads chunk by chunk */
            rs->chunks = chunk_cache_source_new(cached->chunk_cache);
            return TRUE;
        }
        if (cached->cache != NULL)
            below = cache_core_source(cached->cache);
    }
    ChunkStream *future[3] = { NULL, NULL, NULL };
    for (guint i = 0; i < (below != NULL ? 1u : 3u); i++)
        if ((future[i] = chunk_stream_restore(store, rs->job_id, err)) == NULL) {
            for (guint j = 0; j < i; j++)
                chunk_stream_free(future[j]);
            return FALSE;
        }
    if (below == NULL) {
        container_store_set_readahead(store->containers, RESTORE_READAHEAD);
        GArray *plan = restore_cache_plan(&cfg->restore_cache, store->container_size, future[1], future[2]);
        *prefetch = prefetch_source_new(container_store_source(store->containers), plan, RESTORE_PREFETCH,
                                        RESTORE_PREFETCH_THREADS);
        below = prefetch_source_source(*prefetch);
    }
    rs->chunks = restore_cache_new(&cfg->restore_cache, below, future[0], FALSE);
    return TRUE;
}

/* One line of text, or one destor.restore JSON document (docs/FORMAT.md);
 * printed also when some entries were refused, before the error. */
static void print_summary(const Restore *rs, const RestoreCacheConfig *cache, size_t container_size,
                          const char *target, double secs, gboolean json)
{
    uint64_t fetched = chunk_source_fetches(rs->chunks);
    double mbps = secs > 0 ? (double)rs->bytes / 1e6 / secs : 0.0;
    if (!json) {
        char read[32];
        printf("restore job %u into %s: %llu entries, %llu bytes, %llu containers read (%s, restore-cache %s %u), "
               "%.3f s, %.1f MB/s\n",
               rs->job_id, target, (unsigned long long)rs->restored, (unsigned long long)rs->bytes,
               (unsigned long long)fetched, size_format(fetched * container_size, read, sizeof read),
               restore_cache_kind_name(cache->kind), cache->containers, secs, mbps);
        return;
    }
    JsonBuilder *b = json_doc_new("destor.restore", 1);
    json_doc_uint(b, "job", rs->job_id);
    json_doc_path(b, "target", target, strlen(target));
    json_doc_uint(b, "entries", rs->restored);
    json_doc_uint(b, "bytes", rs->bytes);
    json_doc_uint(b, "containers_read", fetched);
    json_doc_uint(b, "container_bytes_read", fetched * container_size);
    json_doc_string(b, "restore_cache", restore_cache_kind_name(cache->kind));
    json_doc_uint(b, "restore_cache_containers", cache->containers);
    json_doc_uint(b, "not_restored", rs->unsafe + rs->failed);
    json_doc_double(b, "elapsed_ms", 1e3 * secs);
    json_doc_double(b, "mb_per_s", mbps);
    json_doc_print(b, stdout);
}

gboolean restore_run(const Config *cfg, uint32_t job_id, const char *target, gboolean verify, gboolean json,
                     GError **err)
{
    Store *store = store_open_job(cfg, job_id, err);
    if (store == NULL)
        return FALSE;
    Job *job = job_open(store, job_id, err);
    if (job == NULL) {
        store_close(store);
        return FALSE;
    }
    gboolean ok = FALSE;
    gboolean check = verify || file_digest_checked_by_default(store->file_digest);
    Restore rs = { .root_fd = -1, .job_id = job_id, .job = job,
                   .check = check ? store->file_digest : FILE_DIGEST_NONE };
    gboolean existed = g_file_test(target, G_FILE_TEST_EXISTS);
    if (g_mkdir_with_parents(target, 0755) != 0 ||
        (rs.root_fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        destor_set_errno(err, errno, "restore target %s", target);
        goto out;
    }
    if (!target_apart_from_store(cfg, rs.root_fd, target, err)) {
        if (!existed)
            rmdir(target);
        goto out;
    }
    CachedSource cached = { 0 };
    PrefetchSource *prefetch = NULL;
    if (!open_source(&rs, cfg, store, &cached, &prefetch, err))
        goto out;
    rs.deferred_links = g_ptr_array_new_with_free_func((GDestroyNotify)file_record_free);
    rs.dirs = g_ptr_array_new_with_free_func((GDestroyNotify)file_record_free);
    rs.dir_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    gint64 start = g_get_monotonic_time();
    ok = TRUE;
    FileRecord *r;
    GError *read_err = NULL;
    while (ok && (r = job_meta_reader_next(job->meta, &read_err)) != NULL) {
        gboolean keep;
        ok = restore_entry(&rs, r, &keep, err);
        if (!keep)
            file_record_free(r);
    }
    if (read_err != NULL) {
        g_propagate_error(err, read_err);
        ok = FALSE;
    }
    if (ok) {
        finish_deferred(&rs);
        double secs = (double)(g_get_monotonic_time() - start) / 1e6;
        print_summary(&rs, &cfg->restore_cache, store->container_size, target, secs, json);
        if (rs.unsafe > 0 || rs.failed > 0) {
            /* Unsafe or conflicting stored paths mean a damaged store
             * (exit 3); a target that refused entries is a runtime
             * failure (exit 1). */
            g_set_error(err, DESTOR_ERROR, rs.unsafe > 0 ? DESTOR_ERROR_INTEGRITY : DESTOR_ERROR_IO,
                        "%llu entries of job %u were not restored (%llu unsafe or conflicting stored paths, %llu "
                        "refused by the target), the first %s", (unsigned long long)(rs.unsafe + rs.failed), job_id,
                        (unsigned long long)rs.unsafe, (unsigned long long)rs.failed, rs.first_problem);
            ok = FALSE;
        }
    } else if (rs.first_problem != NULL) { /* stopped by another error: the first refusal is said here */
        destor_warning("not restoring %s", rs.first_problem);
    }
    g_free(rs.first_problem);
    g_ptr_array_unref(rs.deferred_links);
    g_ptr_array_unref(rs.dirs);
    g_hash_table_unref(rs.dir_paths);
    chunk_source_free(rs.chunks);
    prefetch_source_free(prefetch);
    cached_source_close(&cached);
out:
    if (rs.root_fd >= 0)
        close(rs.root_fd);
    job_close(job);
    store_close(store);
    return ok;
}
