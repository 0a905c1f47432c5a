/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_readers.c: the pool of readers, each with the file it last read
 * for, taken and given back under one lock. */
#include "mount/mount_readers.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef struct {
    ReadSessionReader *reader;
    const void *file; /* the open file it read for last, or NULL */
    gboolean busy;    /* taken: serving a read */
    uint64_t given;   /* the pool's tick when it was last given back */
    gint64 given_at;  /* ... and the monotonic time then */
    gboolean holds;   /* it may keep containers: read since given up */
} Reader;

struct MountReaders {
    GMutex lock; /* guards every reader's file, busy and given, and tick */
    GCond given_back;
    Reader *readers;
    guint n;
    uint64_t tick;
};

MountReaders *mount_readers_new(ReadSession *s, guint n, guint containers)
{
    g_assert(n > 0);
    MountReaders *p = g_new0(MountReaders, 1);
    g_mutex_init(&p->lock);
    g_cond_init(&p->given_back);
    p->readers = g_new0(Reader, n);
    p->n = n;
    for (guint i = 0; i < n; i++)
        p->readers[i].reader = read_session_reader_new(s, containers);
    return p;
}

void mount_readers_free(MountReaders *p)
{
    if (p == NULL)
        return;
    for (guint i = 0; i < p->n; i++) {
        g_assert(!p->readers[i].busy);
        read_session_reader_free(p->readers[i].reader);
    }
    g_free(p->readers);
    g_cond_clear(&p->given_back);
    g_mutex_clear(&p->lock);
    g_free(p);
}

/* The reader that last read for `file`, or NULL. */
static Reader *of_file(MountReaders *p, const void *file)
{
    for (guint i = 0; i < p->n; i++)
        if (p->readers[i].file == file)
            return &p->readers[i];
    return NULL;
}

/* The free reader given back longest ago, or NULL when all are taken. */
static Reader *longest_free(MountReaders *p)
{
    Reader *pick = NULL;
    for (guint i = 0; i < p->n; i++) {
        Reader *r = &p->readers[i];
        if (!r->busy && (pick == NULL || r->given < pick->given))
            pick = r;
    }
    return pick;
}

ReadSessionReader *mount_readers_take(MountReaders *p, const void *file)
{
    g_assert(file != NULL);
    g_mutex_lock(&p->lock);
    Reader *r;
    for (;;) {
        r = of_file(p, file);
        if (r == NULL)
            r = longest_free(p);
        if (r != NULL && !r->busy)
            break;
        g_cond_wait(&p->given_back, &p->lock);
    }
    r->busy = TRUE;
    r->holds = TRUE;
    r->file = file;
    g_mutex_unlock(&p->lock);
    return r->reader;
}

void mount_readers_give(MountReaders *p, ReadSessionReader *reader)
{
    g_mutex_lock(&p->lock);
    Reader *r = NULL;
    for (guint i = 0; i < p->n && r == NULL; i++)
        if (p->readers[i].reader == reader)
            r = &p->readers[i];
    g_assert(r != NULL && r->busy);
    r->busy = FALSE;
    r->given = ++p->tick;
    r->given_at = g_get_monotonic_time();
    g_cond_broadcast(&p->given_back);
    g_mutex_unlock(&p->lock);
}

void mount_readers_forget(MountReaders *p, const void *file)
{
    g_mutex_lock(&p->lock);
    Reader *r = of_file(p, file);
    if (r != NULL)
        r->file = NULL;
    g_mutex_unlock(&p->lock);
}

void mount_readers_trim(MountReaders *p, gint64 idle_us)
{
    gboolean trimmed = FALSE;
    gint64 now = g_get_monotonic_time();
    g_mutex_lock(&p->lock);
    for (guint i = 0; i < p->n; i++) {
        Reader *r = &p->readers[i];
        if (!r->busy && r->holds && now - r->given_at > idle_us) {
            chunk_source_clear(r->reader->chunks); /* not taken: nobody else touches it while the lock is held */
            r->holds = FALSE;
            trimmed = TRUE;
        }
    }
    g_mutex_unlock(&p->lock);
#ifdef __GLIBC__
    if (trimmed)
        malloc_trim(0); /* freed buffers the allocator kept back go to the system */
#endif
}
