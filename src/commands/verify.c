/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verify.c: read-only consistency and integrity checks of the store. */
#include "commands/verify.h"
#include "commands/verify_index.h"
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "recipe/refcount_recount.h"
#include "read/container_lru.h"
#include "read/job.h"
#include "read/safe_path.h"
#include "storage/container.h"
#include "store/freed_list.h"
#include "store/store.h"
#include "util/error.h"
#include "util/json_doc.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    Store *store;
    ContainerLru *lru;
    GHashTable *container_state; /* id -> ContainerState* (checked containers) */
    gboolean deep;
    uint32_t committed; /* containers the store vouches for (store.h): every id a record names is below */
    GArray *freed;      /* the containers gc freed (freed_list.h): no live record names one */
    Fingerprinter *fpr; /* --deep: one digest context for every chunk */
    FileHasher *file;   /* --deep: and one for every file's digest */
    JsonBuilder *json; /* the document, its "problems" array open; NULL for text */
    uint64_t problems, jobs, entries, chunks, containers_checked;
} Verify;

/* What verify learned about one container. */
typedef struct {
    gboolean damaged;
} ContainerState;

/* One problem: job (or -1), entry (or NULL), container (or -1), offset (or -1). */
static void problem(Verify *v, int64_t job, const FileRecord *r, int64_t container, int64_t offset,
                    const char *fmt, ...) G_GNUC_PRINTF(6, 7);
static void problem(Verify *v, int64_t job, const FileRecord *r, int64_t container, int64_t offset,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    v->problems++;
    if (v->json) {
        JsonBuilder *b = v->json;
        json_builder_begin_object(b);
        json_doc_int(b, "job", job);
        if (r != NULL) {
            json_doc_path(b, "path", r->path->data, r->path->len);
        } else {
            json_builder_set_member_name(b, "path");
            json_builder_add_null_value(b);
        }
        json_doc_int(b, "container", container);
        json_doc_int(b, "offset", offset);
        json_doc_text(b, "problem", what);
        json_builder_end_object(b);
    } else {
        GString *where = g_string_new(NULL);
        if (job >= 0)
            g_string_append_printf(where, " job %lld", (long long)job);
        if (r != NULL) {
            char *shown = file_record_path_display(r);
            g_string_append_printf(where, " path '%s'", shown);
            g_free(shown);
        }
        if (container >= 0)
            g_string_append_printf(where, " container %lld", (long long)container);
        if (offset >= 0)
            g_string_append_printf(where, " offset %lld", (long long)offset);
        printf("PROBLEM%s: %s\n", where->str, what);
        g_string_free(where, TRUE);
    }
    g_free(what);
}

static ContainerState *check_container(Verify *v, ContainerId id, uint32_t job)
{
    ContainerState *cs = g_hash_table_lookup(v->container_state, GUINT_TO_POINTER(id));
    if (cs != NULL)
        return cs;
    cs = g_new0(ContainerState, 1);
    GError *local = NULL;
    const uint8_t *buf = container_lru_get(v->lru, id, &local);
    v->containers_checked++;
    if (buf == NULL) {
        cs->damaged = TRUE;
        problem(v, job, NULL, id, -1, "%s", local->message);
        g_error_free(local);
    }
    g_hash_table_insert(v->container_state, GUINT_TO_POINTER(id), cs);
    return cs;
}

/* Chunk i of r: in a sound container, listed there with the same
 * fingerprint and length; with --deep, its bytes hash to the fingerprint. */
static void check_chunk(Verify *v, uint32_t job, const FileRecord *r, const ChunkRef *c)
{
    v->chunks++;
    if (c->container >= v->committed) {
        problem(v, job, r, c->container, c->offset, "recipe names a container the store never committed (%u)",
                v->committed);
        return;
    }
    if (freed_list_has(v->freed, c->container)) {
        problem(v, job, r, c->container, c->offset, "recipe names a container gc freed");
        return;
    }
    ContainerState *cs = check_container(v, c->container, job);
    if (cs->damaged)
        return;
    GError *local = NULL;
    const uint8_t *buf = container_lru_get(v->lru, c->container, &local);
    if (buf == NULL) { /* verified a moment ago: the pool changed or failed */
        problem(v, job, r, c->container, c->offset, "%s", local->message);
        g_error_free(local);
        return;
    }
    if (!container_check_chunk(buf, v->store->container_size, c->container, &c->fp, c->offset, c->length,
                               &local)) {
        problem(v, job, r, c->container, c->offset, "%s", local->message);
        g_error_free(local);
        return;
    }
    if (v->deep) {
        Fingerprint actual;
        fingerprinter_compute(v->fpr, buf + c->offset, c->length, &actual);
        if (memcmp(actual.bytes, c->fp.bytes, FP_SLOT) != 0)
            problem(v, job, r, c->container, c->offset, "chunk bytes do not match their fingerprint");
        file_hasher_add(v->file, buf + c->offset, c->length); /* only files have chunks */
    }
}

