/* destor.c: the command line. Subcommands (backup, restore, read-file,
 * stat, list, verify, policies) plus Destor's legacy flags (destor PATH, -rJOB TARGET, -s),
 * -c FILE and -p"key value" config overrides, and the exit codes:
 * 0 ok, 1 runtime failure, 2 usage or configuration, 3 data integrity. */
#include "backup/backup.h"
#include "cache/policy_list.h"
#include "config.h"
#include "restore/job.h"
#include "restore/read_file.h"
#include "repair.h"
#include "restore/restore.h"
#include "stat.h"
#include "trace/trace_compile.h"
#include "trace/trace_export.h"
#include "util/error.h"
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char usage_text[] =
    "usage: destor [-c FILE] [-p\"KEY VALUE\"]... COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  backup PATH [--one-file-system]\n"
    "                              ingest a file or directory tree as a new job; exit 1 if\n"
    "                              entries could not be read (the job keeps the rest);\n"
    "                              --one-file-system: do not descend into other file systems\n"
    "                              (their mount points are kept as empty directories)\n"
    "  restore JOB TARGET          recreate job JOB's tree under TARGET\n"
    "  read-file JOB PATH [-o OUT] [--verify | --offset N --length N]\n"
    "                              write one stored file, or N bytes of it from offset N\n"
    "                              (cut at its end), to stdout or OUT\n"
    "  read-file --trace FILE [--null] [--verify] [--json] [--simulate]\n"
    "                              serve every 'JOB<TAB>PATH[<TAB>OFFSET<TAB>LENGTH]' line of\n"
    "                              FILE, print a summary;\n"
    "                              --null: records end with NUL (paths with newlines);\n"
    "                              --simulate runs the SSD cache on container ids only\n"
    "                              FILE may be a compiled trace (detected by its magic)\n"
    "  trace compile TRACE -o FILE [--null]\n"
    "                              resolve TRACE once into its container-access sequence\n"
    "                              (replayed by read-file --trace FILE without path lookups)\n"
    "  trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]\n"
    "                              the container-access sequence for libCacheSim's cachesim\n"
    "  stat [--json]               what the store holds, per job and in total\n"
    "  list JOB [--null]           the entries of job JOB: TYPE<TAB>SIZE<TAB>PATH\n"
    "  verify [JOB] [--deep] [--json]\n"
    "                              check the store (read-only); --deep rehashes every chunk\n"
    "  repair                      rebuild the derived structures (fingerprint index,\n"
    "                              recipe indexes, reference counts) from the stored data\n"
    "  policies [--json]           the SSD cache policies: description, citation,\n"
    "                              online/offline, their keys with defaults\n"
    "\n"
    "legacy Destor forms: destor PATH (backup), destor -rJOB TARGET (restore), destor -s (stat)\n"
    "\n"
    "options:\n"
    "  -c FILE            config file (default ./destor.config if present)\n"
    "  -p\"KEY VALUE\"      override one config line (repeatable)\n"
    "  -h, --help         this help;  --version  the version\n"
    "  --                 end of options: later arguments are paths, even if they start with -\n"
    "\n"
    "exit status: 0 ok, 1 runtime failure, 2 usage or configuration error,\n"
    "             3 data integrity error (damaged or inconsistent store)\n";

typedef struct {
    const char *config_file;
    GPtrArray *overrides; /* "key value" lines */
    GPtrArray *args;      /* everything else, in order */
    const char *legacy_restore_job;
    gboolean legacy_stat;
    gboolean simulate; /* --simulate: the SSD cache runs on ids only */
} CommandLine;

static gboolean usage_error(GError **err, const char *fmt, const char *arg)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, fmt, arg);
    return FALSE;
}

static gboolean parse_global(int argc, char **argv, CommandLine *cl, gboolean *done, GError **err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            *done = TRUE;
            return TRUE;
        } else if (!strcmp(a, "--version")) {
            printf("destor-plc %s\n", PACKAGE_VERSION);
            *done = TRUE;
            return TRUE;
        } else if (!strcmp(a, "-c") || !strcmp(a, "-p")) {
            if (i + 1 >= argc)
                return usage_error(err, "%s needs a value", a);
            if (a[1] == 'c')
                cl->config_file = argv[++i];
            else
                g_ptr_array_add(cl->overrides, argv[++i]);
        } else if (!strncmp(a, "-c", 2) && a[2]) {
            cl->config_file = a + 2;
        } else if (!strncmp(a, "-p", 2) && a[2]) {
            g_ptr_array_add(cl->overrides, (gpointer)(a + 2));
        } else if (!strcmp(a, "--")) {
            /* End of options: what follows are operands, even "-x" paths. */
            for (; i < argc; i++)
                g_ptr_array_add(cl->args, argv[i]);
            break;
        } else if (!strcmp(a, "-s")) {
            cl->legacy_stat = TRUE;
        } else if (!strcmp(a, "--simulate")) {
            cl->simulate = TRUE;
        } else if (!strncmp(a, "-r", 2) && (a[2] || i + 1 < argc)) {
            cl->legacy_restore_job = a[2] ? a + 2 : argv[++i];
        } else {
            g_ptr_array_add(cl->args, (gpointer)a);
        }
    }
    return TRUE;
}

