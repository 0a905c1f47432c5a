/* walker.c: tree walk and file reading for backup. */
#include "backup/walker.h"
#include "backup/backup_msg.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void warn_skip(Walker *w, const char *path, int errnum, const char *what)
{
    destor_warning("skipping %s: %s: %s", path, what, g_strerror(errnum));
    w->skipped++;
}

static FileRecord *record_for(const char *rel, const struct stat *st, EntryType type)
{
    FileRecord *r = file_record_new(type, rel, strlen(rel));
    r->mode = st->st_mode & 07777;
    r->mtime_sec = st->st_mtim.tv_sec;
    r->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
    return r;
}

static void send(Walker *w, BackupMsgKind kind, FileRecord *r, uint8_t *data, size_t len)
{
    BackupMsg *m = backup_msg_new(kind);
    m->file = r;
    m->data = data;
    m->len = len;
    bounded_queue_push(w->out, m);
}

static void read_file(Walker *w, const char *full, const char *rel, const struct stat *st)
{
    int fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        warn_skip(w, full, errno, "cannot open");
        return;
    }
    FileRecord *r = record_for(rel, st, ENTRY_FILE);
    send(w, MSG_FILE_BEGIN, r, NULL, 0);
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    EVP_DigestInit_ex(sha, EVP_sha256(), NULL);
    uint64_t total = 0;
    for (;;) {
        uint8_t *buf = bounded_queue_pop(w->free_blocks);
        ssize_t n = read(fd, buf, READ_BLOCK);
        if (n < 0 && errno == EINTR) {
            bounded_queue_push(w->free_blocks, buf);
            continue;
        }
        if (n <= 0) {
            bounded_queue_push(w->free_blocks, buf);
            if (n < 0) {
                warn_skip(w, full, errno, "read failed");
                send(w, MSG_FILE_ABORT, r, NULL, 0);
                r = NULL;
            }
            break;
        }
        EVP_DigestUpdate(sha, buf, (size_t)n);
        total += (uint64_t)n;
        send(w, MSG_DATA, NULL, buf, (size_t)n);
    }
    if (r != NULL) {
        EVP_DigestFinal_ex(sha, r->sha256, NULL);
        r->size = total; /* what was read, should the file change meanwhile */
        send(w, MSG_FILE_END, r, NULL, 0);
    }
    EVP_MD_CTX_free(sha);
    close(fd);
}

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(Walker *w, const char *full, const char *rel);

static void walk_dir(Walker *w, const char *full, const char *rel)
{
    DIR *d = opendir(full);
    if (d == NULL) {
        warn_skip(w, full, errno, "cannot list directory");
        return;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            g_ptr_array_add(names, g_strdup(de->d_name));
    closedir(d);
    g_ptr_array_sort(names, compare_names);
    for (guint i = 0; i < names->len && !g_atomic_int_get(&w->stop); i++) {
        const char *name = names->pdata[i];
        char *child_full = g_build_filename(full, name, NULL);
        char *child_rel = rel[0] ? g_strconcat(rel, "/", name, NULL) : g_strdup(name);
        walk(w, child_full, child_rel);
        g_free(child_full);
        g_free(child_rel);
    }
    g_ptr_array_unref(names);
}

static void walk(Walker *w, const char *full, const char *rel)
{
    struct stat st;
    if (lstat(full, &st) != 0) {
        warn_skip(w, full, errno, "cannot stat");
        return;
    }
    if (S_ISREG(st.st_mode)) {
        read_file(w, full, rel, &st);
    } else if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(full, target, sizeof target);
        if (n < 0 || n == (ssize_t)sizeof target) {
            warn_skip(w, full, n < 0 ? errno : ENAMETOOLONG, "cannot read link");
        } else {
            FileRecord *r = record_for(rel, &st, ENTRY_SYMLINK);
            g_byte_array_append(r->link, (const guint8 *)target, (guint)n);
            send(w, MSG_FILE_BEGIN, r, NULL, 0);
            send(w, MSG_FILE_END, r, NULL, 0);
        }
    } else if (S_ISDIR(st.st_mode)) {
        if (rel[0] != '\0') {
            FileRecord *r = record_for(rel, &st, ENTRY_DIR);
            send(w, MSG_FILE_BEGIN, r, NULL, 0);
            send(w, MSG_FILE_END, r, NULL, 0);
        }
        walk_dir(w, full, rel);
    } else {
        warn_skip(w, full, ENOTSUP, "not a regular file, directory or symlink");
    }
}

void walker_run(Walker *w, const char *root)
{
    struct stat st;
    if (lstat(root, &st) == 0 && S_ISDIR(st.st_mode)) {
        walk(w, root, "");
    } else {
        char *base = g_path_get_basename(root);
        walk(w, root, base);
        g_free(base);
    }
    send(w, MSG_STREAM_END, NULL, NULL, 0);
}
