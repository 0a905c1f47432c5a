/* destor.c: the command line. Subcommands (commands.c lists them with
 * their help and options) plus Destor's legacy flags (destor PATH, -rJOB TARGET, -s),
 * -c FILE and -p"key value" config overrides, and the exit codes:
 * 0 ok, 1 runtime failure, 2 usage or configuration, 3 data integrity. */
#include "backup/backup.h"
#include "commands.h"
#include "cache/policy_list.h"
#include "config.h"
#include "repair.h"
#include "restore/job.h"
#include "restore/read_file.h"
#include "restore/restore.h"
#include "stat.h"
#include "trace/trace_compile.h"
#include "trace/trace_export.h"
#include "util/error.h"
#include "util/output.h"
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

typedef struct {
    const char *config_file;
    GPtrArray *overrides; /* "key value" lines */
    GPtrArray *args;      /* everything else, in order */
    const char *legacy_restore_job;
    gboolean legacy_stat;
    gboolean simulate; /* --simulate: the SSD cache runs on ids only */
    gboolean help;     /* -h, --help: of the command named, else global */
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
            cl->help = TRUE;
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
    if (cl->help) {
        const CommandSpec *c = cl->args->len > 0 ? command_find(cl->args->pdata[0]) : NULL;
        fputs(c != NULL ? c->help : command_usage_text, stdout);
        *done = TRUE;
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
        g_snprintf(origin, sizeof origin, "-p override #%u", i + 1);
        if (!config_apply_line(cfg, cl->overrides->pdata[i], origin, 0, err))
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

/* The arguments of command `spec` from args[from]: options it does not take
 * are usage errors. */
static gboolean parse_sub(GPtrArray *args, guint from, const CommandSpec *spec, SubArgs *sa, GError **err)
{
    gboolean operands = FALSE; /* after "--" */
    for (guint i = from; i < args->len; i++) {
        const char *a = args->pdata[i];
        unsigned bit = operands ? 0 : command_option_bit(a);
        if (bit != 0 && !(spec->options & bit)) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s does not take %s (see destor %s --help)",
                        spec->name, a, spec->name);
            return FALSE;
        }
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
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "unknown option %s (see destor %s --help)", a,
                        spec->name);
            return FALSE;
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

/* destor trace compile TRACE -o FILE [--null]
 * destor trace export FILE --format F [-o OUT] */
static gboolean trace_command(GPtrArray *args, const CommandSpec *spec, SubArgs *sa, const Config *cfg,
                             GError **err)
{
    const char *verb = args->len > 1 ? args->pdata[1] : "";
    if (!strcmp(verb, "compile")) {
        if (!parse_sub(args, 2, spec, sa, err) || !want_args(sa, 1, "trace compile TRACE -o FILE [--null]", err))
            return FALSE;
        if (sa->format != NULL)
            return usage_error(err, "%s", "--format applies to trace export only");
        if (sa->output == NULL)
            return usage_error(err, "%s", "trace compile needs -o FILE (the compiled trace to write)");
        return trace_compile_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->output, err);
    }
    if (!strcmp(verb, "export")) {
        if (!parse_sub(args, 2, spec, sa, err) ||
            !want_args(sa, 1, "trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]", err))
            return FALSE;
        return trace_export_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->format, sa->output, err);
    }
    return usage_error(err, "%s", "usage: destor trace compile TRACE -o FILE [--null] | "
                                  "destor trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]");
}

static gboolean read_file_command(const Config *cfg, SubArgs *sa, GError **err)
{
    FileRange range = { sa->offset, sa->has_length ? sa->length : FILE_RANGE_TO_END };
    ReadFileOptions opt = { .verify = sa->verify, .json = sa->json, .output = sa->output,
                            .null_terminated = sa->null_terminated,
                            .range = sa->has_offset || sa->has_length ? &range : NULL };
    uint32_t job;
    if (sa->trace != NULL && opt.range != NULL)
        return usage_error(err, "%s", "--offset and --length apply to a single file (a trace gives ranges per line)");
    if (sa->trace != NULL && sa->output != NULL)
        return usage_error(err, "%s", "-o applies to a single file (a trace's bytes are not kept)");
    if (sa->trace != NULL)
        return want_args(sa, 0, "read-file --trace FILE [--null] [--verify] [--json]", err) &&
               read_file_trace(cfg, sa->trace, &opt, err);
    if (sa->null_terminated)
        return usage_error(err, "%s", "--null applies to read-file --trace only");
    return want_args(sa, 2, "read-file JOB PATH [-o OUT] [--verify | --offset N --length N] [--json]", err) &&
           job_id_parse(sa->positional->pdata[0], &job, err) &&
           read_file_single(cfg, job, sa->positional->pdata[1], &opt, err);
}

static gboolean verify_command(const Config *cfg, SubArgs *sa, GError **err)
{
    uint32_t job;
    int64_t which = -1;
    if (sa->positional->len > 1)
        return usage_error(err, "%s", "usage: destor verify [JOB] [--deep] [--json]");
    if (sa->positional->len == 1) {
        if (!job_id_parse(sa->positional->pdata[0], &job, err))
            return FALSE;
        which = job;
    }
    return verify_run(cfg, which, sa->deep, sa->json, err);
}

