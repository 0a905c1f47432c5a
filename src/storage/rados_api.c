/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rados_api.c: librados loaded on first use (rados_api.h says why). */
#include "storage/rados_api.h"

#include "util/error.h"

#include <dlfcn.h>

/* librados's soname: its ABI has been 2 since the C API began. */
#define RADOS_API_LIBRARY "librados.so.2"

RadosApi rados_api;

static gboolean load_once(GError **err)
{
    if (dlopen(RADOS_API_LIBRARY, RTLD_NOW | RTLD_GLOBAL) == NULL) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "container-store rados needs librados: %s (apt-get install librados2)", dlerror());
        return FALSE;
    }
    /* RTLD_DEFAULT: a library preloaded in front of librados is found first */
#define RADOS_API_FIND(name)                                                                                   \
    rados_api.name = (__typeof__(rados_api.name))dlsym(RTLD_DEFAULT, #name);                                 \
    if (rados_api.name == NULL) {                                                                              \
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "%s has no %s: librados too old", RADOS_API_LIBRARY, \
                    #name);                                                                                    \
        return FALSE;                                                                                          \
    }
    RADOS_API_FUNCTIONS(RADOS_API_FIND)
#undef RADOS_API_FIND
    return TRUE;
}

gboolean rados_api_load(GError **err)
{
    static gsize done;
    static GError *failure;
    static gboolean loaded;
    if (g_once_init_enter(&done)) {
        loaded = load_once(&failure);
        g_once_init_leave(&done, 1);
    }
    if (!loaded && err != NULL)
        *err = g_error_copy(failure);
    return loaded;
}