/* Entries of the job below its own file or symlink (restore refuses them,
 * exit 3): each parent directory of r's path met for the first time in the
 * job (remembered in `parents`) is looked up in the job, longest first. */
static void check_parents(Verify *v, Job *job, const FileRecord *r, uint64_t offset, GHashTable *parents)
{
    char *path = g_strndup((const char *)r->path->data, r->path->len);
    for (size_t i = strlen(path); i-- > 0;) {
        if (path[i] != '/')
            continue;
        path[i] = '\0';
        if (g_hash_table_contains(parents, path))
            break;
        g_hash_table_add(parents, g_strdup(path));
        FileRecord *p = job_find(job, path, NULL);
        if (p != NULL && p->type != ENTRY_DIR)
            problem(v, job->manifest.job_id, r, -1, (int64_t)offset,
                    "lies below the job's own %s '%s' (its entries conflict: restore refuses them)",
                    p->type == ENTRY_FILE ? "file" : "symlink", path);
        file_record_free(p);
    }
    g_free(path);
}

static void check_record(Verify *v, Job *job, FileRecord *r, uint64_t offset, uint32_t length,
                         uint32_t *refcount, uint32_t nref, GHashTable *parents)
{
    uint32_t id = job->manifest.job_id;
    v->entries++;
    uint64_t ioff;
    uint32_t ilen;
    gboolean found = FALSE;
    GError *local = NULL;
    if (!recipe_index_get(job->recipes, r->path->data, r->path->len, &ioff, &ilen, &found, &local)) {
        problem(v, id, r, -1, (int64_t)offset, "recipe index: %s", local->message);
        g_clear_error(&local);
    } else if (!found) {
        problem(v, id, r, -1, (int64_t)offset, "entry is missing from the recipe index");
    } else if (ioff != offset || ilen != length) {
        problem(v, id, r, -1, (int64_t)offset, "recipe index points at offset %llu length %u instead",
                (unsigned long long)ioff, ilen);
    }
    /* the path restore refuses (exit 3) is damage verify must name too */
    if (!safe_path_is_plain((const char *)r->path->data, r->path->len))
        problem(v, id, r, -1, (int64_t)offset, "unsafe stored path (absolute, empty or with '.' or '..')");
    else
        check_parents(v, job, r, offset, parents);
    gboolean digest = v->deep && r->type == ENTRY_FILE;
    if (digest)
        file_hasher_begin(v->file);
    for (guint i = 0; i < r->chunks->len; i++)
        check_chunk(v, id, r, &g_array_index(r->chunks, ChunkRef, i));
    if (refcount)
        refcount_add_file(refcount, nref, r);
    if (digest) {
        uint8_t actual[FILE_DIGEST_SLOT];
        file_hasher_end(v->file, actual);
        if (memcmp(actual, r->digest, FILE_DIGEST_SLOT) != 0)
            problem(v, id, r, -1, (int64_t)offset, "file content does not match its %s",
                    file_digest_name(v->store->file_digest));
    }
}

/* A symbolic link planted at one of the store's own directories
 * (store_planted_dir): a problem, and nothing read through it. */
static gboolean planted(Verify *v, int64_t job, const char *path)
{
    if (!store_planted_dir(path))
        return FALSE;
    problem(v, job, NULL, -1, -1, "%s is a symbolic link, which destor never writes through and verify does not "
            "read (remove it)", path);
    return TRUE;
}

