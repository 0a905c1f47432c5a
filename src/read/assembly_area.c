/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assembly_area.c: area-fulls of chunks, each container read once per area. */
#include "read/assembly_area.h"
#include "storage/container.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    ChunkRef ref;
    size_t at;       /* where its bytes are in the area */
    GError *error;   /* its bytes could not be had */
    gboolean damage; /* error is a mismatch (the stored bytes are not the chunk) */
    gboolean ready;  /* its container was read: its bytes (or error) are here */
} Placed;

typedef struct {
    ChunkSource chunks;
    ContainerSource *src;
    ChunkStream *future;
    gboolean ids_only;
    uint8_t *area, *buf;
    size_t area_size;
    GArray *placed;  /* Placed, the chunks of the current area in read order */
    guint next;      /* the first of them not read yet */
    GArray *order;   /* guint: for each container the area needs, in the order of
                        first need, the index of its first chunk */
    guint loaded;    /* containers of `order` read so far */
    ChunkRef pending; /* read from the stream, not placed: the next area's first */
    gboolean has_pending, ended;
    uint64_t fetches;
} Assembly;

static void drop_area(Assembly *a)
{
    for (guint i = 0; i < a->placed->len; i++)
        g_clear_error(&g_array_index(a->placed, Placed, i).error);
    g_array_set_size(a->placed, 0);
    g_array_set_size(a->order, 0);
    a->next = 0;
    a->loaded = 0;
}

/* The next area-full of chunks from the stream, placed, not loaded. */
static gboolean plan_area(Assembly *a, GError **err)
{
    drop_area(a);
    size_t used = 0;
    while (!a->ended) {
        ChunkRef ref;
        if (a->has_pending) {
            ref = a->pending;
            a->has_pending = FALSE;
        } else {
            GError *local = NULL;
            if (!chunk_stream_next(a->future, &ref, &local)) {
                a->ended = TRUE;
                if (local != NULL) {
                    drop_area(a); /* nothing of a cut area is served */
                    g_propagate_error(err, local);
                    return FALSE;
                }
                break;
            }
        }
        if (used + ref.length > a->area_size && a->placed->len > 0) {
            a->pending = ref;
            a->has_pending = TRUE;
            break;
        }
        /* a chunk is shorter than a container, the area at least one */
        g_assert(ref.length <= a->area_size);
        Placed p = { .ref = ref, .at = used };
        g_array_append_val(a->placed, p);
        used += ref.length;
    }
    return TRUE;
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
    memcpy(a->area + p->at, a->buf + p->ref.offset, p->ref.length);
}

/* The containers the chunks [from, end) need, in the order of first need,
 * none read yet. */
static void order_containers(Assembly *a, guint from)
{
    Placed *placed = (Placed *)(void *)a->placed->data;
    GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_array_set_size(a->order, 0);
    a->loaded = 0;
    for (guint i = from; i < a->placed->len; i++) {
        g_clear_error(&placed[i].error);
        placed[i].ready = FALSE;
        if (g_hash_table_add(seen, GUINT_TO_POINTER(placed[i].ref.container)))
            g_array_append_val(a->order, i);
    }
    g_hash_table_destroy(seen);
}

/* Read the next container of `order` once and copy every chunk of the
 * area it holds into place. A container that cannot be read marks its
 * chunks; the reads come to them in turn. */
static void load_next(Assembly *a)
{
    g_assert(a->loaded < a->order->len);
    Placed *placed = (Placed *)(void *)a->placed->data;
    guint first = g_array_index(a->order, guint, a->loaded++);
    ContainerId id = placed[first].ref.container;
    GError *failed = NULL;
    a->fetches++;
    gboolean ok = a->ids_only ? container_source_read(a->src, id, NULL, &failed)
                              : container_source_read_buffer(a->src, id, &a->buf, &failed);
    gboolean reread = FALSE;
    for (guint k = first; k < a->placed->len; k++) {
        if (placed[k].ref.container != id)
            continue;
        if (!ok)
            set_problem(&placed[k], failed, FALSE);
        else if (!a->ids_only)
            copy_chunk(a, &placed[k], &reread);
        placed[k].ready = TRUE;
    }
    g_clear_error(&failed);
}

/* Chunk p's bytes in place: the containers are read in the order of first
 * need, as far as p's, so the reads interleave with the writes of the
 * chunks they complete (a prefetcher reads ahead meanwhile). */
static void ready(Assembly *a, Placed *p)
{
    while (!p->ready)
        load_next(a);
}

static gboolean same_chunk(const ChunkRef *x, const ChunkRef *y)
{
    return x->container == y->container && x->offset == y->offset && x->length == y->length &&
           fingerprint_equal(&x->fp, &y->fp);
}

/* The placed chunk `ref` names, the area assembled; chunks the reader
 * skipped are passed over. NULL with *err set when the stream fails or
 * ends without it (the reader asked for a chunk out of its plan). */
static Placed *find(Assembly *a, const ChunkRef *ref, GError **err)
{
    for (;;) {
        for (guint i = a->next; i < a->placed->len; i++) {
            Placed *p = &g_array_index(a->placed, Placed, i);
            if (same_chunk(&p->ref, ref)) {
                a->next = i + 1;
                ready(a, p);
                return p;
            }
        }
        if (!plan_area(a, err))
            return NULL;
        order_containers(a, 0);
        if (a->placed->len == 0) {
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
    return a->area + p->at;
}

static gboolean touch_chunk(ChunkSource *self, const ChunkRef *ref, GError **err)
{
    Assembly *a = (Assembly *)self;
    Placed *p = find(a, ref, err);
    if (p != NULL && p->error != NULL)
        g_propagate_error(err, g_error_copy(p->error));
    return p != NULL && p->error == NULL;
}

/* The chunks not read yet are assembled again, reading their containers. */
static void clear(ChunkSource *self)
{
    Assembly *a = (Assembly *)self;
    order_containers(a, a->next);
}

static uint64_t fetches(const ChunkSource *self)
{
    return ((const Assembly *)self)->fetches;
}

static void free_area(ChunkSource *self)
{
    Assembly *a = (Assembly *)self;
    drop_area(a);
    g_array_unref(a->placed);
    g_array_unref(a->order);
    chunk_stream_free(a->future);
    g_free(a->area);
    g_free(a->buf);
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
    if (!ids_only) {
        a->area = g_malloc(a->area_size);
        a->buf = g_malloc(src->container_size);
    }
    a->placed = g_array_new(FALSE, FALSE, sizeof(Placed));
    a->order = g_array_new(FALSE, FALSE, sizeof(guint));
    return &a->chunks;
}
