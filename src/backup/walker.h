/* SPDX-License-Identifier: GPL-3.0-or-later */
/* walker.h: the walk stage. Walks the tree given to backup in a fixed order
 * (entries sorted by name bytes, a directory before its contents), opens
 * each regular file, and sends one BackupItem per entry to the store stage
 * (and each file to the chunk workers, which read it). Entries that cannot
 * be read are skipped with a warning and counted; backup then commits what
 * it read and exits 1. */
#ifndef DESTOR_WALKER_H
#define DESTOR_WALKER_H

#include "backup/backup_msg.h"
#include "util/bounded_queue.h"

#include <glib.h>
#include <stdint.h>
#include <sys/stat.h>

/* Entries the walker gathers before handing them on in one lot: a hand-off
 * that wakes a waiting stage is two system calls and a context switch, and
 * on a tree of small files the stages would otherwise be woken per file. */
#define WALK_BATCH 16
/* A lot that no chunk worker waits for (directories, symlinks, files the
 * files cache takes unread: a later job's entries, nearly all) goes only
 * to the store stage, which takes such entries faster than the walker
 * finds them and so sleeps between lots: it is handed on at this size,
 * a quarter of the order queue (backup.c's QUEUE_DEPTH, 256), so it wakes
 * the store stage a quarter as often. Set from that, not measured. */
#define WALK_LOT_UNREAD 64

typedef struct {
    BoundedQueue *order; /* every entry, in walk order, to the store stage */
    BoundedQueue *work;  /* regular files, to the chunk workers */
    guint workers;       /* each gets an end item on `work` */
    guint blocks_per_worker; /* blocks a file may use at most: sizes its block
                                queue so a worker never blocks on it, only
                                on its own pools */
    gboolean one_file_system; /* do not descend into other file systems */
    const char *root;
    GMutex lock;         /* guards skipped and first_problem: workers skip too */
    uint64_t skipped;    /* entries skipped with a warning */
    char *first_problem; /* the first of those warnings */
    uint64_t changed;    /* files that changed while they were read (store stage only) */
    char *first_changed; /* the first of them, as shown */
    volatile gint stop;  /* set by the consumer to stop early after an error */
    dev_t root_dev;
    gboolean root_is_entry; /* root is a file or symlink, not a directory */
    gboolean no_noatime;    /* O_NOATIME was refused once: not ours to ask */
    struct FilesCache *files_cache; /* NULL: every file is read (files_cache.h) */
    gpointer to_order[WALK_LOT_UNREAD], to_work[WALK_LOT_UNREAD]; /* gathered, not yet sent */
    _Alignas(8) char dents[32768]; /* a directory's listing, read a bufferful at a time
                                      (as large as glibc's readdir reads) */
    guint n_order, n_work;
} Walker;

void walker_init(Walker *w, const char *root, BoundedQueue *order, BoundedQueue *work, guint workers,
                 guint blocks_per_worker, gboolean one_file_system);

/* Walk the root (a directory, file or symlink), then send an end item on
 * `order` and one per worker on `work`. */
void walker_run(Walker *w);

/* Warn about and count an entry (path `rel` inside the tree) not stored. */
void walker_skip(Walker *w, const char *rel, int errnum, const char *what);

/* Free what the walk left (first_problem, the lock). */
/* A file stored as read while it changed: warn (as tar does) and count. */
void walker_changed(Walker *w, const char *rel);
void walker_clear(Walker *w);

#endif