static gboolean job_planted(Verify *v, uint32_t job_id)
{
    char *path = job_dir_path(v->store->dir, job_id);
    gboolean p = planted(v, job_id, path);
    g_free(path);
    return p;
}

/* Whether the store's index, jobs or container directory is planted (each
 * one a problem). */
static gboolean store_planted(Verify *v)
{
    const char *entry = container_store_kind_entry(v->store->kind);
    char *paths[] = { g_build_filename(v->store->dir, "index", NULL), g_build_filename(v->store->dir, "jobs", NULL),
                      entry != NULL ? g_build_filename(v->store->dir, entry, NULL) : NULL };
    gboolean any = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
        any = (paths[i] != NULL && planted(v, -1, paths[i])) || any;
        g_free(paths[i]);
    }
    return any;
}

static void check_job(Verify *v, uint32_t job_id, uint32_t *refcount, uint32_t nref)
{
    GError *local = NULL;
    Job *job = job_open_any(v->store, job_id, &local);
    v->jobs++;
    if (job == NULL) {
        problem(v, job_id, NULL, -1, -1, "%s", local->message);
        g_error_free(local);
        return;
    }
    FileRecord *r;
    uint64_t offset = job_meta_reader_offset(job->meta), files = 0, dirs = 0, links = 0, bytes = 0;
    GHashTable *parents = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while ((r = job_meta_reader_next(job->meta, &local)) != NULL) {
        uint64_t next = job_meta_reader_offset(job->meta);
        check_record(v, job, r, offset, (uint32_t)(next - offset), refcount, nref, parents);
        files += r->type == ENTRY_FILE;
        dirs += r->type == ENTRY_DIR;
        links += r->type == ENTRY_SYMLINK;
        bytes += r->type == ENTRY_FILE ? r->size : 0;
        offset = next;
        file_record_free(r);
    }
    if (local != NULL) {
        problem(v, job_id, NULL, -1, (int64_t)offset, "job_meta_data: %s", local->message);
        g_error_free(local);
    } else {
        const JobManifest *m = &job->manifest;
        if (files != m->files || dirs != m->dirs || links != m->symlinks || bytes != m->logical_bytes)
            problem(v, job_id, NULL, -1, -1, "manifest counts (%llu files, %llu bytes) disagree with "
                    "job_meta_data (%llu files, %llu bytes)", (unsigned long long)m->files,
                    (unsigned long long)m->logical_bytes, (unsigned long long)files, (unsigned long long)bytes);
        if (offset != m->job_meta_size)
            problem(v, job_id, NULL, -1, -1, "job_meta_data holds %llu bytes, the manifest says %llu",
                    (unsigned long long)offset, (unsigned long long)m->job_meta_size);
    }
    g_hash_table_unref(parents);
    job_close(job);
}

static void check_refcounts(Verify *v, const uint32_t *stored, uint32_t nstored, const uint32_t *computed,
                            uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = i < nstored ? stored[i] : 0;
        if (s != computed[i])
            problem(v, -1, NULL, i, -1, "reference count is %u, the recipes give %u", s, computed[i]);
    }
}

static void index_problem(void *ctx, int64_t container, int64_t offset, const char *what)
{
    problem(ctx, -1, NULL, container, offset, "%s", what);
}

/* Every job of the snapshot `ids` (committed when verify started; a job
 * committed since is ignored entirely), and the reference counts as of the
 * snapshot's newest job, read before any job is walked. */
/* Every job of the snapshot `ids` (committed when verify started; a job
 * committed since is ignored entirely) not deleted at its start (a job
 * deleted since is still walked: gc frees nothing while verify holds the
 * readers' lock), and the reference counts as of the snapshot's newest job,
 * read before any job is walked; they are held against the recipes only when
 * no delete ran or was left unfinished meanwhile. */
