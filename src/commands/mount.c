/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount.c: the mount command: its checks (the mount point, the options, the
 * store, the job, the SSD cache: each a one-line error before anything is
 * mounted), the move to the background, and the read session the mount
 * serves, closed at the end so that the SSD cache's state is saved. */
#include "commands/mount.h"
#include "mount/mount_serve.h"
#include "read/read_session.h"
#include "util/dir_within.h"
#include "util/error.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MOUNT_READY 'R' /* what the background child tells its parent once mounted */

/* The -o options destor passes on to libfuse; it sets the rest itself. */
static gboolean check_options(const char *options, GError **err)
{
    static const char *const allowed[] = { "allow_other", "allow_root", "default_permissions", "ro" };
    if (options == NULL)
        return TRUE;
    gchar **each = g_strsplit(options, ",", -1);
    gboolean ok = TRUE;
    for (guint i = 0; ok && each[i] != NULL; i++) {
        gboolean known = FALSE;
        for (size_t k = 0; k < G_N_ELEMENTS(allowed); k++)
            known = known || strcmp(each[i], allowed[k]) == 0;
        if (!known) {
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE,
                        "mount option '%s' is not one destor mount takes (allow_other, allow_root, "
                        "default_permissions; it is always ro)", each[i]);
            ok = FALSE;
        }
    }
    g_strfreev(each);
    return ok;
}

/* Is the directory at `path` empty? errno set when it cannot be read. */
static gboolean dir_empty(const char *path, gboolean *empty)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return FALSE;
    struct dirent *e;
    *empty = TRUE;
    errno = 0;
    while (*empty && (e = readdir(d)) != NULL)
        *empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    int saved = errno;
    closedir(d);
    errno = saved;
    return saved == 0;
}

/* A USAGE error (exit 2) about the mount point. */
static gboolean refuse(GError **err, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean refuse(GError **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error_literal(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, msg);
    g_free(msg);
    return FALSE;
}

/* An empty directory outside the store's and the SSD cache's directories
 * (a mount there would hide them); its absolute path in *abs. */
static gboolean check_mountpoint(const Config *cfg, const char *mp, char **abs, GError **err)
{
    struct stat st;
    gboolean empty = FALSE;
    if (stat(mp, &st) != 0) {
        if (errno == ENOTCONN)
            return refuse(err, "mountpoint %s is a mount whose process is gone (killed?): unmount it with "
                               "fusermount3 -u %s, then mount again", mp, mp);
        return refuse(err, "mountpoint %s: %s", mp, g_strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return refuse(err, "mountpoint %s is not a directory", mp);
    if (!dir_empty(mp, &empty)) {
        destor_set_errno(err, errno, "read mountpoint %s", mp);
        return FALSE;
    }
    if (!empty)
        return refuse(err, "mountpoint %s is not an empty directory", mp);
    const char *dirs[STORE_DIRS];
    store_dirs(cfg, dirs);
    for (guint i = 0; i < STORE_DIRS; i++) {
        if (dirs[i] != NULL && dir_path_within(mp, dirs[i]))
            return refuse(err, "mountpoint %s is inside %s, which the store uses: mount elsewhere", mp, dirs[i]);
        if (dirs[i] != NULL && dir_path_within(dirs[i], mp))
            return refuse(err, "mountpoint %s holds %s, which the store uses: mount elsewhere", mp, dirs[i]);
    }
    *abs = realpath(mp, NULL);
    if (*abs == NULL) {
        destor_set_errno(err, errno, "resolve mountpoint %s", mp);
        return FALSE;
    }
    return TRUE;
}

/* The background child's end of the pipe to its parent (-1 in the
 * foreground). */
typedef struct {
    int tell_fd;
} Ready;

/* Mounted: a child in the background tells its parent (which then exits
 * 0) and lets go of the terminal's input and output; stderr stays, for
 * the mount's destor: lines. */
static void mounted(void *ctx)
{
    Ready *r = ctx;
    if (r->tell_fd < 0)
        return;
    char c = MOUNT_READY;
    if (write(r->tell_fd, &c, 1) != 1)
        destor_warning("could not tell the waiting parent that the mount is ready: %s", g_strerror(errno));
    close(r->tell_fd);
    r->tell_fd = -1;
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, STDIN_FILENO);
        dup2(null_fd, STDOUT_FILENO);
        close(null_fd);
    }
}

/* The parent of a background mount: wait for the child's word, then end
 * this process: 0 once mounted, else the child's status (it printed its
 * own error). */
static void await_child(pid_t child, int hear_fd)
{
    char c = 0;
    ssize_t n;
    while ((n = read(hear_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    if (n == 1 && c == MOUNT_READY)
        _exit(DESTOR_EXIT_OK);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : DESTOR_EXIT_RUNTIME);
}

/* Move to the background: the parent waits (and never returns), the child
 * goes on in a session of its own. */
static gboolean go_background(Ready *ready, GError **err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        destor_set_errno(err, errno, "pipe");
        return FALSE;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        destor_set_errno(err, errno, "fork");
        close(fds[0]);
        close(fds[1]);
        return FALSE;
    }
    if (pid > 0) {
        close(fds[1]);
        await_child(pid, fds[0]);
    }
    close(fds[0]);
    setsid();
    ready->tell_fd = fds[1];
    return TRUE;
}

gboolean mount_run(const Config *cfg, const MountOptions *opt, GError **err)
{
    if (cfg->cache.simulate)
        return refuse(err, "mount reads real bytes: simulation mode applies to read-file only");
    if (cache_config_enabled(&cfg->cache) && cfg->cache.write_dwpd > 0)
        return refuse(err, "ssd-cache-write-budget-dwpd is credited by a timed trace's clock, and the mount's reads "
                           "have none (use ssd-cache-write-budget, bytes per request)");
    char *abs = NULL;
    if (!check_options(opt->options, err) || !check_mountpoint(cfg, opt->mountpoint, &abs, err))
        return FALSE;
    Ready ready = { .tell_fd = -1 };
    if (!opt->foreground && !go_background(&ready, err)) {
        free(abs);
        return FALSE;
    }
    /* the store, the job and the SSD cache are opened here, after the
     * fork: the cache's threads and locks belong to the serving process */
    ReadSession *s = read_session_open_store(cfg, err);
    gboolean ok = s != NULL && (!opt->one_job || read_session_job(s, opt->job, err) != NULL) &&
                  read_session_open_cache(s, cfg, err);
    MountServeConfig mc = { .mountpoint = abs, .options = opt->options, .one_job = opt->one_job, .job = opt->job,
                            .summary = opt->foreground ? stdout : NULL, .json = opt->json };
    ok = ok && mount_serve(s, &mc, mounted, &ready, err);
    read_session_close(s); /* saves the SSD cache's state */
    if (ready.tell_fd >= 0)
        close(ready.tell_fd);
    free(abs);
    return ok;
}
