/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backup.c: wiring of the backup pipeline, progress and the summary. */
#include "commands/backup.h"
#include "backup/block_hasher.h"
#include "backup/job_writer.h"
#include "backup/chunk_worker.h"
#include "backup/files_cache.h"
#include "backup/walker.h"
#include "lifecycle/retention.h"
#include "util/error.h"
#include "util/json_doc.h"
#include "util/size_parse.h"
#include "util/thread_cpu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUEUE_DEPTH 256 /* entries the walker may run ahead of the store stage */
#define READ_BLOCKS 14  /* read blocks in all, shared out among the workers */
#define MAX_WORKERS 64

typedef struct {
    BoundedQueue *in; /* the walker's order queue */
    JobWriter *writer;
    Walker *walker;
    BlockHasher *hasher;
    BackupItem *end;  /* the end item, freed once every thread has stopped */
    GError *error;    /* first fatal error; later items are drained */
    uint64_t unchanged_files, unchanged_bytes; /* stored from the files cache, not read */
    GMutex lock;   /* guards done; the main thread waits on finished */
    GCond finished;
    gboolean done;
} StoreStage;

/* A stage thread and the CPU time it used (not wall time: on two cores four
 * stages share the CPUs, so wall time would count waiting for a core). */
typedef struct {
    const char *name;
    GThreadFunc run;
    gpointer arg;
    GThread *thread;
    double cpu_seconds;
} StageThread;

static gpointer stage_thread_main(gpointer data)
{
    StageThread *t = data;
    t->run(t->arg);
    t->cpu_seconds = thread_cpu_seconds();
    return NULL;
}

static gpointer walk_stage_run(gpointer data)
{
    walker_run(data);
    return NULL;
}

/* A file the files cache found unchanged: its parent's record, whose
 * chunks are stored as if the file had been read and cut. */
static void store_unchanged(StoreStage *s, BackupItem *it)
{
    g_assert(it->file->type == ENTRY_FILE);
    if (!job_writer_add_known_file(s->writer, it->file, &s->error))
        g_atomic_int_set(&s->walker->stop, 1);
    s->unchanged_files++;
    s->unchanged_bytes += it->file->size;
}

/* One entry, in walk order: a file's blocks in file order, each given back
 * to its worker once its chunks are stored. After an error, only drains. */
static void store_item(StoreStage *s, BackupItem *it)
{
    FileRecord *r = it->file;
    if (it->out != NULL) {
        DataBlock *b;
        do {
            b = bounded_queue_pop(it->out);
            block_hasher_wait(s->hasher, b);
            for (guint i = 0; i < b->chunks->len && s->error == NULL; i++) {
                const BlockChunk *c = &g_array_index(b->chunks, BlockChunk, i);
                if (!job_writer_add_chunk(s->writer, r, &c->fp, b->data + c->offset, c->length, &s->error))
                    g_atomic_int_set(&s->walker->stop, 1);
            }
            gboolean last = b->last;
            bounded_queue_push(b->home, b);
            if (last)
                break;
        } while (TRUE);
        bounded_queue_free(it->out);
        if (it->read_errno == 0 && it->changed) {
            char *rel = g_strndup((const char *)r->path->data, r->path->len);
            walker_changed(s->walker, rel);
            g_free(rel);
        }
        if (it->read_errno != 0) { /* its chunks stay in containers, unreferenced */
            char *rel = g_strndup((const char *)r->path->data, r->path->len);
            walker_skip(s->walker, rel, it->read_errno, "read failed");
            g_free(rel);
            r = NULL;
        }
    }
    if (it->unread && s->error == NULL)
        store_unchanged(s, it);
    if (r != NULL && s->error == NULL && !job_writer_add_entry(s->writer, r, &s->error))
        g_atomic_int_set(&s->walker->stop, 1);
    if (r != NULL && r->type == ENTRY_FILE && s->error == NULL) {
        if (it->changed)
            it->status.flags |= FILE_STATUS_CHANGED;
        job_writer_add_file_status(s->writer, &it->status);
    }
    file_record_free(it->file);
    g_free(it);
}

