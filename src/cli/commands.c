/* SPDX-License-Identifier: GPL-3.0-or-later */
/* commands.c: destor's commands: the options each takes, its handler and
 * its help text; the lookup of a command name and of a near miss. */
#include "cli/commands.h"
#include "cli/command_handlers.h"
#include "util/edit_distance.h"

#include <string.h>

#define GLOBAL "[-c FILE] [-p\"KEY VALUE\"]..."
#define EXIT_COMMON                                                                  \
    "exit status:\n"                                                                 \
    "  0  ok\n"                                                                      \
    "  1  runtime failure (a system call failed, stdout could not be written)\n"    \
    "  2  usage or configuration error, no store, unknown job or path\n"

const char command_usage_text[] =
    "usage: destor " GLOBAL " COMMAND [ARGS]\n"
    "\n"
    "commands (destor COMMAND --help tells more):\n"
    "  backup PATH [--one-file-system] [--no-files-cache] [--json]\n"
    "                              ingest a file or directory tree as a new job; exit 1 if\n"
    "                              entries could not be read (the job keeps the rest);\n"
    "                              --one-file-system: do not descend into other file systems;\n"
    "                              --no-files-cache: read every file, changed or not\n"
    "  restore JOB TARGET [--verify] [--json]\n"
    "                              recreate job JOB's tree under TARGET\n"
    "  read-file JOB PATH [-o OUT] [--verify | --offset N --length N] [--json]\n"
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
    "                              (chunk accesses with ssd-cache-granularity chunk;\n"
    "                              replayed by read-file --trace FILE without path lookups)\n"
    "  trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]\n"
    "                              the container-access sequence for libCacheSim's cachesim\n"
    "  stat [--json]               what the store holds, per job and in total\n"
    "  list JOB [--null | --json]  the entries of job JOB: TYPE<TAB>SIZE<TAB>PATH\n"
    "  verify [JOB] [--deep] [--json]\n"
    "                              check the store (read-only); --deep rehashes every chunk\n"
    "  repair [--json]             rebuild the derived structures (fingerprint index,\n"
    "                              recipe indexes, reference counts) from the stored data\n"
    "  rados-migrate               move an older rados store's jobs and settings into\n"
    "                              its RADOS namespace (once)\n"
    "  delete JOB... [--json]      delete jobs (readers refuse them at once; gc frees the space)\n"
    "  gc [--json]                 free the containers no live job references\n"
    "  mount [-f] [--job N] [-o OPTIONS] [--json] MOUNTPOINT\n"
    "                              the live jobs as a read-only file system (FUSE), read\n"
    "                              through the SSD cache; fusermount3 -u MOUNTPOINT ends it\n"
    "  policies [--json]           the SSD cache policies: description, citation,\n"
    "                              online/offline, their keys with defaults\n"
    "\n"
    "legacy Destor forms: destor PATH (backup), destor -rJOB TARGET (restore), destor -s (stat).\n"
    "destor PATH backs up PATH only when PATH is neither a command name nor within two\n"
    "typing mistakes of one, one of gc (destor stats is an error that suggests stat); to\n"
    "back up a directory named like a command, say so: destor backup stats\n"
    "\n"
    "options:\n"
    "  -c FILE            config file (default ./destor.config if present)\n"
    "  -p\"KEY VALUE\"      override one config line (repeatable)\n"
    "  -h, --help         this help (after a command: that command's help);\n"
    "                     destor help [COMMAND] prints the same\n"
    "  --version          the version\n"
    "  --                 end of options: later arguments are paths, even if they start with -\n"
    "\n"
    "JSON (--json) is one document per run, described in docs/FORMAT.md; see destor(1).\n"
    "\n"
    EXIT_COMMON
    "  3  data integrity error (damaged or inconsistent store)\n";

