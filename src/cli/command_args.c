/* SPDX-License-Identifier: GPL-3.0-or-later */
/* command_args.c: parsing a command's options and operands. */
#include "cli/command_args.h"
#include "cli/commands.h"
#include "read/job.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>

gboolean command_usage_error(GError **err, const char *fmt, const char *arg)
{
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, fmt, arg);
    return FALSE;
}

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

gboolean command_args_parse(GPtrArray *args, guint from, const CommandSpec *spec, SubArgs *sa, GError **err)
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
                return command_usage_error(err, "%s needs a value", a);
            *(a[1] == 'o' ? &sa->output : a[2] == 't' ? &sa->trace : &sa->format) = args->pdata[++i];
        } else if (!strcmp(a, "--offset") || !strcmp(a, "--length")) {
            if (i + 1 >= args->len)
                return command_usage_error(err, "%s needs a value", a);
            gboolean off = a[2] == 'o';
            if (!parse_count(a, args->pdata[++i], off ? &sa->offset : &sa->length, err))
                return FALSE;
            *(off ? &sa->has_offset : &sa->has_length) = TRUE;
        } else if (!strcmp(a, "--job")) {
            if (i + 1 >= args->len)
                return command_usage_error(err, "%s needs a value", a);
            if (!job_id_parse(args->pdata[++i], &sa->job, err))
                return FALSE;
            sa->has_job = TRUE;
        } else if (!strcmp(a, "-f")) {
            sa->foreground = TRUE;
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
        } else if (!strcmp(a, "--no-files-cache")) {
            sa->no_files_cache = TRUE;
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

gboolean command_args_want(const SubArgs *sa, guint n, const char *form, GError **err)
{
    if (sa->positional->len != n)
        return command_usage_error(err, "usage: destor %s", form);
    return TRUE;
}
