/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_object.c: whole objects and omaps (rados_object.h). */
#include "storage/rados_object.h"

#include <errno.h>
#include <string.h>

/* Bytes rados_object_get reads with the object's size. */
#define OBJECT_FIRST_READ (64u << 10)
/* Omap entries asked for per read. */
#define OMAP_BATCH 1024

static gboolean failed(RadosCluster *c, int r, const char *what, const char *oid, GError **err)
{
    char *shown = g_strdup_printf("%s (object %s)", what, oid);
    rados_cluster_error(c, err, r, shown);
    g_free(shown);
    return FALSE;
}

gboolean rados_object_put(RadosCluster *c, const char *oid, const void *data, size_t len, GError **err)
{
    const char *bytes = data;
    size_t off = 0;
    do {
        size_t piece = MIN(len - off, (size_t)RADOS_OBJECT_PIECE);
        rados_write_op_t op = rados_create_write_op();
        if (off == 0)
            rados_write_op_write_full(op, bytes, piece);
        else
            rados_write_op_write(op, bytes + off, piece, off);
        int r = rados_write_op_operate(op, c->io, oid, NULL, 0);
        rados_release_write_op(op);
        if (r < 0)
            return failed(c, r, "write", oid, err);
        off += piece;
    } while (off < len);
    return TRUE;
}

gboolean rados_object_get(RadosCluster *c, const char *oid, uint8_t **data, size_t *len, gboolean *found,
                          GError **err)
{
    /* one operation: the size and the first bytes (most metadata objects whole) */
    uint64_t size = 0;
    time_t mtime;
    size_t got = 0;
    int stat_r = 0, read_r = 0;
    uint8_t *buf = g_malloc(OBJECT_FIRST_READ);
    rados_read_op_t op = rados_create_read_op();
    rados_read_op_stat(op, &size, &mtime, &stat_r);
    rados_read_op_read(op, 0, OBJECT_FIRST_READ, (char *)buf, &got, &read_r);
    int r = rados_read_op_operate(op, c->io, oid, 0);
    rados_release_read_op(op);
    r = r < 0 ? r : stat_r < 0 ? stat_r : read_r;
    *data = NULL;
    *len = 0;
    *found = r != -ENOENT;
    if (r == -ENOENT || r < 0) {
        g_free(buf);
        return r == -ENOENT || failed(c, r, "read", oid, err);
    }
    buf = g_realloc(buf, MAX(size, 1));
    for (uint64_t off = got; off < size;) {
        size_t piece = (size_t)MIN(size - off, (uint64_t)RADOS_OBJECT_PIECE);
        int n = rados_read(c->io, oid, (char *)buf + off, piece, off);
        if (n <= 0) {
            g_free(buf);
            if (n == 0)
                n = -EIO; /* shorter than its stat said: changed under us */
            return failed(c, n, "read", oid, err);
        }
        off += (uint64_t)n;
    }
    *data = buf;
    *len = (size_t)size;
    return TRUE;
}

gboolean rados_object_remove(RadosCluster *c, const char *oid, GError **err)
{
    int r = rados_remove(c->io, oid);
    return r == 0 || r == -ENOENT || failed(c, r, "remove", oid, err);
}

static rados_write_op_t omap_op(gboolean clear, const char *const *keys, const size_t *key_lens,
                                const char *const *vals, const size_t *val_lens, size_t n)
{
    rados_write_op_t op = rados_create_write_op();
    rados_write_op_create(op, LIBRADOS_CREATE_IDEMPOTENT, NULL);
    if (clear)
        rados_write_op_omap_clear(op);
    if (n > 0)
        rados_write_op_omap_set2(op, keys, vals, key_lens, val_lens, n);
    return op;
}

gboolean rados_omap_put(RadosCluster *c, const char *oid, gboolean clear, const char *const *keys,
                        const size_t *key_lens, const char *const *vals, const size_t *val_lens, size_t n,
                        GError **err)
{
    rados_write_op_t op = omap_op(clear, keys, key_lens, vals, val_lens, n);
    int r = rados_write_op_operate(op, c->io, oid, NULL, 0);
    rados_release_write_op(op);
    return r == 0 || failed(c, r, "write the omap", oid, err);
}

