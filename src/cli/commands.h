/* SPDX-License-Identifier: GPL-3.0-or-later */
/* commands.h: the table of destor's commands: each one's name, the options
 * it takes, its handler and its help text, so dispatch, `destor COMMAND
 * --help`, the rejection of options a command does not take, and "did you
 * mean" for a mistyped command all come from one place. Adding a command is
 * one row here and its handler. */
#ifndef DESTOR_COMMANDS_H
#define DESTOR_COMMANDS_H

#include "cli/command_args.h"
#include "config/config.h"

#include <glib.h>

/* Options a command may take (bits of CommandSpec.options). */
enum {
    OPT_JSON = 1 << 0,     /* --json */
    OPT_NULL = 1 << 1,     /* --null */
    OPT_DEEP = 1 << 2,     /* --deep */
    OPT_VERIFY = 1 << 3,   /* --verify */
    OPT_OUTPUT = 1 << 4,   /* -o FILE */
    OPT_TRACE = 1 << 5,    /* --trace FILE */
    OPT_RANGE = 1 << 6,    /* --offset N, --length N */
    OPT_SIMULATE = 1 << 7, /* --simulate */
    OPT_FORMAT = 1 << 8,   /* --format F */
    OPT_ONE_FS = 1 << 9,   /* --one-file-system */
    OPT_FOREGROUND = 1 << 10, /* -f */
    OPT_JOB = 1 << 11,     /* --job N */
    OPT_NO_FILES_CACHE = 1 << 12, /* --no-files-cache */
};

typedef struct CommandSpec {
    const char *name;
    unsigned options;
    gboolean takes_verb; /* its first operand is a verb (trace compile|export) */
    /* what it does, given its parsed arguments (command_handlers.h) */
    gboolean (*run)(const Config *cfg, const SubArgs *sa, GError **err);
    const char *help; /* "usage: ..." through the exit status, for --help */
} CommandSpec;

/* The command called name, or NULL. */
const CommandSpec *command_find(const char *name);

/* A command within edit distance 2 of word (the closest), or NULL. */
const CommandSpec *command_near(const char *word);

/* The option bit of a command-line flag (e.g. "--json"), 0 if none. */
unsigned command_option_bit(const char *flag);

/* The global help (`destor --help`). */
extern const char command_usage_text[];

#endif