/* The entries in walk order, as many at a time as the walker has handed
 * on (up to a lot): one lock of the order queue per lot, not per entry, so
 * the walker no longer contends for it on a later job. Still no stall
 * (see backup_run): the store stage meets an entry not yet on the work
 * queue only in the pop that takes the items before it, which leaves fewer
 * than a lot queued and so wakes a walker blocked midway through one. */
static gpointer store_stage_run(gpointer data)
{
    StoreStage *s = data;
    gpointer lot[WALK_LOT_UNREAD];
    BackupItem *end = NULL;
    while (end == NULL) {
        guint n = bounded_queue_pop_many(s->in, lot, WALK_LOT_UNREAD);
        for (guint i = 0; i < n; i++) {
            BackupItem *it = lot[i];
            if (it->file != NULL) {
                store_item(s, it);
                continue;
            }
            g_assert(i == n - 1); /* the end item comes last */
            end = it;
        }
    }
    s->end = end;
    g_mutex_lock(&s->lock);
    s->done = TRUE;
    g_cond_signal(&s->finished);
    g_mutex_unlock(&s->lock);
    return NULL;
}

static void show_progress(const JobProgress *p, gint64 start, gboolean final)
{
    double secs = (double)(g_get_monotonic_time() - start) / 1e6;
    uint64_t bytes = atomic_load(&p->bytes);
    char size[32];
    printf("\r  %llu entries, %s, %.1f MB/s   ", (unsigned long long)atomic_load(&p->files),
           size_format(bytes, size, sizeof size), secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
    if (final)
        printf("\r%*s\r", 60, "");
    fflush(stdout);
}

/* The job's fingerprint index: its design and what it did. */
typedef struct {
    const FpIndexParams *params;
    FpIndexStats st;
} IndexReport;

static void print_index(const IndexReport *ix)
{
    char ram[32], table[32], cache[32], db[32];
    const FpIndexStats *st = &ix->st;
    printf("  index            %s", fp_index_kind_name(ix->params->kind));
    if (ix->params->kind != FP_INDEX_EXACT)
        printf(" (sampling %s %u, cache %u containers)", sampling_method_name(fp_index_sampling(ix->params)),
               ix->params->sampling_ratio, ix->params->cache_containers);
    if (ix->params->kind == FP_INDEX_SILO) {
        const SegmentParams *sp = &ix->params->segment;
        printf("\n  index segments   %llu, %s", (unsigned long long)st->segments, segment_algorithm_name(sp->algorithm));
        if (sp->algorithm != SEGMENT_FILE_DEFINED)
            printf(" %u", sp->size);
        printf(" (boundary %u %u), selection %s", sp->min, sp->max, segment_selection_name(sp->selection));
        if (sp->selection != SEGMENT_SELECT_BASE)
            printf(" %u", sp->top_k);
        printf(", prefetching %u", sp->prefetching);
    }
    printf(": RAM %s (table %s, cache %s, DB cache %s)\n", size_format(st->ram_bytes, ram, sizeof ram),
           size_format(st->table_bytes, table, sizeof table), size_format(st->cache_bytes, cache, sizeof cache),
           size_format(st->db_cache_bytes, db, sizeof db));
    printf("  index lookups    %llu to the DB, %llu container prefetches; %llu duplicates missed (stored again)\n",
           (unsigned long long)st->db_reads, (unsigned long long)st->prefetches,
           (unsigned long long)st->missed_duplicates);
}

/* What the files cache did: files stored from the parent's records unread. */
typedef struct {
    const char *state; /* "on", "off" (backup-files-cache no, --no-files-cache) or
                          "not applicable" (rewriting, silo) */
    int64_t parent;    /* the parent job, -1: none */
    uint64_t files, bytes;
} FilesCacheReport;

static void print_files_cache(const FilesCacheReport *fr)
{
    char bytes[32];
    if (fr->parent < 0)
        printf("  files cache      %s, no parent job (every file read)\n", fr->state);
    else
        printf("  files cache      %llu files, %llu bytes (%s) unchanged since job %lld, not read\n",
               (unsigned long long)fr->files, (unsigned long long)fr->bytes,
               size_format(fr->bytes, bytes, sizeof bytes), (long long)fr->parent);
}

static void files_cache_json(JsonBuilder *b, const FilesCacheReport *fr)
{
    json_builder_set_member_name(b, "files_cache");
    json_builder_begin_object(b);
    json_doc_string(b, "state", fr->state);
    json_builder_set_member_name(b, "parent_job");
    if (fr->parent < 0)
        json_builder_add_null_value(b);
    else
        json_builder_add_int_value(b, fr->parent);
    json_doc_uint(b, "files", fr->files);
    json_doc_uint(b, "bytes", fr->bytes);
    json_builder_end_object(b);
}

/* The dedup ratio the job would have had without rewriting. */
static double ratio_without_rewrite(const JobManifest *m, const JobRewriteReport *rw)
{
    uint64_t kept = m->stored_bytes - rw->rewritten_bytes;
    return kept ? (double)m->logical_bytes / (double)kept : 0.0;
}

static void print_summary(const JobManifest *m, const JobRewriteReport *rw, const IndexReport *ix,
                          const FilesCacheReport *fr, double secs, const StageThread *stages, int nstages,
                          double cut_secs, double commit_secs)
{
    char logical[32], stored[32];
    double ratio = m->stored_bytes ? (double)m->logical_bytes / (double)m->stored_bytes : 0.0;
    printf("backup job %u committed (%s)\n", m->job_id, m->source_root);
    printf("  entries          %llu files, %llu directories, %llu symlinks, %llu skipped\n",
           (unsigned long long)m->files, (unsigned long long)m->dirs, (unsigned long long)m->symlinks,
           (unsigned long long)m->skipped);
    printf("  chunks           %llu (%llu new)\n", (unsigned long long)m->chunks, (unsigned long long)m->new_chunks);
    printf("  logical bytes    %llu (%s)\n", (unsigned long long)m->logical_bytes,
           size_format(m->logical_bytes, logical, sizeof logical));
    printf("  stored bytes     %llu (%s) in %u new containers\n", (unsigned long long)m->stored_bytes,
           size_format(m->stored_bytes, stored, sizeof stored), m->containers_total - m->first_new_container);
    if (m->stored_bytes)
        printf("  dedup ratio      %.2f (%.1f%% of logical bytes deduplicated)\n", ratio,
               m->logical_bytes ? 100.0 * (1.0 - (double)m->stored_bytes / (double)m->logical_bytes) : 0.0);
    else
        printf("  dedup ratio      all data already stored\n");
    print_index(ix);
    print_files_cache(fr);
    if (rw->rewritten_chunks > 0 || rw->rewritten_bytes > 0) {
        char rewritten[32];
        printf("  rewritten        %llu chunks, %llu bytes (%s); dedup ratio %.2f without rewriting (%.1f%% lost)\n",
               (unsigned long long)rw->rewritten_chunks, (unsigned long long)rw->rewritten_bytes,
               size_format(rw->rewritten_bytes, rewritten, sizeof rewritten), ratio_without_rewrite(m, rw),
               m->stored_bytes ? 100.0 * (double)rw->rewritten_bytes / (double)m->stored_bytes : 0.0);
    }
    printf("  fragmentation    %.3f containers read per MiB restored (%llu reads, restore cache model)\n",
           rw->containers_per_mib, (unsigned long long)rw->restore_reads);
    printf("  time             %.3f s, %.1f MB/s (1 MB = 10^6 bytes)\n", secs,
           secs > 0 ? (double)m->logical_bytes / 1e6 / secs : 0.0);
    printf("  stage CPU time  ");
    for (int i = 0; i < nstages; i++)
        printf("%s %s %.3f s", i ? "," : "", stages[i].name, stages[i].cpu_seconds);
    printf("; commit %.3f s\n", commit_secs);
    printf("  chunk and hash   %.3f s CPU (cutting and fingerprinting chunks, in the workers and hashers)\n", cut_secs);
}

/* What backup-retention-time did, on stderr (the summary is stdout's). */
static void print_retention(guint keep, const RetentionReport *r)
{
    GString *jobs = g_string_new(NULL);
    for (guint i = 0; i < r->deleted->len; i++)
        g_string_append_printf(jobs, "%s%u", i ? ", " : "", g_array_index(r->deleted, uint32_t, i));
    char reclaimed[32];
    if (r->deleted->len == 0)
        fprintf(stderr, "destor: backup-retention-time %u: no job deleted\n", keep);
    else if (r->gc.deferred)
        fprintf(stderr, "destor: backup-retention-time %u: deleted job%s %s; gc deferred (a reader has the store "
                "open): the next gc frees their space\n", keep, r->deleted->len > 1 ? "s" : "", jobs->str);
    else
        fprintf(stderr, "destor: backup-retention-time %u: deleted job%s %s; gc freed %u containers (%s)\n", keep,
                r->deleted->len > 1 ? "s" : "", jobs->str, r->gc.freed,
                size_format(r->gc.reclaimed_bytes, reclaimed, sizeof reclaimed));
    g_string_free(jobs, TRUE);
}

static void retention_json(JsonBuilder *b, guint keep, const RetentionReport *r)
{
    json_builder_set_member_name(b, "retention");
    json_builder_begin_object(b);
    json_doc_uint(b, "keep", keep);
    json_builder_set_member_name(b, "deleted_jobs");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->deleted->len; i++)
        json_builder_add_int_value(b, g_array_index(r->deleted, uint32_t, i));
    json_builder_end_array(b);
    json_doc_bool(b, "gc_ran", r->collected);
    json_doc_bool(b, "gc_deferred", r->collected && r->gc.deferred);
    json_doc_uint(b, "containers_freed", r->gc.freed);
    json_doc_uint(b, "reclaimed_bytes", r->gc.reclaimed_bytes);
    json_doc_uint(b, "containers_copied", r->gc.compact.containers_copied);
    json_doc_uint(b, "jobs_collected", r->gc.jobs_collected);
    json_builder_end_object(b);
}

