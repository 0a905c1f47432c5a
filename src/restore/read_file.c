/* read_file.c: read-file for one path, and the batch mode over a trace
 * with its latency summary (text or JSON). */
#include "restore/read_file.h"
#include "restore/read_session.h"
#include "restore/trace_line.h"
#include "restore/trace_reader.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean read_file_single(const Config *cfg, uint32_t job_id, const char *path,
                          const ReadFileOptions *opt, GError **err)
{
    if (opt->verify && opt->range != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "--verify checks a whole file's SHA-256; it cannot be combined with --offset or --length");
        return FALSE;
    }
    ReadSession *s = read_session_open(cfg, err);
    if (s == NULL)
        return FALSE;
    int fd = STDOUT_FILENO;
    const char *name = "standard output";
    char *tmp = NULL;
    if (opt->output != NULL) {
        /* Write beside OUT and rename, so a failed read leaves OUT as it was. */
        tmp = g_strdup_printf("%s.destor-tmp", opt->output);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        name = opt->output;
        if (fd < 0) {
            destor_set_errno(err, errno, "create %s", tmp);
            g_free(tmp);
            read_session_close(s);
            return FALSE;
        }
    }
    uint64_t bytes = 0;
    double model_s = 0.0;
    gboolean ok = read_session_request(s, job_id, path, opt->range, fd, name, opt->verify, &bytes, &model_s, err);
    if (opt->output != NULL) {
        if (close(fd) != 0 && ok) {
            destor_set_errno(err, errno, "close %s", tmp);
            ok = FALSE;
        }
        if (ok && rename(tmp, opt->output) != 0) {
            destor_set_errno(err, errno, "rename %s to %s", tmp, opt->output);
            ok = FALSE;
        }
        if (!ok)
            unlink(tmp);
        g_free(tmp);
    }
    read_session_close(s);
    return ok;
}

typedef struct {
    uint64_t requests, bytes;
    GArray *latency_usec;       /* measured, double per request */
    GArray *model_latency_usec; /* modelled by the SSD cache's device model */
    double seconds;
} TraceSummary;

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const GArray *sorted, double p)
{
    if (sorted->len == 0)
        return 0.0;
    size_t rank = (size_t)(p / 100.0 * sorted->len + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > sorted->len)
        rank = sorted->len;
    return g_array_index(sorted, double, rank - 1);
}

typedef struct {
    double mean, p50, p95, p99;
} LatencyFigures;

static LatencyFigures latency_figures(GArray *usec)
{
    g_array_sort(usec, compare_double);
    double sum = 0;
    for (guint i = 0; i < usec->len; i++)
        sum += g_array_index(usec, double, i);
    return (LatencyFigures){ usec->len ? sum / usec->len : 0.0, percentile(usec, 50), percentile(usec, 95),
                             percentile(usec, 99) };
}

/* The request summary, then the SSD cache's statistics when there is one
 * (in JSON as the nested object "cache"). Modelled latencies come with a
 * cache, and in simulation without one (HDD only: one modelled HDD read
 * per access). In simulation no container bytes move: the text says so
 * beside the bytes and the measured times, which then time the simulator. */
