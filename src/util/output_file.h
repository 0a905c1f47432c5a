/* output_file.h: a command's output file (-o OUT), or standard output.
 * A regular OUT is written beside it (OUT.destor-tmp) and renamed over it
 * only once complete, so a failed command leaves OUT as it was. OUT that
 * exists and is not a regular file (a device such as /dev/null, a FIFO) is
 * written into directly: renaming a file over it would replace the device
 * or pipe itself. Shared by read-file -o and trace export -o. */
#ifndef DESTOR_OUTPUT_FILE_H
#define DESTOR_OUTPUT_FILE_H

#include <glib.h>

typedef struct {
    int fd;
    const char *name; /* OUT, or "standard output" */
    const char *path; /* OUT or NULL */
    char *tmp;        /* the temporary beside OUT, or NULL */
} OutputFile;

/* Open OUT (path NULL: standard output). */
gboolean output_file_open(OutputFile *o, const char *path, GError **err);
/* Close; with ok, publish (rename the temporary over OUT); without, remove
 * the temporary. Returns ok and whether closing and publishing worked. */
gboolean output_file_finish(OutputFile *o, gboolean ok, GError **err);

#endif
