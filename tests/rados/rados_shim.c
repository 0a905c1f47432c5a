/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_shim.c: an LD_PRELOAD shim for the RADOS tests (test code only,
 * never linked into destor). It interposes the calls a `rados` store writes
 * objects with, rados_aio_write_op_operate (a container, an index shard),
 * rados_write_full (the store's identity, an emptied container),
 * rados_remove (a freed container, a dropped job's records) and
 * rados_write_op_operate (the store's metadata: store.meta, a job's records,
 * recipe index, reference counts and index entries, the job catalog's
 * commit, tombstones, the freed list, the stale-refcount mark, the index
 * state), counts them, and at the Nth one kills or stops the process: what
 * a writer killed at every RADOS write of a backup, delete or gc leaves
 * behind. (The lock's renewals,
 * which come with time, are not counted: a sweep must meet the same
 * writes on every run.)
 *
 * Environment (all optional; with none set the shim only passes calls on):
 *   RADOS_SHIM_AT          N: act at the Nth call (1-based)
 *   RADOS_SHIM_AT_OBJECT   NAME: act at the first call writing object NAME instead
 *   RADOS_SHIM_ACTION      kill (default): SIGKILL before the call;
 *                          kill-after: SIGKILL once the write it started has
 *                          completed (the object written, nothing committed);
 *                          stop: SIGSTOP before the call, make it once continued
 *   RADOS_SHIM_COUNT_FILE  at exit, write the number of calls here
 *   RADOS_SHIM_READ_PAUSE  FILE: at the first rados_read of a container, create
 *                          FILE and wait until it is removed (the process,
 *                          its lease renewals included, goes on running)
 *   RADOS_SHIM_LOG         append each call's object name here, a line each
 *                          (where in a sweep the commit comes) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <rados/librados.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*operate_fn)(rados_write_op_t, rados_ioctx_t, rados_completion_t, const char *, time_t *, int);
typedef int (*wait_fn)(rados_completion_t);
typedef int (*write_full_fn)(rados_ioctx_t, const char *, const char *, size_t);
typedef int (*write_op_fn)(rados_write_op_t, rados_ioctx_t, const char *, time_t *, int);
typedef int (*remove_fn)(rados_ioctx_t, const char *);
typedef int (*read_fn)(rados_ioctx_t, const char *, char *, size_t, uint64_t);

static _Atomic unsigned long calls;
static unsigned long act_at;
static const char *act_at_object;
static const char *action = "kill";
static const char *count_file;
static FILE *log_file;

__attribute__((constructor)) static void shim_init(void)
{
    const char *at = getenv("RADOS_SHIM_AT");
    act_at = at != NULL ? strtoul(at, NULL, 10) : 0;
    act_at_object = getenv("RADOS_SHIM_AT_OBJECT");
    if (getenv("RADOS_SHIM_ACTION") != NULL)
        action = getenv("RADOS_SHIM_ACTION");
    count_file = getenv("RADOS_SHIM_COUNT_FILE");
    if (getenv("RADOS_SHIM_LOG") != NULL)
        log_file = fopen(getenv("RADOS_SHIM_LOG"), "a");
}

__attribute__((destructor)) static void shim_fini(void)
{
    if (count_file == NULL)
        return;
    FILE *f = fopen(count_file, "w");
    if (f != NULL) {
        fprintf(f, "%lu\n", atomic_load(&calls));
        fclose(f);
    }
}

/* librados's own function `name`. */
static void *real(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn == NULL)
        abort();
    return fn;
}

/* Count a write; kill or stop before it if it is the chosen one, and say
 * whether it is (for kill-after). */
static int before_write(const char *oid)
{
    unsigned long n = atomic_fetch_add(&calls, 1) + 1;
    if (log_file != NULL) {
        fprintf(log_file, "%s\n", oid);
        fflush(log_file);
    }
    int here = (act_at != 0 && n == act_at) || (act_at_object != NULL && !strcmp(oid, act_at_object));
    if (act_at_object != NULL && here)
        act_at_object = NULL;
    if (here && !strcmp(action, "kill"))
        raise(SIGKILL);
    if (here && !strcmp(action, "stop"))
        raise(SIGSTOP);
    return here;
}

int rados_write_full(rados_ioctx_t io, const char *oid, const char *buf, size_t len)
{
    int here = before_write(oid);
    int r = ((write_full_fn)real("rados_write_full"))(io, oid, buf, len);
    if (here && !strcmp(action, "kill-after"))
        raise(SIGKILL);
    return r;
}

int rados_read(rados_ioctx_t io, const char *oid, char *buf, size_t len, uint64_t off)
{
    static atomic_int paused;
    const char *pause = getenv("RADOS_SHIM_READ_PAUSE");
    if (pause != NULL && !strncmp(oid, "container.", 10) && atomic_exchange(&paused, 1) == 0) {
        FILE *f = fopen(pause, "w");
        if (f != NULL)
            fclose(f);
        while (access(pause, F_OK) == 0)
            usleep(100000);
    }
    return ((read_fn)real("rados_read"))(io, oid, buf, len, off);
}

int rados_remove(rados_ioctx_t io, const char *oid)
{
    int here = before_write(oid);
    int r = ((remove_fn)real("rados_remove"))(io, oid);
    if (here && !strcmp(action, "kill-after"))
        raise(SIGKILL);
    return r;
}

int rados_write_op_operate(rados_write_op_t op, rados_ioctx_t io, const char *oid, time_t *mtime, int flags)
{
    int here = before_write(oid);
    int r = ((write_op_fn)real("rados_write_op_operate"))(op, io, oid, mtime, flags);
    if (here && !strcmp(action, "kill-after"))
        raise(SIGKILL);
    return r;
}

int rados_aio_write_op_operate(rados_write_op_t op, rados_ioctx_t io, rados_completion_t done, const char *oid,
                               time_t *mtime, int flags)
{
    int here = before_write(oid);
    int r = ((operate_fn)real("rados_aio_write_op_operate"))(op, io, done, oid, mtime, flags);
    if (here && !strcmp(action, "kill-after")) {
        if (r == 0)
            ((wait_fn)real("rados_aio_wait_for_complete"))(done);
        raise(SIGKILL);
    }
    return r;
}