static const CommandSpec commands[] = {
    { "backup", OPT_JSON | OPT_ONE_FS | OPT_NO_FILES_CACHE, FALSE, command_backup,
      "usage: destor " GLOBAL " backup PATH [--one-file-system] [--no-files-cache] [--json]\n"
      "\n"
      "Ingest the file or directory tree PATH as a new job: chunk, deduplicate\n"
      "against the store, commit. Entries that cannot be read are skipped with a\n"
      "warning; the job commits the rest and backup then exits 1 naming how many\n"
      "were skipped. A file that changes while it is read (size or mtime) is stored\n"
      "as read, with a warning naming it, and backup exits 1 (as tar does). Prints\n"
      "the job's statistics.\n"
      "\n"
      "A later backup of the same PATH does not read a regular file whose device,\n"
      "inode, size, mtime and ctime are those recorded by the newest live job of\n"
      "PATH (the files cache, as restic's and borg's): its chunks are those of\n"
      "that job's copy, and the new job is what reading it would have written.\n"
      "\n"
      "options:\n"
      "  --one-file-system  do not descend into other file systems (their mount\n"
      "                     points are kept as empty directories)\n"
      "  --no-files-cache   read every file (backup-files-cache no does so always)\n"
      "  --json             the statistics as one destor.backup JSON document\n"
      "  -h, --help         this help\n"
      "\n" EXIT_COMMON
      "     (1 also: entries could not be read, or changed while read; the job\n"
      "     holds the rest, as read)\n"
      "  3  the store is damaged (e.g. its pool lost committed containers)\n" },
    { "restore", OPT_JSON | OPT_VERIFY, FALSE, command_restore,
      "usage: destor " GLOBAL " restore JOB TARGET [--verify] [--json]\n"
      "\n"
      "Recreate job JOB's tree under the directory TARGET (created if missing):\n"
      "files byte for byte, directories, symlinks, modes and times. Each file and\n"
      "symlink is made under a new name and renamed over what was there, so an\n"
      "existing file, hard link or symlink is replaced, never written through, and\n"
      "a restore that fails leaves it as it was. A TARGET that holds, or lies in,\n"
      "the working directory or the SSD cache's directory is refused (exit 2).\n"
      "Each file is checked against its digest when the store's is xxh3-128 (the\n"
      "default); a file that does not match stops the restore (exit 3) and is not\n"
      "put in place.\n"
      "\n"
      "options:\n"
      "  --verify     check every file's digest in a sha256 store too\n"
      "  --json       the summary as one destor.restore JSON document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error (a damaged container, an unsafe stored path, entries\n"
      "     of the job that conflict, a file that does not match its digest)\n" },
    { "read-file", OPT_JSON | OPT_NULL | OPT_VERIFY | OPT_OUTPUT | OPT_TRACE | OPT_RANGE | OPT_SIMULATE, FALSE,
      command_read_file,
      "usage: destor " GLOBAL " read-file JOB PATH [-o OUT] [--verify | --offset N --length N] [--json]\n"
      "       destor " GLOBAL " read-file --trace FILE [--null] [--verify] [--json] [--simulate]\n"
      "\n"
      "Write one stored file (or LENGTH bytes of it from OFFSET) to stdout or OUT,\n"
      "through the SSD cache when one is configured; OUT is written under a new name\n"
      "beside it and renamed over it only when the read succeeded (OUT inside the\n"
      "working or cache directory is refused). With --trace, serve every 'JOB<TAB>PATH[<TAB>OFFSET<TAB>LENGTH]'\n"
      "line of FILE (or a compiled trace) and print a latency summary. An offline\n"
      "cache policy (belady, offline-static) runs only with --trace and --simulate:\n"
      "it is handed the trace's whole container-access sequence first.\n"
      "\n"
      "options:\n"
      "  -o OUT         write to OUT instead of stdout (- is stdout)\n"
      "  --verify       check the whole file's digest (a file is checked unasked in\n"
      "                 an xxh3-128 store, when it is read whole); a trace: every\n"
      "                 request's (then no range may be requested)\n"
      "  --offset N     start at byte N;  --length N  at most N bytes\n"
      "  --trace FILE   serve the requests of FILE (- is stdin)\n"
      "  --null         trace records end with NUL instead of newline\n"
      "  --simulate     run the SSD cache on container ids only (no bytes move)\n"
      "  --json         one JSON document: destor.trace-summary for a trace,\n"
      "                 destor.read-file for one file (needs -o OUT)\n"
      "  -h, --help     this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error (damaged container, file digest mismatch)\n" },
    { "trace", OPT_NULL | OPT_OUTPUT | OPT_FORMAT, TRUE, command_trace,
      "usage: destor " GLOBAL " trace compile TRACE -o FILE [--null]\n"
      "       destor " GLOBAL " trace export FILE --format libcachesim-csv|oracle-general|txt [-o OUT]\n"
      "\n"
      "compile: resolve the text trace TRACE once (recipes, ranges) into its sequence\n"
      "of container accesses (of chunk accesses with ssd-cache-granularity chunk),\n"
      "stamped with the store's identity, and write it to FILE; read-file --trace\n"
      "FILE then replays it without path lookups, at the granularity it was compiled for.\n"
      "export: write the container-access sequence of FILE (compiled at container\n"
      "granularity, or a text trace compiled first) in a format libCacheSim's cachesim\n"
      "reads, to OUT or stdout.\n"
      "\n"
      "options:\n"
      "  -o FILE      the compiled trace to write (required), or export's output\n"
      "  --null       the text trace's records end with NUL\n"
      "  --format F   export format: libcachesim-csv, oracle-general or txt\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error (a damaged compiled trace)\n" },
    { "stat", OPT_JSON, FALSE, command_stat,
      "usage: destor " GLOBAL " stat [--json]\n"
      "\n"
      "What the store holds: per job and in total, files, logical and stored bytes,\n"
      "the deduplication ratio and container reference counts. Read-only.\n"
      "\n"
      "options:\n"
      "  --json       one destor.stat JSON document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error\n" },
    { "list", OPT_JSON | OPT_NULL, FALSE, command_list,
      "usage: destor " GLOBAL " list JOB [--null | --json]\n"
      "\n"
      "The entries of job JOB, one per line: TYPE<TAB>SIZE<TAB>PATH, TYPE f (file),\n"
      "d (directory) or l (symlink).\n"
      "\n"
      "options:\n"
      "  --null       end each record with NUL instead of newline (any path)\n"
      "  --json       one destor.list JSON document (any path, losslessly; each\n"
      "               file's digest and its algorithm)\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error\n" },
    { "verify", OPT_JSON | OPT_DEEP, FALSE, command_verify,
      "usage: destor " GLOBAL " verify [JOB] [--deep] [--json]\n"
      "\n"
      "Check the store read-only: every recipe against its containers and the\n"
      "recipe index, reference counts against the recipes (all jobs, or job JOB).\n"
      "Each problem is one PROBLEM line.\n"
      "\n"
      "options:\n"
      "  --deep       also rehash every chunk and every file's digest\n"
      "  --json       one destor.verify JSON document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  problems were found\n" },
    { "repair", OPT_JSON, FALSE, command_repair,
      "usage: destor " GLOBAL " repair [--json]\n"
      "\n"
      "Rebuild, under the writer lock, every structure derived from the stored data:\n"
      "the fingerprint index (from the containers' metadata), each job's recipe\n"
      "index and reference counts. Containers, job metadata and manifests are never\n"
      "written.\n"
      "\n"
      "options:\n"
      "  --json       what was rebuilt as one destor.repair JSON document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  primary data needed for a rebuild is damaged\n" },
    { "rados-migrate", 0, FALSE, command_rados_migrate,
      "usage: destor " GLOBAL " rados-migrate\n"
      "\n"
      "Move, under the writer lock, the metadata of a container-store rados store\n"
      "made by an older destor (store.meta, every job's records, recipe index,\n"
      "reference counts, manifest and tombstone, the freed list) from the working\n"
      "directory into the store's RADOS namespace, where every other command\n"
      "expects it; the working directory becomes a cache of it. Jobs already\n"
      "there are left as they are, so running it again is harmless.\n"
      "\n"
      "options:\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error\n" },
    { "delete", OPT_JSON, FALSE, command_delete,
      "usage: destor " GLOBAL " delete JOB... [--json]\n"
      "\n"
      "Delete the jobs named, in any order, under the writer lock: from then on\n"
      "restore, read-file, list and verify refuse them, and stat leaves them out.\n"
      "A trace replay already running serves to its end the jobs it had opened\n"
      "(a compiled trace: all it lists), with the right bytes: gc frees nothing\n"
      "while a reader has the store open.\n"
      "No container changes: 'destor gc' gives back the space no live job uses.\n"
      "A deletion is final. Each job must be committed and not deleted, and named\n"
      "once; otherwise nothing is deleted.\n"
      "\n"
      "options:\n"
      "  --json       the jobs deleted as one destor.delete JSON document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error (a record of a job left is damaged)\n" },
    { "gc", OPT_JSON, FALSE, command_gc,
      "usage: destor " GLOBAL " gc [--json]\n"
      "\n"
      "Garbage collection under the writer lock: read every live job's records,\n"
      "copy the live chunks out of containers less than gc-live-threshold live\n"
      "(destor.config) into new ones and point the records at the copies, free\n"
      "each container no live record references (a hole punched in the pool, a\n"
      "container file removed; ids are never reused), drop their fingerprint\n"
      "index entries and the records of deleted jobs. While a reader (restore,\n"
      "read-file, verify, ...) has the store open nothing is copied or freed and\n"
      "the report says so; run gc again later. A progress line goes to a terminal.\n"
      "\n"
      "options:\n"
      "  --json       what was read, written, freed and reclaimed, as one destor.gc\n"
      "               document\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "  3  data integrity error (a live job's records, or a container to copy, are\n"
      "     damaged: nothing freed)\n" },
    { "mount", OPT_FOREGROUND | OPT_JOB | OPT_OUTPUT | OPT_JSON, FALSE, command_mount,
      "usage: destor " GLOBAL " mount [-f] [--job N] [-o OPTIONS] [--json] MOUNTPOINT\n"
      "\n"
      "Mount the store read-only at MOUNTPOINT (an empty directory outside the\n"
      "working and SSD cache directories) with FUSE: one directory per live job,\n"
      "named by its id, and 'latest', a symlink to the newest; each is the job's\n"
      "tree as restore writes it (files, directories, symlinks, sizes, modes,\n"
      "mtimes). Directories are read from the job's recipe index as they are\n"
      "visited. Every read goes through read-file's path: each chunk checked by\n"
      "its fingerprint, the configured SSD cache in front (its state is saved when\n"
      "the mount ends). A damaged chunk fails that read with EIO and one destor:\n"
      "line on stderr, never with other bytes. A backup made while mounted shows\n"
      "as a new job; a deleted job leaves the root (open files keep reading).\n"
      "Every change (write, create, rename, chmod, truncate, setxattr) is EROFS.\n"
      "The mount ends with fusermount3 -u MOUNTPOINT, umount, or SIGINT, SIGTERM\n"
      "or SIGHUP to the process. While mounted, gc frees nothing (the mount is a\n"
      "reader): unmount for gc. A mount whose process was killed is left behind:\n"
      "fusermount3 -u MOUNTPOINT, then mount again.\n"
      "The root of jobs holds .destor/stats.json, the figures of the reads so far\n"
      "(a destor.trace-summary document, as read-file --trace --json prints: reads,\n"
      "bytes, latency, the SSD cache's counters); a foreground mount prints them\n"
      "when it ends.\n"
      "\n"
      "options:\n"
      "  -f           stay in the foreground (else it returns once mounted)\n"
      "  --job N      mount job N alone, its tree at MOUNTPOINT\n"
      "  -o OPTIONS   comma-separated: allow_other (other users may read),\n"
      "               allow_root, default_permissions (the kernel checks modes)\n"
      "  --json       the figures printed at the end as JSON\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON
      "     (1 also: FUSE cannot mount, or the SSD cache directory is in use by\n"
      "     another process, such as a second mount with the same cache;\n"
      "     2 also: MOUNTPOINT not an empty directory, inside the working or\n"
      "     cache directory, or a mount whose process is gone)\n" },
    { "policies", OPT_JSON, FALSE, command_policies,
      "usage: destor " GLOBAL " policies [--json]\n"
      "\n"
      "List every registered SSD cache policy: its one-line description and\n"
      "citation, whether it is online or offline (simulation only), and its own\n"
      "configuration keys with default, range and documentation.\n"
      "\n"
      "options:\n"
      "  --json       one JSON document listing the policies\n"
      "  -h, --help   this help\n"
      "\n" EXIT_COMMON },
};

const CommandSpec *command_find(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

const CommandSpec *command_near(const char *word)
{
    const CommandSpec *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
        /* two mistakes in a two-letter name (gc) would take in every
         * short directory name (src, etc): one there */
        size_t most = strlen(commands[i].name) <= 2 ? 1 : 2;
        size_t dist = edit_distance(word, commands[i].name, most);
        if (dist <= most && dist < best_d) {
            best_d = dist;
            best = &commands[i];
        }
    }
    return best;
}

unsigned command_option_bit(const char *flag)
{
    static const struct {
        const char *flag;
        unsigned bit;
    } flags[] = {
        { "--json", OPT_JSON },     { "--null", OPT_NULL },       { "--deep", OPT_DEEP },
        { "--verify", OPT_VERIFY }, { "-o", OPT_OUTPUT },         { "--trace", OPT_TRACE },
        { "--offset", OPT_RANGE },  { "--length", OPT_RANGE },    { "--simulate", OPT_SIMULATE },
        { "--format", OPT_FORMAT }, { "--one-file-system", OPT_ONE_FS }, { "-f", OPT_FOREGROUND },
        { "--job", OPT_JOB },       { "--no-files-cache", OPT_NO_FILES_CACHE },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(flags); i++)
        if (strcmp(flags[i].flag, flag) == 0)
            return flags[i].bit;
    return 0;
}