static void check_snapshot(Verify *v, GArray *ids)
{
    if (ids->len == 0)
        return;
    const char *dir = v->store->dir;
    uint32_t newest = g_array_index(ids, uint32_t, ids->len - 1), n = v->committed, *stored = NULL, nstored = 0;
    GArray *live = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    gboolean newest_planted = FALSE; /* its reference counts are not read */
    for (guint i = 0; i < ids->len; i++) {
        uint32_t id = g_array_index(ids, uint32_t, i);
        if (job_planted(v, id))
            newest_planted = newest_planted || id == newest;
        else if (!job_is_deleted(dir, id))
            g_array_append_val(live, id);
    }
    GError *local = NULL;
    gboolean settled = !refcount_is_dirty(dir);
    gboolean have_stored = settled && !newest_planted && refcount_load_job(dir, newest, &stored, &nstored, &local);
    for (guint i = 0; settled && i < live->len; i++)
        settled = !job_is_deleted(dir, g_array_index(live, uint32_t, i));
    settled = settled && !refcount_is_dirty(dir);
    if (!settled)
        destor_note("reference counts not checked: a delete ran meanwhile or was interrupted (the next backup, "
                    "delete, gc or repair counts them again)");
    else if (!have_stored && !newest_planted)
        problem(v, newest, NULL, -1, -1, "%s", local->message);
    g_clear_error(&local);
    uint32_t *refcount = g_new0(uint32_t, MAX(n, 1));
    for (guint i = 0; i < live->len; i++)
        check_job(v, g_array_index(live, uint32_t, i), refcount, n);
    if (settled && have_stored)
        check_refcounts(v, stored, nstored, refcount, n);
    g_free(refcount);
    g_free(stored);
    g_array_unref(live);
}

gboolean verify_run(const Config *cfg, int64_t job, gboolean deep, gboolean json, GError **err)
{
    Store *store = store_open_read(cfg, err);
    if (store == NULL)
        return FALSE;
    GArray *ids = job_catalog_list(store->dir, err);
    if (ids == NULL) {
        store_close(store);
        return FALSE;
    }
    Verify v = { .store = store, .deep = deep, .fpr = deep ? fingerprinter_new(store->fingerprint) : NULL,
                 .file = deep ? file_hasher_new(store->file_digest) : NULL };
    if (!store_committed_containers(store, &v.committed, err) ||
        (v.freed = freed_list_load(store->dir, NULL, err)) == NULL) {
        fingerprinter_free(v.fpr);
        file_hasher_free(v.file);
        g_array_unref(ids);
        store_close(store);
        return FALSE;
    }
    if (json) {
        v.json = json_doc_new("destor.verify", 1);
        json_doc_bool(v.json, "deep", deep);
        json_builder_set_member_name(v.json, "problems");
        json_builder_begin_array(v.json);
    }
    v.lru = container_lru_new(container_store_source(store->containers), 64);
    v.container_state = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    gboolean ok = TRUE;
    if (store_planted(&v)) {
        /* nothing below read through the link */
    } else if (job >= 0) {
        if (job_planted(&v, (uint32_t)job))
            goto report;
        JobManifest m;
        if (!(ok = job_manifest_load(store->dir, (uint32_t)job, &m, err)))
            goto out;
        job_manifest_clear(&m);
        check_job(&v, (uint32_t)job, NULL, 0);
    } else {
        check_snapshot(&v, ids);
        if (!(ok = verify_index(store, v.lru, index_problem, &v, err)))
            goto out;
    }
report:
    if (json) {
        json_builder_end_array(v.json);
        json_doc_uint(v.json, "jobs", v.jobs);
        json_doc_uint(v.json, "entries", v.entries);
        json_doc_uint(v.json, "chunks", v.chunks);
        json_doc_uint(v.json, "containers", v.containers_checked);
        json_doc_uint(v.json, "problem_count", v.problems);
        json_doc_print(v.json, stdout);
        v.json = NULL;
    } else {
        printf("verified %llu jobs, %llu entries, %llu chunk references, %llu containers%s: %llu problems\n",
               (unsigned long long)v.jobs, (unsigned long long)v.entries, (unsigned long long)v.chunks,
               (unsigned long long)v.containers_checked, deep ? " (deep)" : "", (unsigned long long)v.problems);
    }
    if (v.problems > 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "verify found %llu problems",
                    (unsigned long long)v.problems);
        ok = FALSE;
    }
out:
    g_array_unref(v.freed);
    fingerprinter_free(v.fpr);
    file_hasher_free(v.file);
    g_hash_table_destroy(v.container_state);
    container_lru_free(v.lru);
    if (v.json != NULL)
        g_object_unref(v.json);
    g_array_unref(ids);
    store_close(store);
    return ok;
}
