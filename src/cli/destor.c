/* SPDX-License-Identifier: GPL-3.0-or-later */
/* destor.c: the command line. Global options (-c FILE, -p"key value"
 * config overrides, --simulate, --help, --version), Destor's legacy forms
 * (destor PATH, -rJOB TARGET, -s), dispatch through the command table
 * (commands.c: name, options, handler, help), and the exit codes:
 * 0 ok, 1 runtime failure, 2 usage or configuration, 3 data integrity. */
#include "cli/commands.h"
#include "config/config.h"
#include "util/error.h"
#include "util/output.h"

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
                return command_usage_error(err, "%s needs a value", a);
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
    /* destor help [COMMAND]: as destor [COMMAND] --help (a directory named
     * help is backed up with destor backup help) */
    gboolean help_word = cl->args->len > 0 && strcmp(cl->args->pdata[0], "help") == 0 &&
                         cl->legacy_restore_job == NULL && !cl->legacy_stat;
    if (help_word && cl->args->len > 2)
        return command_usage_error(err, "%s", "help takes at most one command name (see destor --help)");
    if (help_word && cl->args->len == 2 && command_find(cl->args->pdata[1]) == NULL)
        return command_usage_error(err, "help: no command '%s' (see destor --help)", cl->args->pdata[1]);
    if (cl->help || help_word) {
        guint at = help_word ? 1 : 0;
        const CommandSpec *c = cl->args->len > at ? command_find(cl->args->pdata[at]) : NULL;
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
    const CommandSpec *backup = command_find("backup");
    return command_args_parse(args, 0, backup, sa, err) && command_args_want(sa, 1, "PATH", err) &&
           backup->run(cfg, sa, err);
}

/* The command named, or a legacy form, through the command table. */
static gboolean dispatch(const CommandLine *cl, const Config *cfg, GError **err)
{
    GPtrArray *args = cl->args;
    SubArgs sa = { .positional = g_ptr_array_new() };
    gboolean ok = FALSE;
    const char *cmd = args->len > 0 ? args->pdata[0] : NULL;
    const CommandSpec *spec = cl->legacy_restore_job ? command_find("restore")
                              : cl->legacy_stat      ? command_find("stat")
                              : cmd != NULL          ? command_find(cmd)
                                                     : NULL;
    if (cl->simulate && (spec == NULL || !(spec->options & OPT_SIMULATE))) {
        ok = command_usage_error(err, "--simulate applies to read-file only (see destor %s --help)",
                                 spec != NULL ? spec->name : "read-file");
    } else if (cl->legacy_restore_job != NULL) {
        /* destor -rJOB TARGET: restore's operands are JOB TARGET */
        ok = command_args_parse(args, 0, spec, &sa, err) && command_args_want(&sa, 1, "-rJOB TARGET", err);
        if (ok) {
            g_ptr_array_insert(sa.positional, 0, (gpointer)cl->legacy_restore_job);
            ok = spec->run(cfg, &sa, err);
        }
    } else if (cl->legacy_stat) {
        ok = command_args_parse(args, 0, spec, &sa, err) && spec->run(cfg, &sa, err);
    } else if (cmd == NULL) {
        ok = command_usage_error(err, "%s", "no command given (see destor --help)");
    } else if (spec == NULL && cmd[0] == '-') {
        ok = command_usage_error(err, "unknown option %s (see destor --help)", cmd);
    } else if (spec == NULL) {
        ok = legacy_backup(cfg, args, &sa, err);
    } else {
        sa.verb = spec->takes_verb ? (args->len > 1 ? args->pdata[1] : "") : NULL;
        ok = command_args_parse(args, spec->takes_verb ? 2 : 1, spec, &sa, err) && spec->run(cfg, &sa, err);
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
