/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_cluster.c: connecting to the cluster of a `rados` store (rados_cluster.h). */
#include "storage/rados_cluster.h"
#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void rados_cluster_error(const RadosCluster *c, GError **err, int r, const char *what)
{
    g_assert(r < 0);
    if (r == -ETIMEDOUT)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "%s in %s: no answer from the Ceph cluster within %u s",
                    what, c->shown, c->timeout);
    else
        destor_set_errno(err, -r, "%s in %s", what, c->shown);
}

/* The options librados reads after the conf file, so that destor's bounds
 * hold whatever the file says, the one `destor:` line stays the only thing
 * on stderr (librados's own log goes where the conf sends it), and no
 * admin socket is made (a short-lived client needs none, and one shared
 * by name with another client blocks both). */
static int set_options(rados_t cluster, unsigned timeout)
{
    char secs[16];
    snprintf(secs, sizeof secs, "%u", timeout);
    static const char *const timeouts[] = { "client_mount_timeout", "rados_mon_op_timeout", "rados_osd_op_timeout" };
    int r = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(timeouts) && r == 0; i++)
        r = rados_conf_set(cluster, timeouts[i], secs);
    if (r == 0)
        r = rados_conf_set(cluster, "log_to_stderr", "false");
    if (r == 0)
        r = rados_conf_set(cluster, "err_to_stderr", "false");
    if (r == 0)
        r = rados_conf_set(cluster, "admin_socket", "");
    return r;
}

gboolean rados_cluster_connect(RadosCluster *c, const ContainerStoreRados *target, GError **err)
{
    g_assert(target->conf != NULL && target->pool != NULL && target->ns != NULL && target->timeout > 0);
    memset(c, 0, sizeof *c);
    c->timeout = target->timeout;
    c->shown = g_strdup_printf("RADOS pool %s namespace '%s'", target->pool, target->ns);
    if (!g_file_test(target->conf, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "rados-conf %s: no such file", target->conf);
        return FALSE;
    }
    if (!rados_api_load(err))
        return FALSE;
    int r = rados_create(&c->cluster, NULL);
    if (r < 0) {
        c->cluster = NULL;
        destor_set_errno(err, -r, "create a RADOS client");
        return FALSE;
    }
    r = rados_conf_read_file(c->cluster, target->conf);
    if (r < 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "rados-conf %s cannot be used: %s", target->conf,
                    g_strerror(-r));
        return FALSE;
    }
    r = set_options(c->cluster, target->timeout);
    if (r < 0) {
        destor_set_errno(err, -r, "set the RADOS client's timeouts");
        return FALSE;
    }
    r = rados_connect(c->cluster);
    if (r < 0) {
        char *what = g_strdup_printf("connect to the Ceph cluster of %s", target->conf);
        rados_cluster_error(c, err, r, what);
        g_free(what);
        return FALSE;
    }
    r = rados_ioctx_create(c->cluster, target->pool, &c->io);
    if (r == -ENOENT) {
        c->io = NULL;
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "rados-pool %s: no such pool in the Ceph cluster of %s",
                    target->pool, target->conf);
        return FALSE;
    }
    if (r < 0) {
        c->io = NULL;
        rados_cluster_error(c, err, r, "open the pool");
        return FALSE;
    }
    rados_ioctx_set_namespace(c->io, target->ns);
    return TRUE;
}

void rados_cluster_close(RadosCluster *c)
{
    if (c->io != NULL)
        rados_ioctx_destroy(c->io);
    if (c->cluster != NULL)
        rados_shutdown(c->cluster);
    g_free(c->shown);
    memset(c, 0, sizeof *c);
}
