/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_serve.c: libfuse's session around the mount's operations. */
#include "mount/mount_serve.h"
#include "mount/mount_fuse.h"
#include "mount/mount_watch.h"
#include "util/error.h"

#include <signal.h>

#define MOUNT_MAX_THREADS 8 /* libfuse's worker threads at most, and the readers */
/* Containers each reader keeps between reads: the one a file is being
 * read from and the one it goes on into (8 readers: 32 MiB of 2 MiB
 * containers at most, allocated as they are first used). */
#define MOUNT_READER_CONTAINERS 2

/* The -o options of the mount: read-only, named destor in the mount table. */
static char *fuse_options(const MountServeConfig *c)
{
    return g_strdup_printf("ro,fsname=destor,subtype=destor%s%s", c->options ? "," : "",
                           c->options ? c->options : "");
}

/* libfuse takes over SIGINT, SIGTERM and SIGHUP only where they are not
 * ignored; a mount started in the background by a shell script has SIGINT
 * ignored, yet each of them is how one is asked to end: set back first. */
static gboolean stop_signals_default(void)
{
    return signal(SIGINT, SIG_DFL) != SIG_ERR && signal(SIGTERM, SIG_DFL) != SIG_ERR &&
           signal(SIGHUP, SIG_DFL) != SIG_ERR;
}

gboolean mount_serve(ReadSession *s, const MountServeConfig *c, void (*ready)(void *ctx), void *ctx, GError **err)
{
    MountFs fs = { .session = s, .one_job = c->one_job, .job = c->job,
                   .mounted_unix = g_get_real_time() / G_USEC_PER_SEC, .mountpoint = c->mountpoint };
    g_mutex_init(&fs.lock);
    fs.entered = g_hash_table_new_full(NULL, NULL, NULL, g_free);
    fs.readers = mount_readers_new(s, MOUNT_MAX_THREADS, MOUNT_READER_CONTAINERS);
    mount_stats_init(&fs.stats);
    char *opts = fuse_options(c);
    struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
    gboolean served = FALSE;
    gboolean ok = fuse_opt_add_arg(&args, "destor") == 0 && fuse_opt_add_arg(&args, "-o") == 0 &&
                  fuse_opt_add_arg(&args, opts) == 0;
    struct fuse_operations ops;
    mount_fs_operations(&ops);
    struct fuse *f = ok ? fuse_new(&args, &ops, sizeof ops, &fs) : NULL;
    if (f == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "libfuse refused the mount options '%s'", opts);
    } else if (fuse_mount(f, c->mountpoint) != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                    "cannot mount at %s (libfuse said why above; is /dev/fuse there and fusermount3 installed?)",
                    c->mountpoint);
    } else if (!stop_signals_default() || fuse_set_signal_handlers(fuse_get_session(f)) != 0) {
        fuse_unmount(f);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "cannot install the signal handlers of the mount");
    } else {
        ready(ctx);
        struct fuse_loop_config *loop = fuse_loop_cfg_create();
        fuse_loop_cfg_set_max_threads(loop, MOUNT_MAX_THREADS);
        MountWatch *watch = mount_watch_start(&fs, f);
        int ret = fuse_loop_mt(f, loop);
        mount_watch_stop(watch);
        fuse_loop_cfg_destroy(loop);
        fuse_remove_signal_handlers(fuse_get_session(f));
        fuse_unmount(f);
        /* 0: unmounted; a signal's number: stopped by it (unmounted just above) */
        served = ret >= 0;
        if (!served)
            destor_set_errno(err, -ret, "serving the mount at %s", c->mountpoint);
        else if (c->summary != NULL)
            mount_stats_print(&fs.stats, s, c->mountpoint, c->json, c->summary);
    }
    if (f != NULL)
        fuse_destroy(f);
    fuse_opt_free_args(&args);
    g_free(opts);
    mount_stats_clear(&fs.stats);
    mount_readers_free(fs.readers);
    g_hash_table_unref(fs.entered);
    g_mutex_clear(&fs.lock);
    return served;
}
