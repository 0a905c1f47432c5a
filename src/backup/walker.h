/* walker.h: the read stage. Walks the tree given to backup in a fixed order
 * (entries sorted by name bytes, a directory before its contents), reads
 * regular files in large blocks computing their SHA-256, and sends
 * BackupMsgs downstream. Unreadable entries are skipped with a warning and
 * counted; backup then commits what it read and exits 1. */
#ifndef DESTOR_WALKER_H
#define DESTOR_WALKER_H

#include "util/bounded_queue.h"

#include <glib.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <stdint.h>

#define READ_BLOCK (1u << 20)

typedef struct {
    BoundedQueue *out;
    BoundedQueue *free_blocks; /* READ_BLOCK buffers to read into; the chunk
                                  stage gives them back, so reading neither
                                  allocates nor faults in fresh pages */
    gboolean one_file_system; /* do not descend into other file systems */
    uint64_t skipped;    /* entries skipped with a warning */
    char *first_problem; /* the first of those warnings */
    volatile gint stop;  /* set by the consumer to stop early after an error */
    /* set by walker_run */
    const char *root;
    dev_t root_dev;
    gboolean root_is_entry; /* root is a file or symlink, not a directory */
    gboolean no_noatime;    /* O_NOATIME was refused once: not ours to ask */
    EVP_MD_CTX *sha256;     /* reused for every file */
} Walker;

/* Walk `root` (a directory, file or symlink) and finish with STREAM_END. */
void walker_run(Walker *w, const char *root);

/* Free what walker_run left for the caller (first_problem). */
void walker_clear(Walker *w);

/* With one_file_system set: TRUE if `st` is on another file system than
 * the root (compared by st_dev, as tar and rsync do). */
gboolean walker_other_file_system(const Walker *w, const struct stat *st);

#endif
