/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assembly_area.c: the rolling forward assembly area; each container read
 * fills every chunk of it the area holds, as far ahead as the area reaches. */
#include "read/assembly_area.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    ChunkRef ref;
    uint8_t *bytes;  /* its bytes, once its container was read (not with ids_only) */
    GError *error;   /* its bytes could not be had */
    gboolean damage; /* error is a mismatch (the stored bytes are not the chunk) */
    gboolean ready;  /* its container was read: its bytes (or error) are here */
} Placed;

typedef struct {
    ChunkSource chunks;
    ContainerSource *src;
    ChunkStream *future;
    gboolean ids_only;
    uint8_t *buf;     /* the container being read */
    size_t area_size;
    GArray *placed;   /* Placed in stream order; [head, len) is the area, the slots before it let go */
    guint head;
    guint next;       /* the first placed chunk not served yet; [head, next) is the one served last */
    size_t used;      /* bytes of the area's chunks, at most area_size (or one chunk) */
    ChunkRef pending; /* read from the stream, not placed: it does not fit yet */
    gboolean has_pending, ended;
    GError *stream_error; /* the stream failed after the last placed chunk */
    uint64_t fetches;
} Assembly;

static void let_go(Placed *p)
{
    g_clear_pointer(&p->bytes, g_free);
    g_clear_error(&p->error);
    p->ready = FALSE;
}

/* Let go of the placed chunks before `upto` (served or skipped). */
static void release_before(Assembly *a, guint upto)
{
    g_assert(upto <= a->placed->len);
    for (; a->head < upto; a->head++) {
        Placed *p = &g_array_index(a->placed, Placed, a->head);
        g_assert(a->used >= p->ref.length);
        a->used -= p->ref.length;
        let_go(p);
    }
    if (a->next < a->head)
        a->next = a->head;
}

/* Drop the slots let go of, so the array does not grow with the restore. */
static void compact(Assembly *a)
{
    if (a->head == 0 || a->head * 2 < a->placed->len)
        return;
    g_array_remove_range(a->placed, 0, a->head);
    a->next -= a->head;
    a->head = 0;
}

/* Lay the stream's next chunks out in the area as far as they fit (one
 * chunk at least). A stream error is kept for when a read needs a chunk
 * past the ones placed. */
static void extend(Assembly *a)
{
    while (a->has_pending || !a->ended) {
        ChunkRef ref;
        if (a->has_pending) {
            ref = a->pending;
        } else if (!chunk_stream_next(a->future, &ref, &a->stream_error)) {
            a->ended = TRUE;
            return;
        }
        /* a chunk is shorter than a container, the area at least one */
        g_assert(ref.length <= a->area_size);
        a->has_pending = a->head < a->placed->len && a->used + ref.length > a->area_size;
        if (a->has_pending) {
            a->pending = ref;
            return;
        }
        Placed p = { .ref = ref };
        g_array_append_val(a->placed, p);
        a->used += ref.length;
    }
}

static void set_problem(Placed *p, GError *e, gboolean damage)
{
    if (p->error == NULL) {
        p->error = g_error_copy(e);
        p->damage = damage;
    }
}

/* Copy chunk p out of its container in a->buf, checked; a mismatch has
 * the source read the container again from the store, once (*reread). */
static void copy_chunk(Assembly *a, Placed *p, gboolean *reread)
{
    size_t csize = a->src->container_size;
    GError *bad = NULL;
    if (p->ref.offset < CONTAINER_HEADER_SIZE || (uint64_t)p->ref.offset + p->ref.length > csize) {
        g_set_error(&bad, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "recipe names a chunk outside its container");
        set_problem(p, bad, TRUE);
        g_error_free(bad);
        return;
    }
    if (!container_check_chunk(a->buf, csize, p->ref.container, &p->ref.fp, p->ref.offset, p->ref.length, &bad)) {
        GError *again = NULL;
        gboolean fresh = !*reread && container_source_reread(a->src, p->ref.container, a->buf, &again);
        *reread = TRUE;
        if (again != NULL) {
            set_problem(p, again, FALSE);
            g_error_free(again);
            g_error_free(bad);
            return;
        }
        if (fresh) {
            g_clear_error(&bad);
            container_check_chunk(a->buf, csize, p->ref.container, &p->ref.fp, p->ref.offset, p->ref.length, &bad);
        }
        if (bad != NULL) {
            set_problem(p, bad, TRUE);
            g_error_free(bad);
            return;
        }
    }
    p->bytes = g_memdup2(a->buf + p->ref.offset, p->ref.length);
}