static gboolean load_config(const CommandLine *cl, Config *cfg, GError **err)
{
    config_init(cfg);
    const char *file = cl->config_file;
    if (file == NULL && g_file_test("destor.config", G_FILE_TEST_EXISTS))
        file = "destor.config";
    if (file != NULL && !config_load_file(cfg, file, err))
        return FALSE;
    for (guint i = 0; i < cl->overrides->len; i++) {
        char origin[32];
        g_snprintf(origin, sizeof origin, "-p #%u", i + 1);
        if (!config_apply_line(cfg, cl->overrides->pdata[i], origin, 1, err))
            return FALSE;
    }
    if (cl->simulate)
        cfg->simulate = cfg->cache.simulate = TRUE;
    return config_validate(cfg, err);
}

/* Sub-command arguments: positionals, -o VALUE, --trace VALUE, flags. */
typedef struct {
    GPtrArray *positional;
    const char *output, *trace, *format;
    gboolean verify, json, null_terminated, deep, one_file_system;
    gboolean has_offset, has_length;
    uint64_t offset, length;
} SubArgs;

/* A byte count for --offset/--length: decimal digits, no overflow. */
static gboolean parse_count(const char *opt, const char *text, uint64_t *v, GError **err)
{
    char *end = NULL;
    errno = 0;
    unsigned long long x = g_ascii_strtoull(text, &end, 10);
    if (!g_ascii_isdigit(text[0]) || *end != '\0' || errno != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s '%s' is not a byte count (expected a number like 4096)",
                    opt, text);
        return FALSE;
    }
    *v = x;
    return TRUE;
}

static gboolean parse_sub(GPtrArray *args, guint from, SubArgs *sa, GError **err)
{
    gboolean operands = FALSE; /* after "--" */
    for (guint i = from; i < args->len; i++) {
        const char *a = args->pdata[i];
        if (operands) {
            g_ptr_array_add(sa->positional, (gpointer)a);
        } else if (!strcmp(a, "--")) {
            operands = TRUE;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--trace") || !strcmp(a, "--format")) {
            if (i + 1 >= args->len)
                return usage_error(err, "%s needs a value", a);
            *(a[1] == 'o' ? &sa->output : a[2] == 't' ? &sa->trace : &sa->format) = args->pdata[++i];
        } else if (!strcmp(a, "--offset") || !strcmp(a, "--length")) {
            if (i + 1 >= args->len)
                return usage_error(err, "%s needs a value", a);
            gboolean off = a[2] == 'o';
            if (!parse_count(a, args->pdata[++i], off ? &sa->offset : &sa->length, err))
                return FALSE;
            *(off ? &sa->has_offset : &sa->has_length) = TRUE;
        } else if (!strcmp(a, "--verify")) {
            sa->verify = TRUE;
        } else if (!strcmp(a, "--json")) {
            sa->json = TRUE;
        } else if (!strcmp(a, "--null")) {
            sa->null_terminated = TRUE;
        } else if (!strcmp(a, "--deep")) {
            sa->deep = TRUE;
        } else if (!strcmp(a, "--one-file-system")) {
            sa->one_file_system = TRUE;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error(err, "unknown option %s (see destor --help)", a);
        } else {
            g_ptr_array_add(sa->positional, (gpointer)a);
        }
    }
    return TRUE;
}

static gboolean want_args(const SubArgs *sa, guint n, const char *form, GError **err)
{
    if (sa->positional->len != n)
        return usage_error(err, "usage: destor %s", form);
    return TRUE;
}

static gboolean run_backup(const Config *cfg, const SubArgs *sa, GError **err)
{
    BackupOptions opt = { .one_file_system = sa->one_file_system };
    return backup_run(cfg, sa->positional->pdata[0], &opt, err);
}

/* destor trace compile TRACE -o FILE [--null]
 * destor trace export FILE --format F [-o OUT] */
static gboolean trace_command(GPtrArray *args, SubArgs *sa, const Config *cfg, GError **err)
{
    const char *verb = args->len > 1 ? args->pdata[1] : "";
    if (!strcmp(verb, "compile")) {
        if (!parse_sub(args, 2, sa, err) || !want_args(sa, 1, "trace compile TRACE -o FILE [--null]", err))
            return FALSE;
        if (sa->output == NULL)
            return usage_error(err, "%s", "trace compile needs -o FILE (the compiled trace to write)");
        return trace_compile_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->output, err);
    }
    if (!strcmp(verb, "export")) {
        if (!parse_sub(args, 2, sa, err) ||
            !want_args(sa, 1, "trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]", err))
            return FALSE;
        return trace_export_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->format, sa->output, err);
    }
    return usage_error(err, "%s", "usage: destor trace compile TRACE -o FILE [--null] | "
                                  "destor trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]");
}

