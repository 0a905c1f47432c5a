/* SPDX-License-Identifier: GPL-3.0-or-later */
/* id_source.c: container accesses as ids alone. */
#include "read/id_source.h"
#include "util/error.h"

#include <string.h>

static gboolean id_source_read(ContainerSource *src, ContainerId id, uint8_t *buf, GError **err)
{
    IdSource *s = (IdSource *)src;
    g_assert(buf == NULL);
    if (id >= s->n_containers) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u does not exist (the store holds %u)", id,
                    s->n_containers);
        return FALSE;
    }
    if (s->log != NULL)
        g_array_append_val(s->log, id);
    return TRUE;
}

void id_source_init(IdSource *s, size_t container_size, uint32_t n_containers, GArray *log)
{
    memset(s, 0, sizeof *s);
    s->source.read = id_source_read;
    s->source.container_size = container_size;
    s->n_containers = n_containers;
    s->log = log;
}
