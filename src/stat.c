/* stat.c: store and job statistics, and job listing. */
#include "stat.h"
#include "recipe/job_catalog.h"
#include "restore/job.h"
#include "store.h"
#include "util/output.h"
#include "util/size_parse.h"

#include <stdio.h>

static double ratio(uint64_t logical, uint64_t stored)
{
    return stored ? (double)logical / (double)stored : 0.0;
}

gboolean stat_run(const Config *cfg, gboolean json, GError **err)
{
    Store *store = store_open_read(cfg, err);
    if (store == NULL)
        return FALSE;
    GArray *ids = job_catalog_list(store->dir, err);
    uint32_t *refs = NULL, nrefs = 0;
    gboolean ok = ids != NULL && refcount_load_current(store->dir, &refs, &nrefs, err);
    uint32_t containers = 0;
    GString *jobs = g_string_new(NULL);
    uint64_t logical = 0, stored = 0, files = 0;
    for (guint i = 0; ok && i < ids->len; i++) {
        JobManifest m;
        if (!(ok = job_manifest_load(store->dir, g_array_index(ids, uint32_t, i), &m, err)))
            break;
        logical += m.logical_bytes;
        stored += m.stored_bytes;
        files += m.files;
        containers = m.containers_total;
        if (json)
            g_string_append_printf(jobs, "%s{\"job\": %u, \"files\": %llu, \"logical_bytes\": %llu, "
                                   "\"stored_bytes\": %llu, \"containers_total\": %u, \"created\": %lld}",
                                   i ? ", " : "", m.job_id, (unsigned long long)m.files,
                                   (unsigned long long)m.logical_bytes, (unsigned long long)m.stored_bytes,
                                   m.containers_total, (long long)m.created_unix);
        else
            g_string_append_printf(jobs, "  job %-5u %8llu files %14llu logical %14llu stored  dedup %.2f  %s\n",
                                   m.job_id, (unsigned long long)m.files, (unsigned long long)m.logical_bytes,
                                   (unsigned long long)m.stored_bytes, ratio(m.logical_bytes, m.stored_bytes),
                                   m.source_root);
        job_manifest_clear(&m);
    }
    uint64_t referenced = 0, ref_sum = 0;
    for (uint32_t i = 0; i < nrefs && i < containers; i++) {
        referenced += refs[i] > 0;
        ref_sum += refs[i];
    }
    if (ok && json) {
        printf("{\"working_directory\": \"%s\", \"container_size\": %zu, \"fingerprint\": \"%s\", "
               "\"jobs\": [%s], \"job_count\": %u, \"files\": %llu, \"logical_bytes\": %llu, "
               "\"stored_bytes\": %llu, \"dedup_ratio\": %.4f, \"containers\": %u, "
               "\"containers_referenced\": %llu, \"mean_reference_count\": %.3f}\n",
               store->dir, store->container_size, fingerprint_algorithm_name(store->fingerprint), jobs->str,
               ids->len, (unsigned long long)files, (unsigned long long)logical, (unsigned long long)stored,
               ratio(logical, stored), containers, (unsigned long long)referenced,
               referenced ? (double)ref_sum / (double)referenced : 0.0);
    } else if (ok) {
        char a[32], b[32], c[32];
        printf("store %s: container size %s, fingerprints %s\n", store->dir,
               size_format(store->container_size, c, sizeof c), fingerprint_algorithm_name(store->fingerprint));
        printf("%s", jobs->str);
        printf("total: %u jobs, %llu files, %s logical, %s stored, dedup ratio %.2f\n", ids->len,
               (unsigned long long)files, size_format(logical, a, sizeof a), size_format(stored, b, sizeof b),
               ratio(logical, stored));
        printf("containers: %u committed, %llu referenced, mean reference count %.2f files\n", containers,
               (unsigned long long)referenced, referenced ? (double)ref_sum / (double)referenced : 0.0);
    }
    g_free(refs);
    g_string_free(jobs, TRUE);
    if (ids)
        g_array_unref(ids);
    store_close(store);
    return ok;
}

gboolean list_run(const Config *cfg, uint32_t job_id, gboolean null_terminated, GError **err)
{
    Store *store = store_open_read(cfg, err);
    if (store == NULL)
        return FALSE;
    Job *job = job_open(store, job_id, err);
    gboolean ok = job != NULL;
    FileRecord *r;
    GError *local = NULL;
    while (ok && (r = job_meta_reader_next(job->meta, &local)) != NULL) {
        char type = r->type == ENTRY_FILE ? 'f' : r->type == ENTRY_DIR ? 'd' : 'l';
        printf("%c\t%llu\t", type, (unsigned long long)r->size);
        fwrite(r->path->data, 1, r->path->len, stdout);
        putchar(null_terminated ? '\0' : '\n');
        file_record_free(r);
        if (output_failed(err))
            ok = FALSE;
    }
    if (local != NULL) {
        g_propagate_error(err, local);
        ok = FALSE;
    }
    job_close(job);
    store_close(store);
    return ok;
}