static gboolean dispatch(const CommandLine *cl, const Config *cfg, GError **err)
{
    GPtrArray *args = cl->args;
    SubArgs sa = { .positional = g_ptr_array_new() };
    gboolean ok = FALSE;
    uint32_t job;
    const char *cmd = args->len > 0 ? args->pdata[0] : NULL;
    if (cl->legacy_restore_job != NULL) {
        ok = parse_sub(args, 0, &sa, err) && want_args(&sa, 1, "-rJOB TARGET", err) &&
             job_id_parse(cl->legacy_restore_job, &job, err) &&
             restore_run(cfg, job, sa.positional->pdata[0], err);
    } else if (cl->legacy_stat || (cmd && !strcmp(cmd, "stat"))) {
        ok = parse_sub(args, cl->legacy_stat ? 0 : 1, &sa, err) && want_args(&sa, 0, "stat [--json]", err) &&
             stat_run(cfg, sa.json, err);
    } else if (cmd == NULL) {
        ok = usage_error(err, "%s", "no command given (see destor --help)");
    } else if (!strcmp(cmd, "backup")) {
        ok = parse_sub(args, 1, &sa, err) && want_args(&sa, 1, "backup PATH [--one-file-system]", err) &&
             run_backup(cfg, &sa, err);
    } else if (!strcmp(cmd, "restore")) {
        ok = parse_sub(args, 1, &sa, err) && want_args(&sa, 2, "restore JOB TARGET", err) &&
             job_id_parse(sa.positional->pdata[0], &job, err) &&
             restore_run(cfg, job, sa.positional->pdata[1], err);
    } else if (!strcmp(cmd, "read-file")) {
        ok = parse_sub(args, 1, &sa, err);
        FileRange range = { sa.offset, sa.has_length ? sa.length : FILE_RANGE_TO_END };
        ReadFileOptions opt = { .verify = sa.verify, .json = sa.json, .output = sa.output,
                                .null_terminated = sa.null_terminated,
                                .range = sa.has_offset || sa.has_length ? &range : NULL };
        if (ok && sa.trace != NULL && opt.range != NULL)
            ok = usage_error(err, "%s", "--offset and --length apply to a single file (a trace gives ranges per line)");
        else if (ok && sa.trace != NULL)
            ok = want_args(&sa, 0, "read-file --trace FILE [--null] [--verify] [--json]", err) &&
                 read_file_trace(cfg, sa.trace, &opt, err);
        else if (ok && sa.null_terminated)
            ok = usage_error(err, "%s", "--null applies to read-file --trace only");
        else if (ok)
            ok = want_args(&sa, 2, "read-file JOB PATH [-o OUT] [--verify | --offset N --length N]", err) &&
                 job_id_parse(sa.positional->pdata[0], &job, err) &&
                 read_file_single(cfg, job, sa.positional->pdata[1], &opt, err);
    } else if (!strcmp(cmd, "policies")) {
        ok = parse_sub(args, 1, &sa, err) && want_args(&sa, 0, "policies [--json]", err) &&
             cache_policies_print(sa.json, stdout, err);
    } else if (!strcmp(cmd, "trace")) {
        ok = trace_command(args, &sa, cfg, err);
    } else if (!strcmp(cmd, "list")) {
        ok = parse_sub(args, 1, &sa, err) && want_args(&sa, 1, "list JOB [--null]", err) &&
             job_id_parse(sa.positional->pdata[0], &job, err) && list_run(cfg, job, sa.null_terminated, err);
    } else if (!strcmp(cmd, "verify")) {
        ok = parse_sub(args, 1, &sa, err);
        if (ok && sa.positional->len > 1)
            ok = usage_error(err, "%s", "usage: destor verify [JOB] [--deep] [--json]");
        int64_t which = -1;
        if (ok && sa.positional->len == 1 && (ok = job_id_parse(sa.positional->pdata[0], &job, err)))
            which = job;
        ok = ok && verify_run(cfg, which, sa.deep, sa.json, err);
    } else if (!strcmp(cmd, "repair")) {
        ok = parse_sub(args, 1, &sa, err) && want_args(&sa, 0, "repair", err) && repair_run(cfg, err);
    } else if (cmd[0] != '-') {
        /* Legacy Destor: destor PATH backs PATH up. */
        ok = parse_sub(args, 0, &sa, err) && want_args(&sa, 1, "PATH", err) && run_backup(cfg, &sa, err);
    } else {
        ok = usage_error(err, "unknown option %s (see destor --help)", cmd);
    }
    g_ptr_array_unref(sa.positional);
    return ok;
}

int main(int argc, char **argv)
{
    CommandLine cl = { .overrides = g_ptr_array_new(), .args = g_ptr_array_new() };
    Config cfg = { 0 };
    GError *err = NULL;
    gboolean done = FALSE;
    gboolean ok = parse_global(argc, argv, &cl, &done, &err);
    if (ok && !done)
        ok = load_config(&cl, &cfg, &err) && dispatch(&cl, &cfg, &err);
    int status = ok ? DESTOR_EXIT_OK : destor_exit_status(err);
    if (!ok) {
        fflush(stdout);
        fprintf(stderr, "destor: %s\n", err ? err->message : "failed");
        g_clear_error(&err);
    }
    config_clear(&cfg);
    g_ptr_array_unref(cl.overrides);
    g_ptr_array_unref(cl.args);
    return status;
}
