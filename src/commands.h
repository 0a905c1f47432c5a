/* commands.h: the table of destor's commands: each one's synopsis, help
 * text and the options it takes, so `destor COMMAND --help`, the rejection
 * of options a command does not take, and "did you mean" for a mistyped
 * command all come from one place. */
#ifndef DESTOR_COMMANDS_H
#define DESTOR_COMMANDS_H

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
};

typedef struct {
    const char *name;
    unsigned options;
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