/* The same figures as one destor.backup JSON document (docs/FORMAT.md),
 * with what retention did when it ran (keep > 0). */
static void print_summary_json(const JobManifest *m, const JobRewriteReport *rw, const IndexReport *ix,
                               const FilesCacheReport *fr, double secs, const StageThread *stages, int nstages,
                               double cut_secs, double commit_secs, guint keep, const RetentionReport *kept)
{
    JsonBuilder *b = json_doc_new("destor.backup", 1);
    json_doc_uint(b, "job", m->job_id);
    json_doc_path(b, "source_root", m->source_root, strlen(m->source_root));
    json_doc_uint(b, "files", m->files);
    json_doc_uint(b, "directories", m->dirs);
    json_doc_uint(b, "symlinks", m->symlinks);
    json_doc_uint(b, "skipped", m->skipped);
    json_doc_uint(b, "chunks", m->chunks);
    json_doc_uint(b, "new_chunks", m->new_chunks);
    json_doc_uint(b, "logical_bytes", m->logical_bytes);
    json_doc_uint(b, "stored_bytes", m->stored_bytes);
    json_doc_uint(b, "new_containers", m->containers_total - m->first_new_container);
    json_doc_double(b, "dedup_ratio", m->stored_bytes ? (double)m->logical_bytes / (double)m->stored_bytes : 0.0);
    json_doc_uint(b, "rewritten_chunks", rw->rewritten_chunks);
    json_doc_uint(b, "rewritten_bytes", rw->rewritten_bytes);
    json_doc_double(b, "dedup_ratio_without_rewrite", ratio_without_rewrite(m, rw));
    json_doc_double(b, "dedup_ratio_lost",
                    m->stored_bytes ? (double)rw->rewritten_bytes / (double)m->stored_bytes : 0.0);
    json_doc_uint(b, "restore_container_reads", rw->restore_reads);
    json_doc_double(b, "containers_per_mib", rw->containers_per_mib);
    json_doc_double(b, "elapsed_ms", 1e3 * secs);
    json_doc_double(b, "commit_ms", 1e3 * commit_secs);
    json_doc_double(b, "chunk_and_hash_cpu_ms", 1e3 * cut_secs);
    /* CPU time per stage name: the chunk workers' times are summed */
    json_builder_set_member_name(b, "stage_cpu_ms");
    json_builder_begin_object(b);
    for (int i = 0; i < nstages; i++) {
        gboolean seen = FALSE;
        for (int k = 0; k < i; k++)
            seen |= strcmp(stages[k].name, stages[i].name) == 0;
        double cpu = 0;
        for (int k = i; k < nstages && !seen; k++)
            if (strcmp(stages[k].name, stages[i].name) == 0)
                cpu += stages[k].cpu_seconds;
        if (!seen)
            json_doc_double(b, stages[i].name, 1e3 * cpu);
    }
    json_builder_end_object(b);
    json_builder_set_member_name(b, "index");
    json_builder_begin_object(b);
    json_doc_string(b, "kind", fp_index_kind_name(ix->params->kind));
    if (ix->params->kind != FP_INDEX_EXACT) {
        json_doc_string(b, "sampling", sampling_method_name(fp_index_sampling(ix->params)));
        json_doc_uint(b, "sampling_ratio", ix->params->sampling_ratio);
        json_doc_uint(b, "cache_containers", ix->params->cache_containers);
    }
    if (ix->params->kind == FP_INDEX_SILO) {
        const SegmentParams *sp = &ix->params->segment;
        json_doc_uint(b, "segments", ix->st.segments);
        json_doc_string(b, "segment_algorithm", segment_algorithm_name(sp->algorithm));
        json_doc_uint(b, "segment_size", sp->size);
        json_doc_uint(b, "segment_min", sp->min);
        json_doc_uint(b, "segment_max", sp->max);
        json_doc_string(b, "segment_selection", segment_selection_name(sp->selection));
        json_doc_uint(b, "segment_top_k", sp->top_k);
        json_doc_uint(b, "segment_prefetching", sp->prefetching);
    }
    json_doc_uint(b, "ram_bytes", ix->st.ram_bytes);
    json_doc_uint(b, "table_bytes", ix->st.table_bytes);
    json_doc_uint(b, "cache_bytes", ix->st.cache_bytes);
    json_doc_uint(b, "db_cache_bytes", ix->st.db_cache_bytes);
    json_doc_uint(b, "db_reads", ix->st.db_reads);
    json_doc_uint(b, "prefetches", ix->st.prefetches);
    json_doc_uint(b, "missed_duplicates", ix->st.missed_duplicates);
    json_builder_end_object(b);
    files_cache_json(b, fr);
    if (keep > 0)
        retention_json(b, keep, kept);
    json_doc_print(b, stdout);
}

