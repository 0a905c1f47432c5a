/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output_file.h: a command's output file (-o OUT), or standard output.
 * A regular OUT is written through file_replace (a new file of a unique
 * name beside it, renamed over it only once complete and synced), so a
 * failed command leaves OUT as it was, two commands writing the same OUT
 * each put a whole file in place, and a link at OUT is replaced, never
 * written through. OUT that exists and is not a regular file (a device such
 * as /dev/null, a FIFO) is written into directly: renaming a file over it
 * would replace the device or pipe itself. OUT inside one of the
 * `protected` directories (the store's working directory, the SSD cache's)
 * is refused: it would replace a file the store needs. Shared by
 * read-file -o, trace compile -o and trace export -o. */
#ifndef DESTOR_OUTPUT_FILE_H
#define DESTOR_OUTPUT_FILE_H

#include "util/file_replace.h"

#include <glib.h>

typedef struct {
    int fd;
    const char *name; /* OUT, or "standard output" */
    const char *path; /* OUT or NULL */
    int dir_fd;       /* OUT's directory while a replacement is open, or -1 */
    FileReplace replace;
} OutputFile;

/* Open OUT (path NULL or "-": standard output). `protected`: the
 * n_protected directories OUT must not be in; a NULL entry (an unset
 * directory) is skipped. */
gboolean output_file_open(OutputFile *o, const char *path, const char *const *protected, guint n_protected,
                          GError **err);
/* Close; with ok, publish (rename the new file over OUT); without, remove
 * the new file. Returns ok and whether closing and publishing worked. */
gboolean output_file_finish(OutputFile *o, gboolean ok, GError **err);

#endif
