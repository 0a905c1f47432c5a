/* SPDX-License-Identifier: GPL-3.0-or-later */
/* read_file.h: `destor read-file`: random access to single files, alone or
 * a whole trace of requests served by one process. Every container goes
 * through one ContainerSource (the container pool, or the SSD cache). */
#ifndef DESTOR_READ_FILE_H
#define DESTOR_READ_FILE_H

#include "config/config.h"
#include "read/file_range.h"

#include <glib.h>

typedef struct {
    gboolean verify;     /* check each whole file's digest (one file: also when the store's digest is
                            checked by default, file_digest.h; with --verify a range is refused) */
    gboolean json;       /* trace summary as JSON */
    const char *output;  /* single file: path to write, NULL for stdout */
    gboolean null_terminated; /* trace records end with NUL, not newline */
    const FileRange *range;   /* single file: the bytes to read; NULL = all */
} ReadFileOptions;

gboolean read_file_single(const Config *cfg, uint32_t job_id, const char *path,
                          const ReadFileOptions *opt, GError **err);
gboolean read_file_trace(const Config *cfg, const char *trace_path,
                         const ReadFileOptions *opt, GError **err);

#endif
