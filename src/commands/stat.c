/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stat.c: store and job statistics, and job listing. */
#include "commands/stat.h"
#include "recipe/job_catalog.h"
#include "recipe/job_tombstone.h"
#include "store/freed_list.h"
#include "read/job.h"
#include "store/store.h"
#include "util/error.h"
#include "util/json_doc.h"
#include "util/output.h"
#include "util/size_parse.h"

#include <stdio.h>
#include <string.h>

static double ratio(uint64_t logical, uint64_t stored)
{
    return stored ? (double)logical / (double)stored : 0.0;
}

/* A job's rewriting and fragmentation figures as its backup recorded them
 * (docs/FORMAT.md, destor.stat); null in a version 1 manifest's job. */
static void job_fragmentation_json(const JobManifest *m, JsonBuilder *json)
{
    static const char *const keys[] = { "rewritten_chunks", "rewritten_bytes", "restore_container_reads",
                                        "containers_per_mib", "fragmentation_cache_containers" };
    if (!m->has_fragmentation) {
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
            json_builder_set_member_name(json, keys[i]);
            json_builder_add_null_value(json);
        }
        return;
    }
    json_doc_uint(json, keys[0], m->rewritten_chunks);
    json_doc_uint(json, keys[1], m->rewritten_bytes);
    json_doc_uint(json, keys[2], m->restore_container_reads);
    json_doc_double(json, keys[3], job_manifest_containers_per_mib(m));
    json_doc_uint(json, keys[4], m->fragmentation_cache_containers);
}

/* One job's line of the text form, or its object in the JSON "jobs". */
static void job_figures(const JobManifest *m, JsonBuilder *json, GString *text)
{
    if (json != NULL) {
        json_builder_begin_object(json);
        json_doc_uint(json, "job", m->job_id);
        json_doc_uint(json, "files", m->files);
        json_doc_uint(json, "logical_bytes", m->logical_bytes);
        json_doc_uint(json, "stored_bytes", m->stored_bytes);
        json_doc_uint(json, "containers_total", m->containers_total);
        json_doc_int(json, "created", m->created_unix);
        json_doc_path(json, "source_root", m->source_root, strlen(m->source_root));
        job_fragmentation_json(m, json);
        json_builder_end_object(json);
    } else {
        /* one line a job: a newline in the root must not start another */
        char *root = destor_text_escape(m->source_root, strlen(m->source_root));
        g_string_append_printf(text, "  job %-5u %8llu files %14llu logical %14llu stored  dedup %.2f  %s\n",
                               m->job_id, (unsigned long long)m->files, (unsigned long long)m->logical_bytes,
                               (unsigned long long)m->stored_bytes, ratio(m->logical_bytes, m->stored_bytes), root);
        g_free(root);
    }
}

/* What gc would free now: containers the current counts give no reference
 * and that still hold data. */
static gboolean reclaimable_bytes(Store *store, const uint32_t *refs, uint32_t n, uint64_t *bytes, GError **err)
{
    GArray *freed = store_freed(store, NULL, err);
    if (freed == NULL)
        return FALSE;
    gboolean ok = TRUE;
    for (uint32_t i = 0; i < n && ok; i++) {
        gboolean live = FALSE;
        if (refs[i] == 0 && !freed_list_has(freed, i) && (ok = container_store_live(store->containers, i, &live, err)))
            *bytes += live ? store->container_size : 0;
    }
    g_array_unref(freed);
    return ok;
}

