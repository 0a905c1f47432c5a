/* SPDX-License-Identifier: GPL-3.0-or-later */
/* walker.c: tree walk of backup.
 *
 * Everything is opened relative to the open descriptor of its directory
 * (openat, fstatat, readlinkat, getdents64), never by a full path, so a tree
 * of any depth is read (a full path longer than PATH_MAX would fail with
 * ENAMETOOLONG) and the kernel resolves one name per entry, not the whole
 * path again. An entry the directory lists as a regular file is opened
 * first and its status read from the descriptor (fstat), so its name is
 * resolved once, not twice (fstatat, then openat); with a files cache
 * (files_cache.h) it is looked at by name instead and opened only when the
 * cache does not take it, so an unchanged file costs one call. Depth is limited only
 * by the open-descriptor limit: one descriptor per directory level is held
 * while its entries are walked. */
#include "backup/walker.h"
#include "backup/backup_msg.h"
#include "backup/files_cache.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the user sees for an entry: the backup root joined with its path
 * inside the tree. */
static char *shown_path(const Walker *w, const char *rel)
{
    if (rel[0] == '\0' || w->root_is_entry)
        return g_strdup(w->root);
    return g_strconcat(w->root, "/", rel, NULL);
}

void walker_skip(Walker *w, const char *rel, int errnum, const char *what)
{
    char *path = shown_path(w, rel);
    char *problem = g_strdup_printf("%s: %s: %s", path, what, g_strerror(errnum));
    destor_warning("skipping %s", problem);
    g_mutex_lock(&w->lock);
    if (w->first_problem == NULL)
        w->first_problem = problem;
    else
        g_free(problem);
    w->skipped++;
    g_mutex_unlock(&w->lock);
    g_free(path);
}

static FileRecord *record_for(const char *rel, const struct stat *st, EntryType type)
{
    FileRecord *r = file_record_new(type, rel, strlen(rel));
    r->mode = st->st_mode & 07777;
    r->mtime_sec = st->st_mtim.tv_sec;
    r->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
    r->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0; /* a file's worker sets what it read */
    return r;
}

/* Hand on the gathered entries: the store stage's first, so it has them
 * no later than the workers. */
static void flush(Walker *w)
{
    bounded_queue_push_many(w->order, w->to_order, w->n_order);
    bounded_queue_push_many(w->work, w->to_work, w->n_work);
    w->n_order = w->n_work = 0;
}

/* Send an entry to the store stage, and a regular file (fd >= 0) also to
 * the chunk workers, WALK_BATCH entries at a time once a file to read is
 * among them, else WALK_LOT_UNREAD. A regular file the files cache found
 * unchanged (unread) is not opened: r is its parent record. */
static void send(Walker *w, FileRecord *r, int fd, const struct stat *st, gboolean unread)
{
    BackupItem *it = g_new0(BackupItem, 1);
    it->file = r;
    if (r->type == ENTRY_FILE)
        it->status = (FileStatus){ .dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
                                   .ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = (uint32_t)st->st_ctim.tv_nsec };
    it->unread = unread;
    it->fd = fd;
    if (fd >= 0)
        it->out = bounded_queue_new(w->blocks_per_worker + 1);
    w->to_order[w->n_order++] = it;
    if (fd >= 0)
        w->to_work[w->n_work++] = it;
    if (w->n_order == WALK_LOT_UNREAD || (w->n_work > 0 && w->n_order >= WALK_BATCH))
        flush(w);
}

/* Open for reading without updating the access time where the kernel lets
 * us (we own the file or have CAP_FOWNER); after one EPERM, stop asking.
 * O_NONBLOCK: should the entry have become a FIFO since it was listed, the
 * open does not wait for a writer (it has no effect on regular files). */
static int open_for_read(Walker *w, int dir, const char *name)
{
    const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    if (!w->no_noatime) {
        int fd = openat(dir, name, flags | O_NOATIME);
        if (fd >= 0 || errno != EPERM)
            return fd;
        w->no_noatime = TRUE;
    }
    return openat(dir, name, flags);
}

/* A listed name is stored after one byte holding its d_type. */
static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static void walk_entry(Walker *w, int dir, const char *name, const char *rel, const struct stat *st, int fd);

/* An entry listed as a regular file is opened first and its status taken
 * from the descriptor (one name lookup, not two); *st and the descriptor
 * if it is still a regular file, else -1 (it is then looked at by name). */
static int open_listed_file(Walker *w, int dir, const char *name, struct stat *st)
{
    int fd = open_for_read(w, dir, name);
    if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Add the names in the open directory fd to `names`, each after one byte
 * holding its d_type. Read with getdents64 into the walker's own buffer:
 * no DIR stream, whose fdopendir costs an fstat, an fcntl and a buffer a
 * directory. FALSE (errno set) if the listing failed midway. */
static gboolean list_names(Walker *w, int fd, GPtrArray *names)
{
    ssize_t n;
    while ((n = getdents64(fd, w->dents, sizeof w->dents)) > 0) {
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *de = (const struct dirent64 *)(w->dents + off);
            off += de->d_reclen;
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            size_t len = strlen(de->d_name);
            char *typed = g_malloc(len + 2);
            typed[0] = (char)de->d_type;
            memcpy(typed + 1, de->d_name, len + 1);
            g_ptr_array_add(names, typed);
        }
    }
    return n == 0;
}