gboolean rados_omap_puts_many(RadosCluster *c, const RadosOmapWrite *w, size_t n, GError **err)
{
    gboolean ok = TRUE;
    for (size_t first = 0; first < n; first += RADOS_OMAP_IN_FLIGHT) {
        size_t wave = MIN(n - first, (size_t)RADOS_OMAP_IN_FLIGHT);
        rados_write_op_t ops[RADOS_OMAP_IN_FLIGHT];
        rados_completion_t done[RADOS_OMAP_IN_FLIGHT];
        int started[RADOS_OMAP_IN_FLIGHT];
        for (size_t i = 0; i < wave; i++) {
            const RadosOmapWrite *o = &w[first + i];
            ops[i] = omap_op(o->clear, o->keys, o->key_lens, o->vals, o->val_lens, o->n);
            rados_aio_create_completion2(NULL, NULL, &done[i]);
            started[i] = ok ? rados_aio_write_op_operate(ops[i], c->io, done[i], o->oid, NULL, 0) : -ECANCELED;
            if (started[i] < 0 && ok)
                ok = failed(c, started[i], "write the omap", o->oid, err);
        }
        for (size_t i = 0; i < wave; i++) {
            if (started[i] == 0) {
                rados_aio_wait_for_complete(done[i]);
                int r = rados_aio_get_return_value(done[i]);
                if (r < 0 && ok)
                    ok = failed(c, r, "write the omap", w[first + i].oid, err);
            }
            rados_aio_release(done[i]);
            rados_release_write_op(ops[i]);
        }
        if (!ok)
            break;
    }
    return ok;
}

gboolean rados_omap_put_new(RadosCluster *c, const char *oid, const char *guard, const char *const *keys,
                            const size_t *key_lens, const char *const *vals, const size_t *val_lens, size_t n,
                            gboolean *taken, GError **err)
{
    int cmp = 0;
    rados_write_op_t op = rados_create_write_op();
    rados_write_op_create(op, LIBRADOS_CREATE_IDEMPOTENT, NULL);
    /* an absent key compares as an empty value; a set one never is */
    rados_write_op_omap_cmp(op, guard, LIBRADOS_CMPXATTR_OP_EQ, "", 0, &cmp);
    rados_write_op_omap_set2(op, keys, vals, key_lens, val_lens, n);
    int r = rados_write_op_operate(op, c->io, oid, NULL, 0);
    rados_release_write_op(op);
    *taken = r == -ECANCELED;
    return r == 0 || *taken || failed(c, r, "write the omap", oid, err);
}

gboolean rados_omap_each(RadosCluster *c, const char *oid, RadosOmapFn fn, void *ctx, gboolean *found,
                         GError **err)
{
    char *after = g_strdup("");
    gboolean ok = TRUE;
    unsigned char more = 1;
    *found = TRUE;
    while (ok && more) {
        rados_read_op_t op = rados_create_read_op();
        rados_omap_iter_t iter = NULL;
        int prval = 0;
        rados_read_op_omap_get_vals2(op, after, "", OMAP_BATCH, &iter, &more, &prval);
        int r = rados_read_op_operate(op, c->io, oid, 0);
        if (r == 0)
            r = prval;
        if (r == -ENOENT) {
            *found = FALSE;
            more = 0;
        } else if (r < 0) {
            ok = failed(c, r, "read the omap", oid, err);
        } else {
            char *key, *val;
            size_t key_len, val_len;
            while (ok && rados_omap_get_next2(iter, &key, &val, &key_len, &val_len) == 0 && key != NULL) {
                ok = fn(key, key_len, (const uint8_t *)val, val_len, ctx, err);
                g_free(after);
                after = g_strndup(key, key_len);
            }
        }
        if (iter != NULL)
            rados_omap_get_end(iter);
        rados_release_read_op(op);
    }
    g_free(after);
    return ok;
}
