/* walker.h: the read stage. Walks the tree given to backup in a fixed order
 * (entries sorted by name bytes, a directory before its contents), reads
 * regular files in large blocks computing their SHA-256, and sends
 * BackupMsgs downstream. Unreadable entries are skipped with a warning. */
#ifndef DESTOR_WALKER_H
#define DESTOR_WALKER_H

#include "util/bounded_queue.h"

#include <glib.h>
#include <stdint.h>

#define READ_BLOCK (1u << 20)

typedef struct {
    BoundedQueue *out;
    BoundedQueue *free_blocks; /* READ_BLOCK buffers to read into; the chunk
                                  stage gives them back, so reading neither
                                  allocates nor faults in fresh pages */
    uint64_t skipped;    /* entries skipped with a warning */
    volatile gint stop;  /* set by the consumer to stop early after an error */
} Walker;

/* Walk `root` (a directory, file or symlink) and finish with STREAM_END. */
void walker_run(Walker *w, const char *root);

#endif
