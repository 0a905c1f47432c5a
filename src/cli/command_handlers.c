/* SPDX-License-Identifier: GPL-3.0-or-later */
/* command_handlers.c: each command's operand checks, then the command. */
#include "cli/command_handlers.h"
#include "cache/policies/policy_list.h"
#include "commands/backup.h"
#include "commands/delete.h"
#include "commands/gc.h"
#include "commands/mount.h"
#include "commands/read_file.h"
#include "commands/rados_migrate.h"
#include "commands/repair.h"
#include "commands/restore.h"
#include "commands/stat.h"
#include "commands/verify.h"
#include "read/job.h"
#include "trace/trace_compile.h"
#include "trace/trace_export.h"

#include <stdio.h>
#include <string.h>

gboolean command_backup(const Config *cfg, const SubArgs *sa, GError **err)
{
    BackupOptions opt = { .one_file_system = sa->one_file_system, .json = sa->json,
                          .no_files_cache = sa->no_files_cache };
    return command_args_want(sa, 1, "backup PATH [--one-file-system] [--no-files-cache] [--json]", err) &&
           backup_run(cfg, sa->positional->pdata[0], &opt, err);
}

gboolean command_restore(const Config *cfg, const SubArgs *sa, GError **err)
{
    uint32_t job;
    return command_args_want(sa, 2, "restore JOB TARGET [--verify] [--json]", err) &&
           job_id_parse(sa->positional->pdata[0], &job, err) &&
           restore_run(cfg, job, sa->positional->pdata[1], sa->verify, sa->json, err);
}

gboolean command_read_file(const Config *cfg, const SubArgs *sa, GError **err)
{
    FileRange range = { sa->offset, sa->has_length ? sa->length : FILE_RANGE_TO_END };
    ReadFileOptions opt = { .verify = sa->verify, .json = sa->json, .output = sa->output,
                            .null_terminated = sa->null_terminated,
                            .range = sa->has_offset || sa->has_length ? &range : NULL };
    uint32_t job;
    if (sa->trace != NULL && opt.range != NULL)
        return command_usage_error(err, "%s",
                                   "--offset and --length apply to a single file (a trace gives ranges per line)");
    if (sa->trace != NULL && sa->output != NULL)
        return command_usage_error(err, "%s", "-o applies to a single file (a trace's bytes are not kept)");
    if (sa->trace != NULL)
        return command_args_want(sa, 0, "read-file --trace FILE [--null] [--verify] [--json]", err) &&
               read_file_trace(cfg, sa->trace, &opt, err);
    if (sa->null_terminated)
        return command_usage_error(err, "%s", "--null applies to read-file --trace only");
    return command_args_want(sa, 2, "read-file JOB PATH [-o OUT] [--verify | --offset N --length N] [--json]",
                             err) &&
           job_id_parse(sa->positional->pdata[0], &job, err) &&
           read_file_single(cfg, job, sa->positional->pdata[1], &opt, err);
}

/* destor trace compile TRACE -o FILE [--null]
 * destor trace export FILE --format F [-o OUT] */
gboolean command_trace(const Config *cfg, const SubArgs *sa, GError **err)
{
    if (!strcmp(sa->verb, "compile")) {
        if (!command_args_want(sa, 1, "trace compile TRACE -o FILE [--null]", err))
            return FALSE;
        if (sa->format != NULL)
            return command_usage_error(err, "%s", "--format applies to trace export only");
        if (sa->output == NULL)
            return command_usage_error(err, "%s", "trace compile needs -o FILE (the compiled trace to write)");
        return trace_compile_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->output, err);
    }
    if (!strcmp(sa->verb, "export"))
        return command_args_want(sa, 1, "trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]",
                                 err) &&
               trace_export_run(cfg, sa->positional->pdata[0], sa->null_terminated, sa->format, sa->output, err);
    return command_usage_error(err, "%s",
                               "usage: destor trace compile TRACE -o FILE [--null] | "
                               "destor trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]");
}

gboolean command_stat(const Config *cfg, const SubArgs *sa, GError **err)
{
    return command_args_want(sa, 0, "stat [--json]", err) && stat_run(cfg, sa->json, err);
}

gboolean command_list(const Config *cfg, const SubArgs *sa, GError **err)
{
    uint32_t job;
    if (sa->json && sa->null_terminated)
        return command_usage_error(err, "%s", "list takes --null or --json, not both");
    return command_args_want(sa, 1, "list JOB [--null | --json]", err) &&
           job_id_parse(sa->positional->pdata[0], &job, err) &&
           list_run(cfg, job, sa->null_terminated, sa->json, err);
}

gboolean command_verify(const Config *cfg, const SubArgs *sa, GError **err)
{
    uint32_t job;
    int64_t which = -1;
    if (sa->positional->len > 1)
        return command_usage_error(err, "%s", "usage: destor verify [JOB] [--deep] [--json]");
    if (sa->positional->len == 1) {
        if (!job_id_parse(sa->positional->pdata[0], &job, err))
            return FALSE;
        which = job;
    }
    return verify_run(cfg, which, sa->deep, sa->json, err);
}

gboolean command_repair(const Config *cfg, const SubArgs *sa, GError **err)
{
    return command_args_want(sa, 0, "repair [--json]", err) && repair_run(cfg, sa->json, err);
}

gboolean command_rados_migrate(const Config *cfg, const SubArgs *sa, GError **err)
{
    return command_args_want(sa, 0, "rados-migrate", err) && rados_migrate_run(cfg, err);
}

gboolean command_delete(const Config *cfg, const SubArgs *sa, GError **err)
{
    if (sa->positional->len == 0)
        return command_usage_error(err, "%s", "usage: destor delete JOB... [--json]");
    uint32_t *ids = g_new(uint32_t, sa->positional->len);
    gboolean ok = TRUE;
    for (guint i = 0; i < sa->positional->len && ok; i++)
        ok = job_id_parse(sa->positional->pdata[i], &ids[i], err);
    ok = ok && delete_run(cfg, ids, sa->positional->len, sa->json, err);
    g_free(ids);
    return ok;
}

gboolean command_mount(const Config *cfg, const SubArgs *sa, GError **err)
{
    MountOptions opt = { .foreground = sa->foreground, .one_job = sa->has_job, .job = sa->job,
                         .options = sa->output, .json = sa->json };
    if (!command_args_want(sa, 1, "mount [-f] [--job N] [-o OPTIONS] [--json] MOUNTPOINT", err))
        return FALSE;
    opt.mountpoint = sa->positional->pdata[0];
    return mount_run(cfg, &opt, err);
}

gboolean command_gc(const Config *cfg, const SubArgs *sa, GError **err)
{
    return command_args_want(sa, 0, "gc [--json]", err) && gc_run(cfg, sa->json, err);
}

gboolean command_policies(const Config *cfg, const SubArgs *sa, GError **err)
{
    (void)cfg;
    return command_args_want(sa, 0, "policies [--json]", err) && cache_policies_print(sa->json, stdout, err);
}