static void print_summary(const TraceSummary *t, uint64_t accesses, CacheCore *cache, gboolean simulate,
                          gboolean json)
{
    gboolean modelled = cache != NULL || simulate;
    LatencyFigures m = latency_figures(t->latency_usec);
    LatencyFigures d = latency_figures(t->model_latency_usec);
    if (json) {
        printf("{\"requests\": %llu, \"bytes\": %llu, \"container_accesses\": %llu, \"seconds\": %.6f, "
               "\"latency_usec\": {\"mean\": %.1f, \"p50\": %.1f, \"p95\": %.1f, \"p99\": %.1f}, ",
               (unsigned long long)t->requests, (unsigned long long)t->bytes, (unsigned long long)accesses,
               t->seconds, m.mean, m.p50, m.p95, m.p99);
        if (modelled)
            printf("\"latency_model_usec\": {\"mean\": %.1f, \"p50\": %.1f, \"p95\": %.1f, \"p99\": %.1f}, ",
                   d.mean, d.p50, d.p95, d.p99);
        printf("\"cache\": ");
        if (cache != NULL)
            cache_core_print_stats(cache, TRUE, stdout);
        else
            printf("null");
        printf("}\n");
        return;
    }
    printf("requests            %llu\n", (unsigned long long)t->requests);
    printf("bytes read          %llu%s\n", (unsigned long long)t->bytes, simulate ? " (simulated: none moved)" : "");
    printf("container accesses  %llu\n", (unsigned long long)accesses);
    printf("elapsed             %.3f s\n", t->seconds);
    printf("latency (measured)  mean %.1f us, p50 %.1f us, p95 %.1f us, p99 %.1f us%s\n", m.mean, m.p50, m.p95,
           m.p99, simulate ? " (the simulator, no I/O)" : "");
    if (modelled)
        printf("latency (modelled)  mean %.1f us, p50 %.1f us, p95 %.1f us, p99 %.1f us%s\n", d.mean, d.p50, d.p95,
               d.p99, cache == NULL ? " (HDD only, device model)" : "");
    if (cache != NULL)
        cache_core_print_stats(cache, FALSE, stdout);
}

/* Open the trace: "-" is standard input; a directory is a usage error. */
static int open_trace(const char *trace_path, GError **err)
{
    if (strcmp(trace_path, "-") == 0)
        return STDIN_FILENO;
    int fd = open(trace_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "trace %s is a directory, not a trace file", trace_path);
        return -1;
    }
    if (fd < 0) {
        destor_set_errno(err, errno, "open trace %s", trace_path);
        (*err)->code = DESTOR_ERROR_USAGE;
    }
    return fd;
}

gboolean read_file_trace(const Config *cfg, const char *trace_path, const ReadFileOptions *opt, GError **err)
{
    int trace = open_trace(trace_path, err);
    if (trace < 0)
        return FALSE;
    ReadSession *s = read_session_open(cfg, err);
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (s == NULL || null_fd < 0) {
        if (s != NULL)
            destor_set_errno(err, errno, "open /dev/null");
        read_session_close(s);
        if (trace != STDIN_FILENO)
            close(trace);
        return FALSE;
    }
    TraceSummary t = { .latency_usec = g_array_new(FALSE, FALSE, sizeof(double)),
                       .model_latency_usec = g_array_new(FALSE, FALSE, sizeof(double)) };
    TraceReader *reader = trace_reader_new(trace, trace_path, opt->null_terminated, NULL, 0);
    gboolean ok = TRUE;
    char *line;
    int lineno, got;
    gint64 start = g_get_monotonic_time();
    while (ok && (got = trace_reader_next(reader, &line, &lineno, err)) != 0) {
        if (got < 0) {
            ok = FALSE;
            break;
        }
        TraceRequest req;
        ok = trace_line_parse(line, trace_path, lineno, &req, err);
        if (ok && req.ranged && opt->verify) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "%s:%d: a range request, but --verify checks whole files only", trace_path, lineno);
            ok = FALSE;
        }
        gint64 t0 = g_get_monotonic_time();
        double model_s = 0.0;
        if (ok)
            ok = read_session_request(s, req.job, req.path, req.ranged ? &req.range : NULL, null_fd, "/dev/null",
                                      opt->verify, &t.bytes, &model_s, err);
        if (ok) {
            double usec = (double)(g_get_monotonic_time() - t0), model_usec = model_s * 1e6;
            g_array_append_val(t.latency_usec, usec);
            g_array_append_val(t.model_latency_usec, model_usec);
            t.requests++;
        } else if (err && *err && !g_str_has_prefix((*err)->message, trace_path)) {
            g_prefix_error(err, "%s:%d: ", trace_path, lineno);
        }
    }
    t.seconds = (double)(g_get_monotonic_time() - start) / 1e6;
    if (ok)
        print_summary(&t, container_lru_fetches(s->lru), s->cache, s->simulate, opt->json);
    trace_reader_free(reader);
    g_array_unref(t.latency_usec);
    g_array_unref(t.model_latency_usec);
    close(null_fd);
    read_session_close(s);
    if (trace != STDIN_FILENO)
        close(trace);
    return ok;
}
