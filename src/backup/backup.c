/* backup.c: wiring of the backup pipeline, progress and the summary. */
#include "backup/backup.h"
#include "backup/job_writer.h"
#include "backup/stages.h"
#include "backup/walker.h"
#include "util/error.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUEUE_DEPTH 256
#define READ_BLOCKS 16 /* read buffers in flight */

typedef struct {
    Walker walker;
    const char *root;
} ReadStage;

typedef struct {
    BoundedQueue *in;
    JobWriter *writer;
    Walker *walker;
    GError *error; /* first fatal error; later messages are drained */
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
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    t->cpu_seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    return NULL;
}

static gpointer read_stage_run(gpointer data)
{
    ReadStage *r = data;
    walker_run(&r->walker, r->root);
    return NULL;
}

static gpointer store_stage_run(gpointer data)
{
    StoreStage *s = data;
    for (;;) {
        BackupMsg *m = bounded_queue_pop(s->in);
        BackupMsgKind kind = m->kind;
        if (s->error == NULL) {
            if (!job_writer_consume(s->writer, m, &s->error))
                g_atomic_int_set(&s->walker->stop, 1);
        } else {
            if (kind == MSG_FILE_END || kind == MSG_FILE_ABORT)
                file_record_free(m->file);
            backup_msg_free(m);
        }
        if (kind == MSG_STREAM_END)
            break;
    }
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

static void print_summary(const JobManifest *m, double secs, const StageThread *stages, int nstages,
                          double commit_secs)
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
    printf("  time             %.3f s, %.1f MB/s (1 MB = 10^6 bytes)\n", secs,
           secs > 0 ? (double)m->logical_bytes / 1e6 / secs : 0.0);
    printf("  stage CPU time  ");
    for (int i = 0; i < nstages; i++)
        printf("%s %s %.3f s", i ? "," : "", stages[i].name, stages[i].cpu_seconds);
    printf("; commit %.3f s\n", commit_secs);
}

/* The same figures as one destor.backup JSON document (docs/FORMAT.md). */
static void print_summary_json(const JobManifest *m, double secs, const StageThread *stages, int nstages,
                               double commit_secs)
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
    json_doc_double(b, "elapsed_ms", 1e3 * secs);
    json_doc_double(b, "commit_ms", 1e3 * commit_secs);
    json_builder_set_member_name(b, "stage_cpu_ms");
    json_builder_begin_object(b);
    for (int i = 0; i < nstages; i++)
        json_doc_double(b, stages[i].name, 1e3 * stages[i].cpu_seconds);
    json_builder_end_object(b);
    json_doc_print(b, stdout);
}

gboolean backup_run(const Config *cfg, const char *path, gboolean json, GError **err)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        destor_set_errno(err, errno, "backup source %s", path);
        if (err && *err)
            (*err)->code = DESTOR_ERROR_USAGE;
        return FALSE;
    }
    Store *store = store_open_write(cfg, err);
    if (store == NULL)
        return FALSE;
    JobWriter *writer = job_writer_begin(store, path, err);
    if (writer == NULL) {
        store_close(store);
        return FALSE;
    }
    Chunker *chunker = chunker_new(cfg->chunk_algorithm, &cfg->chunk_sizes);
    BoundedQueue *q_read = bounded_queue_new(QUEUE_DEPTH);
    BoundedQueue *q_chunk = bounded_queue_new(QUEUE_DEPTH * 16);
    BoundedQueue *q_hash = bounded_queue_new(QUEUE_DEPTH * 16);
    size_t max_chunk = cfg->chunk_algorithm == CHUNK_FIXED ? cfg->chunk_sizes.avg_size : cfg->chunk_sizes.max_size;
    BoundedQueue *free_blocks = bounded_queue_new(READ_BLOCKS);
    for (int i = 0; i < READ_BLOCKS; i++)
        bounded_queue_push(free_blocks, g_malloc(READ_BLOCK));
    ReadStage rs = { .walker = { .out = q_read, .free_blocks = free_blocks }, .root = path };
    ChunkStage cs = { .in = q_read, .out = q_chunk, .free_blocks = free_blocks, .chunker = chunker,
                      .max_chunk = max_chunk };
    HashStage hs = { .in = q_chunk, .out = q_hash, .alg = store->fingerprint };
    StoreStage ss = { .in = q_hash, .writer = writer, .walker = &rs.walker };
    g_mutex_init(&ss.lock);
    g_cond_init(&ss.finished);

    gint64 start = g_get_monotonic_time();
    StageThread stages[] = {
        { "read", read_stage_run, &rs, NULL, 0 },
        { "chunk", chunk_stage_run, &cs, NULL, 0 },
        { "hash", hash_stage_run, &hs, NULL, 0 },
        { "store", store_stage_run, &ss, NULL, 0 },
    };
    for (guint i = 0; i < G_N_ELEMENTS(stages); i++)
        stages[i].thread = g_thread_new(stages[i].name, stage_thread_main, &stages[i]);
    /* Wait for the store stage, showing progress every 200 ms on a tty. */
    gboolean tty = !json && isatty(STDOUT_FILENO);
    g_mutex_lock(&ss.lock);
    while (!ss.done) {
        if (!g_cond_wait_until(&ss.finished, &ss.lock, g_get_monotonic_time() + 200 * 1000) && tty)
            show_progress(job_writer_progress(writer), start, FALSE);
    }
    g_mutex_unlock(&ss.lock);
    for (guint i = 0; i < G_N_ELEMENTS(stages); i++)
        g_thread_join(stages[i].thread);
    if (tty)
        show_progress(job_writer_progress(writer), start, TRUE);

    JobManifest m = { 0 };
    gboolean ok = ss.error == NULL;
    gint64 commit_start = g_get_monotonic_time();
    if (!ok)
        g_propagate_error(err, ss.error);
    else
        ok = job_writer_commit(writer, rs.walker.skipped, &m, err);
    if (ok) {
        gint64 end = g_get_monotonic_time();
        (json ? print_summary_json : print_summary)(&m, (double)(end - start) / 1e6, stages,
                                                    G_N_ELEMENTS(stages), (double)(end - commit_start) / 1e6);
    }
    job_manifest_clear(&m);
    job_writer_free(writer);
    g_mutex_clear(&ss.lock);
    g_cond_clear(&ss.finished);
    bounded_queue_free(q_read);
    bounded_queue_free(q_chunk);
    bounded_queue_free(q_hash);
    for (int i = 0; i < READ_BLOCKS; i++)
        g_free(bounded_queue_pop(free_blocks));
    bounded_queue_free(free_blocks);
    chunker_free(chunker);
    store_close(store);
    return ok;
}