/* The entries of the open directory `fd` (consumed), in name order. */
static void walk_dir(Walker *w, int fd, const char *rel)
{
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    if (!list_names(w, fd, names))
        walker_skip(w, rel, errno, "cannot list all of directory");
    g_ptr_array_sort(names, compare_names);
    int dfd = fd;
    GString *child = g_string_new(rel);
    if (rel[0] != '\0')
        g_string_append_c(child, '/');
    gsize base = child->len;
    for (guint i = 0; i < names->len && !g_atomic_int_get(&w->stop); i++) {
        const char *name = (const char *)names->pdata[i] + 1;
        g_string_truncate(child, base);
        g_string_append(child, name);
        struct stat st;
        /* with a files cache, a file is looked at by name first: an unchanged
         * one is never opened */
        gboolean listed_file = ((const char *)names->pdata[i])[0] == DT_REG && w->files_cache == NULL;
        int fd = listed_file ? open_listed_file(w, dfd, name, &st) : -1;
        if (fd >= 0)
            walk_entry(w, dfd, name, child->str, &st, fd);
        else if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            walker_skip(w, child->str, errno, "cannot stat");
        else
            walk_entry(w, dfd, name, child->str, &st, -1);
    }
    g_string_free(child, TRUE);
    g_ptr_array_unref(names);
    close(fd);
}

/* --one-file-system: TRUE if `st` lies on another file system than the
 * root (st_dev compared, as tar and rsync do). A directory there is kept
 * as an empty directory (as they keep a mount point); other entries there
 * are left out. */
static gboolean other_file_system(const Walker *w, const struct stat *st)
{
    return w->one_file_system && st->st_dev != w->root_dev;
}

/* One entry and its status; `fd`: a regular file already open, or -1. */
static void walk_entry(Walker *w, int dir, const char *name, const char *rel, const struct stat *st, int fd)
{
    gboolean foreign = other_file_system(w, st);
    if (foreign && !S_ISDIR(st->st_mode)) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (S_ISREG(st->st_mode)) {
        if (fd < 0 && w->files_cache != NULL) {
            FileRecord *parent = files_cache_take(w->files_cache, rel, strlen(rel), st);
            if (parent != NULL) {
                send(w, parent, -1, st, TRUE);
                return;
            }
        }
        struct stat opened;
        if (fd < 0) {
            fd = open_for_read(w, dir, name);
            /* read after a look by name: the status is the descriptor's, as for a listed file */
            if (fd >= 0 && w->files_cache != NULL && fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode))
                st = &opened;
        }
        if (fd < 0)
            walker_skip(w, rel, errno, "cannot open");
        else
            send(w, record_for(rel, st, ENTRY_FILE), fd, st, FALSE);
    } else if (S_ISLNK(st->st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(dir, name, target, sizeof target);
        if (n < 0 || n == (ssize_t)sizeof target) {
            walker_skip(w, rel, n < 0 ? errno : ENAMETOOLONG, "cannot read link");
        } else {
            FileRecord *r = record_for(rel, st, ENTRY_SYMLINK);
            g_byte_array_append(r->link, (const guint8 *)target, (guint)n);
            send(w, r, -1, st, FALSE);
        }
    } else if (S_ISDIR(st->st_mode)) {
        if (rel[0] != '\0') {
            send(w, record_for(rel, st, ENTRY_DIR), -1, st, FALSE);
        }
        if (foreign)
            return;
        int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            walker_skip(w, rel, errno, "cannot list directory");
        else
            walk_dir(w, fd, rel);
    } else {
        walker_skip(w, rel, ENOTSUP, "not a regular file, directory or symlink");
    }
}

void walker_run(Walker *w)
{
    struct stat st;
    if (fstatat(AT_FDCWD, w->root, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        walker_skip(w, "", errno, "cannot stat");
    } else {
        w->root_dev = st.st_dev;
        if (S_ISDIR(st.st_mode)) {
            walk_entry(w, AT_FDCWD, w->root, "", &st, -1);
        } else {
            /* A single file or symlink is stored under its base name. */
            char *base = g_path_get_basename(w->root);
            w->root_is_entry = TRUE;
            walk_entry(w, AT_FDCWD, w->root, base, &st, -1);
            g_free(base);
        }
    }
    /* One end item (file NULL) for all; the store stage frees it once every
     * thread has stopped. */
    flush(w);
    BackupItem *end = g_new0(BackupItem, 1);
    end->fd = -1;
    bounded_queue_push(w->order, end);
    for (guint i = 0; i < w->workers; i++)
        bounded_queue_push(w->work, end);
}

void walker_init(Walker *w, const char *root, BoundedQueue *order, BoundedQueue *work, guint workers,
                 guint blocks_per_worker, gboolean one_file_system)
{
    memset(w, 0, sizeof *w);
    w->root = root;
    w->order = order;
    w->work = work;
    w->workers = workers;
    w->blocks_per_worker = blocks_per_worker;
    w->one_file_system = one_file_system;
    g_mutex_init(&w->lock);
}

void walker_changed(Walker *w, const char *rel)
{
    char *path = shown_path(w, rel);
    destor_warning("%s changed as it was read: its copy may mix old and new bytes", path);
    if (w->changed++ == 0)
        w->first_changed = path;
    else
        g_free(path);
}

void walker_clear(Walker *w)
{
    g_free(w->first_problem);
    w->first_problem = NULL;
    g_clear_pointer(&w->first_changed, g_free);
    g_mutex_clear(&w->lock);
}