static gboolean run_backup(const Config *cfg, const SubArgs *sa, GError **err)
{
    BackupOptions opt = { .one_file_system = sa->one_file_system, .json = sa->json };
    return backup_run(cfg, sa->positional->pdata[0], &opt, err);
}

/* Legacy Destor: destor PATH backs PATH up, unless PATH is (nearly) a
 * command name: a typo must never start a backup. */
static gboolean legacy_backup(const Config *cfg, GPtrArray *args, SubArgs *sa, GError **err)
{
    const char *word = args->pdata[0];
    const CommandSpec *near = command_near(word);
    if (near != NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                    "unknown command '%s'; did you mean '%s'? To back up a directory of that name: destor backup %s",
                    word, near->name, word);
        return FALSE;
    }
    return parse_sub(args, 0, command_find("backup"), sa, err) && want_args(sa, 1, "PATH", err) &&
           run_backup(cfg, sa, err);
}

static gboolean dispatch(const CommandLine *cl, const Config *cfg, GError **err)
{
    GPtrArray *args = cl->args;
    SubArgs sa = { .positional = g_ptr_array_new() };
    gboolean ok = FALSE;
    uint32_t job;
    const char *cmd = args->len > 0 ? args->pdata[0] : NULL;
    const CommandSpec *spec = cl->legacy_restore_job ? command_find("restore")
                              : cl->legacy_stat      ? command_find("stat")
                              : cmd != NULL          ? command_find(cmd)
                                                     : NULL;
    if (cl->simulate && (spec == NULL || !(spec->options & OPT_SIMULATE))) {
        ok = usage_error(err, "--simulate applies to read-file only (see destor %s --help)",
                         spec != NULL ? spec->name : "read-file");
    } else if (cl->legacy_restore_job != NULL) {
        ok = parse_sub(args, 0, spec, &sa, err) && want_args(&sa, 1, "-rJOB TARGET", err) &&
             job_id_parse(cl->legacy_restore_job, &job, err) &&
             restore_run(cfg, job, sa.positional->pdata[0], sa.json, err);
    } else if (cl->legacy_stat) {
        ok = parse_sub(args, 0, spec, &sa, err) && want_args(&sa, 0, "stat [--json]", err) &&
             stat_run(cfg, sa.json, err);
    } else if (cmd == NULL) {
        ok = usage_error(err, "%s", "no command given (see destor --help)");
    } else if (spec == NULL && cmd[0] == '-') {
        ok = usage_error(err, "unknown option %s (see destor --help)", cmd);
    } else if (spec == NULL) {
        ok = legacy_backup(cfg, args, &sa, err);
    } else if (!strcmp(cmd, "trace")) {
        ok = trace_command(args, spec, &sa, cfg, err);
    } else if (!parse_sub(args, 1, spec, &sa, err)) {
        ok = FALSE;
    } else if (!strcmp(cmd, "stat")) {
        ok = want_args(&sa, 0, "stat [--json]", err) && stat_run(cfg, sa.json, err);
    } else if (!strcmp(cmd, "backup")) {
        ok = want_args(&sa, 1, "backup PATH [--one-file-system] [--json]", err) && run_backup(cfg, &sa, err);
    } else if (!strcmp(cmd, "restore")) {
        ok = want_args(&sa, 2, "restore JOB TARGET [--json]", err) &&
             job_id_parse(sa.positional->pdata[0], &job, err) &&
             restore_run(cfg, job, sa.positional->pdata[1], sa.json, err);
    } else if (!strcmp(cmd, "read-file")) {
        ok = read_file_command(cfg, &sa, err);
    } else if (!strcmp(cmd, "list")) {
        if (sa.json && sa.null_terminated)
            ok = usage_error(err, "%s", "list takes --null or --json, not both");
        else
            ok = want_args(&sa, 1, "list JOB [--null | --json]", err) &&
                 job_id_parse(sa.positional->pdata[0], &job, err) &&
                 list_run(cfg, job, sa.null_terminated, sa.json, err);
    } else if (!strcmp(cmd, "verify")) {
        ok = verify_command(cfg, &sa, err);
    } else if (!strcmp(cmd, "repair")) {
        ok = want_args(&sa, 0, "repair [--json]", err) && repair_run(cfg, sa.json, err);
    } else if (!strcmp(cmd, "policies")) {
        ok = want_args(&sa, 0, "policies [--json]", err) && cache_policies_print(sa.json, stdout, err);
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
    destor_log_install();
    gboolean ok = parse_global(argc, argv, &cl, &done, &err);
    if (ok && !done)
        ok = load_config(&cl, &cfg, &err) && dispatch(&cl, &cfg, &err);
    if (ok)
        ok = output_finish(&err);
    int status = ok ? DESTOR_EXIT_OK : destor_exit_status(err);
    if (!ok) {
        destor_print_error(err ? err->message : "failed");
        g_clear_error(&err);
    }
    config_clear(&cfg);
    g_ptr_array_unref(cl.overrides);
    g_ptr_array_unref(cl.args);
    return status;
}