/* Read the container of placed chunk `from` once and copy every chunk of
 * it the area holds from there on, not filled yet, into place. A
 * container that cannot be read marks those chunks. */
static void load(Assembly *a, guint from)
{
    Placed *placed = (Placed *)(void *)a->placed->data;
    ContainerId id = placed[from].ref.container;
    GError *failed = NULL;
    a->fetches++;
    gboolean ok = a->ids_only ? container_source_read(a->src, id, NULL, &failed)
                              : container_source_read_buffer(a->src, id, &a->buf, &failed);
    gboolean reread = FALSE;
    for (guint k = from; k < a->placed->len; k++) {
        if (placed[k].ready || placed[k].ref.container != id)
            continue;
        if (!ok)
            set_problem(&placed[k], failed, FALSE);
        else if (!a->ids_only)
            copy_chunk(a, &placed[k], &reread);
        placed[k].ready = TRUE;
    }
    g_clear_error(&failed);
}

static gboolean same_chunk(const ChunkRef *x, const ChunkRef *y)
{
    return x->container == y->container && x->offset == y->offset && x->length == y->length &&
           fingerprint_equal(&x->fp, &y->fp);
}

/* The placed chunk `ref` names, its bytes in place: the chunk served last
 * and those the reader skipped are let go of, the area extended over the
 * room they leave, and the chunk's container read if an earlier read did
 * not fill it. NULL with *err set when the stream fails or ends without
 * it (the reader asked for a chunk out of its plan). */
static Placed *find(Assembly *a, const ChunkRef *ref, GError **err)
{
    release_before(a, a->next);
    compact(a);
    for (;;) {
        extend(a);
        guint i = a->head;
        while (i < a->placed->len && !same_chunk(&g_array_index(a->placed, Placed, i).ref, ref))
            i++;
        release_before(a, i);
        if (i < a->placed->len) {
            extend(a);
            if (!g_array_index(a->placed, Placed, i).ready)
                load(a, i);
            a->next = i + 1;
            return &g_array_index(a->placed, Placed, i);
        }
        compact(a);
        if (a->ended && !a->has_pending) {
            if (a->stream_error != NULL)
                g_propagate_error(err, g_error_copy(a->stream_error));
            else
                g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO,
                            "the assembly area was asked for a chunk of container %u its plan does not hold",
                            ref->container);
            return NULL;
        }
    }
}

static const uint8_t *read_chunk(ChunkSource *self, const ChunkRef *ref, GError **mismatch, GError **err)
{
    Assembly *a = (Assembly *)self;
    g_assert(!a->ids_only);
    Placed *p = find(a, ref, err);
    if (p == NULL)
        return NULL;
    if (p->error != NULL) {
        g_propagate_error(p->damage ? mismatch : err, g_error_copy(p->error));
        return NULL;
    }
    g_assert(p->bytes != NULL);
    return p->bytes;
}

static gboolean touch_chunk(ChunkSource *self, const ChunkRef *ref, GError **err)
{
    Assembly *a = (Assembly *)self;
    Placed *p = find(a, ref, err);
    if (p != NULL && p->error != NULL)
        g_propagate_error(err, g_error_copy(p->error));
    return p != NULL && p->error == NULL;
}

/* The chunks not served yet are assembled again, reading their containers. */
static void clear(ChunkSource *self)
{
    Assembly *a = (Assembly *)self;
    for (guint i = a->next; i < a->placed->len; i++)
        let_go(&g_array_index(a->placed, Placed, i));
}

static uint64_t fetches(const ChunkSource *self)
{
    return ((const Assembly *)self)->fetches;
}

static void free_area(ChunkSource *self)
{
    Assembly *a = (Assembly *)self;
    release_before(a, a->placed->len);
    g_array_unref(a->placed);
    g_clear_error(&a->stream_error);
    chunk_stream_free(a->future);
    container_buffer_free(a->buf);
    g_free(a);
}

ChunkSource *assembly_area_new(ContainerSource *src, guint area_containers, ChunkStream *future, gboolean ids_only)
{
    g_assert(area_containers > 0);
    Assembly *a = g_new0(Assembly, 1);
    a->chunks = (ChunkSource){ .read = read_chunk, .touch = touch_chunk, .clear = clear, .fetches = fetches,
                               .free = free_area };
    a->src = src;
    a->future = future;
    a->ids_only = ids_only;
    a->area_size = (size_t)area_containers * src->container_size;
    if (!ids_only)
        a->buf = container_buffer_new(src->container_size);
    a->placed = g_array_new(FALSE, FALSE, sizeof(Placed));
    return &a->chunks;
}