/* The walker holds a descriptor per directory level and the queues one per
 * file in flight: allow as many descriptors as the hard limit does, so only
 * a tree deeper than that fails (each entry it cannot open is skipped,
 * warned about and counted). */
static void raise_descriptor_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

gboolean backup_run(const Config *cfg, const char *path, const BackupOptions *opt, GError **err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        destor_set_errno(err, errno, "backup source %s", path);
        if (err && *err)
            (*err)->code = DESTOR_ERROR_USAGE;
        return FALSE;
    }
    raise_descriptor_limit();
    Store *store = store_open_write(cfg, err);
    if (store == NULL)
        return FALSE;
    JobWriter *writer = job_writer_begin(store, cfg, path, err);
    if (writer == NULL) {
        store_close(store);
        return FALSE;
    }
    FilesCacheReport fr = { .state = "on", .parent = -1 };
    FilesCache *files_cache = NULL;
    if (opt->no_files_cache || cfg->backup_files_cache == 0)
        fr.state = "off";
    else if (!job_writer_takes_known_chunks(writer))
        fr.state = "not applicable";
    else if ((files_cache = files_cache_open(store->dir, path, cfg, err)) == NULL && err && *err) {
        job_writer_free(writer);
        store_close(store);
        return FALSE;
    }
    if (files_cache != NULL)
        fr.parent = files_cache_parent(files_cache);
    Chunker *chunker = chunker_new(cfg->chunk_algorithm, &cfg->chunk_sizes);
    size_t max_chunk = cfg->chunk_algorithm == CHUNK_FIXED ? cfg->chunk_sizes.avg_size : cfg->chunk_sizes.max_size;
    guint nworkers = cfg->backup_workers ? cfg->backup_workers : (guint)g_get_num_processors();
    nworkers = CLAMP(nworkers, 1, MAX_WORKERS);
    guint blocks = MAX(2, READ_BLOCKS / nworkers); /* a worker needs two: one to read, one for the tail */
    guint nhashers = nworkers;
    /* The walker is faster than the rest: batched queues wake it once per
     * half queue, not once per entry. This cannot stall: the workers drain
     * the work queue whatever the walker does, and the store stage drains
     * the order queue as far as the workers have gone. The walker hands on
     * a lot of entries to the order queue before the work queue, so the
     * items not yet on the work queue are the last, fewer than
     * WALK_LOT_UNREAD, on the order queue: the store stage drains it below
     * half before it meets one, which wakes a walker blocked midway through
     * a lot. */
    G_STATIC_ASSERT(WALK_BATCH <= WALK_LOT_UNREAD && WALK_LOT_UNREAD <= QUEUE_DEPTH / 2);
    BoundedQueue *q_order = bounded_queue_new_batched(QUEUE_DEPTH);
    BoundedQueue *q_work = bounded_queue_new_batched(QUEUE_DEPTH);
    BlockHasher *hasher = block_hasher_new(store->fingerprint, store->file_digest, nworkers * blocks + nhashers);
    StoreStage ss = { .in = q_order, .writer = writer, .hasher = hasher };
    Walker *walker = g_new0(Walker, 1);
    walker_init(walker, path, q_order, q_work, nworkers, blocks + 1, opt->one_file_system);
    walker->files_cache = files_cache;
    ss.walker = walker;
    ChunkWorker *workers = g_new0(ChunkWorker, nworkers);
    g_mutex_init(&ss.lock);
    g_cond_init(&ss.finished);

    gint64 start = g_get_monotonic_time();
    guint nstages = nworkers + nhashers + 2;
    /* and two more, reported only: the job writer's container-writing
     * thread and the files cache's, which reads the parent's records */
    StageThread *stages = g_new0(StageThread, nstages + 2);
    stages[nstages].name = "write";
    stages[nstages + 1].name = "files-cache";
    stages[0] = (StageThread){ "walk", walk_stage_run, walker, NULL, 0 };
    for (guint i = 0; i < nworkers; i++) {
        chunk_worker_init(&workers[i], q_work, blocks, chunker, max_chunk, store->fingerprint, store->file_digest,
                          hasher);
        stages[1 + i] = (StageThread){ "chunk", chunk_worker_run, &workers[i], NULL, 0 };
    }
    for (guint i = 0; i < nhashers; i++)
        stages[1 + nworkers + i] = (StageThread){ "hash", block_hasher_run, hasher, NULL, 0 };
    stages[nstages - 1] = (StageThread){ "store", store_stage_run, &ss, NULL, 0 };
    for (guint i = 0; i < nstages; i++)
        stages[i].thread = g_thread_new(stages[i].name, stage_thread_main, &stages[i]);
    /* Wait for the store stage, showing progress every 200 ms on a tty. */
    gboolean tty = !opt->json && isatty(STDOUT_FILENO);
    g_mutex_lock(&ss.lock);
    while (!ss.done) {
        if (!g_cond_wait_until(&ss.finished, &ss.lock, g_get_monotonic_time() + 200 * 1000) && tty)
            show_progress(job_writer_progress(writer), start, FALSE);
    }
    g_mutex_unlock(&ss.lock);
    block_hasher_stop(hasher, nhashers); /* every block is back: none is left to hash */
    double cut_secs = 0;
    for (guint i = 0; i < nstages; i++)
        g_thread_join(stages[i].thread);
    for (guint i = 0; i < nworkers; i++)
        cut_secs += workers[i].cut_seconds;
    cut_secs += block_hasher_fingerprint_seconds(hasher);
    if (tty)
        show_progress(job_writer_progress(writer), start, TRUE);

    JobManifest m = { 0 };
    gboolean ok = ss.error == NULL;
    gint64 commit_start = g_get_monotonic_time();
    if (!ok)
        g_propagate_error(err, ss.error);
    else
        ok = job_writer_commit(writer, walker->skipped, &m, err);
    if (ok) {
        gint64 end = g_get_monotonic_time();
        stages[nstages].cpu_seconds = job_writer_write_cpu_seconds(writer); /* its writes are done */
        stages[nstages + 1].cpu_seconds = files_cache ? files_cache_reader_cpu_seconds(files_cache) : 0;
        JobRewriteReport rw = job_writer_rewrite_report(writer);
        IndexReport ix = { .params = &cfg->fp_index };
        fr.files = ss.unchanged_files;
        fr.bytes = ss.unchanged_bytes;
        job_writer_index_stats(writer, &ix.st);
        job_writer_free(writer); /* its index closed: retention's gc opens it */
        writer = NULL;
        /* backup-retention-time, after a backup that read everything */
        guint keep = cfg->backup_retention > 0 && m.skipped == 0 && walker->changed == 0
                         ? (guint)cfg->backup_retention : 0;
        RetentionReport kept = { 0 };
        GError *retention_err = NULL;
        gboolean retained = keep == 0 ||
                            lifecycle_retain(store, keep, cfg->gc_live_threshold, &kept, &retention_err);
        if (opt->json)
            print_summary_json(&m, &rw, &ix, &fr, (double)(end - start) / 1e6, stages, (int)nstages + 2, cut_secs,
                               (double)(end - commit_start) / 1e6, retained ? keep : 0, &kept);
        else
            print_summary(&m, &rw, &ix, &fr, (double)(end - start) / 1e6, stages, (int)nstages + 2, cut_secs,
                          (double)(end - commit_start) / 1e6);
        if (keep > 0 && retained && !opt->json)
            print_retention(keep, &kept);
        retention_report_clear(&kept);
        if (!retained) {
            g_propagate_prefixed_error(err, retention_err, "job %u committed, but backup-retention-time %u failed: ",
                                       m.job_id, keep);
            ok = FALSE;
        } else if (m.skipped > 0) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                        "%llu entries could not be read and are not in job %u (committed without them); "
                        "the first: %s", (unsigned long long)m.skipped, m.job_id,
                        walker->first_problem ? walker->first_problem : "?");
            ok = FALSE;
        } else if (walker->changed > 0) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                        "%llu files changed while they were read and are in job %u as read; the first: %s",
                        (unsigned long long)walker->changed, m.job_id, walker->first_changed);
            ok = FALSE;
        }
    }
    walker_clear(walker);
    g_free(walker);
    files_cache_close(files_cache);
    g_free(ss.end);
    job_manifest_clear(&m);
    job_writer_free(writer);
    g_mutex_clear(&ss.lock);
    g_cond_clear(&ss.finished);
    bounded_queue_free(q_order);
    bounded_queue_free(q_work);
    for (guint i = 0; i < nworkers; i++)
        chunk_worker_clear(&workers[i]);
    g_free(workers);
    g_free(stages);
    block_hasher_free(hasher);
    chunker_free(chunker);
    store_close(store);
    return ok;
}
