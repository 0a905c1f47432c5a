/* SPDX-License-Identifier: GPL-3.0-or-later */
/* command_args.h: a command's own arguments (what follows its name, or its
 * verb): operands and the options of the command table, parsed once for
 * every command, so an option a command does not take is refused the same
 * way everywhere. */
#ifndef DESTOR_COMMAND_ARGS_H
#define DESTOR_COMMAND_ARGS_H

#include <glib.h>
#include <stdint.h>

struct CommandSpec;

typedef struct {
    const char *verb;       /* a command with verbs (trace): the one given, "" if none */
    GPtrArray *positional;  /* operands, in order */
    const char *output, *trace, *format; /* -o: mount's options for mount */
    gboolean verify, json, null_terminated, deep, one_file_system, foreground, no_files_cache;
    gboolean has_offset, has_length, has_job;
    uint64_t offset, length;
    uint32_t job; /* --job N */
} SubArgs;

/* Parse args[from..] for command `spec`: options it does not take are
 * usage errors. */
gboolean command_args_parse(GPtrArray *args, guint from, const struct CommandSpec *spec, SubArgs *sa, GError **err);

/* Exactly n operands, else a usage error quoting `form`. */
gboolean command_args_want(const SubArgs *sa, guint n, const char *form, GError **err);

/* A usage error (exit 2): fmt with one string argument. */
gboolean command_usage_error(GError **err, const char *fmt, const char *arg);

#endif