gboolean stat_run(const Config *cfg, gboolean json, GError **err)
{
    Store *store = store_open_list(cfg, err);
    if (store == NULL)
        return FALSE;
    GArray *ids = store_jobs(store, err);
    uint32_t *refs = NULL, nrefs = 0;
    gboolean ok = ids != NULL && store_current_refcounts(store, &refs, &nrefs, err);
    uint32_t containers = 0;
    JsonBuilder *doc = NULL;
    GString *jobs = g_string_new(NULL);
    if (ok && json) {
        doc = json_doc_new("destor.stat", 1);
        json_doc_path(doc, "working_directory", store->dir, strlen(store->dir));
        json_doc_uint(doc, "container_size", store->container_size);
        json_doc_string(doc, "fingerprint", fingerprint_algorithm_name(store->fingerprint));
        json_doc_string(doc, "file_digest", file_digest_name(store->file_digest));
        json_builder_set_member_name(doc, "jobs");
        json_builder_begin_array(doc);
    }
    uint64_t logical = 0, stored = 0, files = 0;
    uint32_t deleted = 0;
    for (guint i = 0; ok && i < ids->len; i++) {
        JobManifest m;
        if (!(ok = store_job_manifest(store, g_array_index(ids, uint32_t, i), &m, err)))
            break;
        containers = m.containers_total;
        if (store_job_deleted(store, m.job_id)) {
            deleted++;
        } else {
            logical += m.logical_bytes;
            stored += m.stored_bytes;
            files += m.files;
            job_figures(&m, doc, jobs);
        }
        job_manifest_clear(&m);
    }
    uint64_t referenced = 0, ref_sum = 0, reclaimable = 0;
    if (ok)
        ok = store_committed_containers(store, &containers, err);
    for (uint32_t i = 0; i < nrefs && i < containers; i++) {
        referenced += refs[i] > 0;
        ref_sum += refs[i];
    }
    if (ok)
        ok = reclaimable_bytes(store, refs, MIN(nrefs, containers), &reclaimable, err);
    double mean_refs = referenced ? (double)ref_sum / (double)referenced : 0.0;
    if (ok && json) {
        json_builder_end_array(doc);
        json_doc_uint(doc, "job_count", ids->len - deleted);
        json_doc_uint(doc, "deleted_jobs", deleted);
        json_doc_uint(doc, "files", files);
        json_doc_uint(doc, "logical_bytes", logical);
        json_doc_uint(doc, "stored_bytes", stored);
        json_doc_double(doc, "dedup_ratio", ratio(logical, stored));
        json_doc_uint(doc, "containers", containers);
        json_doc_uint(doc, "containers_referenced", referenced);
        json_doc_double(doc, "mean_reference_count", mean_refs);
        json_doc_uint(doc, "reclaimable_bytes", reclaimable);
        json_doc_print(doc, stdout);
        doc = NULL;
    } else if (ok) {
        char a[32], b[32], c[32];
        char *dir = destor_text_escape(store->dir, strlen(store->dir));
        printf("store %s: container size %s, fingerprints %s\n", dir,
               size_format(store->container_size, c, sizeof c), fingerprint_algorithm_name(store->fingerprint));
        g_free(dir);
        printf("%s", jobs->str);
        printf("total: %u jobs, %llu files, %s logical, %s stored, dedup ratio %.2f\n", ids->len - deleted,
               (unsigned long long)files, size_format(logical, a, sizeof a), size_format(stored, b, sizeof b),
               ratio(logical, stored));
        printf("containers: %u committed, %llu referenced, mean reference count %.2f files\n", containers,
               (unsigned long long)referenced, mean_refs);
        if (deleted > 0 || reclaimable > 0)
            printf("deleted: %u jobs; 'destor gc' would reclaim %s\n", deleted, size_format(reclaimable, a, sizeof a));
    }
    if (doc != NULL)
        g_object_unref(doc);
    g_free(refs);
    g_string_free(jobs, TRUE);
    if (ids)
        g_array_unref(ids);
    store_close(store);
    return ok;
}

static const char *entry_type_name(EntryType t)
{
    return t == ENTRY_FILE ? "file" : t == ENTRY_DIR ? "directory" : "symlink";
}

gboolean list_run(const Config *cfg, uint32_t job_id, gboolean null_terminated, gboolean json, GError **err)
{
    Store *store = store_open_job(cfg, job_id, err);
    if (store == NULL)
        return FALSE;
    Job *job = job_open(store, job_id, err);
    gboolean ok = job != NULL;
    FileRecord *r;
    GError *local = NULL;
    if (ok && json) { /* streamed entry by entry: memory stays flat in the job's size */
        JsonBuilder *doc = json_doc_new("destor.list", 1);
        json_doc_uint(doc, "job", job_id);
        job_fragmentation_json(&job->manifest, doc);
        json_doc_stream_begin(doc, "entries", stdout);
    }
    for (gboolean first = TRUE; ok && (r = job_meta_reader_next(job->meta, &local)) != NULL; first = FALSE) {
        if (json) {
            JsonBuilder *e = json_doc_item_new();
            json_doc_string(e, "type", entry_type_name(r->type));
            json_doc_uint(e, "size", r->size);
            json_doc_path(e, "path", r->path->data, r->path->len);
            if (r->type == ENTRY_FILE) {
                char hex[2 * FILE_DIGEST_SLOT + 1];
                file_digest_hex(store->file_digest, r->digest, hex);
                json_doc_string(e, "digest_algorithm", file_digest_name(store->file_digest));
                json_doc_string(e, "digest", hex);
            }
            json_doc_stream_item(e, first, stdout);
        } else {
            char type = r->type == ENTRY_FILE ? 'f' : r->type == ENTRY_DIR ? 'd' : 'l';
            printf("%c\t%llu\t", type, (unsigned long long)r->size);
            fwrite(r->path->data, 1, r->path->len, stdout);
            putchar(null_terminated ? '\0' : '\n');
        }
        file_record_free(r);
        if (output_failed(err))
            ok = FALSE;
    }
    if (local != NULL) {
        g_propagate_error(err, local);
        ok = FALSE;
    }
    if (ok && json)
        json_doc_stream_end(stdout);
    job_close(job);
    store_close(store);
    return ok;
}
